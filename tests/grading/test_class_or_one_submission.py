"""Whether a folder is a class or one submission is the instructor's word (``--class``,
``--one``), or a refusal that names the ambiguity: never guessed from a file a student drops
at the top of the class folder."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from support.class_folders import FILE01, LESSON01, make_class
from support.grading_results import needs_sandbox

from minigrad.cli import main as cli_main
from minigrad.exercises.authoring.generate import python_file_text, write_exercises
from minigrad.grading.class_folder import Ambiguous, run_kind




def totals(scores: Path) -> dict[str, str]:
    return {row["student_id"]: row["total"]
            for row in csv.DictReader(scores.open(encoding="utf-8"))}


@needs_sandbox
@pytest.mark.parametrize("dropped", ["lesson01_mallory.py", "01-derivatives.ipynb"])
def test_a_lesson_file_at_the_top_does_not_turn_the_class_into_one_submission(
        tmp_path: Path, capsys, dropped: str) -> None:
    """mallory's lesson01_mallory.py (or a student's accidental upload of the notebook) at the
    top of the class folder: the whole class was graded as one submission, exit 0, one row."""
    klass = make_class(tmp_path, ["alice", "bob"])
    if dropped.endswith(".py"):
        (klass / dropped).write_text(python_file_text(LESSON01), encoding="utf-8")  # stubs
    else:
        write_exercises(LESSON01, tmp_path / "handout")
        (klass / dropped).write_bytes((tmp_path / "handout" / dropped).read_bytes())
    scores = tmp_path / "scores.csv"
    assert cli_main(["grade", str(klass), "--jobs", "2", "--csv", str(scores)]) == 2
    err = capsys.readouterr().err
    assert "could be one submission or a class" in err and dropped in err
    assert "--class" in err and "--one" in err and not scores.exists()
    # The instructor's word: a class, where the dropped file is one more student.
    assert cli_main(["grade", str(klass), "--class", "--lesson", "1", "--csv",
                     str(scores)]) == 0
    graded = totals(scores)
    assert graded["alice"] == graded["bob"] == "15" and len(graded) == 3
    assert graded[Path(dropped).stem] == "0"  # the stubs


@needs_sandbox
def test_students_named_notebooks_and_assets_do_not_make_the_class_a_course(
        tmp_path: Path, capsys) -> None:
    """Two students called notebooks/ and assets/ made the class a course folder: graded as
    one submission, exit 0."""
    klass = make_class(tmp_path, ["alice", "assets", "bob", "notebooks"])
    scores = tmp_path / "scores.csv"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--csv", str(scores)]) == 2
    err = capsys.readouterr().err
    assert "a course's folders (assets/, notebooks/)" in err and "alice/" in err
    assert cli_main(["grade", str(klass), "--class", "--lesson", "1", "--csv",
                     str(scores)]) == 0
    assert totals(scores) == {"alice": "15", "assets": "15", "bob": "15", "notebooks": "15"}


@needs_sandbox
def test_the_readme_usage_still_needs_no_option(tmp_path: Path) -> None:
    """`minigrad grade class/ --jobs 8 --csv scores.csv` for a folder of students' folders."""
    klass = make_class(tmp_path, ["alice", "bob", "carol"])
    (klass / ".DS_Store").write_bytes(b"")  # hidden clutter decides nothing
    (klass / "roster.csv").write_text("alice,bob,carol\n")  # nor a file that is not code
    scores = tmp_path / "scores.csv"
    assert cli_main(["grade", str(klass), "--jobs", "8", "--csv", str(scores)]) == 0
    assert totals(scores) == {"alice": "15", "bob": "15", "carol": "15"}
    results = tmp_path / "one.json"  # --one: the same folder as one student's work
    assert cli_main(["grade", str(klass), "--one", "--lesson", "1", "--json",
                     str(results)]) == 0
    assert json.loads(results.read_text())["score"] == 15


def test_what_the_top_of_a_folder_says(tmp_path: Path) -> None:
    def folder(name: str, *entries: str) -> Path:
        root = tmp_path / name
        root.mkdir()
        for entry in entries:
            if entry.endswith("/"):
                (root / entry).mkdir()
            else:
                (root / entry).parent.mkdir(parents=True, exist_ok=True)
                (root / entry).write_text("x = 1\n")
        return root

    assert run_kind(folder("work", FILE01, "01-derivatives.ipynb", "data/")) == "one"
    assert run_kind(folder("upload", "my-work/" + FILE01)) == "one"  # their folder, uploaded
    assert run_kind(folder("class", "alice/" + FILE01, "bob/x.ipynb", "carol/")) == "class"
    assert run_kind(folder("course", "notebooks/01-derivatives.ipynb", "lessons/",
                           "assets/", "examples/a.py", FILE01)) == "one"
    assert run_kind(folder("files", "alice.py", "bob.py")) == "one"
    assert run_kind(tmp_path / "files", "class") == "class"
    mixed = folder("mixed", "alice/" + FILE01, "bob/" + FILE01, "notes.py")
    with pytest.raises(Ambiguous, match=r"notes\.py.*alice/, bob/"):
        run_kind(mixed)
    assert run_kind(mixed, "one") == "one" and run_kind(mixed, "class") == "class"
    (mixed / "carol\u200b").mkdir()  # named as the class table shows it
    (mixed / "carol\u200b" / FILE01).write_text("x = 1\n")
    with pytest.raises(Ambiguous, match=r"alice/, bob/, carol\\u\{200b\}/"):
        run_kind(mixed)
    with pytest.raises(ValueError, match="--class needs a folder"):
        run_kind(tmp_path / "files" / "alice.py", "class")


def test_class_and_one_together_are_refused(tmp_path: Path, capsys) -> None:
    klass = make_class(tmp_path, ["alice", "bob"])
    assert cli_main(["grade", str(klass), "--class", "--one", "--no-sandbox"]) == 2
    assert "--class and --one" in capsys.readouterr().err
    assert cli_main(["grade", str(klass), "--one", "--regrade", "alice", "--no-sandbox"]) == 2
    assert "cannot go with --one" in capsys.readouterr().err
