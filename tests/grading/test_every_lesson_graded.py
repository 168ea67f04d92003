"""Every lesson's exercises through the real grader: the reference version earns every point,
the student version (stubs) earns none. One run per lesson, in the sandbox, with the seccomp
filter strict: a system call outside its allowlist kills the child (SIGSYS), so a numpy or
numba that starts needing a new call fails here, loudly, not in a class's grades."""

from __future__ import annotations

import pytest
from support.grading_results import needs_sandbox

from minigrad.exercises.authoring.generate import planned_files, python_file_text
from minigrad.exercises.authoring.source import exercises, lessons_with_exercises
from minigrad.grading.grader import grade_submission
from minigrad.grading.sandbox.host import STRICT_SECCOMP_ENV


@needs_sandbox
@pytest.mark.parametrize("lesson", lessons_with_exercises(), ids=lambda lesson: lesson.slug)
def test_solutions_score_full_marks_and_stubs_zero(  # type: ignore[no-untyped-def]
        lesson, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(STRICT_SECCOMP_ENV, "1")
    ids = {exercise.id for exercise in exercises(lesson)}
    assert ids, f"lesson {lesson.number:02d} lists no exercises"
    for solutions in (True, False):
        path = tmp_path / f"lesson{lesson.number:02d}_{'key' if solutions else 'stub'}.py"
        path.write_text(python_file_text(lesson, solutions=solutions), encoding="utf-8")
        results = grade_submission(path, lesson, seed=3).exercises
        assert {item.exercise.id for item in results} == ids
        if solutions:
            failed = {item.exercise.id: item.status for item in results
                      if abs(item.score - item.max_score) > 1e-9}
            assert not failed, f"the reference lost points: {failed}"
        else:
            assert all(item.score == 0 and item.status == "not attempted" for item in results), \
                {item.exercise.id: (item.score, item.status) for item in results}


@needs_sandbox
@pytest.mark.parametrize("lesson", lessons_with_exercises(), ids=lambda lesson: lesson.slug)
def test_solution_notebooks_score_full_marks_under_the_strict_filter(  # type: ignore[no-untyped-def]
        lesson, tmp_path, monkeypatch) -> None:
    """The notebook runs the lesson's other cells too (imports, plots): still within the
    seccomp allowlist."""
    monkeypatch.setenv(STRICT_SECCOMP_ENV, "1")
    files = planned_files(lesson, solutions=True)
    name = next(name for name in files if name.endswith(".ipynb"))
    (tmp_path / name).write_text(files[name], encoding="utf-8")
    results = grade_submission(tmp_path / name, lesson, seed=3).exercises
    failed = {item.exercise.id: [case.message for case in item.cases if not case.passed][:1]
              for item in results if abs(item.score - item.max_score) > 1e-9}
    assert results and not failed, f"the reference notebook lost points: {failed}"
