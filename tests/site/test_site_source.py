"""The course website's source, as site/build.py assembles it (no Sphinx needed, so these run in
every `make test`): one page per lesson, the reading then the notebook, exercises unsolved,
the downloads and the lesson table."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from minigrad.course.catalog import LESSONS

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def build():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("site_build", REPO / "site" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
