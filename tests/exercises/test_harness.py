"""The given runners live in one module, minigrad/exercises/harness.py, and reach students'
files written out: a graded child, which cannot read minigrad/exercises, runs them."""

from __future__ import annotations

import ast
import sys
from types import ModuleType

import pytest

from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.notebook import exercise_cells
from minigrad.exercises.authoring.source import (LESSON_SOURCES, lessons_with_exercises,
                                                 source_path)

LESSONS = lessons_with_exercises()
RUNNERS = {3: "run_function", 5: "run_linear_function", 6: "run_conv2d", 7: "run_pool",
           8: "run_optimizer"}


def _defined(text: str) -> set[str]:
    return {node.name for node in ast.parse(text).body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))}


def test_each_runner_and_the_library_watch_is_written_once() -> None:
    for number, runner in RUNNERS.items():
        source = (LESSON_SOURCES / f"lesson{number:02d}.py").read_text(encoding="utf-8")
        assert runner not in _defined(source), (number, runner)
        assert f"from minigrad.exercises.harness import" in source
    for path in LESSON_SOURCES.glob("lesson*.py"):
        assert not {"library_calls", "library_convolution_calls", "library_pooling_calls"} \
            & _defined(path.read_text(encoding="utf-8")), path


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.slug)
@pytest.mark.parametrize("solutions", [False, True], ids=["student", "solutions"])
def test_students_files_hold_the_runners_and_import_nothing_from_exercises(
        lesson, solutions: bool, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    text = python_file_text(lesson, solutions=solutions)
    cells = "\n".join("".join(cell["source"]) for cell in exercise_cells(lesson, solutions))
    for form in (text, cells):
        assert "minigrad.exercises.harness" not in form
    if lesson.number in RUNNERS:
        assert RUNNERS[lesson.number] in _defined(text)
    # As in the grader's child: minigrad/exercises/harness.py cannot be imported.
    monkeypatch.setitem(sys.modules, "minigrad.exercises.harness", None)
    module = ModuleType("student")
    exec(compile(text, f"{lesson.name}.py", "exec"), module.__dict__)


def test_the_source_itself_imports_the_harness(  # the reference module, in the grader
        ) -> None:
    from minigrad.exercises.lessons import lesson06

    assert lesson06.run_conv2d.__module__ == "minigrad.exercises.harness"
    assert "run_conv2d" not in _defined(source_path(LESSONS[5]).read_text(encoding="utf-8"))
