"""One source per lesson: read it, strip its solutions, split it into notebook cells.

``lessons/lessonNN.py`` holds the reference solutions between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` (the markers nbgrader uses). The student version replaces each marked block
with ``# YOUR CODE HERE`` and ``raise NotImplementedError`` at the block's indentation.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import re
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable

from minigrad.exercises.spec import Exercise
from minigrad.course.catalog import LESSONS, Lesson, find_lesson

LESSON_SOURCES = Path(__file__).resolve().parent.parent / "lessons"

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
#: Held while a private source runs: re-entrant, since a checks module may load another.
_LOADING = threading.RLock()


class ExerciseBank:
    """Where exercise sources come from: the built-in ones (``minigrad/exercises/lessons``, whose
    solutions are public) or an instructor's private folder holding files of the same format,
    ``lessonNN.py`` and ``lessonNN_checks.py`` (``minigrad grade --exercises DIR``)."""

    def __init__(self, folder: Path | str | None = None) -> None:
        self.builtin = folder is None
        self.folder = LESSON_SOURCES if folder is None else Path(folder).resolve()
        digest = hashlib.sha256(str(self.folder).encode()).hexdigest()[:12]
        self._prefix = f"_minigrad_private_{digest}"
        self._loaded: dict[str, ModuleType] = {}

    def lessons(self) -> list[Lesson]:
        """The lessons that have an exercise source and checks here, in course order."""
        return [lesson for lesson in LESSONS
                if (self.folder / f"lesson{lesson.number:02d}.py").is_file()
                and (self.folder / f"lesson{lesson.number:02d}_checks.py").is_file()]

    def _module(self, name: str) -> ModuleType:
        if self.builtin:
            return importlib.import_module(f"minigrad.exercises.lessons.{name}")
        loaded = self._loaded.get(name)
        if loaded is not None:
            return loaded
        # The class grader's threads share one bank. A module is in sys.modules while it
        # runs (dataclasses look it up there), so another thread must not take it from there
        # half-run: one lock, and a module counts as loaded only once it has run to the end.
        with _LOADING:
            if name not in self._loaded:
                self._loaded[name] = self._load(name)
        return self._loaded[name]

    def _load(self, name: str) -> ModuleType:
        qualified = f"{self._prefix}_{name}"
        spec = importlib.util.spec_from_file_location(qualified, self.folder / f"{name}.py")
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {self.folder / name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[qualified] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[qualified]
            raise
        return module

    def source_text(self, lesson: Lesson) -> str:
        """The lesson's source as students get it, solutions and markers included: the given
        runners it imports from the harness written out (:func:`inline_harness`)."""
        return inline_harness((self.folder / f"lesson{lesson.number:02d}.py")
                              .read_text(encoding="utf-8"))

    def reference_module(self, lesson: Lesson) -> ModuleType:
        """The lesson source imported as a module: the reference solutions."""
        return self._module(f"lesson{lesson.number:02d}")

    def exercises(self, lesson: Lesson) -> list[Exercise]:
        """The lesson's :class:`Exercise` records, in order."""
        return list(self._module(f"lesson{lesson.number:02d}_checks").EXERCISES)

    def reference_function(self, lesson: Lesson, exercise: Exercise) -> Callable:
        return getattr(self.reference_module(lesson), exercise.function)

    def lesson_for(self, key: int | str | Lesson) -> Lesson:
        """A lesson that has exercises here, by number, slug or name; a clear error otherwise."""
        lesson = key if isinstance(key, Lesson) else find_lesson(key)
        if lesson not in self.lessons():
            have = ", ".join(f"{item.number:02d}" for item in self.lessons()) or "none"
            raise ValueError(f"lesson {lesson.number:02d} ({lesson.slug}) has no exercises "
                             f"{'yet' if self.builtin else f'in {self.folder}'}; lessons with "
                             f"exercises: {have}")
        return lesson


BUILTIN = ExerciseBank()


def lessons_with_exercises() -> list[Lesson]:
    """The lessons that have a built-in exercise source and checks, in course order."""
    return BUILTIN.lessons()


def lesson_for(key: int | str | Lesson) -> Lesson:
    """A lesson that has built-in exercises, by number, slug or name; a clear error otherwise."""
    return BUILTIN.lesson_for(key)


def source_path(lesson: Lesson) -> Path:
    return LESSON_SOURCES / f"lesson{lesson.number:02d}.py"


def source_text(lesson: Lesson) -> str:
    """The lesson source as students get it: the given runners written out (inline_harness)."""
    return inline_harness(source_path(lesson).read_text(encoding="utf-8"))


HARNESS = LESSON_SOURCES.parent / "harness.py"
_HARNESS_IMPORT = re.compile(r"^from minigrad\.exercises\.harness import (?P<names>[\w, ]+?)"
                             r"[ \t]*(#.*)?\n", re.MULTILINE)


def inline_harness(text: str) -> str:
    """``text`` with its ``from minigrad.exercises.harness import …`` replaced by the code of
    the names it imports and of what they use from the harness (with the harness's imports):
    a student's file must run where ``minigrad/exercises`` cannot be read (the grader's child),
    and shows the student the code that runs theirs."""
    match = _HARNESS_IMPORT.search(text)
    if match is None:
        return text
    harness = HARNESS.read_text(encoding="utf-8")
    tree = ast.parse(harness)
    lines = harness.splitlines(keepends=True)
    defined = {node.name: node for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    needed: set[str] = set()
    todo = [name.strip() for name in match.group("names").split(",") if name.strip()]
    used: set[str] = set()
    while todo:
        name = todo.pop()
        if name in needed or name not in defined:
            continue
        needed.add(name)
        names = {inner.id for inner in ast.walk(defined[name]) if isinstance(inner, ast.Name)}
        used |= names
        todo.extend(names)
    bound = {(alias.asname or alias.name).split(".")[0] for node in ast.parse(text).body
             if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    imports = []
    for node in tree.body:  # the harness's imports that the lesson source lacks
        if isinstance(node, (ast.Import, ast.ImportFrom)) and getattr(node, "module", "") != \
                "__future__":
            missing = [alias for alias in node.names if (alias.asname or alias.name).split(".")[0]
                       in used - bound]
            if missing:
                node.names = missing
                imports.append(ast.unparse(node) + "\n")
    definitions = []
    for node in tree.body:
        if getattr(node, "name", None) in needed:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            definitions.append("".join(lines[start:node.end_lineno]))
    given = "".join(imports) + "\n\n# Given (not exercises): from minigrad/exercises/harness.py.\n" \
        + "\n\n".join(definitions)
    return text[:match.start()] + given + text[match.end():]


def reference_module(lesson: Lesson) -> ModuleType:
    """The built-in lesson source imported as a module: the reference solutions."""
    return BUILTIN.reference_module(lesson)


def exercises(lesson: Lesson) -> list[Exercise]:
    """The built-in :class:`Exercise` records of ``lesson``, in order."""
    return BUILTIN.exercises(lesson)


def reference_function(lesson: Lesson, exercise: Exercise) -> Callable:
    return BUILTIN.reference_function(lesson, exercise)


def all_exercises() -> dict[str, tuple[Lesson, Exercise]]:
    """Every built-in exercise of every lesson, by id (``"01.1"``)."""
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
