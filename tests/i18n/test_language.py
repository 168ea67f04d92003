"""Which language a student gets: --lang, MINIGRAD_LANG, the course folder's marker, the locale."""

from __future__ import annotations

import pytest

from minigrad import i18n


@pytest.fixture
def clean(monkeypatch, tmp_path):
    for variable in ("MINIGRAD_LANG", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    i18n.use(None)


def test_english_unless_something_says_otherwise(clean) -> None:
    assert i18n.current() == "en"


def test_a_chinese_locale_means_chinese(clean, monkeypatch) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert i18n.current() == "zh"
    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")
    assert i18n.current() == "en"


def test_the_course_folders_marker_holds_in_its_subfolders(clean, monkeypatch) -> None:
    (clean / ".minigrad-lang").write_text("zh\n", encoding="utf-8")
    (clean / "notebooks").mkdir()
    monkeypatch.chdir(clean / "notebooks")
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert i18n.current() == "zh"
    monkeypatch.setenv("MINIGRAD_LANG", "en")
    assert i18n.current() == "en"
    i18n.use("zh_CN")
    assert i18n.current() == "zh"


def test_an_unknown_language_is_named_with_the_ones_there_are() -> None:
    with pytest.raises(ValueError, match=r"unknown language 'fr': minigrad speaks en \(English\), zh"):
        i18n.resolve("fr")
