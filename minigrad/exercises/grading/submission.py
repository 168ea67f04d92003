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

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from minigrad.exercises.authoring.notebook import EXERCISE_TAG
from minigrad.exercises.authoring.source import BUILTIN, ExerciseBank
from minigrad.exercises.grading.parsing import analyse, notebook_cells
# The most code (a notebook's cells joined) the grader parses and sends to the sandbox.
from minigrad.exercises.sandbox.host import MAX_CODE_BYTES
from minigrad.lessons import Lesson

SKIPPED_DIRECTORIES = {"__pycache__", ".ipynb_checkpoints", ".git", "__MACOSX"}
MAX_SOURCE_BYTES = 2_000_000
_FUTURE = re.compile(r"^from\s+__future__\s+import\s")
MAX_NOTEBOOK_BYTES = 10_000_000
#: How deep into a submission folder files are looked for, and how many entries are seen.
MAX_DEPTH, MAX_ENTRIES = 6, 2000
#: How many files, and how much code in all, one submission may make the grader read and
#: parse (files named like a lesson first): a few files per lesson are normal, while a dozen
#: large ones took a minute of the grader's own time before any graded code ran.
MAX_FILES_READ, MAX_CODE_READ = 32, 4_000_000


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
        cells = notebook_cells(Path(path).read_text(encoding="utf-8", errors="replace"))
    except ValueError as error:
        raise ValueError(f"{Path(path).name} is not a readable notebook ({error})") from None
    tagged = [cell for cell in cells if EXERCISE_TAG in cell[1]]
    chosen = tagged or cells
    parts, futures = [], []
    for number, (text, _) in enumerate(chosen, start=1):
        # Each cell is compiled on its own in a kernel, so `from __future__` may open any cell;
        # in one file it must come first.
        lines = _clean_cell(text).splitlines()
        futures += [line for line in lines if _FUTURE.match(line) and line not in futures]
        body = "\n".join(line for line in lines if not _FUTURE.match(line))
        parts.append(f"# --- notebook cell {number} ---\n{body}")
    return "".join(line + "\n" for line in futures) + "\n\n".join(parts) + "\n"


# Cell magics whose body is Python (run once here); any other (%%bash, %%html, %%writefile ...)
# makes the whole cell something else than Python, and it is left out.
_PYTHON_CELL_MAGICS = ("%%time", "%%timeit", "%%capture", "%%prun")


def _clean_cell(text: str) -> str:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if first.startswith("%%") and first.split()[0] not in _PYTHON_CELL_MAGICS:
        return ""
    lines = [line for line in text.splitlines()
             if not line.lstrip().startswith(("%", "!"))]
    text = "\n".join(lines)
    drop = set(analyse(text)["check_lines"])
    return "\n".join(line for number, line in enumerate(lines, start=1) if number not in drop)


def read_code(path: Path) -> str:
    """The code to grade, as clean text: a byte-order mark (Windows editors write one) is
    dropped, and what is not valid UTF-8, or a lone surrogate escaped in a notebook's JSON,
    becomes a replacement character."""
    path = Path(path)
    if path.suffix == ".ipynb":
        code = notebook_code(path)
    else:
        code = path.read_text(encoding="utf-8-sig", errors="replace")
    return code.encode("utf-8", "replace").decode("utf-8")


# ---------------------------------------------------------------------------- lessons
def lesson_from_name(path: Path, bank: ExerciseBank = BUILTIN) -> Optional[Lesson]:
    """The lesson a file name points at (``lesson01…``, ``01-…``, or the slug as a word:
    ``my_mlp.py`` is lesson 05, ``mlpeters.py`` is not), if any."""
    stem = Path(path).stem.lower()
    for lesson in bank.lessons():
        number = f"{lesson.number:02d}"
        if re.match(rf"^(lesson[-_ ]?)?{number}(\D|$)", stem):
            return lesson
        for slug in {lesson.slug, lesson.slug.replace("-", "_")}:  # a whole word: not mlpeters
            if re.search(rf"(^|[^a-z]){re.escape(slug)}([^a-z]|$)", stem):
                return lesson
    return None


def _top_level_functions(code: str) -> dict[str, bool]:
    """Top-level function name -> True if its body is more than the stub (at a bounded cost:
    :mod:`.parsing`); nothing for code over :data:`MAX_CODE_BYTES`, which is not graded."""
    if len(code) > MAX_CODE_BYTES:
        return {}
    return dict(analyse(code)["functions"])


def defined_functions(code: str) -> set[str]:
    """Names of the top-level functions ``code`` defines (by regex if it does not parse)."""
    return set(_top_level_functions(code))


def lessons_from_content(code: str, bank: ExerciseBank = BUILTIN) -> list[Lesson]:
    """Lessons whose exercise functions ``code`` defines, most functions first."""
    names = defined_functions(code)
    scored = []
    for lesson in bank.lessons():
        count = sum(exercise.function in names for exercise in bank.exercises(lesson))
        if count:
            scored.append((count, lesson))
    scored.sort(key=lambda item: -item[0])
    return [lesson for _, lesson in scored]


