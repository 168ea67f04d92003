"""Grading one submission: run it in the sandbox, compare with the reference, score, report.

For each exercise the grader draws the cases (the visible ones, then fresh hidden ones from a
seeded generator), computes the expected outputs by calling the reference solution *in this
process*, sends only the arguments to the sandboxed student process, and compares what comes
back here. Each case is worth an equal share of the exercise's points (partial credit).

A submission may hold several files for one lesson (say the ``.py`` file and the notebook):
the file with the most attempted exercises is graded; on a tie, each is graded and the best
total kept.
"""

from __future__ import annotations

import copy
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import numpy as np

from minigrad.exercises.codec import CodecError, from_json, to_json
from minigrad.exercises.sandbox import DEFAULT_MEMORY_MB, ImportFailed, Sandbox
from minigrad.exercises.source import (exercises, lessons_with_exercises, reference_function,
                                       reference_module)
from minigrad.exercises.spec import Exercise, describe, compare_values
from minigrad.exercises.submission import SourceFile, attempted_count, find_sources
from minigrad.lessons import Lesson

STATUS_BY_KIND = {
    "not_implemented": "not attempted", "missing": "missing", "timeout": "timed out",
    "exit": "exited", "crash": "crashed", "memory": "out of memory", "flood": "output flood",
    "garbage": "bad output", "exception": "raised", "wrong": "wrong", "syntax": "syntax error",
    "import": "import failed",
}


