"""A lesson has one Chinese title: the site's lesson table (site.po) and the deck's title
(slides.po) say what the reading's and the notebook's first heading say."""

from __future__ import annotations

import re

from minigrad.course.catalog import LESSONS
from minigrad.i18n import documents

HEADING = re.compile(r"# 第 (\d\d) 课 — (.+)")


def _heading_title(name: str, kind: str) -> str:
    found = documents.catalog("zh", f"{kind}/{name}")
    first = next(entry for entry in found.entries.values() if entry.msgid.startswith("# "))
    match = HEADING.fullmatch(first.msgstr)
    assert match, (name, kind, first.msgstr)
    return match.group(2)


def test_every_lesson_has_one_chinese_title() -> None:
    ready = [lesson for lesson in LESSONS if lesson.ready]
    assert len(ready) == 8
    for lesson in ready:
        title = _heading_title(lesson.name, "lessons")
        assert _heading_title(lesson.name, "notebooks") == title, lesson.name
        for catalog in ("site", "slides"):
            entry = documents.catalog("zh", catalog).entries[lesson.title]
            assert entry.msgstr == title, (lesson.name, catalog)
