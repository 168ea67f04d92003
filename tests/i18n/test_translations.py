"""The Chinese course keeps step with the English: every prose block of every reading and
notebook has a translation that a translator has seen for the English as it is now, with the
same inline code, maths and links."""

from __future__ import annotations

import re

import pytest

from minigrad.course.folder import course_source
from minigrad.i18n import blocks
from minigrad.i18n.catalog import Catalog
from minigrad.i18n.documents import catalog_path
from minigrad.i18n.update import english_blocks

ENGLISH = english_blocks(course_source())
_HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("name", sorted(ENGLISH))
def test_every_block_is_translated_for_the_english_as_it_is(name: str) -> None:
    catalog = Catalog.read(catalog_path("zh", name))
    missing = [msgid for msgid in ENGLISH[name]
               if msgid not in catalog.entries or not catalog.entries[msgid].translated]
    assert not missing, (
        f"{len(missing)} block(s) of {name} have no Chinese for their English as it is now "
        f"(new, or changed and marked fuzzy): run `python -m minigrad.i18n.update`, translate "
        f"the entries it lists in {catalog_path('zh', name).name}, and remove their fuzzy "
        f"marks. First: {missing[0][:200]!r}")


@pytest.mark.parametrize("name", sorted(ENGLISH))
def test_the_catalog_holds_only_todays_blocks(name: str) -> None:
    kept = set(Catalog.read(catalog_path("zh", name)).entries)
    assert kept == set(ENGLISH[name]), \
        f"{name}'s catalog is out of step with the English: run `python -m minigrad.i18n.update`"


@pytest.mark.parametrize("name", sorted(ENGLISH))
def test_a_translation_keeps_the_code_maths_and_links_and_is_chinese(name: str) -> None:
    catalog = Catalog.read(catalog_path("zh", name))
    for entry in catalog.entries.values():
        if not entry.translated:
            continue
        assert blocks.shared_parts(entry.msgstr) == blocks.shared_parts(entry.msgid), \
            f"{name}: the translation of {entry.msgid[:80]!r} changes its code, maths or links"
        indented_code = all(line.startswith(("    ", "\t")) for line in entry.msgid.splitlines())
        words = blocks._WORD.findall(blocks._CODE_SPAN.sub(" ", entry.msgid))
        if len(words) >= 4 and not indented_code:
            assert _HAN.search(entry.msgstr), f"{name}: {entry.msgid[:80]!r} is still English"
