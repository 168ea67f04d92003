"""Grading one submission: run it in the sandbox, compare with the reference, score, report.

Before any student code runs, the grader draws each exercise's cases (the visible ones, then
fresh hidden ones from a seeded generator) and computes the expected outputs by calling the
reference solution *in this process* (:func:`answer_key`). Only the arguments go to the
sandboxed student process; what comes back is compared here. Each case is worth an equal share
of the exercise's points (partial credit).

A submission may hold a ``.py`` file and a notebook for one lesson: each that holds work is
graded, and each exercise keeps its best score, from whichever file gave it (said in the
results: :func:`merge_per_exercise`).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import os
import re
import threading
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

import numpy as np

from minigrad.exercises.codec import CodecError, from_json, to_json
from minigrad.exercises.mistakes import name_raised, plain_words
from minigrad.exercises.selfcheck import GIVEN_NAMES
from minigrad.exercises.authoring.source import BUILTIN, ExerciseBank, strip_solutions
from minigrad.grading.sandbox import tempdirs
from minigrad.grading.sandbox.host import DEFAULT_MEMORY_MB, ImportFailed, Sandbox
from minigrad.grading.sandbox.worker import NOT_ATTEMPTED
from minigrad.grading.sandbox import runtime
from minigrad.grading.sandbox.probe import readable_secrets, sandbox_mode
from minigrad.exercises.spec import Exercise, Runtime, describe, difference, judge_parts
from minigrad.grading.parsing import plainly_a_stub, source_check_verdict
from minigrad.grading.redaction import hidden_message
from minigrad.grading.submission import Problem, SourceFile, attempted_count, find_sources
from minigrad.course.catalog import Lesson

STATUS_BY_KIND = {
    "not_implemented": "not attempted", "missing": "missing", "timeout": "timed out",
    "exit": "exited", "crash": "crashed", "memory": "out of memory", "flood": "output flood",
    "garbage": "bad output", "exception": "raised", "wrong": "wrong", "syntax": "syntax error",
    "import": "import failed", "mutated": "changed input", "rules": "refused",
    "disk": "wrote too much", "oversize": "answer too large",
}


#: The longest message kept for one case (a forged answer can make error texts huge).
MAX_MESSAGE = 2000


@dataclass
class CaseResult:
    """One case's outcome, as a student may see it: for a hidden case, ``call`` is empty and
    ``message`` names the kind of failure only (:mod:`.redaction`)."""

    visible: bool
    passed: bool
    kind: str = ""  # why it failed: a key of STATUS_BY_KIND
    message: str = ""
    call: str = ""  # e.g. "composite_derivative(1.0)"; "" for a hidden case
    #: Share of the case earned, 0–1: an answer of several parts can be partly right.
    credit: Optional[float] = None
    #: A failed hidden case's call and full message, for the instructor's eyes only
    #: (``minigrad grade --show-hidden`` prints it); never in results a student reads.
    detail: str = ""

    def __post_init__(self) -> None:
        if self.credit is None:
            self.credit = 1.0 if self.passed else 0.0
        if len(self.message) > MAX_MESSAGE:
            self.message = self.message[:MAX_MESSAGE - 1] + "…"
        if len(self.detail) > MAX_MESSAGE:
            self.detail = self.detail[:MAX_MESSAGE - 1] + "…"


@dataclass
class ExerciseResult:
    lesson: Lesson
    exercise: Exercise
    cases: list[CaseResult] = field(default_factory=list)
    file: str = ""

    @property
    def max_score(self) -> float:
        return float(self.exercise.points)

    def points_for(self, visible: Optional[bool] = None) -> tuple[float, float]:
        """(score, max score) over all cases, or only the visible / hidden ones."""
        share = self.max_score / max(len(self.cases), 1)
        chosen = [case for case in self.cases if visible is None or case.visible == visible]
        return (round(share * sum(case.credit for case in chosen), 4),
                round(share * len(chosen), 4))

    @property
    def score(self) -> float:
        return self.points_for()[0] if self.cases else 0.0

    @property
    def status(self) -> str:
        if self.cases and all(case.passed for case in self.cases):
            return "passed"
        failed = [case for case in self.cases if not case.passed]
        if not failed:
            return "not graded"
        if any(case.credit for case in self.cases):  # cases right, counting parts: 2.5/5
            earned = round(sum(case.credit for case in self.cases), 2)
            return f"{earned:g}/{len(self.cases)} cases"
        return STATUS_BY_KIND.get(failed[0].kind, failed[0].kind)

    @property
    def feedback(self) -> str:
        failed = [case for case in self.cases if not case.passed]
        if not failed:
            return ""
        first = failed[0]
        if first.kind in ("not_implemented", "missing", "syntax", "import"):
            return first.message
        if first.visible:
            return f"{first.call}: {first.message}"
        hidden = [case for case in self.cases if not case.visible]
        return f"hidden case {hidden.index(first) + 1}: {first.message}"


@dataclass
class SubmissionResult:
    path: str
    seed: int
    exercises: list[ExerciseResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    #: How graded code was confined (the sandbox mode's label, see :func:`sandbox_label`).
    sandbox: str = ""
    #: Why the grader itself failed on this submission ("" when it did not): no score then.
    error: str = ""
    #: When grading started (UTC, ISO 8601) and how long it took, in seconds.
    started: str = ""
    seconds: Optional[float] = None
    #: In a class run: the run's seed, from which this student's ``seed`` was derived.
    class_seed: Optional[int] = None
    #: Gradescope's visibility of the hidden cases' tests (``gradescope.VISIBILITIES``).
    hidden_visibility: str = "after_published"

    @property
    def problems(self) -> list[str]:
        """The notes that are errors (a notebook that is not JSON): see ``Problem``."""
        return [note for note in self.notes if isinstance(note, Problem)]

    @property
    def score(self) -> float:
        return round(sum(result.score for result in self.exercises), 4)

    @property
    def max_score(self) -> float:
        return round(sum(result.max_score for result in self.exercises), 4)


def new_seed() -> int:
    return int.from_bytes(os.urandom(4), "little")


def student_seed(class_seed: int, student: str) -> int:
    """The seed of one student's hidden cases in a class run: every student gets their own
    cases, and the run's seed with the student's name gives them again (``--regrade``)."""
    text = f"{class_seed}/{student}".encode("utf-8", "surrogateescape")
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "little")


def exercise_rng(seed: int, exercise: Exercise) -> np.random.Generator:
    """The generator of one exercise's hidden cases: reproducible from the run's seed."""
    return np.random.default_rng([seed, zlib.crc32(exercise.id.encode())])


def draw_cases(exercise: Exercise, seed: int) -> list[tuple[bool, tuple]]:
    """(visible?, args) for the visible cases, then the hidden ones drawn with ``seed``."""
    cases = [(True, tuple(args)) for args in exercise.visible()]
    if exercise.hidden is not None:
        cases += [(False, tuple(args)) for args in exercise.hidden(exercise_rng(seed, exercise))]
    return cases


def _call_text(function: str, args: tuple) -> str:
    inside = ", ".join(describe(arg, 60) for arg in args)
    return f"{function}({inside})"


# ---------------------------------------------------------------------------- answer key
@dataclass(frozen=True)
class Case:
    visible: bool
    args: tuple
    expected: Any
    call: str


class SandboxUnavailable(RuntimeError):
    """Graded code cannot be confined here, and ``confine=False`` was not asked for."""


#: Reference solutions may use global state (minigrad's random generator): one at a time.
_REFERENCE_LOCK = threading.Lock()


def answer_key(bank: ExerciseBank, lesson: Lesson, seed: int) -> dict[str, list[Case]]:
    """Exercise id -> its cases with expected outputs, computed here before the student's
    child starts. Expected outputs go through the codec, so both sides have the same types."""
    with _REFERENCE_LOCK:
        return _answer_key(bank, lesson, seed)


@functools.lru_cache(maxsize=64)
def _answer_key(bank: ExerciseBank, lesson: Lesson, seed: int) -> dict[str, list[Case]]:
    key = {}
    for exercise in bank.exercises(lesson):
        solve = exercise.answer or bank.reference_function(lesson, exercise)
        key[exercise.id] = [
            Case(visible, args, from_json(to_json(solve(*copy.deepcopy(args)))),
                 _call_text(exercise.function, args))
            for visible, args in draw_cases(exercise, seed)]
    return key


# ---------------------------------------------------------------------------- one file
@dataclass(frozen=True)
class Options:
    """How to grade: the run's seed, limits, exercise sources and whether to confine."""

    seed: int
    timeout: float = 10.0
    memory_mb: int = DEFAULT_MEMORY_MB
    bank: ExerciseBank = BUILTIN
    confine: bool = True
    #: Paths graded code must not read even if they lie in a folder it may (the class folder,
    #: the results); the package and private exercise sources are always protected.
    private: tuple[Path, ...] = ()
    #: Gradescope's visibility of the hidden cases' tests in the results (``--visibility``).
    hidden_visibility: str = "after_published"


