"""Build the course website: ``python site/build.py`` (what ``make site`` runs).

The site is built in each of the course's languages: English in ``build/site/html`` and
Chinese in ``build/site/html/zh``, every page with a link to the same page in the other
language. The Chinese pages are the English sources passed through ``minigrad.i18n``: the
readings and the notebooks' Markdown cells block by block (``minigrad/i18n/zh/lessons`` and
``notebooks``), the site's own texts (home page, lesson table, headings, download labels) from
``minigrad/i18n/zh/site.po``; a text with no translation yet stays English. Code cells are the
same in both; each language runs them once with minigrad speaking that language (its
`check()` messages, its figures' labels), and keeps their outputs in its own cache.

For each language, two steps. First the Sphinx source is assembled in ``build/site/src``
(``build/site/src-zh``) from the repository:
one page per lesson, which is the reading followed by the lesson notebook (its headings one
level down, under "The notebook"), the figures in ``assets/``, the downloads (the notebook as
students run it, and the exercise file that ``minigrad exercises N`` writes), and a home page
with the lesson table from the catalogue. A file is written only when its text changed, so
Sphinx re-reads only what changed. Then Sphinx (myst-nb, sphinx-book-theme) builds
``build/site/html``, executing each notebook through jupyter-cache (``build/site/cache``,
``cache-zh``): a
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
# Where `make site` installs MathJax.
MATHJAX_DEFAULT = ROOT / ".venv" / "share" / "minigrad-site" / "mathjax" / "tex-svg-full.js"

sys.path.insert(0, str(ROOT))  # the checkout's minigrad, even from a bare `python site/build.py`
from minigrad.course.catalog import LESSONS, Lesson  # noqa: E402
from minigrad.course.folder import course_text  # noqa: E402
from minigrad.exercises.authoring.generate import planned_files  # noqa: E402
from minigrad.exercises.authoring.source import student_file_name  # noqa: E402
from minigrad.i18n import blocks, documents  # noqa: E402

#: The site's languages: the folder of each under the site's root, and Sphinx's name for it.
LANGUAGES = {"en": "", "zh": "zh"}
SPHINX_LANGUAGE = {"en": "en", "zh": "zh_CN"}
#: The catalog of the site's own texts (``minigrad/i18n/<language>/site.po``).
CATALOG = "site"
#: The site's own texts that site/conf.py and the pages' style sheet show.
TITLE = "minigrad: autograd, built by hand"
SWITCH_TITLES = {"en": "This page in English", "zh": "This page in Chinese"}
OUTPUT_LABEL = "Output of {call}"  # a notebook picture's alt text: the call that drew it
STUB_LABEL = "exercise: yours to write (download the notebook above)"
TABLE_COLUMNS = ("Lesson", "You build (graded)", "Time", "What it covers")
DOWNLOAD_TEXTS = ("Download:", "the notebook", "run it in Jupyter: `minigrad course` sets one up",
                  "the exercises", "grade them with `minigrad grade`")
HOURS = "{hours} hours"

HEADING = re.compile(r"^(#{1,5}) ", re.MULTILINE)
# What the notebooks' kernels run with: no debugger notice about frozen modules on start-up.
# (Each language's kernels also get MINIGRAD_LANG, whatever the builder's locale.)
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


def _(message: str, language: str) -> str:
    """One of the site's own texts in ``language`` (English when it has no translation)."""
    return documents.text(message, CATALOG, language)


def site_markdown(markdown: str, language: str) -> str:
    """A Markdown text of the site's own (the home page's introduction) in ``language``, block
    by block from the site's catalog; code blocks are shared."""
    if language == "en":
        return markdown
    return blocks.join_chinese_lines(blocks.translate(markdown, lambda block: _(block, language)))


def downloads_line(lesson: Lesson, language: str = "en") -> str:
    exercise = student_file_name(lesson)
    label, notebook, run, exercises, grade = (_(text, language) for text in DOWNLOAD_TEXTS)
    return (f"**{label}** {{download}}`{notebook} <../downloads/{lesson.name}.ipynb>` ({run}) · "
            f"{{download}}`{exercises} <../downloads/{exercise}>` ({grade})")


