"""The scores of a class as a CSV file a gradebook imports (``minigrad grade --csv --lms``).

Three layouts, one row per student in name order, one column per exercise:

- ``minigrad`` (the default): ``student_id, total, points_possible``, the exercises, then
  ``error`` (why the grader itself failed on that student: no score is given then),
  ``seed`` (that student's hidden cases), ``seconds`` and ``graded_at``.
- ``canvas``: Canvas's gradebook import: ``Student, ID, SIS User ID, SIS Login ID,
  Section``, then one assignment column per exercise, and a ``Points Possible`` row under the
  header. The student's folder name goes into ``SIS Login ID`` (and ``Student``).
- ``moodle``: Moodle's grade import: ``Username`` (map it to the user field that your folder
  names are), one grade column per exercise, then ``Total``; nothing but students' rows.

Each student is written as their :func:`.names.student_id` (their folder's or file's name,
escaped one reversible way), in every layout: two students never share a row, and no name
is a formula. A student the grader failed on (or could not grade) gets empty cells (an LMS
then leaves their grade alone) and, in the default layout, the reason in ``error``;
``minigrad grade`` exits with status 1.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from minigrad.grading.grader import SubmissionResult
from minigrad.grading.names import printable, student_id

LAYOUTS = ("minigrad", "canvas", "moodle")
CANVAS_IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def csv_cell(text: str) -> str:
    """A cell spreadsheets will not run as a formula: ``= + - @`` (and tab, CR) get a ``'``.
    (A student's id never starts with one: :func:`.names.student_id`.)"""
    text = printable(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def exercise_columns(results: dict[str, SubmissionResult]) -> list[tuple[str, str, float]]:
    """(id, title, points) of every exercise graded in the class, in course order."""
    found: dict[str, tuple[str, str, float]] = {}
    for result in results.values():
        for item in result.exercises:
            found.setdefault(item.exercise.id, (item.exercise.id, item.exercise.title,
                                                item.max_score))
    return sorted(found.values(), key=lambda column: tuple(
        int(part) for part in column[0].split(".") if part.isdigit()))


def gradebook_rows(results: dict[str, SubmissionResult], layout: str = "minigrad") -> list[list]:
    """The CSV's rows, header first, in ``layout`` (one of :data:`LAYOUTS`)."""
    columns = exercise_columns(results)
    named = [csv_cell(f"{exercise_id} {title}") for exercise_id, title, _ in columns]

    def scores(result: SubmissionResult) -> list[str]:
        if result.error:
            return [""] * len(columns)
        by_id = {item.exercise.id: item.score for item in result.exercises}
        return [f"{by_id[exercise_id]:g}" if exercise_id in by_id else ""
                for exercise_id, _, _ in columns]

    def total(result: SubmissionResult) -> str:
        return "" if result.error else f"{result.score:g}"

    if layout == "canvas":
        rows = [CANVAS_IDENTITY + named,
                ["Points Possible", "", "", "", ""] + [f"{points:g}" for *_, points in columns]]
        return rows + [[csv_cell(student_id(student)), "", "", csv_cell(student_id(student)),
                        ""] + scores(result) for student, result in results.items()]
    if layout == "moodle":
        rows = [["Username"] + named + ["Total"]]
        return rows + [[csv_cell(student_id(student))] + scores(result) + [total(result)]
                       for student, result in results.items()]
    if layout != "minigrad":
        raise ValueError(f"unknown gradebook layout {layout!r}; choose one of {LAYOUTS}")
    rows = [["student_id", "total", "points_possible"]
            + [csv_cell(exercise_id) for exercise_id, _, _ in columns]
            + ["error", "seed", "seconds", "graded_at"]]
    for student, result in results.items():
        rows.append([csv_cell(student_id(student)), total(result),
                     "" if result.error else f"{result.max_score:g}"] + scores(result)
                    + [csv_cell(" ".join(result.error.split())), str(result.seed),
                       "" if result.seconds is None else f"{result.seconds:g}", result.started])
    return rows


def gradebook_text(results: dict[str, SubmissionResult], layout: str = "minigrad") -> str:
    return _text(gradebook_rows(results, layout))


def _text(rows: list[list]) -> str:
    handle = io.StringIO(newline="")
    csv.writer(handle).writerows(rows)
    return handle.getvalue()


def with_row_replaced(text: str, student: str, result: SubmissionResult,
                      layout: str = "minigrad") -> str:
    """The gradebook CSV ``text`` with ``student``'s row replaced by ``result`` (added when
    missing): ``--regrade`` keeps the class's CSV whole. ValueError when ``text`` is not a
    gradebook of this layout with these exercise columns."""
    fresh = gradebook_rows({student: result}, layout)
    rows = list(csv.reader(io.StringIO(text)))
    header_rows = 2 if layout == "canvas" else 1
    if rows[:header_rows] != fresh[:header_rows]:
        raise ValueError(f"its header is not the {layout} layout with these exercises; give "
                         f"another --csv, or grade the whole class again")
    key = 3 if layout == "canvas" else 0
    new_row = fresh[header_rows]
    students = [row for row in rows[header_rows:] if row[key] != new_row[key]]
    students.append(new_row)
    students.sort(key=lambda row: row[key])
    return _text(rows[:header_rows] + students)