def grade_file(source: SourceFile, options: Options) -> list[ExerciseResult]:
    """Grade every exercise of ``source.lesson`` found in one file.

    In the child the file's exercises share, every exercise's visible cases run before any
    hidden case: the child sees the inputs of the cases it is given, and a visible case's
    full feedback (an exception's text, the output) must not carry those of a hidden case
    graded before it."""
    key = answer_key(options.bank, source.lesson, options.seed)  # before the child starts
    protected = [*options.private, *([] if options.bank.builtin else [options.bank.folder])]
    def sandbox(runtime: Optional[Runtime] = None) -> Sandbox:
        return Sandbox(source.code, timeout=options.timeout, memory_mb=options.memory_mb,
                       confine=options.confine, protected=protected, runtime=runtime)

    exercises = options.bank.exercises(source.lesson)
    graders = [_ExerciseGrader(source, exercise, key[exercise.id]) for exercise in exercises]
    with sandbox() as shared:
        for visible in (True, False):
            for grader in graders:
                if grader.exercise.runtime is None:
                    grader.run(shared, visible)
    ran = [grader for grader in graders if grader.exercise.runtime is None
           and not grader.problem and any(grader.done.values())]
    imported = bool(ran) and all(grader.imported() for grader in ran)  # the shared child's
    for grader in graders:
        if grader.exercise.runtime is None:
            continue
        if grader.problem or (imported and plainly_a_stub(
                source.code, grader.exercise.function, _given_text(options.bank, source.lesson))):
            grader.run_without_child()  # nothing of the student's runs: no child, no runtime
            continue
        with sandbox(grader.exercise.runtime) as own:  # a child of its own
            grader.run(own, True)
            grader.run(own, False)
    return [grader.result() for grader in graders]


