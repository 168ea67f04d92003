"""What a student meets when grading their own work: no notice that changes nothing for them,
their course folder graded as theirs, work in a .py and a notebook merged, one message for a
syntax error, and an unreadable notebook that is an error."""

from __future__ import annotations

import inspect
import json
import shutil
from pathlib import Path

from support.grading_results import needs_sandbox

from minigrad.cli import main as cli_main
from minigrad.course.catalog import find_lesson
from minigrad.course.folder import write_course
from minigrad.exercises.authoring.generate import python_file_text, write_exercises
from minigrad.exercises.authoring.notebook import exercise_cells
from minigrad.exercises.authoring.source import (exercises, reference_function,
                                                 student_file_name)
from minigrad.grading.sandbox import cgroups

LESSON01 = find_lesson(1)
FILE01 = student_file_name(LESSON01)
NOTEBOOK01 = f"{LESSON01.name}.ipynb"

pytestmark = needs_sandbox  # every test here grades real code


def test_the_cgroup_notice_is_for_class_runs_and_verbose(tmp_path: Path, monkeypatch,
                                                        capsys) -> None:
    """It was printed by every `minigrad grade`, a student's own included."""
    monkeypatch.setattr(cgroups, "_state", {})
    monkeypatch.setattr(cgroups, "base", lambda: (None, "has no memory, pids controllers"))
    write_exercises(LESSON01, tmp_path / "work", solutions=True)
    assert cli_main(["grade", str(tmp_path / "work" / FILE01)]) == 0
    assert "cgroup v2" not in capsys.readouterr().err
    monkeypatch.setattr(cgroups, "_state", {})
    assert cli_main(["grade", str(tmp_path / "work" / FILE01), "--verbose"]) == 0
    assert capsys.readouterr().err.count("cgroup v2 has no memory") == 1
    monkeypatch.setattr(cgroups, "_state", {})
    write_exercises(LESSON01, tmp_path / "class" / "alice")
    write_exercises(LESSON01, tmp_path / "class" / "bob")
    assert cli_main(["grade", str(tmp_path / "class"), "--lesson", "1"]) == 0
    assert capsys.readouterr().err.count("cgroup v2 has no memory") == 1


def test_a_course_folder_is_one_student_not_a_class(tmp_path: Path, capsys) -> None:
    """Its assets/, lessons/ and notebooks/ were graded as three students."""
    course = tmp_path / "course"
    write_course(course)
    write_exercises(LESSON01, course / "notebooks", solutions=True, force=True)
    results = tmp_path / "results.json"
    assert cli_main(["grade", str(course), "--lesson", "1", "--json", str(results)]) == 0
    assert json.loads(results.read_text())["score"] == 15
    assert "is a course folder" in capsys.readouterr().err
    assert not (tmp_path / "course-grades").exists()
    shutil.rmtree(course / "assets")  # a student tidying up: still their course
    assert cli_main(["grade", str(course), "--lesson", "1", "--json", str(results)]) == 0
    assert json.loads(results.read_text())["score"] == 15


def test_work_in_a_py_and_a_notebook_is_merged_per_exercise(tmp_path: Path) -> None:
    """01.1 done in the .py file, the rest in the notebook: the notebook alone was graded
    ("graded: 01-derivatives.ipynb") and the .py's 2 points were dropped without a word."""
    first = exercises(LESSON01)[0]
    work = tmp_path / "work"
    work.mkdir()
    (work / FILE01).write_text(python_file_text(LESSON01) + "\n\n" + inspect.getsource(
        reference_function(LESSON01, first)), encoding="utf-8")
    write_exercises(LESSON01, tmp_path / "solved", solutions=True)
    notebook = json.loads((tmp_path / "solved" / NOTEBOOK01).read_text())
    stub = {cell["id"]: cell["source"] for cell in exercise_cells(LESSON01)}
    for cell in notebook["cells"]:
        if cell.get("id") == "minigrad-ex01-1-code":
            cell["source"] = stub[cell["id"]]  # 01.1 not attempted in the notebook
    (work / NOTEBOOK01).write_text(json.dumps(notebook))
    results = tmp_path / "results.json"
    assert cli_main(["grade", str(work), "--json", str(results)]) == 0
    graded = json.loads(results.read_text())
    assert graded["score"] == 15
    assert (f"01.1 from {FILE01}; 01.2, 01.3, 01.4, 01.5 from {NOTEBOOK01}"
            in graded["output"]), graded["output"]


def test_a_syntax_error_is_said_once_without_hints(tmp_path: Path, capsys) -> None:
    path = tmp_path / FILE01
    path.write_text(python_file_text(LESSON01, solutions=True)
                    + "\ndef composite_derivative(x)\n    return 1\n", encoding="utf-8")
    assert cli_main(["grade", str(path)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("SyntaxError at line") == 1, printed
    assert "hint" not in printed.lower(), printed
    assert printed.count("syntax error") == 5  # each exercise's status says why it has 0


def test_an_unreadable_notebook_is_an_error(tmp_path: Path, capsys) -> None:
    """It was "skipped … nothing to grade", exit status 0."""
    broken = tmp_path / NOTEBOOK01
    broken.write_text('{"cells": [{"cell_type": "code", "source": "def composite_de')
    results = tmp_path / "results.json"
    assert cli_main(["grade", str(broken), "--json", str(results)]) == 1
    said = capsys.readouterr().err
    assert "error:" in said and "is not a readable notebook" in said
    assert "not a readable notebook" in json.loads(results.read_text())["output"]
