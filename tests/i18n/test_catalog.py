"""The PO files the translations live in, and how a message with run-time parts is translated."""

from __future__ import annotations

import pytest

from minigrad.i18n.catalog import Catalog, Entry, parse, render


def test_a_catalog_reads_back_what_it_wrote(tmp_path) -> None:
    written = Catalog(path=tmp_path / "x.po")
    written.entries = {
        "one line": Entry("one line", "一行"),
        'two\nlines with "quotes" and \\ a backslash\n\tand a tab':
            Entry('two\nlines with "quotes" and \\ a backslash\n\tand a tab', "两行\n第二行",
                  comments=["translator's note"]),
        "changed": Entry("changed", "旧的", fuzzy=True),
        "new": Entry("new"),
    }
    written.write()
    read = Catalog.read(tmp_path / "x.po")
    assert read.entries == written.entries
    assert [entry.msgid for entry in read.untranslated()] == ["changed", "new"]


def test_the_comment_above_the_header_survives_a_refresh(tmp_path) -> None:
    """A catalog's own comment (what the file holds) is kept when a command writes the file
    again, as `python -m minigrad.i18n.update` does."""
    from minigrad.i18n.update import refreshed

    path = tmp_path / "x.po"
    path.write_text("# What this catalog holds.\n" + render([Entry("a", "甲")]), encoding="utf-8")
    refreshed(Catalog.read(path), ["a", "b"]).write()
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# What this catalog holds.\nmsgid \"\"\n")
    assert list(Catalog.read(path).entries) == ["a", "b"]


def test_untranslated_and_fuzzy_entries_give_the_english_back() -> None:
    catalog = Catalog({"a": Entry("a", "甲"), "b": Entry("b", "乙", fuzzy=True), "c": Entry("c")})
    assert [catalog.translate(key) for key in "abcd"] == ["甲", "b", "c", "d"]


def test_a_template_carries_the_run_time_parts_into_the_translation() -> None:
    template = "expected shape {expected}, got {got}: {expected} is the input's"
    catalog = Catalog({template: Entry(template, "形状应为 {expected}（输入的形状），实为 {got}")})
    assert catalog.translate("expected shape (2, 3), got (3, 2): (2, 3) is the input's") \
        == "形状应为 (2, 3)（输入的形状），实为 (3, 2)"
    # The same placeholder twice must take the same text; otherwise the English stays.
    assert catalog.translate("expected shape (2, 3), got (3, 2): (9,) is the input's") \
        == "expected shape (2, 3), got (3, 2): (9,) is the input's"


def test_a_broken_file_is_refused_with_its_line() -> None:
    with pytest.raises(ValueError, match="line 2"):
        parse('msgid "a"\nmsgstr 甲\n')
    with pytest.raises(ValueError, match=r"unknown escape \\q"):
        parse('msgid "a\\q"\nmsgstr ""\n')


def test_the_header_comes_first_and_is_not_an_entry() -> None:
    text = render([Entry("a", "甲")])
    assert text.startswith('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"')
    assert [entry.msgid for entry in parse(text) if entry.msgid] == ["a"]
