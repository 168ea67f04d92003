"""`minigrad course [DIR]`: copy the course (readings, notebooks, figures, example scripts) into DIR
and open it.

For a student who installed minigrad with pip and has no copy of the repository. The wheel
carries ``lessons/``, ``notebooks/``, ``assets/`` and ``examples/`` as package data under
``minigrad/course_files/`` (copied there at build time by ``setup.py``; the repository keeps
them at its top level). From a source checkout (``pip install -e .``) the files are read
straight from the repository.

The copy never overwrites anything: a file that already exists in DIR — a notebook the student
has worked in, say — is left exactly as it is and listed as kept. JupyterLab then opens at DIR,
on the first notebook, so the readings (rendered Markdown), figures and notebooks are all
reachable from its file browser.

``--lang zh`` writes the Chinese course: each reading and each notebook's Markdown cells
through the catalogs of :mod:`minigrad.i18n` (code cells byte for byte the English ones), the
figures with Chinese labels where the course has them (``assets/zh/``, under the English
names, so the readings' links are the same), the example scripts as they are, and a file
``.minigrad-lang`` holding ``zh``: ``check()`` in those notebooks speaks Chinese however
JupyterLab is started later, and the JupyterLab this command starts gets ``MINIGRAD_LANG=zh``.
Without ``--lang`` the course's language is DIR's own (its ``.minigrad-lang``), else
:func:`minigrad.i18n.current` (``MINIGRAD_LANG``, then the locale: ``LANG=zh_CN.UTF-8`` gives
the Chinese course), the same rule ``check()`` follows.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from minigrad.i18n import documents
from minigrad.i18n.cli_text import line
from minigrad.i18n.language import (LANGUAGES, MARKER, current, language_argument, mark_folder,
                                     resolve)

#: The course's folders, as laid out in the repository and in DIR.
PARTS = ("lessons", "notebooks", "assets", "examples")
FIRST_NOTEBOOK = "notebooks/01-derivatives.ipynb"
#: Figures with words, drawn with Chinese labels (``minigrad figures --lang zh``): the Chinese
#: course takes ``assets/zh/NAME`` in place of ``assets/NAME``.
LOCALIZED_ASSETS = "assets/{language}"
_PACKAGED = Path(__file__).resolve().parents[1] / "course_files"
_CHECKOUT = Path(__file__).resolve().parents[2]


def course_source() -> Path:
    """The folder holding ``lessons/``, ``notebooks/`` and ``assets/``: packaged or checkout."""
    for root in (_PACKAGED, _CHECKOUT):
        if all((root / part).is_dir() for part in PARTS):
            return root
    raise FileNotFoundError(
        f"the course files are missing: looked for {', '.join(PARTS)} in {_PACKAGED} and "
        f"{_CHECKOUT}. Reinstall minigrad from a wheel or sdist (pip install --force-reinstall "
        "minigrad-course), or run from a clone of the repository.")


def course_files(source: Path | None = None) -> list[Path]:
    """Every course file, relative to the source folder (``lessons/01-derivatives.md`` …);
    the other languages' figures (``assets/zh/``) are not files of a course of their own."""
    root = course_source() if source is None else source
    localized = {Path(LOCALIZED_ASSETS.format(language=code)) for code in LANGUAGES}
    found = []
    for part in PARTS:
        for path in sorted((root / part).rglob("*")):
            relative = path.relative_to(root)
            if path.is_file() and not _is_clutter(path) and relative.parent not in localized:
                found.append(relative)
    return found


