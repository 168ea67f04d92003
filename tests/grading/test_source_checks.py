"""An exercise's source check (the capstone's rules) reads the student's code: it runs in a
limited helper process, and whatever stops it there refuses that one answer, never the
grader."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import pytest
from support.grading_results import needs_sandbox

from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import student_file_name
from minigrad.grading.grader import grade_submission
from minigrad.grading.parsing import source_check_verdict

LESSON08 = find_lesson(8)


@needs_sandbox
def test_a_deeply_nested_capstone_is_refused_and_the_rest_still_scores(tmp_path: Path,
                                                                      monkeypatch) -> None:
    """A 1500-deep expression made the check's ast.dump overflow in the grader: exit status
    1, "internal grader error", and a solved 08.3 scored 0. Nor may the check run in the
    grader's own process (a 1.4 MB file took it to 716 MB)."""
    from minigrad.exercises.lessons import lesson08_checks

    monkeypatch.setattr(lesson08_checks, "check_source", lambda *args: pytest.fail(
        "the source check ran in the grader's own process"))
    deep = "+".join(["1"] * 1500)
    path = tmp_path / student_file_name(LESSON08)
    path.write_text(python_file_text(LESSON08, solutions=True)
                    + f"\n\ndef capstone(seed):\n    return {deep}\n", encoding="utf-8")
    result = grade_submission(path, LESSON08, seed=3, timeout=30)
    by_id = {item.exercise.id: item for item in result.exercises}
    assert by_id["08.5"].status == "refused" and by_id["08.5"].score == 0
    assert "could not read this code's source within its limits" in by_id["08.5"].feedback
    assert "RecursionError" in by_id["08.5"].feedback
    for exercise_id in ("08.1", "08.2", "08.3", "08.4"):
        assert by_id[exercise_id].status == "passed", (exercise_id, by_id[exercise_id].feedback)


def test_a_check_over_the_helper_s_limits_refuses_the_answer(tmp_path: Path) -> None:
    """The helper's limits hold for any check, a private key's too (loaded from its file)."""
    module_file = tmp_path / "greedy_checks.py"
    module_file.write_text("def check(source):\n"
                           "    hoard = bytearray(3 << 30)  # 3 GB: over the helper's 1 GB\n"
                           "    return None\n"
                           "def spin(source):\n"
                           "    while True:\n"
                           "        pass\n"
                           "def fussy(source):\n"
                           "    return 'no' if 'forbidden' in source else None\n")
    spec = importlib.util.spec_from_file_location("_minigrad_test_greedy_checks", module_file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        verdict = source_check_verdict(module.check, "x = 1\n")
        assert verdict and "MemoryError" in verdict and "within its limits" in verdict
        started = time.monotonic()
        verdict = source_check_verdict(module.spin, "x = 1\n")
        assert verdict and "within its limits" in verdict
        assert time.monotonic() - started < 40  # 10 s of CPU (or 30 s of a busy machine)
        assert source_check_verdict(module.fussy, "forbidden = 1\n") == "no"
        assert source_check_verdict(module.fussy, "x = 1\n") is None
    finally:
        del sys.modules[spec.name]
