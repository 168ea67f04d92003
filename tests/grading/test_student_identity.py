"""One student identity: the folder's or file's name, escaped one reversible way
(:func:`minigrad.grading.names.student_id`) in the class table, every CSV layout, the JSON and
``--regrade``. Two students never share a row or a key, and no id is a spreadsheet formula."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
from support.grading_results import needs_sandbox

from minigrad.cli import main as cli_main
from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import student_file_name
from minigrad.grading.gradebook import gradebook_text
from minigrad.grading.grader import SubmissionResult
from minigrad.grading.names import FORMULA_START, name_of_id, student_id

LESSON01 = find_lesson(1)
FILE01 = student_file_name(LESSON01)
#: Names that were one row, one key or one name in the table: `=bob` and `'=bob` (one CSV
#: name), `carol ` and `carol`, the byte 0xff and the text "\udcff".
NAMES = ["=bob", "'=bob", "carol", "carol ", "dave\udcff", "dave\\udcff", "alice"]
IDS = {"=bob": "\\u{3d}bob", "'=bob": "\\u{27}=bob", "carol": "carol",
       "carol ": "carol\\u{20}", "dave\udcff": "dave\\u{dcff}",
       "dave\\udcff": "dave\\u{5c}udcff", "alice": "alice"}


def test_an_id_is_reversible_and_never_a_formula() -> None:
    tricky = NAMES + [" ", "  x ", "+1", "-x", "@A1", "\t=x", "a\u180eb", "bob\\u{180e}",
                      "\u202eevil", "x=1", "é", "\\", "\\u{3d}bob"]
    ids = [student_id(name) for name in tricky]
    assert [name_of_id(text) for text in ids] == tricky
    assert len(set(ids)) == len(ids)
    for text in ids:
        assert text[:1] not in FORMULA_START + "\t\r " and text[-1:] != " ", text
    assert {name: student_id(name) for name in NAMES} == IDS


@pytest.mark.parametrize("layout", ["minigrad", "canvas", "moodle"])
def test_every_layout_has_one_row_per_student(layout: str) -> None:
    results = {name: SubmissionResult("x", 1) for name in NAMES}
    rows = list(csv.reader(io.StringIO(gradebook_text(results, layout))))
    body = rows[2:] if layout == "canvas" else rows[1:]
    column = 3 if layout == "canvas" else 0
    assert [row[column] for row in body] == [IDS[name] for name in NAMES]
    if layout == "canvas":
        assert [row[0] for row in body] == [IDS[name] for name in NAMES]


@needs_sandbox
def test_a_class_with_lookalike_names_keeps_each_student(tmp_path: Path, capsys) -> None:
    """`=bob` and `'=bob` were one CSV name (`'=bob`) and `--regrade "'=bob"` dropped a row;
    `carol ` showed as a second `carol`; `dave\\xff` and the text `dave\\udcff` shared one key
    in the class --json."""
    klass = tmp_path / "class"
    klass.mkdir()
    solved = python_file_text(LESSON01, solutions=True)
    for name in NAMES:
        folder = os.path.join(os.fsencode(klass), os.fsencode(name))
        os.mkdir(folder)
        with open(os.path.join(folder, os.fsencode(FILE01)), "w", encoding="utf-8") as handle:
            handle.write(solved)
    out, scores, every = tmp_path / "out", tmp_path / "scores.csv", tmp_path / "all.json"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out), "--csv",
                     str(scores), "--json", str(every), "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    expected = sorted(IDS[name] for name in NAMES)

    def rows() -> dict[str, dict[str, str]]:
        found = list(csv.DictReader(scores.open(encoding="utf-8")))
        assert len(found) == len(NAMES)
        return {row["student_id"]: row for row in found}

    assert sorted(rows()) == expected and all(row["total"] == "15" for row in rows().values())
    table = [line.split()[0] for line in printed.splitlines()[1:1 + len(NAMES)]]
    assert sorted(table) == expected
    graded = json.loads(every.read_text())
    assert sorted(graded) == expected
    assert {graded[key]["extra_data"]["student"] for key in graded} == set(expected)
    # --regrade takes the id; only that student's row changes.
    bob = os.path.join(os.fsencode(klass), os.fsencode("'=bob"), os.fsencode(FILE01))
    with open(bob, "w", encoding="utf-8") as handle:
        handle.write(python_file_text(LESSON01))  # the stubs: 0
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out), "--csv",
                     str(scores), "--regrade", "\\u{27}=bob"]) == 0
    after = rows()
    assert after["\\u{27}=bob"]["total"] == "0" and after["\\u{3d}bob"]["total"] == "15"
    assert sorted(after) == expected
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out),
                     "--regrade", "carol "]) == 2  # the raw name is not an id: said how
    assert "give --regrade 'carol\\u{20}'" in capsys.readouterr().err
