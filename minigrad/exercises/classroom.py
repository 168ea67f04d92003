"""Grading a whole class: one sub-folder (or file) per student, graded in parallel.

Every student gets the same hidden cases (one seed per run). The results: a CSV of scores
(student, total, max, one column per exercise) and one Gradescope-style JSON per student, each
written as soon as the student is graded.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional, TextIO

from minigrad.exercises.grader import (SubmissionResult, grade_submission, gradescope_results,
                                       load_references)
from minigrad.exercises.sandbox import DEFAULT_MEMORY_MB
from minigrad.exercises.submission import class_members
from minigrad.lessons import Lesson


class Progress:
    """A plain-text progress bar on stderr: redrawn in place on a terminal, one line otherwise."""

    def __init__(self, total: int, stream: Optional[TextIO] = None, width: int = 30) -> None:
        self.total, self.done, self.width = total, 0, width
        self.stream = sys.stderr if stream is None else stream
        self.lock = threading.Lock()
        self.interactive = getattr(self.stream, "isatty", lambda: False)()

    def advance(self, label: str) -> None:
        with self.lock:
            self.done += 1
            filled = self.width * self.done // max(self.total, 1)
            bar = "#" * filled + "-" * (self.width - filled)
            line = f"grading [{bar}] {self.done}/{self.total}  {label}"
            if self.interactive:
                self.stream.write("\r" + line[:100].ljust(100))
                if self.done == self.total:
                    self.stream.write("\n")
            else:
                self.stream.write(line + "\n")
            self.stream.flush()


def grade_class(path: Path, lesson: Optional[Lesson], seed: int, timeout: float = 10.0,
                jobs: int = 2, memory_mb: int = DEFAULT_MEMORY_MB,
                progress_stream: Optional[TextIO] = None, out: Optional[Path] = None,
                csv_path: Optional[Path] = None) -> dict[str, SubmissionResult]:
    """Grade every student's submission under ``path``; results by student, in name order.

    With ``out`` (and ``csv_path``), each student's results file (and the CSV so far) is written
    as soon as that student is graded, so a grader stopped half-way keeps what it has done. A
    submission that trips a grader bug gets a note saying so; the others are still graded.
    """
    load_references()
    members = class_members(path)
    progress = Progress(len(members), progress_stream)
    done: dict[str, SubmissionResult] = {}
    lock = threading.Lock()

    def one(member: tuple[str, Path]) -> None:
        student, submission = member
        try:
            result = grade_submission(submission, lesson, seed, timeout, memory_mb)
        except Exception as error:  # noqa: BLE001 — one submission must not stop the class
            result = SubmissionResult(str(submission), seed, notes=[
                f"internal grader error ({type(error).__name__}: {error}); grade this "
                f"submission on its own to see more"])
        with lock:
            done[student] = result
            if out is not None:
                write_results({student: result}, out)
            if csv_path is not None:
                write_csv({name: done[name] for name, _ in members if name in done}, csv_path)
        progress.advance(student)

    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        list(pool.map(one, members))
    except BaseException:  # Ctrl-C, SIGTERM: grade no one new; what is written stays
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return {student: done[student] for student, _ in members}


def exercise_columns(results: dict[str, SubmissionResult]) -> list[str]:
    ids: list[str] = []
    for result in results.values():
        for item in result.exercises:
            if item.exercise.id not in ids:
                ids.append(item.exercise.id)
    return sorted(ids, key=lambda text: tuple(int(part) for part in text.split(".")))


def write_csv(results: dict[str, SubmissionResult], path: Path) -> None:
    """student, total, max, then one column of points per exercise."""
    columns = exercise_columns(results)
    handle = io.StringIO(newline="")
    writer = csv.writer(handle)
    writer.writerow(["student", "total", "max"] + columns)
    for student, result in results.items():
        scores = {item.exercise.id: item.score for item in result.exercises}
        writer.writerow([student, f"{result.score:g}", f"{result.max_score:g}"]
                        + [f"{scores[column]:g}" if column in scores else ""
                           for column in columns])
    write_text_atomic(Path(path), handle.getvalue())


def write_results(results: dict[str, SubmissionResult], folder: Path) -> list[Path]:
    """One Gradescope-style ``STUDENT.json`` per student in ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for student, result in results.items():
        target = folder / f"{student}.json"
        write_text_atomic(target, json.dumps(gradescope_results(result), indent=2))
        written.append(target)
    return written


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a new file next to ``path``, then rename it over ``path``: a reader (or
    a grader killed half-way) sees the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(temporary, "w", encoding="utf-8", errors="surrogateescape", newline="") as handle:
        handle.write(text)
    os.replace(temporary, path)
