"""A generated class, graded end to end with ``--jobs 2`` in each sandbox mode this machine
has: correct, wrong, hanging, crashing and attacking submissions, as ``.py`` files and as
notebooks, in students' folders and as files at the top of the class folder. Every student
has exactly one row (under their id, however alike their names), the score their kind earns,
and a time.

The normal suite grades 20 students (each kind in each form twice) in each mode; set
``MINIGRAD_CLASS_SIZE=300`` for the class of 300 (it prints the run's time and the time per
student; ``pytest -s`` shows it).
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.grading_results import needs_sandbox
from support.student_user import needs_user_mode, user_mode_command, user_mode_env

from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import source_path, student_file_name
from minigrad.grading.names import student_id

LESSON01 = find_lesson(1)
FILE01 = student_file_name(LESSON01)
SIZE = int(os.environ.get("MINIGRAD_CLASS_SIZE", "20"))
TIMEOUT = "3"  # per exercise: what a hanging submission costs

#: What each kind adds after the reference solutions (a later ``def`` replaces an earlier
#: one), and the score it earns out of 15 (01.1 is worth 2, 01.2-01.4 3 each, 01.5 4).
KINDS = {
    "correct": ("", 15),
    "wrong": ("def composite_derivative(x):\n    return -12345.0\n", 13),
    "hanging": ("def several_paths(a, b, c):\n    while True:\n        pass\n", 12),
    "crashing": ("def small_network(a, w1, w2, w3, w4):\n    import os\n    os._exit(3)\n",
                 12),
    # Kills its parent, plants a student in the class folder, and answers 01.4 right only
    # if it can read the answer key or a classmate's file.
    "attacking": ("""
import os
try:
    os.kill(os.getppid(), 9)
except OSError:
    pass
try:
    os.makedirs({planted!r})
except OSError:
    pass

def central_difference_estimate(f, x, eps):
    for path in ({key!r}, {classmate!r}):
        try:
            with open(path, "rb") as handle:
                handle.read(1)
            return (f(x + eps) - f(x - eps)) / (2 * eps)
        except OSError:
            pass
    return -1.0
""", 12),
}


def notebook(code: str) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
                                  "execution_count": None, "source": code}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def student_name(number: int) -> str:
    """``s0000``, ``=s0000`` and ``'=s0000`` (one CSV name before), ``s0003 `` (a second
    ``s0003`` in the table before) ..."""
    base = f"s{number - number % 10:04d}"
    return {1: f"={base}", 2: f"'={base}", 3: f"{base} "}.get(number % 10, f"s{number:04d}")


def generate_class(root: Path, size: int) -> tuple[Path, dict[str, int]]:
    """``size`` students, kinds and forms in turn; every fifth one a file at the top of the
    class folder instead of a folder; some with names that look alike. Returns the class
    folder and each student's score, by student id."""
    klass = root / "class"
    klass.mkdir()
    solved = python_file_text(LESSON01, solutions=True)
    expected = {}
    forms = [(kind, form) for kind in KINDS for form in ("py", "ipynb")]
    for number in range(size):
        kind, form = forms[number % len(forms)]
        extra, score = KINDS[kind]
        code = solved + "\n\n" + extra.format(
            key=str(source_path(LESSON01)), classmate=str(klass / "s0000" / FILE01),
            planted=str(klass / "planted-by-an-attacker"))
        name = student_name(number)
        text = code if form == "py" else notebook(code)
        suffix = ".py" if form == "py" else ".ipynb"
        if number % 5 == 4:
            (klass / f"{name}{suffix}").write_text(text, encoding="utf-8")
        else:
            (klass / name).mkdir()
            target = FILE01 if form == "py" else f"{LESSON01.name}.ipynb"
            (klass / name / target).write_text(text, encoding="utf-8")
        expected[student_id(name)] = score
    return klass, expected


def grade(command: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env,
                          timeout=60 + SIZE * 20)
    return done, time.monotonic() - started


def check(klass: Path, scores: Path, expected: dict[str, int], done: subprocess.CompletedProcess,
          seconds: float, mode: str) -> None:
    assert done.returncode == 0, done.stderr[-3000:]
    rows = list(csv.DictReader(scores.open(encoding="utf-8")))
    assert sorted(row["student_id"] for row in rows) == sorted(expected)  # one row each
    wrong = {row["student_id"]: (row["total"], expected[row["student_id"]], row["error"])
             for row in rows if row["total"] != str(expected[row["student_id"]])}
    assert wrong == {}, wrong
    times = [float(row["seconds"]) for row in rows]
    assert all(value > 0 for value in times) and all(row["graded_at"] for row in rows)
    assert not (klass / "planted-by-an-attacker").exists()
    print(f"\n{mode}: {len(rows)} students graded with --jobs 2 in {seconds:.1f} s, "
          f"{seconds / len(rows):.2f} s per student (the grader's own: sum of each student's "
          f"time {sum(times):.1f} s)")


@needs_sandbox
def test_a_generated_class_in_the_namespace_mode(tmp_path: Path) -> None:
    klass, expected = generate_class(tmp_path, SIZE)
    scores = tmp_path / "scores.csv"
    command = [sys.executable, "-m", "minigrad.cli", "grade", str(klass), "--class", "--lesson",
               "1", "--jobs", "2", "--timeout", TIMEOUT, "--csv", str(scores), "--out",
               str(tmp_path / "out")]
    env = dict(os.environ, MINIGRAD_SANDBOX_MODE="namespaces")
    done, seconds = grade(command, env)
    assert "sandbox: namespaces" in done.stderr
    check(klass, scores, expected, done, seconds, "namespaces")


@needs_user_mode
def test_a_generated_class_in_the_user_mode(tmp_path: Path) -> None:
    klass, expected = generate_class(tmp_path, SIZE)
    scores = tmp_path / "scores.csv"
    stash = tmp_path / "stash"
    stash.mkdir()
    command = user_mode_command(
        [sys.executable, "-m", "minigrad.cli", "grade", str(klass), "--class", "--lesson", "1",
         "--jobs", "2", "--timeout", TIMEOUT, "--csv", str(scores), "--out",
         str(tmp_path / "out")], stash)
    done, seconds = grade(command, user_mode_env())
    assert "sandbox: user (graded code runs as uid" in done.stderr, done.stderr[-2000:]
    check(klass, scores, expected, done, seconds, "user")
