"""Grading a whole class: one sub-folder (or file) per student, graded in parallel.

Every student gets the same hidden cases (one seed per run). The results: a CSV of scores
(student, total, max, one column per exercise) and one Gradescope-style JSON per student, each
written as soon as the student is graded.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional, TextIO

from minigrad.grading.grader import (Options, SubmissionResult, grade_submission,
                                     prepare)
from minigrad.grading.reports import gradescope_results, grader_failure
from minigrad.grading.submission import FOLLOW_TOP_LINK, class_members
from minigrad.course.catalog import Lesson

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u200b-\u200f\u202a-\u202e"
                      "\u2060-\u2069\ufeff\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` without control characters (terminal escapes), bidi overrides, invisible
    characters (a zero-width space makes ``alice\u200b`` look like ``alice``) and lone
    surrogates (undecodable file names): each becomes ``?``. Tabs and newlines stay."""
    return _CONTROL.sub("?", text)


def csv_cell(text: str) -> str:
    """A cell spreadsheets will not run as a formula: ``= + - @`` (and tab, CR) get a ``'``."""
    text = printable(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def results_name(student: str) -> str:
    """A safe file name for a student's results: the name itself when it is short and plain,
    else a readable prefix and a hash of it (unique, the same in every run). A plain name that
    ends like a hashed one (``-`` and 16 hex digits) is hashed too, so that no student's plain
    name can be another student's hashed name; so is a name with capitals, so that ``Bob`` and
    ``bob`` do not share one file on a disk that ignores case (macOS, Windows, a container's
    bind mount)."""
    if (re.fullmatch(r"[a-z0-9][a-z0-9._ -]{0,79}", student) and not student.endswith(".")
            and not re.search(r"-[0-9a-f]{16}$", student)):
        return f"{student}.json"
    digest = hashlib.sha256(student.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    plain = re.sub(r"[^A-Za-z0-9._-]+", "_", student)[:40].strip("._") or "student"
    return f"{plain}-{digest}.json"


def grade_class(path: Path, lesson: Optional[Lesson], options: Options, jobs: int = 2,
                progress_stream: Optional[TextIO] = None, out: Optional[Path] = None,
                csv_path: Optional[Path] = None) -> dict[str, SubmissionResult]:
    """Grade every student's submission under ``path``; results by student, in name order.

    With ``out`` (and ``csv_path``), each student's results file (and the CSV so far) is written
    as soon as that student is graded, so a grader stopped half-way keeps what it has done.
    Whatever a submission does (its names, folders, sizes, code), the others are still graded
    and it still gets a results file.
    """
    from tqdm import tqdm

    prepare(options, [lesson] if lesson is not None else None)
    members = class_members(path)
    done: dict[str, SubmissionResult] = {}
    lock = threading.Lock()
    bar = tqdm(total=len(members), desc="grading", unit="student", file=progress_stream
               or sys.stderr, dynamic_ncols=True, ascii=progress_stream is not None)

    def one(member: tuple[str, Path]) -> None:
        student, submission = member
        FOLLOW_TOP_LINK.set(False)  # (this thread's own context) a member swapped for a link
        try:
            result = grade_submission(submission, lesson, options=options)
        except Exception as error:  # noqa: BLE001 — one submission must not stop the class
            result = SubmissionResult(str(submission), options.seed, notes=[
                f"{grader_failure(error)}; grade this submission on its own to see more"])
        with lock:
            done[student] = result
            try:
                if out is not None:
                    write_results({student: result}, out)
                if csv_path is not None:
                    write_csv({name: done[name] for name, _ in members if name in done},
                              csv_path)
            except OSError as error:
                bar.write(printable(f"minigrad grade: could not write the results of "
                                    f"{student!r}: {error}"))
            bar.set_postfix_str(printable(student)[:30], refresh=False)
            bar.update(1)

    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        list(pool.map(one, members))
    except BaseException:  # Ctrl-C, SIGTERM: grade no one new; what is written stays
        pool.shutdown(wait=False, cancel_futures=True)
        bar.close()
        raise
    pool.shutdown()
    bar.close()
    return {student: done[student] for student, _ in members}


def exercise_columns(results: dict[str, SubmissionResult]) -> list[str]:
    ids: list[str] = []
    for result in results.values():
        for item in result.exercises:
            if item.exercise.id not in ids:
                ids.append(item.exercise.id)
    return sorted(ids, key=lambda text: tuple(int(part) for part in text.split(".")
                                              if part.isdigit()))


def write_csv(results: dict[str, SubmissionResult], path: Path) -> None:
    """student, total, max, then one column of points per exercise."""
    columns = exercise_columns(results)
    handle = io.StringIO(newline="")
    writer = csv.writer(handle)
    writer.writerow(["student", "total", "max"] + [csv_cell(column) for column in columns])
    for student, result in results.items():
        scores = {item.exercise.id: item.score for item in result.exercises}
        writer.writerow([csv_cell(student), f"{result.score:g}", f"{result.max_score:g}"]
                        + [f"{scores[column]:g}" if column in scores else ""
                           for column in columns])
    write_text_atomic(Path(path), handle.getvalue())


def write_results(results: dict[str, SubmissionResult], folder: Path) -> list[Path]:
    """One Gradescope-style JSON per student in ``folder`` (named by :func:`results_name`).

    When that name cannot be written (say, a folder is in the way), the hashed name is used."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for student, result in results.items():
        text = json.dumps(gradescope_results(result), indent=2)
        target = folder / results_name(student)
        try:
            write_text_atomic(target, text)
        except OSError:
            digest = hashlib.sha256(student.encode("utf-8", "surrogateescape")).hexdigest()
            target = folder / f"student-{digest[:24]}.json"
            write_text_atomic(target, text)
        written.append(target)
    return written


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a new file next to ``path``, then rename it over ``path``: a reader (or
    a grader killed half-way) sees the old file or the new one, never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp creates a new file (O_EXCL) under a random name: a symlink planted at a
    # predictable name in a shared folder cannot redirect the write to another file.
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".tmp")
    try:
        os.fchmod(descriptor, 0o644)  # readable as a normal results file (mkstemp: 0o600)
        with open(descriptor, "w", encoding="utf-8", errors="surrogateescape",
                  newline="") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