def lesson_page(lesson: Lesson, student_notebook: str, language: str = "en") -> dict:
    """The reading as the first cell, then the notebook's cells under "The notebook".

    The notebook is the students' form that ``minigrad exercises`` writes: every exercise a
    stub, whatever the repository's copy holds. Its code cells are kept as they are, so
    jupyter-cache keeps their results when only the reading changes. In another language the
    reading and the Markdown cells are their translations (``minigrad.i18n.documents``), the
    code cells the same: the cache serves both languages.
    """
    reading = (ROOT / "lessons" / f"{lesson.name}.md").read_text(encoding="utf-8")
    reading = documents.reading(reading, lesson.name, language)
    notebook = documents.notebook(json.loads(student_notebook), lesson.name, language)
    title, _sep, body = reading.partition("\n")
    cells = [_markdown(f"{title}\n\n{downloads_line(lesson, language)}\n{body}", "reading")]
    for index, cell in enumerate(notebook["cells"]):
        cell = copy.deepcopy(cell)
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"])
            if index == 0 and source.startswith("# "):  # the notebook's own title
                source = f"## {_('The notebook', language)}\n" + source.partition("\n")[2]
            else:
                source = demote_headings(source)
            cell["source"] = source
        cells.append(cell)
    notebook["cells"] = cells
    return notebook