def course_text(root: Path, relative: Path, language: str) -> bytes:
    """The bytes of the course file ``relative`` in ``language``: a reading or a notebook
    translated block by block (:mod:`minigrad.i18n.documents`), a figure from
    ``assets/<language>/`` when the course has one with that language's labels; any other
    file, and everything in English, as it is."""
    source = root / relative
    if language == "en":
        return source.read_bytes()
    if relative.parts[0] == "lessons" and relative.suffix == ".md":
        text = documents.reading(source.read_text(encoding="utf-8"), relative.stem, language)
        return text.encode("utf-8")
    if relative.parts[0] == "notebooks" and relative.suffix == ".ipynb":
        notebook = json.loads(source.read_text(encoding="utf-8"))
        translated = documents.notebook(notebook, relative.stem, language)
        return (json.dumps(translated, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    if relative.parts[0] == "assets":
        drawn = root / LOCALIZED_ASSETS.format(language=language) / relative.relative_to("assets")
        if drawn.is_file():
            return drawn.read_bytes()
    return source.read_bytes()


def _is_clutter(path: Path) -> bool:
    return any(piece.startswith(".") or piece == "__pycache__" for piece in path.parts) \
        or path.suffix in (".pyc", ".bak")


@dataclass
class CopyReport:
    written: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)  # already there: the student's, untouched


def write_course(folder: str | Path, source: Path | None = None,
                 language: str = "en") -> CopyReport:
    """Write every course file into ``folder`` in ``language`` ("en" or "zh"); existing files
    are never overwritten. A course in another language than English also gets the marker
    ``.minigrad-lang`` (unless one is there), which makes ``check()`` speak it in ``folder``."""
    root = course_source() if source is None else source
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"{target} exists and is not a folder")
    language = resolve(language)
    report = CopyReport()
    for relative in course_files(root):
        destination = target / relative
        if destination.exists() or destination.is_symlink():
            report.kept.append(relative)
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        try:  # exclusive create: a file that appeared meanwhile is still not overwritten
            with open(destination, "xb") as out:
                out.write(course_text(root, relative, language))
        except FileExistsError:
            report.kept.append(relative)
            continue
        report.written.append(relative)
    mark_folder(target, language)
    return report


