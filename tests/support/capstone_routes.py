"""Grading a lesson-08 file's capstone (08.5) through the real sandboxed grader, and writing
the routes the attack tests try: a capstone whose own code is replaced."""

from __future__ import annotations

import textwrap
from pathlib import Path

from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import lesson_for
from minigrad.grading.grader import Options, grade_submission

LESSON = lesson_for(8)
REFERENCE = python_file_text(LESSON, solutions=True)
BEGIN, END = "    ### BEGIN SOLUTION\n", "    ### END SOLUTION\n"


def capstone_score(tmp_path: Path, name: str, text: str, seed: int = 11,
                   confine: bool = True) -> tuple[float, str]:
    """08.5's score and feedback for a lesson-08 file (``.py``, or a notebook's JSON)."""
    folder = tmp_path / name
    folder.mkdir()
    file = "08-weight-decay.ipynb" if text.lstrip().startswith("{") else "lesson08.py"
    (folder / file).write_text(text, encoding="utf-8")
    result = grade_submission(folder, LESSON, options=Options(seed, confine=confine))
    capstone = next(item for item in result.exercises if item.exercise.id == "08.5")
    return capstone.score, " | ".join(case.message for case in capstone.cases if case.message)


def with_capstone_body(text: str, body: str) -> str:
    """``text`` with the capstone's own code (after its given first lines, before its given
    last line) replaced by ``body``; a body that keeps no ``recorder`` gets ``recorder =
    None`` first (no run recorded), so that the given last line runs."""
    if "recorder" not in body:
        body = "recorder = None\n" + textwrap.dedent(body).strip("\n")
    function = text.index("def capstone(")
    final = text.index("    return capstone_report(", function)
    prologue = text.rindex("= load_digits(", function, final)
    start = text.index("\n", prologue) + 1
    return text[:start] + textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", "    ") \
        + text[final:]


def capstone_solution(text: str) -> str:
    """The reference capstone's own code, as :func:`with_capstone_body` replaces it."""
    function = text.index("def capstone(")
    final = text.index("    return capstone_report(", function)
    start = text.index("\n", text.rindex("= load_digits(", function, final)) + 1
    return text[start:final].replace(BEGIN, "").replace(END, "")
