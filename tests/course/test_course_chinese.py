"""`minigrad course DIR --lang zh`: the Chinese course — readings and notebook text through the
catalogs, code cells the English ones byte for byte, figures with Chinese labels, a marker that
makes check() speak Chinese in DIR, JupyterLab started with MINIGRAD_LANG=zh; the student's
files are never overwritten, whatever the language."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import minigrad.course.folder as folder
from minigrad.cli import main
from minigrad.i18n import documents
from minigrad.i18n.catalog import Catalog, Entry

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = "notebooks/01-derivatives.ipynb"
READING = "lessons/01-derivatives.md"


@pytest.fixture
def english_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for variable in ("MINIGRAD_LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    runs: list[dict] = []

    class FakeServer:
        def __init__(self, command: list[str], env: dict | None = None) -> None:
            runs.append({"command": command, "env": env})

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(folder.subprocess, "Popen", FakeServer)
    return runs


def _first_block(stem: str, kind: str) -> str:
    """The first prose block of a reading's or notebook's English, as its catalog keys it."""
    from minigrad.i18n.update import english_blocks

    return english_blocks(ROOT)[f"{kind}/{stem}"][0]


@pytest.fixture
def one_translation(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Catalogs that translate the first block of reading 01 and of notebook 01 (whatever the
    translators have merged so far), so the test sees translated text land in the course."""
    stem = "01-derivatives"
    chosen = {f"lessons/{stem}": _first_block(stem, "lessons"),
              f"notebooks/{stem}": _first_block(stem, "notebooks")}
    real = documents.catalog

    def catalog(language: str, name: str) -> Catalog:
        if language == "zh" and name in chosen:
            return Catalog({chosen[name]: Entry(chosen[name], "# 第一课：导数与链式法则")})
        return real(language, name)

    monkeypatch.setattr(documents, "catalog", catalog)
    return chosen


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def test_the_chinese_course_translates_prose_and_keeps_code(tmp_path: Path,
                                                            one_translation) -> None:
    report = folder.write_course(tmp_path / "zh", language="zh")
    assert report.kept == [] and len(report.written) == len(folder.course_files())
    course = tmp_path / "zh"
    assert (course / ".minigrad-lang").read_text(encoding="utf-8") == "zh\n"
    reading = (course / READING).read_text(encoding="utf-8")
    assert reading.startswith("# 第一课：导数与链式法则\n")
    english = (ROOT / READING).read_text(encoding="utf-8")
    assert reading == documents.reading(english, "01-derivatives", "zh")
    mine, theirs = _cells(course / NOTEBOOK), _cells(ROOT / NOTEBOOK)
    assert [cell["cell_type"] for cell in mine] == [cell["cell_type"] for cell in theirs]
    assert [cell for cell in mine if cell["cell_type"] == "code"] == \
        [cell for cell in theirs if cell["cell_type"] == "code"]
    assert "第一课" in "".join(mine[0]["source"])
    assert json.loads((course / NOTEBOOK).read_text(encoding="utf-8"))["metadata"][
        "language"] == "zh"
    for script in (ROOT / "examples").glob("*.py"):
        assert (course / "examples" / script.name).read_bytes() == script.read_bytes()


def test_figures_with_chinese_labels_replace_the_english_ones(tmp_path: Path) -> None:
    folder.write_course(tmp_path / "zh", language="zh")
    chinese = sorted((ROOT / "assets" / "zh").glob("*.png"))
    assert chinese, "no figures with Chinese labels in assets/zh/ (make assets draws them)"
    for drawn in chinese:
        assert (tmp_path / "zh" / "assets" / drawn.name).read_bytes() == drawn.read_bytes()
    assert not (tmp_path / "zh" / "assets" / "zh").exists()
    for shared in (ROOT / "assets").glob("*.*"):
        if not (ROOT / "assets" / "zh" / shared.name).exists():
            assert (tmp_path / "zh" / "assets" / shared.name).read_bytes() == shared.read_bytes()


