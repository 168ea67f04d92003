"""The words on the course's figures, in the current language (``minigrad.i18n.current()``).

Every title, axis label, legend entry and annotation with words goes through :func:`words`;
``N_`` marks a default argument that a function later passes through ``words``. The English
text is the key of the catalog ``minigrad/i18n/zh/figures.po`` (:func:`figure_texts` lists
every key, and a test fails while one has no Chinese). A ``{name}`` in a text is a number
filled in when the figure is drawn: ``words("accuracy {accuracy}", accuracy="93%")``.

A Chinese text is drawn with the bundled subset of Noto Sans CJK SC
(:mod:`minigrad.i18n.fonts`): Latin letters, digits and maths stay in DejaVu Sans, matplotlib's
own font, and a character it lacks falls back to the CJK font. matplotlib gives a text its font
when the text is made (an axes' title, at the axes' making), so the fallback is set before any
figure: when this module is imported in Chinese (a notebook of the Chinese course), by
:func:`minigrad.figures.make_figures` for ``--lang zh``, and by
:func:`minigrad.figures.slide.draw_slide_figure` for a Chinese deck.
"""

from __future__ import annotations

from pathlib import Path

from minigrad.i18n.documents import text as _translated
from minigrad.i18n.language import current
from minigrad.i18n.source_texts import texts_given_to

CATALOG = "figures"
_FOLDER = Path(__file__).resolve().parent


def N_(text: str) -> str:  # noqa: N802 - gettext's name for "translated later"
    """``text`` itself: marks a default argument as a figure text for :func:`figure_texts`."""
    return text


def words(text: str, **values: object) -> str:
    """``text`` in the current language, its ``{name}`` parts filled from ``values``."""
    language = current()
    shown = _translated(text, CATALOG, language) if language != "en" else text
    if shown != text:
        use_cjk_font()
    return shown.format(**values) if values else shown


def use_cjk_font() -> None:
    """Let matplotlib draw CJK characters: the bundled font (regular and bold) as the fallback
    after DejaVu Sans."""
    import matplotlib
    from matplotlib import font_manager

    from minigrad.i18n.fonts import BOLD, FAMILY, FONT

    if FAMILY not in {font.name for font in font_manager.fontManager.ttflist}:
        font_manager.fontManager.addfont(str(FONT))
        font_manager.fontManager.addfont(str(BOLD))  # bold labels (figures' characters only)
    families = list(matplotlib.rcParams["font.family"])
    if FAMILY not in families:
        if families == ["sans-serif"]:
            families = [matplotlib.rcParams["font.sans-serif"][0]]
        matplotlib.rcParams["font.family"] = [*families, FAMILY]


def figure_texts() -> list[str]:
    """Every figure text (the argument of each ``words("…")`` and ``N_("…")`` call in
    ``minigrad/figures/``), in source order, each once."""
    return list(dict.fromkeys(text for path in sorted(_FOLDER.glob("*.py"))
                              for text in texts_given_to(path, {"words", "N_"})))


if current() != "en":
    use_cjk_font()
