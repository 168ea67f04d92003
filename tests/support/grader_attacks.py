"""Writing an attack into a lesson-01 submission and grading it: the helpers the attack suites share."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from minigrad.cli import main as cli_main
from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import source_path, student_file_name
from support.grading_results import by_exercise

LESSON01 = find_lesson(1)
FILE01 = student_file_name(LESSON01)
REFERENCE = str(source_path(LESSON01))
CHECKOUT = Path(REFERENCE).parents[3]
SECRET = "### BEGIN SOLUTION"
#: The last line of 01.1's reference: a marker that only a read of the answer key could show.
KEY_LINE = "outer * math.cos(inner) * (2.0 * x)"
assert KEY_LINE in Path(REFERENCE).read_text(), "01.1's reference changed: update KEY_LINE"


def attack(folder: Path, body: str, name: str = FILE01, preamble: str = "") -> Path:
    """The reference file of lesson 01 whose ``composite_derivative`` runs ``body``, then
    raises with what the attempts returned (so the test can read it in the results)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name  # the attempts' results are short: exception name and errno
    path.write_text(python_file_text(LESSON01, solutions=True) + "\n\n" + textwrap.dedent(f"""
        import ctypes, os, signal, socket, subprocess, sys, time
        {textwrap.indent(textwrap.dedent(preamble), '        ').strip()}
        def _try(how):
            try:
                return repr(how())[:300]
            except BaseException as error:
                number = getattr(error, "errno", None)
                return type(error).__name__ + (f"[{{number}}]" if number else "")
        def composite_derivative(x):
            found = []
        {textwrap.indent(textwrap.dedent(body), '            ')}
            raise ValueError(" | ".join(found))
        """), encoding="utf-8")
    return path


def grade(path: Path, tmp_path: Path, *options: str) -> dict:
    """`minigrad grade` in this process: the kernel, not a process boundary of the test's own,
    keeps the attacks away (a grader they could kill would take the test run with it)."""
    results = tmp_path / "results.json"
    assert cli_main(["grade", str(path), "--json", str(results), "--timeout", "5", "--lesson",
                     "1", *options]) == 0
    return json.loads(results.read_text())


def only_01_1_lost(results: dict) -> str:
    """01.1's output, after checking that only 01.1 lost points: its visible cases' messages
    (what the attack reports, once) and its hidden cases' (their kind of failure only)."""
    table = by_exercise(results)
    assert table["01.1"][0] == 0, table["01.1"]
    for exercise_id in ("01.2", "01.3", "01.4", "01.5"):
        assert table[exercise_id][0] == table[exercise_id][1] > 0, (exercise_id, table)
    output = table["01.1"][2]
    assert SECRET not in output and KEY_LINE not in output, output
    return output