def test_the_english_course_has_no_marker_and_no_chinese_figures(tmp_path: Path) -> None:
    folder.write_course(tmp_path / "en")
    assert not (tmp_path / "en" / ".minigrad-lang").exists()
    assert not (tmp_path / "en" / "assets" / "zh").exists()
    assert (tmp_path / "en" / "assets" / "epsilon_error.png").read_bytes() == \
        (ROOT / "assets" / "epsilon_error.png").read_bytes()


def test_lang_zh_writes_the_chinese_course_and_jupyterlab_gets_minigrad_lang(
        english_environment: Path, started, capsys) -> None:
    course = english_environment / "课程"
    assert main(["course", str(course), "--lang", "zh", "--no-browser"]) == 0
    assert "中文" in capsys.readouterr().out
    assert folder.folder_language(course) == "zh"
    (run,) = started
    assert run["env"]["MINIGRAD_LANG"] == "zh"
    assert f"--ServerApp.root_dir={course.resolve()}" in run["command"]


def test_without_lang_the_locale_decides(english_environment: Path, monkeypatch, capsys) -> None:
    assert main(["course", "english", "--no-open"]) == 0
    assert folder.folder_language(english_environment / "english") is None
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert main(["course", "chinese", "--no-open"]) == 0
    assert folder.folder_language(english_environment / "chinese") == "zh"


def test_a_folder_keeps_its_language_and_the_students_files(english_environment: Path,
                                                            capsys) -> None:
    course = english_environment / "c"
    assert main(["course", str(course), "--lang", "zh", "--no-open"]) == 0
    mine = course / NOTEBOOK
    mine.write_text("我的答案", encoding="utf-8")
    (course / "assets" / "epsilon_error.png").unlink()
    assert main(["course", str(course), "--no-open"]) == 0  # the locale is English: still zh
    out = capsys.readouterr().out
    assert "中文" in out and "（从不覆盖）" in out  # the lines of a Chinese course are Chinese
    assert mine.read_text(encoding="utf-8") == "我的答案"
    assert (course / "assets" / "epsilon_error.png").read_bytes() == \
        folder.course_text(ROOT, Path("assets/epsilon_error.png"), "zh")
    assert main(["course", str(course), "--lang", "en", "--no-open"]) == 2
    assert "holds the 中文 course" in capsys.readouterr().err
    assert mine.read_text(encoding="utf-8") == "我的答案"


def test_the_marker_is_never_overwritten(tmp_path: Path) -> None:
    course = tmp_path / "c"
    course.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep", encoding="utf-8")
    (course / ".minigrad-lang").symlink_to(outside)
    folder.write_course(course, language="zh")
    assert outside.read_text(encoding="utf-8") == "keep"


def test_the_repository_itself_is_never_rewritten_in_chinese(capsys) -> None:
    assert main(["course", str(folder.course_source()), "--lang", "zh", "--no-open"]) == 2
    err = capsys.readouterr().err
    assert "English source" in err and "COURSE_LANG=zh" in err


def test_an_unknown_language_is_refused_naming_the_languages(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["course", "x", "--lang", "fr", "--no-open"])
    assert "unknown language 'fr'" in capsys.readouterr().err


def test_the_help_says_how_the_language_is_chosen(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["course", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--lang LANG" in out and "LANG=zh_CN.UTF-8 gives zh" in out


def test_make_course_writes_the_chinese_course_into_a_folder_of_its_own() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ncourse:", 1)[1].split("\n\n", 1)[0]
    assert "COURSE_LANG" in recipe and "--lang $(COURSE_LANG)" in recipe
    assert "course-*/" in (ROOT / ".gitignore").read_text(encoding="utf-8")
    assert "make course COURSE_LANG=zh" in (ROOT / "README.md").read_text(encoding="utf-8")
