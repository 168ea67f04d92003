"""Grading a whole class: one sub-folder (or file) per student, graded in parallel.

Each student gets hidden cases of their own: their seed is derived from the run's seed and
their name (:func:`.grader.student_seed`), recorded in their results, and ``--regrade`` draws
them again. The results: a gradebook CSV (:mod:`.gradebook`) and one Gradescope-style JSON per
student, each written as soon as the student is graded. When the grader itself fails on a
student, or a student's entry cannot be graded (it was removed or swapped for a link while
the class was graded, it cannot be opened), that is an error in their results and in the CSV,
never a score; the others are graded all the same. Students are written as their
:func:`.names.student_id` everywhere.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import os
import re
import stat
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, TextIO

from minigrad.grading.grader import (Options, SubmissionResult, grade_submission,
                                     prepare, student_seed)
from minigrad.grading.gradebook import gradebook_text
from minigrad.grading.class_folder import class_members
from minigrad.grading.names import printable, student_id
from minigrad.grading.reports import gradescope_results, grader_failure
from minigrad.grading.submission import FOLLOW_TOP_LINK
from minigrad.course.catalog import Lesson


def results_name(student: str) -> str:
    """A safe file name for a student's results: the name itself when it is short and plain,
    else a readable prefix and a hash of it (unique, the same in every run). A plain name that
    ends like a hashed one (``-`` and 16 hex digits) is hashed too, so that no student's plain
    name can be another student's hashed name; so is a name with capitals, so that ``Bob`` and
    ``bob`` do not share one file on a disk that ignores case (macOS, Windows, a container's
    bind mount), and so is one that ends with a space (``carol `` beside ``carol``: some file
    systems and tools drop it)."""
    if (re.fullmatch(r"[a-z0-9][a-z0-9._ -]{0,79}", student) and not student.endswith((".", " "))
            and not re.search(r"-[0-9a-f]{16}$", student)):
        return f"{student}.json"
    digest = hashlib.sha256(student.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    plain = re.sub(r"[^A-Za-z0-9._-]+", "_", student)[:40].strip("._") or "student"
    return f"{plain}-{digest}.json"


def grade_student(student: str, submission: Path, lesson: Optional[Lesson],
                  options: Options) -> SubmissionResult:
    """Grade one member of a class with their own seed (derived from ``options.seed``, the
    run's). A member that cannot be graded now (:func:`not_gradable`), or a failure of the
    grader itself, is the result's ``error``, never a score."""
    own = dataclasses.replace(options, seed=student_seed(options.seed, student))
    FOLLOW_TOP_LINK.set(False)  # (this thread's own context) a member swapped for a link
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    clock = time.monotonic()
    try:
        problem = not_gradable(submission)
        if problem:
            error = (f"not graded: {problem}; this is not a score: grade it again with "
                     f"--regrade {student_id(student)} once it is in place")
        else:
            result = grade_submission(submission, lesson, options=own)
    except Exception as failure:  # noqa: BLE001 — one submission must not stop the class
        problem, error = "failed", (f"{grader_failure(failure)}; this is not a score: grade "
                                    f"this submission again (--regrade) or on its own to see "
                                    f"more")
    if problem:
        result = SubmissionResult(str(submission), own.seed, started=started, error=error,
                                  seconds=round(time.monotonic() - clock, 2))
    result.class_seed = options.seed
    return result


def not_gradable(submission: Path) -> str:
    """Why the class member ``submission`` cannot be graded at this moment ("" when it can):
    it was removed, it is a symbolic link (never followed in a class folder), it cannot be
    opened, or it is neither a folder nor a regular file. Opened with ``O_NOFOLLOW``."""
    name = student_id(submission.name)
    try:
        descriptor = os.open(submission, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                             | os.O_CLOEXEC)
    except FileNotFoundError:
        return f"{name} is no longer in the class folder (removed or renamed during the run)"
    except OSError as error:
        if error.errno == errno.ELOOP:
            return (f"{name} is a symbolic link, and the entries of a class folder are never "
                    f"followed: put the submission itself there")
        return f"{name} cannot be opened: {error.strerror or error}"
    try:
        kind = os.fstat(descriptor).st_mode
    finally:
        os.close(descriptor)
    if not (stat.S_ISDIR(kind) or stat.S_ISREG(kind)):
        return f"{name} is neither a folder nor a regular file"
    return ""


def grade_class(path: Path, lesson: Optional[Lesson], options: Options, jobs: int = 2,
                progress_stream: Optional[TextIO] = None, out: Optional[Path] = None,
                csv_path: Optional[Path] = None,
                layout: str = "minigrad") -> dict[str, SubmissionResult]:
    """Grade every student's submission under ``path``; results by student, in name order.

    With ``out`` (and ``csv_path``), each student's results file (and the CSV so far) is written
    as soon as that student is graded, so a grader stopped half-way keeps what it has done.
    Whatever a submission does (its names, folders, sizes, code, or what happens to it
    during the run), the others are still graded, and it still gets a results file and its
    own row.
    """
    from tqdm import tqdm

    prepare(options)
    members = class_members(path)
    done: dict[str, SubmissionResult] = {}
    lock = threading.Lock()
    stream = progress_stream or sys.stderr
    bar = tqdm(total=len(members), desc="grading", unit="student", file=stream,
               dynamic_ncols=True, ascii=progress_stream is not None)

    def one(member: tuple[str, Path]) -> None:
        student, submission = member
        try:
            result = grade_student(student, submission, lesson, options)
        except Exception as error:  # noqa: BLE001 — (a bug in grade_student itself)
            result = SubmissionResult(str(submission), options.seed, class_seed=options.seed,
                                      error=f"{grader_failure(error)}; this is not a score")
        with lock:
            done[student] = result
            try:
                if out is not None:
                    write_results({student: result}, out)
                if csv_path is not None:
                    write_csv({name: done[name] for name, _ in members if name in done},
                              csv_path, layout)
            except OSError as error:
                bar.write(printable(f"minigrad grade: could not write the results of "
                                    f"{student_id(student)}: {error}"), file=stream)
            if result.error:
                bar.write(printable(f"minigrad grade: {student_id(student)}: {result.error}"),
                          file=stream)
            bar.set_postfix_str(student_id(student)[:30], refresh=False)
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


def write_csv(results: dict[str, SubmissionResult], path: Path,
              layout: str = "minigrad") -> None:
    """The class's scores as a gradebook CSV (see :mod:`.gradebook`), written atomically."""
    write_text_atomic(Path(path), gradebook_text(results, layout))


def write_results(results: dict[str, SubmissionResult], folder: Path) -> list[Path]:
    """One Gradescope-style JSON per student in ``folder`` (named by :func:`results_name`).

    When that name cannot be written (say, a folder is in the way), the hashed name is used."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for student, result in results.items():
        text = json.dumps(student_results(result, student), indent=2)
        target = folder / results_name(student)
        try:
            write_text_atomic(target, text)
        except OSError:
            digest = hashlib.sha256(student.encode("utf-8", "surrogateescape")).hexdigest()
            target = folder / f"student-{digest[:24]}.json"
            write_text_atomic(target, text)
        written.append(target)
    return written


def student_results(result: SubmissionResult, student: str) -> dict:
    """Gradescope's results of one student of a class, ``extra_data.student`` their
    :func:`.names.student_id`. When the grader fails to build them, the student's result
    becomes that error (no score) and the results say so."""
    try:
        graded = gradescope_results(result, student)
    except Exception as error:  # noqa: BLE001 — one student's results must not stop the rest
        result.error = (f"{grader_failure(error)} while writing the results; this is not a "
                        f"score: grade this submission again (--regrade)")
        graded = {"score": None, "tests": [], "output": f"NOT GRADED: {result.error}",
                  "extra_data": {"error": result.error, "seed": result.seed,
                                 "max_score": None}}
    if result.class_seed is not None:
        graded["extra_data"].update(class_seed=result.class_seed, student=student_id(student))
    return graded


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