def folder_language(folder: Path) -> str | None:
    """The language ``folder``'s marker ``.minigrad-lang`` names (``None``: no marker)."""
    try:
        return resolve((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def course_server_options() -> list[str]:
    """JupyterLab settings for the course: no pop-up asking about Jupyter news over the
    lesson, no update check (both would reach for the network), and on Linux and macOS the
    kernel talks to the server over local sockets (ipc) instead of TCP, so its log does not
    warn at every kernel start that TCP traffic is not encrypted."""
    options = ["--LabApp.news_url=None",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if os.name == "posix":
        options.append("--KernelManager.transport=ipc")
    return options


def first_page_url() -> str:
    """JupyterLab's address of the first notebook, relative to the server: ``/lab/tree/…``.

    As the server's default URL it is the page the browser opens and the URL JupyterLab
    prints (``http://localhost:8888/lab/tree/notebooks/01-derivatives.ipynb?token=…``), so a
    student who copies the printed link lands on notebook 01 too, not on the Launcher."""
    return "/lab/tree/" + FIRST_NOTEBOOK


def jupyter_lab_environment(language: str) -> dict[str, str]:
    """JupyterLab's environment: this one, with ``MINIGRAD_LANG`` set to the course's
    language, so its kernels' ``check()`` speaks it wherever a notebook is opened from."""
    return {**os.environ, "MINIGRAD_LANG": language}


def jupyter_lab_command(folder: Path, options: Sequence[str] = ()) -> list[str]:
    """The command that opens JupyterLab rooted at ``folder``, on the first notebook;
    ``options`` are JupyterLab's own (``--no-browser``, ``--port=8890``, ``--ServerApp.…``)
    and come last, so a ``--LabApp.default_url`` given there wins over the course's."""
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={folder}",
               f"--LabApp.default_url={first_page_url()}", *course_server_options(), *options]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # containers and cloud machines often run as root
    return command


# ------------------------------------------------------------------ command line
COURSE_HELP = "copy the lessons, notebooks and figures into a folder and open them in JupyterLab"


def add_course_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", nargs="?", default="minigrad-course", metavar="DIR",
                        help="where to put the course (default: ./minigrad-course); files "
                             "already there are never overwritten")
    parser.add_argument("--lang", metavar="LANG", type=language_argument,
                        help="the course's language: en (English) or zh (中文, Simplified "
                             "Chinese: readings, notebook text, figures and check() messages). "
                             "Default: the language of a course already in DIR, else "
                             "MINIGRAD_LANG, else the locale (LANG=zh_CN.UTF-8 gives zh), "
                             "else en")
    parser.add_argument("--no-open", action="store_true",
                        help="only write the files; do not start JupyterLab")
    # JupyterLab's usual options, for a remote machine or a JupyterHub; any other
    # --ServerApp.* / --LabApp.* option is passed through as well (see minigrad.cli).
    parser.add_argument("--no-browser", action="store_true",
                        help="start JupyterLab without opening a browser (print its URL)")
    parser.add_argument("--port", type=int, metavar="N", help="JupyterLab's port")
    parser.add_argument("--ip", metavar="ADDRESS",
                        help="the address JupyterLab listens on (e.g. 0.0.0.0 on a remote machine)")


def course_language(folder: Path, chosen: str | None) -> str:
    """The language to write ``folder``'s course in: ``chosen`` (``--lang``), else the one
    of a course already there, else :func:`minigrad.i18n.current`."""
    return chosen or folder_language(folder) or current()


#: Options passed to JupyterLab as they are: its configurable classes, ``--ServerApp.port=…``.
JUPYTER_OPTION = re.compile(r"--[A-Z][A-Za-z]*\.[A-Za-z_]\w*(=.*)?")


def jupyter_options(args: argparse.Namespace) -> list[str]:
    """JupyterLab's options from ``minigrad course``'s command line."""
    options = ["--no-browser"] if getattr(args, "no_browser", False) else []
    if getattr(args, "port", None) is not None:
        options.append(f"--port={args.port}")
    if getattr(args, "ip", None):
        options.append(f"--ip={args.ip}")
    return options + list(getattr(args, "jupyter_options", []))


def run_course(args: argparse.Namespace) -> int:
    folder = Path(args.folder).expanduser().resolve()
    chosen = getattr(args, "lang", None)
    try:
        in_place = folder == course_source().resolve()  # `make course` in a clone
        if in_place and chosen not in (None, "en"):
            raise ValueError(
                f"{folder} holds the English source of the course, which is never rewritten; "
                f"write the {LANGUAGES[chosen]} course into a folder of its own: minigrad course "
                f"DIR --lang {chosen} (make course COURSE_LANG={chosen} writes course-{chosen}/)")
        language = "en" if in_place else course_language(folder, chosen)
        there = None if in_place else folder_language(folder)
        if there is not None and there != language:
            raise ValueError(
                f"{folder} holds the {LANGUAGES[there]} course ({MARKER}: {there}); its files "
                f"are never overwritten, so write the {LANGUAGES[language]} one into another "
                "folder")
        report = CopyReport() if in_place else write_course(folder, language=language)
    except (OSError, ValueError) as error:
        print(f"minigrad course: {error}", file=sys.stderr)
        return 2
    print(line("course folder: {folder}  ({speaks})", language, folder=folder,
               speaks=LANGUAGES[language]))
    if in_place:
        print(line("  the course's own folder: nothing to copy", language))
    else:
        print(line("  wrote {count} files", language, count=len(report.written)), end="")
        print(line("; kept {count} files already there (never overwritten)", language,
                   count=len(report.kept)) if report.kept else "")
    if args.no_open:
        print(line("open it with: {command}", language,
                   command=f"jupyter lab --ServerApp.root_dir={folder} "
                           f"--LabApp.default_url={first_page_url()}"))
        return 0
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        print("minigrad course: JupyterLab is not installed; `pip install jupyterlab`, then run "
              "this command again (your files are kept).", file=sys.stderr)
        return 1
    print(line("starting JupyterLab (Ctrl-C stops it; run other commands in a second terminal)",
               language), flush=True)
    command = jupyter_lab_command(folder, jupyter_options(args))
    # An English course leaves the language to the environment, as its folder has no marker.
    server = (subprocess.Popen(command) if language == "en" else
              subprocess.Popen(command, env=jupyter_lab_environment(language)))
    while True:
        try:
            return server.wait()
        except KeyboardInterrupt:  # JupyterLab got the Ctrl-C too: it asks, then shuts down
            continue