@dataclass
class CaseResult:
    visible: bool
    passed: bool
    kind: str = ""  # why it failed: a key of STATUS_BY_KIND
    message: str = ""
    call: str = ""  # e.g. "composite_derivative(1.0)"


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
        return (round(share * sum(case.passed for case in chosen), 4),
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
        if any(case.passed for case in self.cases):
            return f"{len(self.cases) - len(failed)}/{len(self.cases)} cases"
        return STATUS_BY_KIND.get(failed[0].kind, failed[0].kind)

    @property
    def feedback(self) -> str:
        failed = [case for case in self.cases if not case.passed]
        if not failed:
            return ""
        first = failed[0]
        if first.kind in ("not_implemented", "missing", "syntax", "import"):
            return first.message
        where = first.call if first.visible else "a hidden case"
        return f"{where}: {first.message}"


@dataclass
class SubmissionResult:
    path: str
    seed: int
    exercises: list[ExerciseResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return round(sum(result.score for result in self.exercises), 4)

    @property
    def max_score(self) -> float:
        return round(sum(result.max_score for result in self.exercises), 4)


def new_seed() -> int:
    return int.from_bytes(os.urandom(4), "little")


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


# ---------------------------------------------------------------------------- one file
def grade_file(source: SourceFile, seed: int, timeout: float = 10.0,
               memory_mb: int = DEFAULT_MEMORY_MB) -> list[ExerciseResult]:
    """Grade every exercise of ``source.lesson`` found in one file."""
    results = []
    with Sandbox(source.code, timeout=timeout, memory_mb=memory_mb) as sandbox:
        for exercise in exercises(source.lesson):
            results.append(_grade_exercise(sandbox, source, exercise, seed))
    return results


def _grade_exercise(sandbox: Sandbox, source: SourceFile, exercise: Exercise,
                    seed: int) -> ExerciseResult:
    result = ExerciseResult(source.lesson, exercise, file=source.path.name)
    cases = draw_cases(exercise, seed)
    reference = reference_function(source.lesson, exercise)
    # Expected outputs go through the codec too, so both sides have the same types.
    expected = [from_json(to_json(reference(*copy.deepcopy(args)))) for _, args in cases]
    calls = [_call_text(exercise.function, args) for _, args in cases]
    try:
        outcomes = sandbox.run(exercise.function, [args for _, args in cases])
    except ImportFailed as error:
        kind = "syntax" if error.kind == "syntax" else "import"
        what = "SyntaxError at" if kind == "syntax" else "could not be imported:"
        message = f"{source.path.name}: {what} {error.message}"
        result.cases = [CaseResult(visible, False, kind, message, call)
                        for (visible, _), call in zip(cases, calls)]
        return result
    for (visible, args), want, outcome, call in zip(cases, expected, outcomes, calls):
        if not outcome.ok:
            result.cases.append(CaseResult(visible, False, outcome.kind, outcome.message, call))
            continue
        try:
            got = from_json(outcome.value)
        except (CodecError, RecursionError) as error:
            result.cases.append(CaseResult(visible, False, "garbage",
                                           f"returned something unreadable: {error}", call))
            continue
        try:
            message = compare_values(exercise.compare, want, got, copy.deepcopy(args))
        except Exception as error:  # noqa: BLE001 — a strange answer must not stop grading
            message = f"the answer could not be compared: {type(error).__name__}: {error}"
        if message:
            result.cases.append(CaseResult(visible, False, "wrong", message, call))
        else:
            result.cases.append(CaseResult(visible, True, call=call))
    return result


# ---------------------------------------------------------------------------- a submission
def load_references() -> None:
    """Import every reference solution and check before any student code runs, so that
    nothing a submission does to the files on disk can change them for this run."""
    for lesson in lessons_with_exercises():
        reference_module(lesson)
        exercises(lesson)


def grade_submission(path: Path, lesson: Optional[Lesson] = None, seed: Optional[int] = None,
                     timeout: float = 10.0, memory_mb: int = DEFAULT_MEMORY_MB) -> SubmissionResult:
    """Grade a ``.py`` file, a notebook or a folder holding one student's work."""
    seed = new_seed() if seed is None else int(seed)
    load_references()
    result = SubmissionResult(str(path), seed)
    try:
        sources, notes = find_sources(Path(path), lesson)
    except (OSError, ValueError) as error:
        sources, notes = [], [str(error)]
    result.notes += notes
    lessons = sorted({source.lesson for source in sources}, key=lambda item: item.number)
    if lesson is not None and lesson not in lessons:
        result.notes.append(f"no file for lesson {lesson.number:02d} found in {path}")
        result.exercises += [ExerciseResult(lesson, exercise, [CaseResult(
            True, False, "missing", f"no file for lesson {lesson.number:02d} was submitted")])
            for exercise in exercises(lesson)]
        return result
    for this_lesson in lessons:
        candidates = [source for source in sources if source.lesson == this_lesson]
        counts = [attempted_count(source.code, this_lesson) for source in candidates]
        best_count = max(counts)
        chosen = [source for source, count in zip(candidates, counts) if count == best_count]
        chosen.sort(key=lambda source: source.kind != "python")  # .py first on a tie
        if best_count == 0:
            chosen = chosen[:1]
        best: Optional[list[ExerciseResult]] = None
        for source in chosen:
            graded = grade_file(source, seed, timeout, memory_mb)
            if best is None or sum(item.score for item in graded) > sum(item.score for item in best):
                best = graded
        assert best is not None
        result.files.append(best[0].file if best else "")
        result.exercises += best
    return result


# ---------------------------------------------------------------------------- reports
def _case_lines(result: ExerciseResult, visible: bool) -> str:
    lines = []
    chosen = [case for case in result.cases if case.visible == visible]
    messages = {case.message for case in chosen}
    if chosen and not any(case.passed for case in chosen) and len(messages) == 1:
        return f"every case: {messages.pop()}"  # e.g. a syntax error: say it once
    for number, case in enumerate(chosen, start=1):
        mark = "passed" if case.passed else f"FAILED — {case.message}"
        lines.append(f"case {number}: {case.call}: {mark}")
    if any(not case.passed for case in chosen) and result.exercise.hint:
        lines.append(f"Hint: {result.exercise.hint}")
    return "\n".join(lines)


def gradescope_results(result: SubmissionResult) -> dict[str, Any]:
    """The submission's results in Gradescope's ``results.json`` format.

    Each exercise gives a "visible cases" test (visibility ``visible``) and, when it has hidden
    cases, a "hidden cases" test (visibility ``after_published``).
    """
    tests = []
    for item in result.exercises:
        name = f"{item.exercise.id} {item.exercise.title}"
        for visible, label, visibility in ((True, "visible cases", "visible"),
                                           (False, "hidden cases", "after_published")):
            score, max_score = item.points_for(visible)
            if max_score == 0:
                continue
            tests.append({"name": f"{name} ({label})", "score": score, "max_score": max_score,
                          "output": _clean(_case_lines(item, visible) or item.feedback),
                          "visibility": visibility})
    summary = [f"minigrad grader; hidden cases drawn with --seed {result.seed}"]
    if result.files:
        summary.append("graded: " + ", ".join(result.files))
    summary += result.notes
    return {"score": result.score, "output": _clean("\n".join(summary)), "tests": tests,
            "extra_data": {"seed": result.seed, "files": result.files,
                           "max_score": result.max_score}}


def _clean(text: str) -> str:
    """``text`` without lone surrogates (from odd file names or student messages), which some
    JSON readers, Gradescope's among them, refuse."""
    return text.encode("utf-8", "replace").decode("utf-8")


def format_table(result: SubmissionResult, width: int = 60) -> str:
    """A plain-text table: one row per exercise with points, max, status and feedback."""
    lines = [f"Grading {result.path}  (seed {result.seed})"]
    if result.files:
        lines.append(f"  graded: {', '.join(result.files)}")
    lines += [f"  note: {note}" for note in result.notes]
    if not result.exercises:
        lines.append("  nothing to grade")
        return "\n".join(lines)
    lines.append(f"  {'id':<6}{'exercise':<34}{'points':>7}{'max':>5}  {'status':<15}feedback")
    for item in result.exercises:
        feedback = " ".join(item.feedback.split())
        if len(feedback) > width:
            feedback = feedback[: width - 1] + "…"
        title = item.exercise.title if len(item.exercise.title) <= 32 else (
            item.exercise.title[:31] + "…")
        lines.append(f"  {item.exercise.id:<6}{title:<34}{item.score:>7.2f}"
                     f"{item.max_score:>5g}  {item.status:<15}{feedback}")
    lines.append(f"  {'total':<40}{result.score:>7.2f}{result.max_score:>5g}")
    return "\n".join(lines)