@functools.lru_cache(maxsize=64)
def _given_text(bank: ExerciseBank, lesson: Lesson) -> str:
    """The lesson's exercise file as students get it: the stubs :func:`plainly_a_stub` knows."""
    return strip_solutions(bank.source_text(lesson))


class _ExerciseGrader:
    """One exercise of one file: its visible cases, then its hidden ones, each run once; the
    hidden ones get what is left of the exercise's time."""

    def __init__(self, source: SourceFile, exercise: Exercise, cases: list[Case]) -> None:
        self.source, self.exercise, self.cases = source, exercise, cases
        self.done: dict[bool, list[CaseResult]] = {}
        self.spent = 0.0
        self.problem = (source_check_verdict(exercise.source_check, source.code)
                        if exercise.source_check else None)

    def run(self, sandbox: Sandbox, visible: bool) -> None:
        chosen = [case for case in self.cases if case.visible == visible]
        if self.problem:  # read by a limited helper process, before the student's code runs
            self.done[visible] = [_case_result(case, False, "rules", self.problem)
                                  for case in chosen]
            return
        if not chosen:
            self.done[visible] = []
            return
        if any(case.kind == "timeout" for case in self.done.get(True, [])):
            self.done[visible] = [_case_result(case, False, "timeout") for case in chosen]
            return  # the visible cases took all the time
        limit = max(sandbox.timeout, self.exercise.timeout or 0.0)
        self.done[visible], seconds = _grade_cases(sandbox, self.source, self.exercise, chosen,
                                                   max(limit - self.spent, 0.05))
        self.spent += seconds

    def imported(self) -> bool:
        """The file imported in this exercise's child (when it ran any case there)."""
        return not any(case.kind in ("syntax", "import")
                       for cases in self.done.values() for case in cases)

    def run_without_child(self) -> None:
        """The results of an exercise whose answer is known without running it: refused by
        its source rules, or a stub (:func:`.parsing.plainly_a_stub`), which can only raise
        NotImplementedError, as its child would report on every case."""
        for visible in (True, False):
            chosen = [case for case in self.cases if case.visible == visible]
            self.done[visible] = [
                _case_result(case, False, "rules", self.problem) if self.problem
                else _case_result(case, False, "not_implemented", NOT_ATTEMPTED)
                for case in chosen]

    def result(self) -> ExerciseResult:
        result = ExerciseResult(self.source.lesson, self.exercise, file=self.source.path.name)
        result.cases = self.done.get(True, []) + self.done.get(False, [])
        return result


