"""The course website's source, as site/build.py assembles it (no Sphinx needed, so these run in
every `make test`): one page per lesson, the reading then the notebook, exercises unsolved,
the downloads and the lesson table."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from minigrad.course.catalog import LESSONS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def source(build, tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("site-src")
    build.assemble(folder)
    return folder


def test_each_lesson_page_is_its_reading_then_its_notebook(source: Path) -> None:
    for lesson in LESSONS:
        page = json.loads((source / "lessons" / f"{lesson.name}.ipynb").read_text("utf-8"))
        first = page["cells"][0]["source"]
        reading = (REPO / "lessons" / f"{lesson.name}.md").read_text(encoding="utf-8")
        assert first.startswith(reading.splitlines()[0]) and reading.splitlines()[-1] in first
        headings = [cell["source"].splitlines()[0] for cell in page["cells"][1:]
                    if cell["cell_type"] == "markdown" and cell["source"].startswith("#")]
        assert headings[0] == "## The notebook"
        assert all(heading.startswith("###") for heading in headings[1:]), headings
        notebook = json.loads((REPO / "notebooks" / f"{lesson.name}.ipynb").read_text("utf-8"))
        code = [cell for cell in page["cells"] if cell["cell_type"] == "code"]
        assert len(code) == sum(cell["cell_type"] == "code" for cell in notebook["cells"])


def test_exercises_are_shown_unsolved(source: Path) -> None:
    for lesson in LESSONS:
        page = json.loads((source / "lessons" / f"{lesson.name}.ipynb").read_text("utf-8"))
        text = json.dumps(page)
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
        stubs = [cell for cell in page["cells"] if cell["cell_type"] == "code"
                 and "raise NotImplementedError" in "".join(cell["source"])]
        assert stubs and all("minigrad-exercise" in cell["metadata"].get("tags", [])
                             for cell in stubs)


def test_each_lesson_offers_what_minigrad_exercises_writes(source: Path) -> None:
    from minigrad.exercises.authoring.generate import planned_files

    for lesson in LESSONS:
        for name, text in planned_files(lesson).items():
            assert (source / "downloads" / name).read_text(encoding="utf-8") == text
            assert f"../downloads/{name}" in (source / "lessons" / f"{lesson.name}.ipynb"
                                              ).read_text(encoding="utf-8")


def test_the_home_page_has_the_lesson_table(source: Path) -> None:
    home = (source / "index.md").read_text(encoding="utf-8")
    assert "| # | Lesson | You build (graded) | Time | What it covers |" in home
    for lesson in LESSONS:
        assert f"[{lesson.title}](lessons/{lesson.name})" in home
        assert lesson.builds in home and lesson.time.removeprefix("about ") in home


def test_headings_in_code_blocks_are_left_alone(build) -> None:  # type: ignore[no-untyped-def]
    text = "## 1. A\n```python\n# a comment\n```\n### b\n"
    assert build.demote_headings(text) == "### 1. A\n```python\n# a comment\n```\n#### b\n"


def test_make_site_without_npm_says_how_to_get_it_before_installing_anything(tmp_path: Path) -> None:
    """`make site` on a machine without npm stops at once, saying how to get npm, before it
    creates the environment or installs Sphinx into it."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    venv = tmp_path / "venv"
    empty = tmp_path / "bin"  # a PATH with no npm (and nothing else)
    empty.mkdir()
    done = subprocess.run([make, "--no-print-directory", "-C", str(REPO), "site", f"VENV={venv}"],
                          env={"PATH": str(empty), "HOME": str(tmp_path)},
                          capture_output=True, text=True, timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode != 0
    assert "make site needs npm (it comes with Node.js)" in said
    assert "apt-get install npm" in said and "brew install node" in said
    assert "installing Sphinx" not in said and "creating the virtual environment" not in said
    assert not venv.exists()  # nothing installed


def test_search_excerpts_keep_the_main_text_and_its_ids(build) -> None:  # type: ignore[no-untyped-def]
    """What the search page cuts excerpts from when opened from file:// (site/offline_search.py):
    the role="main" block's text, sections by id; no drawings, scripts or ¶ links."""
    import sys

    sys.path.insert(0, str(REPO / "site"))
    try:
        import offline_search
    finally:
        sys.path.remove(str(REPO / "site"))
    page = ('<html><body><nav>menu</nav><main role="main"><section id="im2col">'
            '<h2>im2col<a class="headerlink" href="#im2col">¶</a></h2><p>x &lt; y<br>z</p>'
            '<svg><text>a drawing</text></svg><script>var s = 1;</script><img src="a.png">'
            '</section></main><footer>© us</footer></body></html>')
    assert offline_search.main_text(page) == (
        '<div role="main"><div id="im2col"><div>im2col</div><div>x &lt; y z</div></div></div>')
    assert offline_search.main_text("<html><body><p>no main block</p></body></html>") == ""


def test_the_notebook_cache_database_exists_before_sphinx_starts_its_workers(
        build, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`make site` on a fresh clone failed now and then: Sphinx's two parallel workers each found
    no jupyter-cache database and created its tables, and the second stopped the build with
    "table settings already exists". The builder now makes the database first."""
    pytest.importorskip("jupyter_cache", reason="the site extra (pip install -e '.[site]')")
    import sqlite3

    build.create_cache_database(tmp_path)
    with sqlite3.connect(tmp_path / "global.db") as database:
        tables = {name for (name,) in database.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"settings", "nbcache", "nbproject"} <= tables
    build.create_cache_database(tmp_path)  # a second build opens it as it is


def test_each_language_has_its_own_cache_and_a_change_to_minigrad_clears_it(
        build, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The Chinese pages' notebooks run with minigrad speaking Chinese, so their outputs are
    kept apart from the English ones; what minigrad says in Chinese (messages.po) is part of
    the Chinese cache's fingerprint, not of the English one's. A cleared cache says so, and
    `build` then drops Sphinx's record of the pages too (a page whose source did not change
    kept its old outputs: a figure's stale warning stayed on the Chinese lesson 07 page)."""
    assert build.cache_folder("en").name == "cache" and build.cache_folder("zh").name == "cache-zh"
    assert build.package_fingerprint("zh") != build.package_fingerprint("en")
    cache = tmp_path / "cache-zh"
    assert build.forget_stale_outputs(cache, "zh") is True  # nothing there yet
    (cache / "outputs").write_text("kept")
    assert build.forget_stale_outputs(cache, "zh") is False
    assert (cache / "outputs").read_text() == "kept"
    real = build.package_fingerprint
    monkeypatch.setattr(build, "package_fingerprint", lambda language="en": real(language) + "x")
    assert build.forget_stale_outputs(cache, "zh") is True
    assert not (cache / "outputs").exists()
