"""Class runs that lose nothing: an internal error is an error (never a 0), each student has
hidden cases of their own that ``--regrade --same-cases`` draws again, every submission's time is
recorded, and the CSV is one a gradebook imports (``--lms``)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from support.grading_results import needs_sandbox

from minigrad.cli import main as cli_main
from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import python_file_text, write_exercises
from minigrad.exercises.authoring.source import (BUILTIN, LESSON_SOURCES, exercises,
                                                 student_file_name)
from minigrad.grading.classroom import results_name
from minigrad.grading.grader import CaseResult, ExerciseResult, SubmissionResult, answer_key
from minigrad.grading.gradebook import gradebook_text

LESSON01 = find_lesson(1)
FILE01 = student_file_name(LESSON01)
WRONG_01_1 = "\n\ndef composite_derivative(x):\n    return 0.0\n"


def make_class(tmp_path: Path, students: dict[str, str]) -> Path:
    """A class folder: each student's lesson-01 file is the reference plus their ``extra``."""
    klass = tmp_path / "class"
    for student, extra in students.items():
        (klass / student).mkdir(parents=True)
        (klass / student / FILE01).write_text(
            python_file_text(LESSON01, solutions=True) + extra, encoding="utf-8")
    return klass


def csv_rows(path: Path) -> dict[str, dict[str, str]]:
    return {row["student_id"]: row for row in csv.DictReader(path.open(encoding="utf-8"))}


def hidden_args(results: dict) -> list[tuple]:
    """The arguments of lesson 01's hidden cases drawn with the seed recorded in ``results``
    (the results themselves do not show them)."""
    key = answer_key(BUILTIN, LESSON01, results["extra_data"]["seed"])
    return [case.args for cases in key.values() for case in cases if not case.visible]


def hidden_output(results: dict, exercise_id: str) -> str:
    return next(test["output"] for test in results["tests"]
                if test["name"].startswith(exercise_id) and "hidden" in test["name"])


# ---------------------------------------------------------------------------- errors
@needs_sandbox
def test_an_internal_error_is_an_error_never_a_zero(tmp_path: Path, monkeypatch,
                                                    capsys) -> None:
    """The ExerciseBank race made alice's row `alice,0,0,,,,,,` with exit status 0."""
    from minigrad.grading import classroom

    real = classroom.grade_submission

    def flaky(path, *args, **kwargs):
        if Path(path).name == "alice":
            raise AttributeError("module '_minigrad_private_lesson01_checks' has no attribute "
                                 "'EXERCISES'")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(classroom, "grade_submission", flaky)
    klass = make_class(tmp_path, {"alice": "", "bob": ""})
    out, scores = tmp_path / "out", tmp_path / "scores.csv"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out), "--csv",
                     str(scores)]) == 1
    printed = capsys.readouterr()
    rows = csv_rows(scores)
    assert rows["alice"]["total"] == rows["alice"]["points_possible"] == ""
    assert "internal grader error (AttributeError" in rows["alice"]["error"]
    assert rows["bob"]["total"] == "15" and rows["bob"]["error"] == ""
    alice = json.loads((out / "alice.json").read_text())
    assert "NOT GRADED: internal grader error" in alice["output"]
    assert "AttributeError" in alice["extra_data"]["error"]
    assert alice["score"] is None and alice["extra_data"]["max_score"] is None  # never 0/0
    assert "ERROR" in printed.out and "1 student(s) not graded" in printed.err
    # Graded again, alice has her score; her row is replaced, bob's kept.
    monkeypatch.setattr(classroom, "grade_submission", real)
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out), "--csv",
                     str(scores), "--regrade", "alice"]) == 0
    rows = csv_rows(scores)
    assert (rows["alice"]["total"], rows["alice"]["error"]) == ("15", "")
    assert rows["bob"]["total"] == "15" and list(rows) == ["alice", "bob"]