def _case_result(case: Case, passed: bool, kind: str = "", message: str = "",
                 credit: Optional[float] = None, difference: str = "values",
                 right: tuple[str, ...] = (), parts: tuple[str, ...] = ()) -> CaseResult:
    """A case's result as a student may see it: a hidden case's without its call, and with
    only the kind of its failure (:func:`.redaction.hidden_message`), except for a message
    about the whole file (syntax, import, source rules), which no case's data is in."""
    if case.visible:
        return CaseResult(True, passed, kind, message, case.call, credit)
    detail = "" if passed else f"{case.call}: {message}"
    if not passed and kind not in ("syntax", "import", "rules"):
        message = hidden_message(kind, message, difference, right, parts)
    return CaseResult(False, passed, kind, message, "", credit, detail)


def _grade_cases(sandbox: Sandbox, source: SourceFile, exercise: Exercise, cases: list[Case],
                 timeout: float) -> tuple[list[CaseResult], float]:
    """The cases' results, and the seconds of the time limit the call used."""
    try:
        outcomes = sandbox.run(exercise.function, [case.args for case in cases],
                               timeout=timeout, limits=exercise.limits)
    except ImportFailed as error:
        kind = "syntax" if error.kind == "syntax" else "import"
        what = "SyntaxError at" if kind == "syntax" else "could not be imported:"
        message = f"{source.path.name}: {what} {error.message}"
        return [_case_result(case, False, kind, message) for case in cases], 0.0
    seconds = time.monotonic() - sandbox.call_started
    results = []
    for case, outcome in zip(cases, outcomes):
        if not outcome.ok:
            message = outcome.message
            if outcome.kind == "exception":
                message = name_raised(exercise.compare, case.expected, _students_error(message),
                                      case.args)
            results.append(_case_result(case, False, outcome.kind, message))
            continue
        try:
            got = from_json(outcome.value)
        except Exception as error:  # noqa: BLE001 — CodecError, or whatever forged data causes
            results.append(_case_result(case, False, "garbage",
                                        f"returned something unreadable: {error}"))
            continue
        right: tuple[str, ...] = ()
        try:
            message, credit, right = judge_parts(exercise, case.expected, got, case.args)
        except Exception as error:  # noqa: BLE001 — a strange answer must not stop grading
            message = f"the answer could not be compared: {type(error).__name__}: {error}"
            credit = 0.0
        how = "values"
        if message and not case.visible:
            try:
                how = difference(case.expected, got)
            except Exception:  # noqa: BLE001 — a strange answer is "wrong values"
                pass
        results.append(_case_result(case, not message, "wrong" if message else "",
                                    message or "", credit, how, right, exercise.parts))
    return results, seconds


def _students_error(message: str) -> str:
    """An error the student's code raised, in plain words, with the lines of the student's
    own code it came through and not those of the given code in their file (the runners)."""
    first, *lines = message.split("\n")
    given = [line for line in lines if line.strip().startswith("line ") and (
        any(f", in {name}:" in line for name in GIVEN_NAMES) or _calls_a_runner(line))]
    return "\n".join([plain_words(first), *(line for line in lines if line not in given)])


def _calls_a_runner(frame: str) -> bool:
    """A frame line ("line 221, in cube_function: return run_function(Cube, ...)") whose code
    is the given call of a runner, in the exercise function around the student's class."""
    code = frame.partition(": ")[2]
    return any(re.search(rf"(^|[^\w.]){re.escape(name)}\(", code) for name in GIVEN_NAMES)


# ---------------------------------------------------------------------------- a submission
def protected_paths(options: Options) -> list[Path]:
    """What graded code must never read: the installed package, private exercise sources,
    the class folder and the results (see :func:`.sandbox.runtime.protected_paths`)."""
    return runtime.protected_paths([*options.private, *([] if options.bank.builtin
                                                        else [options.bank.folder])])


