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
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

#: The course's folders, as laid out in the repository and in DIR.
PARTS = ("lessons", "notebooks", "assets", "examples")
FIRST_NOTEBOOK = "notebooks/01-derivatives.ipynb"
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
    """Every course file, relative to the source folder (``lessons/01-derivatives.md`` …)."""
    root = course_source() if source is None else source
    found = []
    for part in PARTS:
        for path in sorted((root / part).rglob("*")):
            if path.is_file() and not _is_clutter(path):
                found.append(path.relative_to(root))
    return found


def _is_clutter(path: Path) -> bool:
    return any(piece.startswith(".") or piece == "__pycache__" for piece in path.parts) \
        or path.suffix in (".pyc", ".bak")


@dataclass
class CopyReport:
    written: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)  # already there: the student's, untouched


def write_course(folder: str | Path, source: Path | None = None) -> CopyReport:
    """Copy every course file into ``folder``; existing files are never overwritten."""
    root = course_source() if source is None else source
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"{target} exists and is not a folder")
    report = CopyReport()
    for relative in course_files(root):
        destination = target / relative
        if destination.exists() or destination.is_symlink():
            report.kept.append(relative)
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        try:  # exclusive create: a file that appeared meanwhile is still not overwritten
            with open(destination, "xb") as out, open(root / relative, "rb") as data:
                shutil.copyfileobj(data, out)
        except FileExistsError:
            report.kept.append(relative)
            continue
        report.written.append(relative)
    return report


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
    parser.add_argument("--no-open", action="store_true",
                        help="only write the files; do not start JupyterLab")
    # JupyterLab's usual options, for a remote machine or a JupyterHub; any other
    # --ServerApp.* / --LabApp.* option is passed through as well (see minigrad.cli).
    parser.add_argument("--no-browser", action="store_true",
                        help="start JupyterLab without opening a browser (print its URL)")
    parser.add_argument("--port", type=int, metavar="N", help="JupyterLab's port")
    parser.add_argument("--ip", metavar="ADDRESS",
                        help="the address JupyterLab listens on (e.g. 0.0.0.0 on a remote machine)")


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
    try:
        in_place = folder == course_source().resolve()  # `make course` in a clone
        report = CopyReport() if in_place else write_course(folder)
    except (OSError, FileNotFoundError) as error:
        print(f"minigrad course: {error}", file=sys.stderr)
        return 2
    print(f"course folder: {folder}")
    if in_place:
        print("  the course's own folder: nothing to copy")
    else:
        print(f"  wrote {len(report.written)} files", end="")
        print(f"; kept {len(report.kept)} files already there (never overwritten)"
              if report.kept else "")
    if args.no_open:
        print(f"open it with: jupyter lab --ServerApp.root_dir={folder} "
              f"--LabApp.default_url={first_page_url()}")
        return 0
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        print("minigrad course: JupyterLab is not installed; `pip install jupyterlab`, then run "
              "this command again (your files are kept).", file=sys.stderr)
        return 1
    print("starting JupyterLab (Ctrl-C stops it; run other commands in a second terminal)",
          flush=True)
    server = subprocess.Popen(jupyter_lab_command(folder, jupyter_options(args)))
    while True:
        try:
            return server.wait()
        except KeyboardInterrupt:  # JupyterLab got the Ctrl-C too: it asks, then shuts down
            continue
