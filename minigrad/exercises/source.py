"""One source per lesson: read it, strip its solutions, split it into notebook cells.

``lessons/lessonNN.py`` holds the reference solutions between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` (the markers nbgrader uses). The student version replaces each marked block
with ``# YOUR CODE HERE`` and ``raise NotImplementedError`` at the block's indentation.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable

from minigrad.exercises.spec import Exercise
from minigrad.lessons import LESSONS, Lesson, find_lesson

LESSON_SOURCES = Path(__file__).resolve().parent / "lessons"

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB = ("# YOUR CODE HERE", "raise NotImplementedError")

_SOLUTION_BLOCK = re.compile(
    r"^(?P<indent>[ \t]*)### BEGIN SOLUTION[ \t]*\n.*?^[ \t]*### END SOLUTION[ \t]*(\n|\Z)",
    re.MULTILINE | re.DOTALL,
)


def strip_solutions(text: str) -> str:
    """``text`` with every solution block replaced by the student stub, same indentation."""
    if text.count(BEGIN) != text.count(END):
        raise ValueError(f"unbalanced solution markers: {text.count(BEGIN)} {BEGIN!r}, "
                         f"{text.count(END)} {END!r}")

    def stub(match: re.Match) -> str:
        indent = match.group("indent")
        return "".join(f"{indent}{line}\n" for line in STUB)

    return _SOLUTION_BLOCK.sub(stub, text)


def remove_markers(text: str) -> str:
    """``text`` with the marker lines removed and the solutions kept (the reference version)."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if line.strip() not in (BEGIN, END))


# ---------------------------------------------------------------------------- lookup
def lessons_with_exercises() -> list[Lesson]:
    """The lessons that have an exercise source and checks, in course order."""
    return [lesson for lesson in LESSONS
            if (LESSON_SOURCES / f"lesson{lesson.number:02d}.py").exists()
            and (LESSON_SOURCES / f"lesson{lesson.number:02d}_checks.py").exists()]


def lesson_for(key: int | str | Lesson) -> Lesson:
    """A lesson that has exercises, by number, slug or name; a clear error otherwise."""
    lesson = key if isinstance(key, Lesson) else find_lesson(key)
    if lesson not in lessons_with_exercises():
        have = ", ".join(f"{item.number:02d}" for item in lessons_with_exercises()) or "none"
        raise ValueError(f"lesson {lesson.number:02d} ({lesson.slug}) has no exercises yet; "
                         f"lessons with exercises: {have}")
    return lesson


def source_path(lesson: Lesson) -> Path:
    return LESSON_SOURCES / f"lesson{lesson.number:02d}.py"


def source_text(lesson: Lesson) -> str:
    return source_path(lesson).read_text(encoding="utf-8")


def reference_module(lesson: Lesson) -> ModuleType:
    """The lesson source imported as a module: the reference solutions."""
    return importlib.import_module(f"minigrad.exercises.lessons.lesson{lesson.number:02d}")


def exercises(lesson: Lesson) -> list[Exercise]:
    """The lesson's :class:`Exercise` records, in order."""
    module = importlib.import_module(
        f"minigrad.exercises.lessons.lesson{lesson.number:02d}_checks")
    return list(module.EXERCISES)


def reference_function(lesson: Lesson, exercise: Exercise) -> Callable:
    return getattr(reference_module(lesson), exercise.function)


def all_exercises() -> dict[str, tuple[Lesson, Exercise]]:
    """Every exercise of every lesson, by id (``"01.1"``)."""
    table: dict[str, tuple[Lesson, Exercise]] = {}
    for lesson in lessons_with_exercises():
        for exercise in exercises(lesson):
            table[exercise.id] = (lesson, exercise)
    return table


def student_file_name(lesson: Lesson) -> str:
    """File name of a lesson's exercises, e.g. ``lesson01_derivatives.py`` (importable)."""
    return f"lesson{lesson.number:02d}_{lesson.slug.replace('-', '_')}.py"


# ---------------------------------------------------------------------------- splitting
@dataclass(frozen=True)
class SourceParts:
    """A lesson source cut into the pieces the notebook shows."""

    docstring: str
    preamble: str  # imports and helpers: everything that is not an exercise function
    functions: dict[str, str]  # exercise function name -> its code (student or solution form)


def split_source(text: str, function_names: list[str]) -> SourceParts:
    """Cut ``text`` into its docstring, its preamble and one block per exercise function.

    Comments directly above a function belong to it; everything else outside the exercise
    functions (imports, helpers) forms the preamble.
    """
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    docstring = ast.get_docstring(tree) or ""
    taken = [False] * len(lines)
    if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(
            getattr(tree.body[0], "value", None), ast.Constant):
        for index in range(tree.body[0].lineno - 1, tree.body[0].end_lineno):
            taken[index] = True
    functions: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in function_names:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            while start > 0 and lines[start - 1].lstrip().startswith("#"):
                start -= 1
            for index in range(start, node.end_lineno):
                taken[index] = True
            functions[node.name] = "".join(lines[start:node.end_lineno]).rstrip() + "\n"
    missing = [name for name in function_names if name not in functions]
    if missing:
        raise ValueError(f"the lesson source defines no function {missing}")
    preamble = "".join(line for line, used in zip(lines, taken) if not used)
    preamble = re.sub(r"\n{3,}", "\n\n", preamble).strip() + "\n"
    return SourceParts(docstring, preamble, functions)
