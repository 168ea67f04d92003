"""Chinese prose writes a dash as "——" with no spaces (GLOSSARY-zh: full-width punctuation in
Chinese sentences), not the English " — ", in every reading's and notebook's catalog; a
heading's "第 01 课 — " / "练习 01.1 — " keeps its separator."""

from __future__ import annotations

import re
from pathlib import Path

from minigrad.i18n.catalog import Catalog

ZH = Path(__file__).resolve().parents[2] / "minigrad" / "i18n" / "zh"
SPACED = re.compile(r"[\u4e00-\u9fff，。）] — [\u4e00-\u9fff（]")


def test_no_english_dash_between_chinese_words() -> None:
    paths = sorted([*ZH.glob("lessons/*.po"), *ZH.glob("notebooks/*.po")])
    assert len(paths) == 16
    spaced = [(path.stem, found.group(0)) for path in paths
              for entry in Catalog.read(path).entries.values() if not entry.msgstr.startswith("#")
              for found in SPACED.finditer(entry.msgstr)]
    assert spaced == []
