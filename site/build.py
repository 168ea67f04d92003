"""Build the course website: ``python site/build.py`` (what ``make site`` runs).

Two steps. First the Sphinx source is assembled in ``build/site/src`` from the repository:
one page per lesson, which is the reading followed by the lesson notebook (its headings one
level down, under "The notebook"), the figures in ``assets/``, the downloads (the notebook as
students run it, and the exercise file that ``minigrad exercises N`` writes), and a home page
with the lesson table from the catalogue. A file is written only when its text changed, so
Sphinx re-reads only what changed. Then Sphinx (myst-nb, sphinx-book-theme) builds
``build/site/html``, executing each notebook through jupyter-cache (``build/site/cache``): a
rebuild after a change to a reading, or to one cell, runs only what changed. Warnings fail the
build.

Nothing is fetched: MathJax is the copy ``make site`` installed beside the environment
(``MINIGRAD_MATHJAX`` names the file), and the pages load nothing from elsewhere, so the
folder opens from ``file://`` and from any static host.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "site"
BUILD = ROOT / "build" / "site"
MATHJAX_DEFAULT = ROOT / ".venv" / "share" / "mathjax" / "tex-svg-full.js"

sys.path.insert(0, str(ROOT))  # the checkout's minigrad, even from a bare `python site/build.py`
from minigrad.course.catalog import LESSONS, Lesson  # noqa: E402
from minigrad.exercises.authoring.generate import planned_files  # noqa: E402
from minigrad.exercises.authoring.source import student_file_name  # noqa: E402

HEADING = re.compile(r"^(#{1,5}) ", re.MULTILINE)
# What the notebooks' kernels run with (no debugger notice about frozen modules on start-up).
KERNEL_ENV = {"PYDEVD_DISABLE_FILE_VALIDATION": "1"}
KERNEL_TCP_NOTICE = re.compile(r"\[IPKernelApp\] WARNING \| Kernel is running over TCP")


def write_if_changed(path: Path, data: str | bytes) -> None:
    """Write ``path`` only when its content differs, so Sphinx sees no change where none was."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if path.exists() and path.read_bytes() == raw:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)


def demote_headings(markdown: str) -> str:
    """One level down (``## 1.`` becomes ``### 1.``), outside code fences."""
    parts = re.split(r"(^```.*?^```)", markdown, flags=re.MULTILINE | re.DOTALL)
    return "".join(part if part.startswith("```") else HEADING.sub(r"#\1 ", part)
                   for part in parts)


def downloads_line(lesson: Lesson) -> str:
    exercise = student_file_name(lesson)
    return ("**Download:** "
            f"{{download}}`the notebook <../downloads/{lesson.name}.ipynb>` "
            f"(run it in Jupyter: `minigrad course` sets one up) · "
            f"{{download}}`the exercises <../downloads/{exercise}>` "
            f"(grade them with `minigrad grade`)")


def lesson_page(lesson: Lesson, student_notebook: str) -> dict:
    """The reading as the first cell, then the notebook's cells under "The notebook".

    The notebook is the students' form that ``minigrad exercises`` writes: every exercise a
    stub, whatever the repository's copy holds. Its code cells are kept as they are, so
    jupyter-cache keeps their results when only the reading changes.
    """
    reading = (ROOT / "lessons" / f"{lesson.name}.md").read_text(encoding="utf-8")
    notebook = json.loads(student_notebook)
    title, _, body = reading.partition("\n")
    cells = [_markdown(f"{title}\n\n{downloads_line(lesson)}\n{body}", "reading")]
    for index, cell in enumerate(notebook["cells"]):
        cell = copy.deepcopy(cell)
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"])
            if index == 0 and source.startswith("# "):  # the notebook's own title
                source = "## The notebook\n" + source.partition("\n")[2]
            else:
                source = demote_headings(source)
            cell["source"] = source
        cells.append(cell)
    notebook["cells"] = cells
    return notebook