# ---------------------------------------------------------------------------- seeds and time
@needs_sandbox
def test_each_student_has_own_hidden_cases_and_same_cases_draws_them_again(
        tmp_path: Path) -> None:
    klass = make_class(tmp_path, {"alice": WRONG_01_1, "bob": WRONG_01_1})
    out, scores = tmp_path / "out", tmp_path / "scores.csv"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--seed", "42", "--out", str(out),
                     "--csv", str(scores)]) == 0
    first = {name: json.loads((out / f"{name}.json").read_text()) for name in ("alice", "bob")}
    assert first["alice"]["extra_data"]["seed"] != first["bob"]["extra_data"]["seed"]
    assert {first[name]["extra_data"]["class_seed"] for name in first} == {42}
    assert hidden_args(first["alice"]) != hidden_args(first["bob"])
    rows = csv_rows(scores)
    assert rows["alice"]["seed"] == str(first["alice"]["extra_data"]["seed"])
    for name in ("alice", "bob"):  # each submission's time, in the CSV and the results
        assert float(rows[name]["seconds"]) > 0 and rows[name]["graded_at"].startswith("20")
        assert first[name]["extra_data"]["seconds"] > 0
    # Again, from the seed recorded in alice's results, then from the one given.
    (out / "alice.json").rename(tmp_path / "alice-first.json")
    (out / "alice.json").write_text(json.dumps({"extra_data": {"class_seed": 42}}))
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out), "--regrade",
                     "alice", "--same-cases"]) == 0
    again = json.loads((out / "alice.json").read_text())
    assert again["extra_data"]["seed"] == first["alice"]["extra_data"]["seed"]
    assert hidden_output(again, "01.1") == hidden_output(first["alice"], "01.1")
    assert cli_main(["grade", str(klass), "--lesson", "1", "--seed", "42", "--regrade", "bob",
                     "--json", str(tmp_path / "bob.json")]) == 0
    bob = json.loads((tmp_path / "bob.json").read_text())
    assert bob["extra_data"]["seed"] == first["bob"]["extra_data"]["seed"]


def test_regrade_names_a_student_of_the_class(tmp_path: Path, capsys) -> None:
    klass = tmp_path / "class"
    for name in ("alice", "bob"):
        write_exercises(LESSON01, klass / name)
    assert cli_main(["grade", str(klass), "--regrade", "mallory", "--seed", "1",
                     "--no-sandbox"]) == 2
    assert "no such student" in capsys.readouterr().err
    assert cli_main(["grade", str(klass), "--regrade", "alice", "--same-cases", "--out",
                     str(tmp_path / "none"), "--no-sandbox"]) == 2
    assert "no class seed recorded" in capsys.readouterr().err


# ---------------------------------------------------------------------------- gradebooks
def fake_class() -> dict[str, SubmissionResult]:
    """alice solved everything, bob half of 01.1, carol hit a grader error."""
    items = exercises(LESSON01)

    def result(credits: list[float]) -> SubmissionResult:
        return SubmissionResult("x", 1, [ExerciseResult(LESSON01, exercise, [
            CaseResult(True, credit == 1, credit=credit)]) for exercise, credit in
            zip(items, credits)], seconds=1.5, started="2026-12-04T18:00:00+00:00")

    return {"alice": result([1] * 5), "bob": result([0.5, 0, 0, 0, 0]),
            "carol": SubmissionResult("x", 1, error="internal grader error (KeyError: 1)")}


def canvas_import_problems(text: str) -> list[str]:
    """What Canvas's gradebook import would refuse in ``text``: the identity columns first, in
    Canvas's order; the Points Possible row under the header; a number (or nothing, which
    leaves a grade alone) in every assignment cell, within the points possible."""
    rows = list(csv.reader(io.StringIO(text)))
    header, points, students = rows[0], rows[1], rows[2:]
    problems = []
    if header[:5] != ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]:
        problems.append(f"identity columns {header[:5]}")
    if points[0].strip() != "Points Possible":
        problems.append(f"second row {points[0]!r} is not Points Possible")
    if len(set(header)) != len(header):
        problems.append("duplicate columns")
    for row in students:
        if not (row[0] and row[3]):
            problems.append(f"a row names no student: {row}")
        for cell, most in zip(row[5:], points[5:]):
            if cell and not 0 <= float(cell) <= float(most):
                problems.append(f"{cell} out of 0..{most}")
    return problems


def moodle_import_problems(text: str, users: set[str]) -> list[str]:
    """What Moodle's CSV grade import would refuse: every row must map (by the identifier
    column chosen on import) to a user; grades numbers or empty; column names unique."""
    rows = list(csv.DictReader(io.StringIO(text)))
    header = list(rows[0]) if rows else []
    problems = [] if len(set(header)) == len(header) else ["duplicate columns"]
    for row in rows:
        if row["Username"] not in users:
            problems.append(f"no user {row['Username']!r}: Moodle stops the import")
        for column in header[1:]:
            if row[column]:
                float(row[column])
    return problems


