"""Finding the code to grade: in a ``.py`` file, a notebook, or a folder of them.

Which lesson a file belongs to comes from ``--lesson`` when given, else from its name
(``lesson01_derivatives.py``, ``01-derivatives.ipynb``, anything containing the slug), else
from its content (it defines exercise functions of exactly one lesson).

From a notebook we take the code cells tagged ``minigrad-exercise`` — the exercise cells the
course generates, which hold the imports and the exercise functions — or, in a notebook without
such tags, every code cell. Either way IPython magics (``%``, ``!``) and top-level
``check(...)`` calls are dropped, so grading never runs the notebook's own checks.

Every file is read through a descriptor of the submission folder, following no link at any
step of its path (:mod:`.files`), and within size limits checked before anything is parsed.
"""

from __future__ import annotations

import contextvars
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from minigrad.exercises.authoring.notebook import EXERCISE_TAG
from minigrad.exercises.authoring.source import BUILTIN, ExerciseBank
from minigrad.grading.files import Listing, Refused, SubmissionFolder
from minigrad.grading.parsing import analyse, analyse_all, notebook_cells
# The most code (a notebook's cells joined) the grader parses and sends to the sandbox.
from minigrad.grading.sandbox.host import MAX_CODE_BYTES
from minigrad.course.catalog import Lesson

#: Whether the path given to :func:`find_sources` may itself be a link. The instructor's own
#: path may; a class member may not: a student who can rename entries of the class folder (a
#: shared drop folder) could swap their folder for a link to the keys between the listing of
#: the class and the grading of their folder. Set per thread by the class grader
#: (:mod:`.classroom`; who the members are: :mod:`.class_folder`).
FOLLOW_TOP_LINK: contextvars.ContextVar[bool] = contextvars.ContextVar("follow_top_link",
                                                                      default=True)
SKIPPED_DIRECTORIES = {"__pycache__", ".ipynb_checkpoints", ".git", "__MACOSX"}
MAX_SOURCE_BYTES = 2_000_000
_FUTURE = re.compile(r"^from\s+__future__\s+import\s")
_CELL_HEADER = len("# --- notebook cell 100000 ---\n\n\n")
MAX_NOTEBOOK_BYTES = 10_000_000
#: How deep into a submission folder files are looked for, and how many entries are seen.
MAX_DEPTH, MAX_ENTRIES = 6, 2000
#: How many files, and how much code in all, one submission may make the grader read and
#: parse (files named like a lesson first): a few files per lesson are normal, while a dozen
#: large ones took a minute of the grader's own time before any graded code ran. Bytes count
#: too, not only code: 32 notebooks of 10 MB holding no code took 110 s to read and parse.
MAX_FILES_READ, MAX_CODE_READ, MAX_BYTES_READ = 32, 4_000_000, 30_000_000


class Problem(str):
    """A note that is an error, not just a skip: a file that should hold work but cannot be
    read (a notebook that is not JSON). ``minigrad grade`` exits with status 1 after it."""


class UnreadableNotebook(ValueError):
    """A ``.ipynb`` file whose text is not a notebook."""


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
    """The gradable code of the notebook at ``path`` (see the module docstring)."""
    with SubmissionFolder(path) as file:
        data = file.read((), MAX_NOTEBOOK_BYTES)
    return notebook_code_from_text(data.decode("utf-8", "replace"), Path(path).name)


def notebook_code_from_text(text: str, name: str = "notebook") -> str:
    """The gradable code of a notebook's JSON ``text``. Raises ValueError when it is not a
    notebook, and :class:`Refused` when its code cells hold more than the sandbox takes —
    found before any cell is parsed: 49 cells of 199 kB each, every one under the limit of
    what is parsed in this process, cost the grader 17 s of its own time."""
    try:
        cells = notebook_cells(text)
    except ValueError as error:
        raise UnreadableNotebook(f"{name} is not a readable notebook ({error})") from None
    tagged = [cell for cell in cells if EXERCISE_TAG in cell[1]]
    chosen = [cell_text for cell_text, _ in (tagged or cells)]
    # Each cell also gets a header line: 80 000 one-character cells make 2.7 MB of code.
    if sum(len(cell_text) + _CELL_HEADER for cell_text in chosen) > MAX_CODE_BYTES:
        raise Refused(f"more than {MAX_CODE_BYTES / 1e6:g} MB of code")
    parts, futures = [], []
    for number, lines in enumerate(_clean_cells(chosen), start=1):
        # Each cell is compiled on its own in a kernel, so `from __future__` may open any cell;
        # in one file it must come first.
        futures += [line for line in lines if _FUTURE.match(line) and line not in futures]
        body = "\n".join(line for line in lines if not _FUTURE.match(line))
        parts.append(f"# --- notebook cell {number} ---\n{body}")
    return "".join(line + "\n" for line in futures) + "\n\n".join(parts) + "\n"


# Cell magics whose body is Python (run once here); any other (%%bash, %%html, %%writefile ...)
# makes the whole cell something else than Python, and it is left out.
_PYTHON_CELL_MAGICS = ("%%time", "%%timeit", "%%capture", "%%prun")