def _markdown(source: str, cell_id: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": source}


def home_page() -> str:
    rows = "\n".join(
        f"| {lesson.number:02d} | [{lesson.title}](lessons/{lesson.name}) | {lesson.builds} | "
        f"{lesson.time.removeprefix('about ')} | {lesson.covers} |"
        for lesson in LESSONS if lesson.ready)
    toctree = "\n".join(f"lessons/{lesson.name}" for lesson in LESSONS if lesson.ready)
    intro = (SITE / "index.md").read_text(encoding="utf-8")
    return (f"{intro}\n"
            "| # | Lesson | You build (graded) | Time | What it covers |\n"
            "|---|---|---|---|---|\n"
            f"{rows}\n\n"
            "```{toctree}\n:hidden:\n:maxdepth: 2\n:caption: Lessons\n\n"
            f"{toctree}\n```\n")


def assemble(source: Path) -> None:
    """Write the Sphinx source of the whole course into ``source``."""
    write_if_changed(source / "index.md", home_page())
    for path in sorted((ROOT / "assets").iterdir()):
        write_if_changed(source / "assets" / path.name, path.read_bytes())
    for lesson in LESSONS:
        if not lesson.ready:
            continue
        files = planned_files(lesson)  # what `minigrad exercises N` writes
        for name, text in files.items():
            write_if_changed(source / "downloads" / name, text)
        page = lesson_page(lesson, files[f"{lesson.name}.ipynb"])
        write_if_changed(source / "lessons" / f"{lesson.name}.ipynb",
                         json.dumps(page, indent=1, ensure_ascii=False) + "\n")


def package_fingerprint() -> str:
    """A hash of minigrad's source and the kernels' settings: the notebooks' outputs depend on
    them, not only on their code."""
    digest = hashlib.sha256(json.dumps(KERNEL_ENV, sort_keys=True).encode())
    for path in sorted((ROOT / "minigrad").rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def forget_stale_outputs(cache: Path) -> None:
    """jupyter-cache keys a notebook on its code cells alone; when minigrad itself changed, the
    stored outputs may be stale, so they are all dropped and every notebook runs again."""
    stamp = cache / "minigrad-fingerprint"
    fingerprint = package_fingerprint()
    if stamp.exists() and stamp.read_text() == fingerprint:
        return
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    stamp.write_text(fingerprint)


def create_cache_database(cache: Path) -> None:
    """jupyter-cache's database, made before Sphinx starts its parallel workers: on a fresh
    cache each worker found none and created its tables, and all but the first failed the
    build ("table settings already exists"), depending on which of them got there first."""
    from jupyter_cache import get_cache

    get_cache(str(cache)).db  # noqa: B018 — reading it creates the database and its tables


def build(html: Path, *, mathjax: Path, jobs: str, clean: bool) -> int:
    source = BUILD / "src"
    if clean:
        shutil.rmtree(BUILD, ignore_errors=True)
    forget_stale_outputs(BUILD / "cache")
    create_cache_database(BUILD / "cache")
    if not mathjax.is_file():
        print(f"MathJax not found at {mathjax}: `make site` installs it "
              "(or set MINIGRAD_MATHJAX to a MathJax 3 tex-svg-full.js)", file=sys.stderr)
        return 2
    assemble(source)
    env = {**os.environ, **KERNEL_ENV, "MINIGRAD_MATHJAX": str(mathjax),
           "MINIGRAD_SITE_CACHE": str(BUILD / "cache")}
    env.pop("MPLBACKEND", None)  # the notebooks' figures are inline images
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-j", jobs,
               "-c", str(SITE), "-d", str(BUILD / "doctrees"), str(source), str(html)]
    sphinx = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    for line in sphinx.stderr:
        # Each kernel's start-up notice that it listens on local TCP (nbclient's default) is
        # not about the site; Sphinx's warnings and errors all come through.
        if not KERNEL_TCP_NOTICE.search(line):
            sys.stderr.write(line)
    return sphinx.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--to", type=Path, default=BUILD / "html", help="the site's folder")
    parser.add_argument("--clean", action="store_true",
                        help="forget the executed notebooks and Sphinx's state first")
    parser.add_argument("--jobs", default="auto", help="Sphinx's -j (default: auto)")
    args = parser.parse_args(argv)
    mathjax = Path(os.environ.get("MINIGRAD_MATHJAX", MATHJAX_DEFAULT))
    status = build(args.to, mathjax=mathjax, jobs=args.jobs, clean=args.clean)
    if status == 0:
        print(f"site: {args.to / 'index.html'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