def confinement_problem(options: Options) -> str:
    """Why graded code cannot be confined for this run ("" when it can, or when
    ``confine=False``): no sandbox mode works here, or the one that does (the
    unprivileged-user mode without Landlock) leaves a protected path readable by file modes."""
    if not options.confine:
        return ""
    mode, problem = sandbox_mode()
    if mode is None:
        return problem
    exposed = readable_secrets(mode, protected_paths(options))
    if exposed:
        return (f"graded code would run as uid {mode.uid} without Landlock, and the file modes "
                f"let that user read {', '.join(exposed[:3])}"
                f"{' …' if len(exposed) > 3 else ''}: make them readable by their owner only "
                f"(chmod -R go-rwx), as the Gradescope setup.sh does")
    return ""


def sandbox_label(options: Options) -> str:
    """How graded code is confined in this run, as the results and the log name it."""
    if not options.confine:
        return "none (--no-sandbox): graded code ran unconfined"
    mode = sandbox_mode()[0]
    return mode.label() if mode is not None else "unavailable"


def prepare(options: Options) -> None:
    """Refuse when graded code cannot be confined (unless ``confine=False``); remove the
    temporary folders of graders that were killed (see sandbox.tempdirs). Answer keys are
    computed per file, before its child starts (:func:`grade_file`): each student's seed has
    its own."""
    tempdirs.sweep()
    problem = confinement_problem(options)
    if problem:
        raise SandboxUnavailable(problem)


def grade_submission(path: Path, lesson: Optional[Lesson] = None, seed: Optional[int] = None,
                     timeout: float = 10.0, memory_mb: int = DEFAULT_MEMORY_MB,
                     options: Optional[Options] = None) -> SubmissionResult:
    """Grade a ``.py`` file, a notebook or a folder holding one student's work.

    Raises :class:`SandboxUnavailable` when graded code cannot be confined on this machine
    (pass ``options=Options(..., confine=False)`` only for code you trust).
    """
    if options is None:
        options = Options(new_seed() if seed is None else int(seed), timeout, memory_mb)
    prepare(options)
    started = time.monotonic()
    result = SubmissionResult(str(path), options.seed, sandbox=sandbox_label(options),
                              started=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                              hidden_visibility=options.hidden_visibility)
    _grade_into(result, Path(path), lesson, options)
    result.seconds = round(time.monotonic() - started, 2)
    return result


def _grade_into(result: SubmissionResult, path: Path, lesson: Optional[Lesson],
                options: Options) -> None:
    bank = options.bank
    try:
        sources, notes = find_sources(Path(path), lesson, bank)
    except (OSError, ValueError, RecursionError) as error:
        sources, notes = [], [f"could not read the submission: {error}"]
    result.notes += notes
    lessons = sorted({source.lesson for source in sources}, key=lambda item: item.number)
    if lesson is not None and lesson not in lessons:
        result.notes.append(f"no file for lesson {lesson.number:02d} found in {path}")
        result.exercises += [ExerciseResult(lesson, exercise, [CaseResult(
            True, False, "missing", f"no file for lesson {lesson.number:02d} was submitted")])
            for exercise in bank.exercises(lesson)]
        return
    for this_lesson in lessons:
        candidates = [source for source in sources if source.lesson == this_lesson]
        candidates.sort(key=lambda source: source.kind != "python")  # .py first on a tie
        worked = [source for source in candidates
                  if attempted_count(source.code, this_lesson, bank)]
        graded = [grade_file(source, options) for source in (worked or candidates[:1])]
        merged = merge_per_exercise(graded)
        files = list(dict.fromkeys(item.file for item in merged))
        result.files += files
        if len(files) > 1:
            origins = "; ".join(
                ", ".join(item.exercise.id for item in merged if item.file == name)
                + f" from {name}" for name in files)
            result.notes.append(f"lesson {this_lesson.number:02d}: both files hold work, and "
                                f"each exercise keeps its best score: {origins}")
        result.exercises += merged


def merge_per_exercise(graded: list[list[ExerciseResult]]) -> list[ExerciseResult]:
    """Per exercise, the best-scoring of the files' results (the first file on a tie)."""
    merged = []
    for versions in zip(*graded):
        best = versions[0]
        for item in versions[1:]:
            if item.score > best.score:
                best = item
        merged.append(best)
    return merged
