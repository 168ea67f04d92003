"""Names from a submission are shown with every invisible character escaped: ``bob`` plus
U+180E must not pass for ``bob`` in the table, the CSV or the log."""

from __future__ import annotations

import csv
import json
import sys
import unicodedata
from pathlib import Path

from support.grading_results import needs_sandbox

from minigrad.cli import main as cli_main
from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import write_exercises
from minigrad.grading.names import is_invisible, printable, visible_name

LESSON01 = find_lesson(1)
#: The issue's impostors: a tag letter, the Mongolian vowel separator, the Arabic letter
#: mark, the Hangul filler, a variation selector, the combining grapheme joiner.
IMPOSTORS = ["\U000E0041", "\u180e", "\u061c", "\u3164", "\ufe0f", "\u034f"]


def test_every_invisible_kind_of_character_is_escaped() -> None:
    """By class, not by a list: every format character, every space but the space, every
    control, and Unicode's default-ignorable ranges (beyond the six examples)."""
    for code in range(sys.maxunicode + 1):
        character = chr(code)
        category = unicodedata.category(character)
        if category in ("Cf", "Cc", "Cs", "Co", "Zl", "Zp") or (category == "Zs"
                                                               and character != " "):
            assert is_invisible(character), hex(code)
    for code in (0x115F, 0x1160, 0xFFA0, 0x17B4, 0x180B, 0xFE00, 0x1D173, 0xE0001, 0xE01EF,
                 0x2800, 0x00AD, 0x2064):
        assert is_invisible(chr(code)), hex(code)
    for text in ("alice", "Zoë", "李雷", "O'Brien", "a b", "x-y_z.1"):
        assert visible_name(text) == text
    assert visible_name("bob\u180e") == "bob\\u{180e}"
    assert visible_name("bob\\u{180e}") != visible_name("bob\u180e")  # no name spells another
    assert printable("line\n\tnext") == "line\n\tnext"
    from minigrad.grading.reports import one_line

    assert one_line("bob\u3000\n") == "bob\\u{3000}"  # an odd space shows, not vanishes


@needs_sandbox
def test_impostor_folders_are_shown_for_what_they_are(tmp_path: Path, capsys) -> None:
    klass = tmp_path / "class"
    write_exercises(LESSON01, klass / "bob")
    for mark in IMPOSTORS:
        write_exercises(LESSON01, klass / f"bob{mark}", solutions=True)
    scores = tmp_path / "scores.csv"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(tmp_path / "out"),
                     "--csv", str(scores), "--jobs", "2"]) == 0
    printed = capsys.readouterr()
    names = [row["student_id"] for row in csv.DictReader(scores.open(encoding="utf-8"))]
    assert names.count("bob") == 1 and len(names) == 7
    for mark in IMPOSTORS:
        escaped = f"bob\\u{{{ord(mark):x}}}"
        assert escaped in names and escaped in printed.out, escaped
    table = [line.split()[0] for line in printed.out.splitlines()[1:8]]
    assert table.count("bob") == 1
    # The name as shown picks that student for --regrade.
    results = tmp_path / "regrade.json"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(tmp_path / "out"),
                     "--regrade", "bob\\u{180e}", "--json", str(results)]) == 0
    # ... and the results name them the same way (their student id, not the raw name).
    assert json.loads(results.read_text())["extra_data"]["student"] == "bob\\u{180e}"
    assert not any(is_invisible(c) for c in printed.out + printed.err if c not in "\n\t\r")
