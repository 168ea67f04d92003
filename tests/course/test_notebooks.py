"""Every lesson notebook runs top to bottom, as a student runs it, and every numbered section
also stands on its own (a student who comes back to section 5 must not re-run 1–4); the
notebook's sections are the reading's, in the same order, with the same numbers.

Each cell runs once: the notebook runs in one kernel with ``%reset -f`` (every name the
earlier cells defined is gone) before each ``## `` section, so a section that leans on an
earlier one fails here, naming its cell (tests/support/notebook_runner.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from support.notebook_runner import (FORGET, run_notebook, sections,  # noqa: E402
                                     with_sections_on_their_own)

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
SECTION = re.compile(r"^## (\d+)\. (.+)$", re.MULTILINE)


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "no lesson notebooks found in notebooks/"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom_with_each_section_on_its_own(path: Path) -> None:
    run_notebook(path)  # raises CellExecutionError, naming the cell, on any error


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_numbered_sections_match_the_reading(path: Path) -> None:
    reading = ROOT / "lessons" / f"{path.stem}.md"
    if not reading.exists():
        pytest.skip(f"no reading {reading.name}")
    in_reading = [(int(n), title.strip()) for n, title in SECTION.findall(reading.read_text())]
    notebook = nbformat.read(path, as_version=4)
    in_notebook = [(int(m.group(1)), m.group(2).strip()) for heading, _ in sections(notebook)
                   if (m := SECTION.match(heading))]
    assert [n for n, _ in in_notebook] == list(range(1, len(in_notebook) + 1))
    assert [n for n, _ in in_notebook] == [n for n, _ in in_reading], (in_notebook, in_reading)
    for (number, title), (_, reading_title) in zip(in_notebook, in_reading):
        words = re.findall(r"\w+", title.lower())[:2]
        assert words == re.findall(r"\w+", reading_title.lower())[:2], (number, title, reading_title)


def test_section_splitting_finds_the_sections() -> None:
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("## 1. One\ntext"), nbformat.v4.new_code_cell("y = 2"),
        nbformat.v4.new_markdown_cell("### a sub-heading"), nbformat.v4.new_code_cell("z = 3"),
        nbformat.v4.new_markdown_cell("## 2. Two"), nbformat.v4.new_code_cell("w = y")])
    found = sections(notebook)
    assert [heading for heading, _ in found] == ["## 1. One", "## 2. Two"]
    assert [len(cells) for _, cells in found] == [4, 2]
    forgetting = with_sections_on_their_own(notebook)
    assert [cell.source for cell in forgetting.cells].count(FORGET) == 2


def test_a_section_that_leans_on_an_earlier_one_fails() -> None:
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("## 1. One"), nbformat.v4.new_code_cell("y = 2"),
        nbformat.v4.new_markdown_cell("## 2. Two"), nbformat.v4.new_code_cell("w = y")])
    client = nbclient.NotebookClient(with_sections_on_their_own(notebook), timeout=60,
                                     kernel_name="python3")
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="NameError"):
        client.execute()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebooks_import_no_old_module_path(path: Path) -> None:
    """An old path still imports, but prints a FutureWarning under the student's cell."""
    from minigrad import _compat

    notebook = nbformat.read(path, as_version=4)
    imported = {name for cell in notebook.cells if cell.cell_type == "code"
                for name in re.findall(r"^\s*(?:from|import)\s+(minigrad[\w.]*)", cell.source,
                                       re.MULTILINE)}
    assert not {name for name in imported if _compat.new_homes(name)}, imported
