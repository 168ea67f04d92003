"""Generating exercises from one source: student and reference versions, notebooks, sync."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from minigrad.exercises.authoring.generate import WouldOverwrite, python_file_text, write_exercises
from minigrad.exercises.authoring.notebook import (exercise_cells, is_exercise_cell, notebook_path,
                                         read_notebook)
from minigrad.exercises.authoring.source import (BEGIN, END, exercises, lesson_for,
                                       lessons_with_exercises, source_text, split_source,
                                       strip_solutions, student_file_name)
from minigrad.exercises.authoring.sync_notebooks import main as sync_main
from minigrad.exercises.authoring.sync_notebooks import sync_notebook
from minigrad.course.catalog import LESSONS as ALL_LESSONS
from minigrad.course.catalog import find_lesson

LESSONS = lessons_with_exercises()
IDS = [f"{lesson.number:02d}" for lesson in LESSONS]


def test_strip_solutions_keeps_the_indentation() -> None:
    text = (
        "class A:\n"
        "    def f(self):\n"
        "        '''doc'''\n"
        "        ### BEGIN SOLUTION\n"
        "        if True:\n"
        "            return 1\n"
        "        ### END SOLUTION\n"
        "\n"
        "def g():\n"
        "    ### BEGIN SOLUTION\n"
        "    return 2\n"
        "    ### END SOLUTION\n"
    )
    assert strip_solutions(text) == (
        "class A:\n"
        "    def f(self):\n"
        "        '''doc'''\n"
        "        # YOUR CODE HERE\n"
        "        raise NotImplementedError\n"
        "\n"
        "def g():\n"
        "    # YOUR CODE HERE\n"
        "    raise NotImplementedError\n"
    )


def test_unbalanced_markers_are_an_error() -> None:
    with pytest.raises(ValueError, match="unbalanced"):
        strip_solutions("def f():\n    ### BEGIN SOLUTION\n    return 1\n")


@pytest.mark.parametrize("lesson", LESSONS, ids=IDS)
def test_the_student_version_has_only_stubs(lesson) -> None:
    student = python_file_text(lesson)
    assert BEGIN not in student and END not in student
    tree = ast.parse(student)
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    items = exercises(lesson)
    assert len(items) >= 4
    assert all(2 <= item.points <= 5 for item in items)
    for item in items:
        body = [node for node in functions[item.function].body
                if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
        raises = [node for node in body for node in ast.walk(node) if isinstance(node, ast.Raise)]
        # Either the whole body is the stub, or given code around stubs (a Function subclass
        # whose methods are stubs, then the given lines that run it).
        assert raises, item.function
        if len(body) == 1:
            assert isinstance(body[0], ast.Raise), item.function
    stub_lines = [line for line in student.splitlines() if line.strip() == "# YOUR CODE HERE"]
    assert len(stub_lines) == source_text(lesson).count(BEGIN) >= len(items)


@pytest.mark.parametrize("lesson", LESSONS, ids=IDS)
def test_the_reference_version_is_the_source(lesson) -> None:
    assert python_file_text(lesson, solutions=True).endswith(source_text(lesson))
    ids = [item.id for item in exercises(lesson)]
    assert ids == [f"{lesson.number:02d}.{k}" for k in range(1, len(ids) + 1)]


def test_lessons_are_found_by_number_or_slug() -> None:
    assert lesson_for(1) == lesson_for("01") == lesson_for("derivatives") == find_lesson(1)
    without = [lesson for lesson in ALL_LESSONS if lesson not in lessons_with_exercises()]
    if without:  # (a lesson without exercises yet, whichever that is as the course grows)
        with pytest.raises(ValueError, match="no exercises yet"):
            lesson_for(without[0].number)
    with pytest.raises(ValueError, match="no lesson"):
        lesson_for("nonsense")


def test_split_source_takes_each_function_with_its_comments() -> None:
    text = ('"""Doc."""\nimport math\n\n# about f\ndef f(x):\n    return x\n\n\n'
            'HELPER = 3\n\ndef g(x):\n    return 2 * x\n')
    parts = split_source(text, ["f", "g"])
    assert parts.docstring == "Doc."
    assert parts.functions["f"] == "# about f\ndef f(x):\n    return x\n"
    assert parts.preamble == "import math\n\nHELPER = 3\n"
    with pytest.raises(ValueError, match="no function"):
        split_source(text, ["h"])


def test_write_refuses_to_overwrite_work(tmp_path: Path) -> None:
    lesson = find_lesson(1)
    written = write_exercises(lesson, tmp_path)
    assert sorted(path.name for path in written) == sorted(
        [student_file_name(lesson), f"{lesson.name}.ipynb"])
    write_exercises(lesson, tmp_path)  # the same content again: nothing lost, allowed
    work = tmp_path / student_file_name(lesson)
    work.write_text(work.read_text() + "\n# my work\n")
    with pytest.raises(WouldOverwrite, match="--force"):
        write_exercises(lesson, tmp_path, solutions=True)
    assert "# my work" in work.read_text()
    write_exercises(lesson, tmp_path, solutions=True, force=True)
    assert BEGIN in work.read_text()


def test_the_command_line_writes_and_refuses(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "minigrad.cli", "exercises"]
    first = subprocess.run(command + ["derivatives", "--to", str(tmp_path)],
                           capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    (tmp_path / student_file_name(find_lesson(1))).write_text("# my work\n")
    second = subprocess.run(command + ["1", "--to", str(tmp_path), "--solutions"],
                            capture_output=True, text=True)
    assert second.returncode == 2 and "--force" in second.stderr
    assert (tmp_path / student_file_name(find_lesson(1))).read_text() == "# my work\n"


@pytest.mark.parametrize("lesson", LESSONS, ids=IDS)
def test_generated_notebook_has_exercise_cells(lesson, tmp_path: Path) -> None:
    write_exercises(lesson, tmp_path / "student")
    write_exercises(lesson, tmp_path / "solution", solutions=True)
    for form, solutions in (("student", False), ("solution", True)):
        notebook = read_notebook(tmp_path / form / f"{lesson.name}.ipynb")
        tagged = [cell for cell in notebook["cells"] if is_exercise_cell(cell)]
        assert tagged == exercise_cells(lesson, solutions)
        assert all(cell.get("outputs", []) == [] for cell in notebook["cells"])
        code = "".join("".join(cell["source"]) for cell in tagged)
        assert ("raise NotImplementedError" in code) != solutions
    checks = [cell for cell in exercise_cells(lesson) if "".join(cell["source"]).startswith("check(")]
    assert len(checks) == len(exercises(lesson))


@pytest.mark.parametrize("lesson", LESSONS, ids=IDS)
def test_committed_notebooks_match_the_generator(lesson) -> None:
    path = notebook_path(lesson)
    if not path.exists():
        pytest.skip(f"{path.name} not written yet")
    tagged = [cell for cell in read_notebook(path)["cells"] if is_exercise_cell(cell)]
    assert tagged == exercise_cells(lesson), (
        f"{path.name}: run `python -m minigrad.exercises.authoring.sync_notebooks`")


def _notebook(cells: list[dict]) -> dict:
    return {"cells": cells, "metadata": {"kernelspec": {"name": "python3"}},
            "nbformat": 4, "nbformat_minor": 5}


def test_sync_appends_then_is_idempotent_and_leaves_other_cells(tmp_path: Path) -> None:
    lesson = find_lesson(1)
    own = [{"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Lesson"]},
           {"cell_type": "code", "id": "work", "metadata": {}, "outputs": [],
            "execution_count": None, "source": ["x = 1"]}]
    path = notebook_path(lesson, tmp_path)
    path.write_text(json.dumps(_notebook(own)))
    assert sync_notebook(lesson, tmp_path) is True
    cells = read_notebook(path)["cells"]
    assert cells[:2] == own and cells[2:] == exercise_cells(lesson)
    before = path.read_bytes()
    assert sync_notebook(lesson, tmp_path) is False
    assert path.read_bytes() == before
    # Stale exercise cells in the middle are replaced where they stood.
    stale = dict(exercise_cells(lesson)[0], source=["old"])
    path.write_text(json.dumps(_notebook([own[0], stale, own[1]])))
    assert sync_notebook(lesson, tmp_path) is True
    cells = read_notebook(path)["cells"]
    assert cells[0] == own[0] and cells[-1] == own[1]
    assert cells[1:-1] == exercise_cells(lesson)


def test_sync_command_check_mode(tmp_path: Path, capsys) -> None:
    lesson = find_lesson(1)
    notebook_path(lesson, tmp_path).write_text(json.dumps(_notebook([])))
    assert sync_main(["1", "--notebooks", str(tmp_path), "--check"]) == 1
    assert sync_main(["1", "--notebooks", str(tmp_path)]) == 0
    assert sync_main(["1", "--notebooks", str(tmp_path), "--check"]) == 0
    assert "up to date" in capsys.readouterr().out