def test_gradebook_layouts_import_as_canvas_and_moodle_expect() -> None:
    results = fake_class()
    canvas = gradebook_text(results, "canvas")
    assert canvas_import_problems(canvas) == []
    rows = list(csv.reader(io.StringIO(canvas)))
    assert rows[1][5:] == ["2", "3", "3", "3", "4"]  # points possible, one column per exercise
    assert rows[2][:5] == ["alice", "", "", "alice", ""] and rows[3][5] == "1"
    assert rows[4][5:] == [""] * 5  # carol: the grader failed; Canvas leaves her grade alone
    moodle = gradebook_text(results, "moodle")
    assert moodle_import_problems(moodle, {"alice", "bob", "carol"}) == []
    table = {row["Username"]: row for row in csv.DictReader(io.StringIO(moodle))}
    assert table["alice"]["Total"] == "15" and table["bob"]["Total"] == "1"
    assert table["carol"]["Total"] == ""
    plain = {row["student_id"]: row for row in csv.DictReader(io.StringIO(
        gradebook_text(results)))}
    assert plain["bob"]["points_possible"] == "15" and plain["bob"]["01.1"] == "1"
    assert plain["carol"]["total"] == "" and "KeyError" in plain["carol"]["error"]


@needs_sandbox
def test_lms_option_writes_the_class_csv_in_that_layout(tmp_path: Path) -> None:
    klass = make_class(tmp_path, {"alice": "", "bob": WRONG_01_1})
    scores = tmp_path / "canvas.csv"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(tmp_path / "out"),
                     "--csv", str(scores), "--lms", "canvas"]) == 0
    assert canvas_import_problems(scores.read_text()) == []
    rows = list(csv.reader(scores.open()))
    assert [row[3] for row in rows[2:]] == ["alice", "bob"]
    assert rows[2][5:] == ["2", "3", "3", "3", "4"] and float(rows[3][5]) < 2


# ---------------------------------------------------------------------------- handouts
def private_key(tmp_path: Path) -> Path:
    key = tmp_path / "key"
    key.mkdir()
    for name in ("lesson01.py", "lesson01_checks.py"):
        shutil.copy(LESSON_SOURCES / name, key)
    source = (key / "lesson01.py").read_text(encoding="utf-8")
    (key / "lesson01.py").write_text(source.replace(
        '"""Exercise 01.1', '"""Exercise 01.1 (PRIVATE WORDING)', 1), encoding="utf-8")
    return key


def test_the_handout_is_written_from_the_private_key(tmp_path: Path) -> None:
    key = private_key(tmp_path)
    assert cli_main(["exercises", "1", "--exercises", str(key), "--to",
                     str(tmp_path / "handout")]) == 0
    handout = (tmp_path / "handout" / FILE01).read_text(encoding="utf-8")
    assert "PRIVATE WORDING" in handout and "raise NotImplementedError" in handout
    assert "### BEGIN SOLUTION" not in handout
    notebook = (tmp_path / "handout" / f"{LESSON01.name}.ipynb").read_text(encoding="utf-8")
    assert "PRIVATE WORDING" in notebook and "### BEGIN SOLUTION" not in notebook
    assert cli_main(["exercises", "1", "--exercises", str(key), "--solutions", "--to",
                     str(tmp_path / "answers")]) == 0
    assert "PRIVATE WORDING" in (tmp_path / "answers" / FILE01).read_text(encoding="utf-8")
    assert cli_main(["exercises", "1", "--exercises", str(tmp_path), "--to",
                     str(tmp_path / "none")]) == 2


def test_one_submission_the_grader_failed_on_has_no_score(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`minigrad grade FILE --json`: an internal error leaves results with no score (not 0)."""
    import json as json_module

    import minigrad.grading.grader as grader
    from minigrad.cli import main as cli

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise KeyError("a grader bug")

    monkeypatch.setattr(grader, "grade_submission", broken)
    submission = tmp_path / "lesson01_derivatives.py"
    submission.write_text("x = 1\n", encoding="utf-8")
    results = tmp_path / "results.json"
    with pytest.raises(KeyError):
        cli(["grade", str(submission), "--json", str(results), "--no-sandbox", "--lesson", "1"])
    written = json_module.loads(results.read_text(encoding="utf-8"))
    assert written["score"] is None and "NOT GRADED" in written["output"]
    assert "a grader bug" in written["extra_data"]["error"]
