"""The figure registry: every picture the readings show, by the file it is saved as.

A figure is a function that writes one file; the :func:`figure` decorator registers it under
its file name. Each lesson's module (``minigrad/figures/lessonNN.py``, listed in
:data:`FIGURE_MODULES`) registers its own::

    @figure("lesson03_jacobians.png", lesson=3, description="…")
    def _lesson03_jacobians(path: Path) -> None:
        save_png(fig, path)

:func:`make_figures` writes them (``minigrad figures --to assets``); the readings embed
``../assets/<file>``.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

#: The modules whose import registers the figures (each uses :func:`figure`).
FIGURE_MODULES: tuple[str, ...] = (
    *(f"minigrad.figures.lesson{number:02d}" for number in range(1, 9)), "minigrad.figures.lecture")

#: Resolution of PNG figures: sharp on a slide, small in the repository.
PNG_DPI = 100


@dataclass(frozen=True)
class Figure:
    """One registered figure: the file it writes and the function that writes it."""

    filename: str
    lesson: int
    description: str
    draw: Callable[[Path], None]
    words: bool = False  # its labels carry words: it is drawn in each language

    @property
    def name(self) -> str:
        """The file name without its suffix, e.g. ``epsilon_error``."""
        return Path(self.filename).stem


#: file name -> Figure, in registration order.
FIGURES: dict[str, Figure] = {}


def figure(filename: str, *, lesson: int, description: str, words: bool = False
           ) -> Callable[[Callable[[Path], None]], Callable[[Path], None]]:
    """Register ``draw(path)`` as the function that writes ``filename`` (``.png`` or ``.svg``);
    ``words``: its labels carry words (through :func:`minigrad.figures.words.words`), so the
    Chinese course has its own drawing of it."""
    if Path(filename).suffix not in (".png", ".svg"):
        raise ValueError(f"a figure must be a .png or .svg file, got {filename!r}")

    def register(draw: Callable[[Path], None]) -> Callable[[Path], None]:
        if filename in FIGURES:
            raise ValueError(f"figure {filename!r} is registered twice")
        FIGURES[filename] = Figure(filename, lesson, description, draw, words)
        return draw

    return register


def find_figures(names: Iterable[str] | None = None) -> list[Figure]:
    """The registered figures named in ``names`` (file name or stem), or all of them."""
    for module in FIGURE_MODULES:
        importlib.import_module(module)
    if names is None:
        return list(FIGURES.values())
    by_name = {**{f.name: f for f in FIGURES.values()}, **FIGURES}
    chosen = []
    for name in names:
        if name not in by_name:
            known = ", ".join(f.name for f in FIGURES.values())
            raise ValueError(f"no figure named {name!r}; the figures are: {known}")
        if by_name[name] not in chosen:
            chosen.append(by_name[name])
    return chosen


def make_figures(folder: str | Path, only: Iterable[str] | None = None,
                 language: str = "en") -> list[Path]:
    """Write the chosen figures (all by default) into ``folder``; return the paths written.

    ``language`` other than English draws only the figures whose labels carry words, in that
    language (``minigrad figures --lang zh --to assets/zh``; the Chinese course takes them in
    place of the English ones, and shares the rest)."""
    chosen = find_figures(only)
    if language != "en":
        chosen = [fig for fig in chosen if fig.words]
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for fig in chosen:
        path = folder / fig.filename
        with _language(language):
            fig.draw(path)
        if not path.is_file() or path.stat().st_size == 0:
            raise RuntimeError(f"figure {fig.filename!r} did not write {path}")
        written.append(path)
    return written


@contextmanager
def _language(language: str) -> Iterator[None]:
    """Draw in ``language``: its words and, for Chinese, the CJK font (then back as it was)."""
    import matplotlib

    from minigrad import i18n
    from minigrad.i18n import language as languages

    before = languages._chosen  # what use() chose, if anything (None: the environment)
    with matplotlib.rc_context():
        i18n.use(language)
        if language != "en":  # before any figure exists: its texts take the font when made
            from minigrad.figures.words import use_cjk_font

            use_cjk_font()
        try:
            yield
        finally:
            i18n.use(before)


def save_png(fig: object, path: Path) -> None:
    """Save a matplotlib figure as a PNG at :data:`PNG_DPI` (no timestamp: the file is reproducible) and close it."""
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=PNG_DPI, metadata={"Software": None})  # type: ignore[attr-defined]
    plt.close(fig)  # type: ignore[arg-type]
