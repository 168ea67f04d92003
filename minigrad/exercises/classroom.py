"""Grading a whole class: one sub-folder (or file) per student, graded in parallel.

Every student gets the same hidden cases (one seed per run). The results: a CSV of scores
(student, total, max, one column per exercise) and one Gradescope-style JSON per student.
"""

from __future__ import annotations

import csv
import json
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
        self.interactive = getattr(stream, "isatty", lambda: False)()

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
                progress_stream: Optional[TextIO] = None) -> dict[str, SubmissionResult]:
    """Grade every student's submission under ``path``; results by student, in name order."""
    load_references()
    members = class_members(path)
    progress = Progress(len(members), progress_stream)

    def one(member: tuple[str, Path]) -> tuple[str, SubmissionResult]:
        student, submission = member
        result = grade_submission(submission, lesson, seed, timeout, memory_mb)
        progress.advance(student)
        return student, result

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return dict(pool.map(one, members))


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
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "total", "max"] + columns)
        for student, result in results.items():
            scores = {item.exercise.id: item.score for item in result.exercises}
            writer.writerow([student, f"{result.score:g}", f"{result.max_score:g}"]
                            + [f"{scores[column]:g}" if column in scores else ""
                               for column in columns])


def write_results(results: dict[str, SubmissionResult], folder: Path) -> list[Path]:
    """One Gradescope-style ``STUDENT.json`` per student in ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for student, result in results.items():
        target = folder / f"{student}.json"
        target.write_text(json.dumps(gradescope_results(result), indent=2), encoding="utf-8")
        written.append(target)
    return written