def _markdown(source: str, cell_id: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": source}


def home_page(language: str = "en") -> str:
    rows = "\n".join(
        f"| {lesson.number:02d} | [{_(lesson.title, language)}](lessons/{lesson.name}) | "
        f"{_(lesson.builds, language)} | {_(lesson.time.removeprefix('about '), language)} | "
        f"{_(lesson.covers, language)} |"
        for lesson in LESSONS if lesson.ready)
    toctree = "\n".join(f"lessons/{lesson.name}" for lesson in LESSONS if lesson.ready)
    intro = site_markdown((SITE / "index.md").read_text(encoding="utf-8"), language)
    header = " | ".join(_(name, language) for name in TABLE_COLUMNS)
    return (f"{intro}\n"
            f"| # | {header} |\n"
            "|---|---|---|---|---|\n"
            f"{rows}\n\n"
            f"```{{toctree}}\n:hidden:\n:maxdepth: 2\n:caption: {_('Lessons', language)}\n\n"
            f"{toctree}\n```\n")



def site_texts() -> list[str]:
    """Every English text of the site's own that a translation has to give (the catalog's
    msgids): the home page's blocks, the lesson table, the headings and labels."""
    texts = [TITLE, *(title for code, title in SWITCH_TITLES.items() if code != "en"),
             OUTPUT_LABEL, STUB_LABEL, *TABLE_COLUMNS, *DOWNLOAD_TEXTS, HOURS, "Lessons",
             "The notebook"]
    texts += blocks.messages((SITE / "index.md").read_text(encoding="utf-8"))
    for lesson in LESSONS:
        if lesson.ready:
            texts += [lesson.title, lesson.builds, lesson.covers]
    return list(dict.fromkeys(texts))


def update_catalogs() -> list[str]:
    """Bring each language's ``site.po`` in step with :func:`site_texts` (what
    ``python site/build.py --update-catalog`` does), as ``python -m minigrad.i18n.update`` does
    for the readings: an unchanged text keeps its translation, a changed one gets the old
    translation marked fuzzy, a new one an empty entry. Returns what is left to translate."""
    from minigrad.i18n.catalog import Catalog
    from minigrad.i18n.update import refreshed

    todo = []
    for language in LANGUAGES:
        if language == "en":
            continue
        path = documents.catalog_path(language, CATALOG)
        catalog = refreshed(Catalog.read(path), site_texts())
        catalog.write(path)
        todo += [f"{path.name} ({language}): {entry.msgid[:60]!r}"
                 for entry in catalog.untranslated()]
    documents.catalog.cache_clear()
    return todo


def student_notebook(lesson: Lesson, text: str, language: str) -> str:
    """The notebook to download, in ``language`` (its code cells those of the English one)."""
    if language == "en":
        return text
    return json.dumps(documents.notebook(json.loads(text), lesson.name, language),
                      indent=1, ensure_ascii=False) + "\n"


def assemble(source: Path, language: str = "en") -> None:
    """Write the Sphinx source of the whole course in ``language`` into ``source``."""
    write_if_changed(source / "index.md", home_page(language))
    for path in sorted((ROOT / "assets").iterdir()):
        if path.is_file():  # assets/zh/ holds the figures drawn with Chinese labels
            write_if_changed(source / "assets" / path.name,
                             course_text(ROOT, Path("assets") / path.name, language))
    for lesson in LESSONS:
        if not lesson.ready:
            continue
        files = planned_files(lesson)  # what `minigrad exercises N` writes
        notebook = f"{lesson.name}.ipynb"
        for name, text in files.items():
            if name == notebook:
                text = student_notebook(lesson, text, language)
            write_if_changed(source / "downloads" / name, text)
        page = lesson_page(lesson, files[notebook], language)
        write_if_changed(source / "lessons" / f"{lesson.name}.ipynb",
                         json.dumps(page, indent=1, ensure_ascii=False) + "\n")


def suffix(language: str) -> str:
    """What tells one language's build folders from English's: ``""``, ``"-zh"`` …"""
    return "" if language == "en" else f"-{language}"


def cache_folder(language: str) -> Path:
    """Where one language's notebook outputs are kept: ``build/site/cache`` (English),
    ``build/site/cache-zh`` …"""
    return BUILD / f"cache{suffix(language)}"


def package_fingerprint(language: str = "en") -> str:
    """A hash of what the notebooks' outputs depend on besides their code: minigrad's source,
    the kernels' settings, and in another language the catalogs of what minigrad says and
    draws there, and its font."""
    digest = hashlib.sha256(json.dumps({**KERNEL_ENV, "language": language},
                                       sort_keys=True).encode())
    paths = sorted((ROOT / "minigrad").rglob("*.py"))
    if language != "en":
        said = ROOT / "minigrad" / "i18n" / language
        paths += [said / "messages.po", said / "figures.po", said / "cli.po"]
        paths += sorted((ROOT / "minigrad" / "i18n" / "fonts").glob("*.otf"))
    for path in paths:
        if path.exists():
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def forget_stale_outputs(cache: Path, language: str = "en") -> bool:
    """jupyter-cache keys a notebook on its code cells alone; when minigrad itself changed, the
    stored outputs may be stale, so they are all dropped and every notebook runs again.
    Returns whether they were (Sphinx's own record of the pages must then go too: it would
    keep a page whose source did not change, with the old outputs in it)."""
    stamp = cache / "minigrad-fingerprint"
    fingerprint = package_fingerprint(language)
    if stamp.exists() and stamp.read_text() == fingerprint:
        return False
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    stamp.write_text(fingerprint)
    return True


def create_cache_database(cache: Path) -> None:
    """jupyter-cache's database, made before Sphinx starts its parallel workers: on a fresh
    cache each worker found none and created its tables, and all but the first failed the
    build ("table settings already exists"), depending on which of them got there first."""
    from jupyter_cache import get_cache

    get_cache(str(cache)).db  # noqa: B018 — reading it creates the database and its tables


def build(html: Path, *, mathjax: Path, jobs: str, clean: bool,
          languages: tuple[str, ...] = tuple(LANGUAGES)) -> int:
    """Build the site into ``html``, each language with its own notebook cache."""
    if clean:
        shutil.rmtree(BUILD, ignore_errors=True)
    for language in languages:
        if forget_stale_outputs(cache_folder(language), language):
            shutil.rmtree(BUILD / f"doctrees{suffix(language)}", ignore_errors=True)
        create_cache_database(cache_folder(language))
    if not mathjax.is_file():
        print(f"MathJax not found at {mathjax}: `make site` installs it "
              "(or set MINIGRAD_MATHJAX to a MathJax 3 tex-svg-full.js)", file=sys.stderr)
        return 2
    for language in languages:
        status = build_language(language, html / LANGUAGES[language], mathjax=mathjax, jobs=jobs)
        if status != 0:
            return status
    return 0


def build_language(language: str, html: Path, *, mathjax: Path, jobs: str,
                   work: Path = BUILD) -> int:
    """One language's site: its source assembled, then Sphinx (``-W``: warnings fail it).

    The source and Sphinx's state are kept in ``work``; the notebooks' outputs come from the
    language's cache (``cache_folder``), run with minigrad speaking the language.
    """
    source = work / f"src{suffix(language)}"
    assemble(source, language)
    env = {**os.environ, **KERNEL_ENV, "MINIGRAD_LANG": language,
           "MINIGRAD_MATHJAX": str(mathjax), "MINIGRAD_SITE_CACHE": str(cache_folder(language)),
           "MINIGRAD_SITE_LANGUAGE": language}
    env.pop("MPLBACKEND", None)  # the notebooks' figures are inline images
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-j", jobs,
               "-c", str(SITE), "-d", str(work / f"doctrees{suffix(language)}"), str(source),
               str(html)]
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
    parser.add_argument("--lang", choices=sorted(LANGUAGES), action="append",
                        help="build only this language (repeatable; default: all, English "
                             "first); a language's pages still link to the others' folders")
    parser.add_argument("--update-catalog", action="store_true",
                        help="bring minigrad/i18n/*/site.po in step with the site's English "
                             "texts, list what is left to translate, and build nothing")
    args = parser.parse_args(argv)
    if args.update_catalog:
        todo = update_catalogs()
        print("\n".join(["to translate:", *todo] if todo else ["site.po: all translated"]))
        return 0
    mathjax = Path(os.environ.get("MINIGRAD_MATHJAX", MATHJAX_DEFAULT))
    languages = tuple(language for language in LANGUAGES if language in (args.lang or LANGUAGES))
    status = build(args.to, mathjax=mathjax, jobs=args.jobs, clean=args.clean,
                   languages=languages)
    if status == 0:
        print(f"site: {args.to / 'index.html'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
