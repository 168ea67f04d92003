"""The Chinese course's notebooks, as `minigrad course DIR --lang zh` writes them: each runs top
to bottom with every section on its own (the English notebooks' runner,
tests/support/notebook_runner.py), in the course folder whose marker makes check() speak
Chinese even under an English locale (its plots' labels too, with no glyph missing); its
code cells are the English ones, byte for byte, and
its Markdown cells are the English ones translated block by block through the catalogs (a
block with no translation yet stays English, so this holds before and after the translators'
catalogs are merged)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

from support.notebook_runner import run_notebook  # noqa: E402

from minigrad.course.folder import write_course  # noqa: E402
from minigrad.i18n import blocks  # noqa: E402
from minigrad.i18n.documents import catalog  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
STEMS = [path.stem for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))]
SPEAKS_CHINESE = ("# inserted by the test: the course folder's marker makes minigrad speak "
                  "Chinese\nfrom minigrad.i18n import current\n"
                  "assert current() == 'zh', current()")


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("zh") / "课程"
    write_course(folder, language="zh")
    return folder


def _notebook(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_every_english_notebook_has_a_chinese_one(course: Path) -> None:
    assert STEMS and sorted(path.stem for path in (course / "notebooks").glob("*.ipynb")) == STEMS


@pytest.mark.parametrize("stem", STEMS)
def test_code_cells_are_the_english_ones(course: Path, stem: str) -> None:
    chinese = _notebook(course / "notebooks" / f"{stem}.ipynb")
    english = _notebook(ROOT / "notebooks" / f"{stem}.ipynb")
    assert [cell["cell_type"] for cell in chinese["cells"]] == \
        [cell["cell_type"] for cell in english["cells"]]
    assert [cell.get("id") for cell in chinese["cells"]] == \
        [cell.get("id") for cell in english["cells"]]
    assert [cell for cell in chinese["cells"] if cell["cell_type"] != "markdown"] == \
        [cell for cell in english["cells"] if cell["cell_type"] != "markdown"]
    assert chinese["metadata"] == {**english["metadata"], "language": "zh"}


@pytest.mark.parametrize("stem", STEMS)
def test_markdown_cells_are_the_catalogs_translation(course: Path, stem: str) -> None:
    found = catalog("zh", f"notebooks/{stem}")

    def translated(block: str) -> str | None:
        entry = found.entries.get(block)
        return entry.msgstr if entry is not None and entry.translated else None

    chinese = _notebook(course / "notebooks" / f"{stem}.ipynb")
    english = _notebook(ROOT / "notebooks" / f"{stem}.ipynb")
    for mine, theirs in zip(chinese["cells"], english["cells"]):
        if theirs["cell_type"] == "markdown":
            assert _source(mine) == blocks.join_chinese_lines(
                blocks.translate(_source(theirs), translated))


@pytest.mark.notebook
@pytest.mark.parametrize("stem", STEMS)
def test_chinese_notebook_runs_top_to_bottom_with_each_section_on_its_own(
        course: Path, stem: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("MINIGRAD_LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "en_US.UTF-8")  # the kernel inherits it: the marker must win
    executed = run_notebook(course / "notebooks" / f"{stem}.ipynb", after=SPEAKS_CHINESE)
    printed = [output.get("text", "") for cell in executed.cells if cell.cell_type == "code"
               for output in cell.get("outputs", []) if output.get("output_type") == "stream"]
    # a Chinese label on a plot is drawn with the bundled font, never as empty boxes
    assert not [text for text in printed if "missing from font" in text]
