"""An instructor's private exercise sources (``ExerciseBank``) as the class grader's threads
use them: all at once."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.source import LESSON_SOURCES, ExerciseBank

LESSON01 = find_lesson(1)


def test_threads_never_see_a_half_loaded_checks_module(tmp_path: Path) -> None:
    """The bank put a private module into sys.modules before running it, with no lock: a
    second grading thread took the half-run module and failed with "no attribute
    'EXERCISES'" (a student's grade lost as an internal error, in 4 of 5 class runs)."""
    key = tmp_path / "key"
    key.mkdir()
    shutil.copy(LESSON_SOURCES / "lesson01.py", key)
    checks = (LESSON_SOURCES / "lesson01_checks.py").read_text(encoding="utf-8")
    # A slow start widens the window the race needs (a real key imports numpy, minigrad…).
    slow = checks.replace("import numpy as np\n", "import numpy as np\nimport time\n"
                          "time.sleep(0.3)\n", 1)
    (key / "lesson01_checks.py").write_text(slow, encoding="utf-8")
    bank = ExerciseBank(key)
    start = threading.Barrier(4)
    found: list[object] = []

    def load() -> None:
        start.wait()
        try:
            found.append(len(bank.exercises(LESSON01)))
        except Exception as error:  # noqa: BLE001 — the failure under test
            found.append(error)

    threads = [threading.Thread(target=load) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == [5, 5, 5, 5]