def attempted_count(code: str, lesson: Lesson, bank: ExerciseBank = BUILTIN) -> int:
    """How many of the lesson's exercise functions ``code`` defines with more than the stub."""
    functions = _top_level_functions(code)
    return sum(functions.get(exercise.function, False) for exercise in bank.exercises(lesson))


# ---------------------------------------------------------------------------- discovery
def _candidate_files(path: Path, notes: Optional[list[str]] = None) -> list[Path]:
    """``.py`` and ``.ipynb`` files under ``path``: at most :data:`MAX_DEPTH` folders deep and
    :data:`MAX_ENTRIES` entries seen, links neither followed nor taken, unreadable folders
    skipped (a hostile folder tree costs the grader little and cannot stop it)."""
    if not path.is_dir():
        return [path]
    found: list[Path] = []
    seen = 0
    base_depth = len(path.parts)
    for folder, folders, files in os.walk(path, followlinks=False):
        here = Path(folder)
        folders[:] = sorted(name for name in folders
                            if name not in SKIPPED_DIRECTORIES and not name.startswith("."))
        if len(here.parts) - base_depth >= MAX_DEPTH:
            if folders and notes is not None:
                notes.append(f"skipped folders more than {MAX_DEPTH} levels deep")
            folders[:] = []
        for name in sorted(files):
            seen += 1
            if name.endswith((".py", ".ipynb")) and not name.startswith("."):
                found.append(here / name)
        seen += len(folders)
        if seen > MAX_ENTRIES:
            if notes is not None:
                notes.append(f"stopped looking after {MAX_ENTRIES} files and folders")
            break
    return found


def find_sources(path: Path, lesson: Optional[Lesson] = None,
                 bank: ExerciseBank = BUILTIN) -> tuple[list[SourceFile], list[str]]:
    """The gradable files under ``path`` (a file or a folder), each with its lesson: per
    lesson at most one ``.py`` file and one notebook (the most attempted; then by name).

    Returns ``(sources, notes)``; notes say which files were skipped and why.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {path.name}")
    sources: list[SourceFile] = []
    notes: list[str] = []
    candidates = sorted(_candidate_files(path, notes),  # lesson-named files first (stable)
                        key=lambda file: lesson_from_name(file, bank) is None)
    files_read = code_read = 0
    for file in candidates:
        if file != path and file.is_symlink():
            # A link could point at anything readable by the grader, such as the solutions.
            notes.append(f"skipped {file.name}: a symbolic link (submit the file itself)")
            continue
        try:
            info = file.lstat()
            limit = MAX_NOTEBOOK_BYTES if file.suffix == ".ipynb" else MAX_SOURCE_BYTES
            if not file.is_file():
                continue
            if info.st_size > limit:
                notes.append(f"skipped {file.name}: {info.st_size / 1e6:.1f} MB is more than the "
                             f"{limit / 1e6:g} MB a {file.suffix} file may have")
                continue
            if files_read == MAX_FILES_READ:
                notes.append(_stopped_reading(files_read, code_read))
                break
            files_read += 1
            code = read_code(file)
        except (OSError, ValueError, RecursionError, MemoryError) as error:
            notes.append(f"skipped {file.name}: {error}")
            continue
        code_read += len(code)
        if code_read > MAX_CODE_READ:  # before parsing it: parsing is what costs time
            notes.append(_stopped_reading(files_read - 1, code_read - len(code)))
            break
        if len(code) > MAX_CODE_BYTES:
            notes.append(f"skipped {file.name}: more than {MAX_CODE_BYTES / 1e6:g} MB of code")
            continue
        named = lesson_from_name(file, bank)
        by_content = lessons_from_content(code, bank)
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
        notes.append(f"no exercise files (.py or .ipynb) found in {path.name}")
    return _one_of_each_kind(sources, notes, bank), notes


def _stopped_reading(files: int, code: int) -> str:
    return (f"stopped reading files after {files} of them ({code / 1e6:.1f} MB of code): a "
            f"submission needs only its exercise files")


def _one_of_each_kind(sources: list[SourceFile], notes: list[str],
                      bank: ExerciseBank) -> list[SourceFile]:
    """Per lesson, the one ``.py`` file and the one notebook with the most attempted."""
    kept: dict[tuple, SourceFile] = {}
    for source in sources:
        slot = (source.lesson.number, source.kind)
        if slot not in kept:
            kept[slot] = source
            continue
        rival = kept[slot]
        better = attempted_count(source.code, source.lesson, bank) > attempted_count(
            rival.code, rival.lesson, bank)
        loser = rival if better else source
        kept[slot] = source if better else rival
        notes.append(f"skipped {loser.path.name}: "
                     f"another {source.kind} file for lesson {source.lesson.number:02d} was "
                     f"graded (one .py and one notebook per lesson)")
    return list(kept.values())


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
    names = [item.stem if item.is_file() else item.name for item in entries]
    while True:  # a file given its full name may now clash with another stem (x.py.ipynb)
        clashing = [k for k, name in enumerate(names)
                    if names.count(name) > 1 and names[k] != entries[k].name]
        if not clashing:  # (full names are unique within a folder, so this ends)
            return list(zip(names, entries))
        for k in clashing:
            names[k] = entries[k].name
