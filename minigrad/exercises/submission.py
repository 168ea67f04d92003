"""Finding the code to grade: in a ``.py`` file, a notebook, or a folder of them.

Which lesson a file belongs to comes from ``--lesson`` when given, else from its name
(``lesson01_derivatives.py``, ``01-derivatives.ipynb``, anything containing the slug), else
from its content (it defines exercise functions of exactly one lesson).

From a notebook we take the code cells tagged ``minigrad-exercise`` — the exercise cells the
course generates, which hold the imports and the exercise functions — or, in a notebook without
such tags, every code cell. Either way IPython magics (``%``, ``!``) and top-level
``check(...)`` calls are dropped, so grading never runs the notebook's own checks.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from minigrad.exercises.source import exercises, lessons_with_exercises
from minigrad.lessons import Lesson

EXERCISE_TAG = "minigrad-exercise"
SKIPPED_DIRECTORIES = {"__pycache__", ".ipynb_checkpoints", ".git", "__MACOSX"}
MAX_SOURCE_BYTES = 10_000_000
_FUTURE = re.compile(r"^from\s+__future__\s+import\s")
MAX_NOTEBOOK_BYTES = 50_000_000


@dataclass(frozen=True)
class SourceFile:
    """One file of a submission, as code, assigned to one lesson."""

    path: Path
    lesson: Lesson
    code: str

    @property
    def kind(self) -> str:
        return "notebook" if self.path.suffix == ".ipynb" else "python"


# ---------------------------------------------------------------------------- reading
def notebook_code(path: Path) -> str:
    """The gradable code of a notebook (see the module docstring)."""
    try:
        notebook = json.loads(Path(path).read_text(encoding="utf-8"))
        cells = [cell for cell in notebook["cells"] if cell.get("cell_type") == "code"]
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path} is not a readable notebook ({error})") from None
    tagged = [cell for cell in cells
              if EXERCISE_TAG in (cell.get("metadata", {}).get("tags") or [])]
    chosen = tagged or cells
    parts, futures = [], []
    for number, cell in enumerate(chosen, start=1):
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        # Each cell is compiled on its own in a kernel, so `from __future__` may open any cell;
        # in one file it must come first.
        lines = _clean_cell(text).splitlines()
        futures += [line for line in lines if _FUTURE.match(line) and line not in futures]
        body = "\n".join(line for line in lines if not _FUTURE.match(line))
        parts.append(f"# --- notebook cell {number} ---\n{body}")
    return "".join(line + "\n" for line in futures) + "\n\n".join(parts) + "\n"


def _clean_cell(text: str) -> str:
    lines = [line for line in text.splitlines()
             if not line.lstrip().startswith(("%", "!"))]
    text = "\n".join(lines)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text  # the grader reports the syntax error
    drop: set[int] = set()
    for node in tree.body:
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "check"):
            drop.update(range(node.lineno, node.end_lineno + 1))
    return "\n".join(line for number, line in enumerate(lines, start=1) if number not in drop)


def read_code(path: Path) -> str:
    path = Path(path)
    if path.suffix == ".ipynb":
        return notebook_code(path)
    return path.read_text(encoding="utf-8", errors="replace")


# ---------------------------------------------------------------------------- lessons
def lesson_from_name(path: Path) -> Optional[Lesson]:
    """The lesson a file name points at (``lesson01…``, ``01-…``, or the slug), if any."""
    stem = Path(path).stem.lower()
    for lesson in lessons_with_exercises():
        number = f"{lesson.number:02d}"
        if re.match(rf"^(lesson[-_ ]?)?{number}(\D|$)", stem):
            return lesson
        if lesson.slug in stem or lesson.slug.replace("-", "_") in stem:
            return lesson
    return None


def defined_functions(code: str) -> set[str]:
    """Names of the top-level functions ``code`` defines (by regex if it does not parse)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(re.findall(r"^def\s+([A-Za-z_]\w*)", code, re.MULTILINE))
    return {node.name for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def lessons_from_content(code: str) -> list[Lesson]:
    """Lessons whose exercise functions ``code`` defines, most functions first."""
    names = defined_functions(code)
    scored = []
    for lesson in lessons_with_exercises():
        count = sum(exercise.function in names for exercise in exercises(lesson))
        if count:
            scored.append((count, lesson))
    scored.sort(key=lambda item: -item[0])
    return [lesson for _, lesson in scored]


def attempted_count(code: str, lesson: Lesson) -> int:
    """How many of the lesson's exercise functions ``code`` defines with more than the stub."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        names = defined_functions(code)
        return sum(exercise.function in names for exercise in exercises(lesson))
    wanted = {exercise.function for exercise in exercises(lesson)}
    bodies = {node.name: node.body for node in tree.body
              if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in wanted}
    return sum(not _is_stub(body) for body in bodies.values())


def _is_stub(body: list[ast.stmt]) -> bool:
    statements = [node for node in body
                  if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    if len(statements) != 1 or not isinstance(statements[0], ast.Raise):
        return False
    raised = statements[0].exc
    if isinstance(raised, ast.Call):
        raised = raised.func
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


# ---------------------------------------------------------------------------- discovery
def _candidate_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    found = []
    for item in sorted(path.rglob("*")):
        if any(part in SKIPPED_DIRECTORIES or part.startswith(".")
               for part in item.relative_to(path).parts):
            continue
        if item.is_file() and item.suffix in (".py", ".ipynb"):
            found.append(item)
    return found


def find_sources(path: Path, lesson: Optional[Lesson] = None) -> tuple[list[SourceFile], list[str]]:
    """The gradable files under ``path`` (a file or a folder), each with its lesson.

    Returns ``(sources, notes)``; notes say which files were skipped and why.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {path}")
    sources: list[SourceFile] = []
    notes: list[str] = []
    files = _candidate_files(path)
    for file in files:
        if file != path and file.is_symlink():
            # A link could point at anything readable by the grader, such as the solutions.
            notes.append(f"skipped {file.name}: a symbolic link (submit the file itself)")
            continue
        try:
            size = file.stat().st_size
            limit = MAX_NOTEBOOK_BYTES if file.suffix == ".ipynb" else MAX_SOURCE_BYTES
            if size > limit:
                notes.append(f"skipped {file.name}: {size / 1e6:.1f} MB is more than the "
                             f"{limit / 1e6:g} MB a {file.suffix} file may have")
                continue
            code = read_code(file)
        except (OSError, ValueError) as error:
            notes.append(f"skipped {file.name}: {error}")
            continue
        named = lesson_from_name(file)
        by_content = lessons_from_content(code)
        if lesson is not None:
            chosen = lesson if (named == lesson or lesson in by_content
                                or (path.is_file() and named is None)) else None
        else:
            chosen = named or (by_content[0] if by_content else None)
        if chosen is None:
            if path.is_file():
                notes.append(f"{file.name}: cannot tell which lesson this is; use --lesson")
            continue
        sources.append(SourceFile(file, chosen, code))
    if not sources and not notes:
        notes.append(f"no exercise files (.py or .ipynb) found in {path}")
    return sources, notes


def is_class_folder(path: Path) -> bool:
    """True if ``path`` holds one sub-folder per student rather than one submission.

    One submission has its lesson files at the top (as ``minigrad exercises`` writes them); a
    class folder has sub-folders with code in them and no lesson-named files at the top. A
    folder whose only content is one such sub-folder is one submission (a student who uploaded
    their folder, as in Gradescope's ``/autograder/submission/my-work/``).
    """
    path = Path(path)
    if not path.is_dir():
        return False
    top_files = [item for item in path.iterdir() if item.is_file()
                 and item.suffix in (".py", ".ipynb")]
    if any(lesson_from_name(item) for item in top_files):
        return False
    if not any(item.is_dir() and item.name not in SKIPPED_DIRECTORIES
               and not item.name.startswith(".") and _candidate_files(item)
               for item in path.iterdir()):
        return False
    return len(class_members(path)) > 1


def class_members(path: Path) -> list[tuple[str, Path]]:
    """(student, their submission) for each entry of a class folder, sorted by name.

    A student is named after the folder, or the file without its suffix; when two entries
    would get the same name (``alice/`` and ``alice.py``), files keep their suffix. Links are
    left out (they could point anywhere, the solutions included).
    """
    entries = [item for item in sorted(Path(path).iterdir())
               if not (item.name.startswith(".") or item.name in SKIPPED_DIRECTORIES
                       or item.is_symlink())
               and (item.is_dir() or (item.is_file() and item.suffix in (".py", ".ipynb")))]
    stems = [item.stem if item.is_file() else item.name for item in entries]
    members = []
    for item, stem in zip(entries, stems):
        name = item.name if item.is_file() and stems.count(stem) > 1 else stem
        members.append((name, item))
    return members
