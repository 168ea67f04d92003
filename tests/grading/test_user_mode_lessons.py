"""Honest code passes in the unprivileged-user mode (a default Docker container, Gradescope):
every lesson's reference solution gets full marks there, as in the namespace mode
(tests/grading/test_every_lesson_graded.py). The user mode refuses calls the namespace mode
allows (unlinking or replacing a file, so that the disk cap sees everything a child holds);
the library's own code (numba's cache, matplotlib's) must not need them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.student_user import needs_user_mode, user_mode_command, user_mode_env

from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import write_exercises


@needs_user_mode
@pytest.mark.parametrize("number", [2, 3, 4, 5, 6, 7])
def test_a_reference_solution_gets_full_marks_in_the_user_mode(tmp_path: Path,
                                                               number: int) -> None:
    work, results = tmp_path / "work", tmp_path / "results.json"
    write_exercises(find_lesson(number), work, solutions=True)
    for path in [tmp_path, work, *work.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # the student user reads the submission
    stash = tmp_path / "stash"
    stash.mkdir()
    command = user_mode_command([sys.executable, "-m", "minigrad.cli", "grade", str(work),
                                 "--json", str(results), "--timeout", "60"], stash)
    done = subprocess.run(command, capture_output=True, text=True, timeout=900,
                          env=user_mode_env())
    assert done.returncode == 0, done.stderr[-3000:]
    assert "sandbox: user (" in done.stderr, done.stderr[-3000:]
    graded = json.loads(results.read_text())
    lost = [(test["name"], test["output"][:300]) for test in graded["tests"]
            if test["score"] < test["max_score"]]
    assert not lost and graded["score"] > 0, lost