def _clean_cells(texts: list[str]) -> list[list[str]]:
    """Each cell's lines without magics and top-level ``check(...)`` calls. The cells are
    parsed together, in the helper process when they are long (:func:`.parsing.analyse_all`)."""
    kept = []
    for text in texts:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        if first.startswith("%%") and first.split()[0] not in _PYTHON_CELL_MAGICS:
            kept.append([])
        else:
            kept.append([line for line in text.splitlines()
                         if not line.lstrip().startswith(("%", "!"))])
    analyses = analyse_all(["\n".join(lines) for lines in kept])
    cleaned = []
    for lines, analysis in zip(kept, analyses):
        drop = set(analysis["check_lines"])
        cleaned.append([line for number, line in enumerate(lines, start=1) if number not in drop])
    return cleaned


def code_from_bytes(data: bytes, suffix: str, name: str) -> str:
    """The code to grade in a file's bytes, as clean text: a byte-order mark (Windows editors
    write one) is dropped, and what is not valid UTF-8, or a lone surrogate escaped in a
    notebook's JSON, becomes a replacement character."""
    if suffix == ".ipynb":
        code = notebook_code_from_text(data.decode("utf-8", "replace"), name)
    else:
        code = data.decode("utf-8-sig", "replace")
    return code.encode("utf-8", "replace").decode("utf-8")


def read_code(path: Path) -> str:
    """The code to grade in the file at ``path`` (see :func:`code_from_bytes`)."""
    path = Path(path)
    limit = MAX_NOTEBOOK_BYTES if path.suffix == ".ipynb" else MAX_SOURCE_BYTES
    with SubmissionFolder(path) as file:
        return code_from_bytes(file.read((), limit), path.suffix, path.name)


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
def _listing(folder: SubmissionFolder) -> Listing:
    return folder.listing((".py", ".ipynb"), SKIPPED_DIRECTORIES, MAX_DEPTH, MAX_ENTRIES)


def _candidate_files(path: Path, notes: Optional[list[str]] = None) -> list[Path]:
    """``.py`` and ``.ipynb`` files under ``path``: at most :data:`MAX_DEPTH` folders deep and
    :data:`MAX_ENTRIES` entries seen, links neither followed nor taken, unreadable folders
    skipped (a hostile folder tree costs the grader little and cannot stop it)."""
    with SubmissionFolder(path) as folder:
        listing = _listing(folder)
    if notes is not None:
        notes += listing.notes
    return [Path(path).joinpath(*parts) for parts in listing.files]


def find_sources(path: Path, lesson: Optional[Lesson] = None,
                 bank: ExerciseBank = BUILTIN) -> tuple[list[SourceFile], list[str]]:
    """The gradable files under ``path`` (a file or a folder), each with its lesson: per
    lesson at most one ``.py`` file and one notebook (the most attempted; then by name).

    Every file is read through a descriptor of ``path``, following no link below it
    (:mod:`.files`): what a student swaps while they are graded cannot make the grader read
    anything but their own files. Returns ``(sources, notes)``; notes say which files were
    skipped and why.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {path.name}")
    with SubmissionFolder(path, follow=FOLLOW_TOP_LINK.get()) as folder:
        listing = _listing(folder)
        notes = listing.notes
        sources = _read_sources(folder, listing.files, lesson, bank, notes)
    if not sources and not notes:
        notes.append(f"no exercise files (.py or .ipynb) found in {path.name}")
    return _one_of_each_kind(sources, notes, bank), notes


def _read_sources(folder: SubmissionFolder, candidates: list[tuple[str, ...]],
                  lesson: Optional[Lesson], bank: ExerciseBank,
                  notes: list[str]) -> list[SourceFile]:
    """Read and assign the candidate files, lesson-named ones first, within the caps."""
    files = [(parts, folder.path.joinpath(*parts)) for parts in candidates]
    files.sort(key=lambda item: lesson_from_name(item[1], bank) is None)  # stable
    sources: list[SourceFile] = []
    files_read = code_read = bytes_read = 0
    for parts, file in files:
        limit = MAX_NOTEBOOK_BYTES if file.suffix == ".ipynb" else MAX_SOURCE_BYTES
        if files_read == MAX_FILES_READ or bytes_read > MAX_BYTES_READ:
            notes.append(_stopped_reading(files_read, code_read))
            break
        try:
            data = folder.read(parts, limit)
            files_read += 1
            bytes_read += len(data)
            if bytes_read > MAX_BYTES_READ:  # before parsing it, as for code below
                continue
            code = code_from_bytes(data, file.suffix, file.name)
        except UnreadableNotebook as error:
            notes.append(Problem(f"{error}: it was not graded; open it in Jupyter, or restore "
                                 f"it from a checkpoint (.ipynb_checkpoints) or a backup"))
            continue
        except (OSError, ValueError, Refused, RecursionError, MemoryError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            notes.append(f"skipped {file.name}: {reason}")
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
                                or (not folder.is_folder and named is None)) else None
        else:
            chosen = named or (by_content[0] if by_content else None)
        if chosen is None:
            if not folder.is_folder:
                notes.append(f"{file.name}: cannot tell which lesson this is; use --lesson")
            continue
        sources.append(SourceFile(file, chosen, code))
    return sources


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
