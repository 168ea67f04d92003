"""A failed check() hints in tiers — the idea; then where the reading works it out; the formula
only on request (`show="formula"`) — and no tier is code."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from minigrad.exercises import selfcheck
from minigrad.exercises.authoring.source import all_exercises

LESSONS = Path(__file__).resolve().parents[2] / "lessons"

#: What code looks like in a hint: a module's attribute, a method call, a return, slicing.
CODE = re.compile(r"\b(np|mg|F|nn|ctx|self|torch|optim)\.\w|\.\w+\(|\breturn\b|\w_\(|\[::|"
                  r"\bdef\b|\bfor\b.*\bin\b.*:|\*\*|//|\w\s*@\s*\w")


@pytest.fixture(autouse=True)
def _fresh_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(selfcheck, "_failed_checks", {})


def _no_decay(weights, scales, targets, groups, defaults, steps):  # type: ignore[no-untyped-def]
    from minigrad.exercises.lessons import lesson08

    groups = [{**group, "weight_decay": 0.0} for group in groups]
    return lesson08.adamw_optimizer(weights, scales, targets, groups,
                                    {**defaults, "weight_decay": 0.0}, steps)


def test_first_failure_gives_the_idea_second_the_reading_and_the_formula_only_on_request(
        capsys: pytest.CaptureFixture) -> None:
    lesson, exercise = all_exercises()["08.4"]
    section = f"“{exercise.reading}” in lessons/{lesson.name}.md"

    assert not selfcheck.check("08.4", _no_decay)
    first = capsys.readouterr().out
    assert exercise.idea[:40] in first
    assert section not in first and exercise.hint[:30] not in first

    assert not selfcheck.check("08.4", _no_decay)
    second = capsys.readouterr().out
    assert exercise.idea[:40] in second and section in second
    assert exercise.hint[:30] not in second and 'show="formula"' not in second

    assert not selfcheck.check("08.4", _no_decay)
    third = capsys.readouterr().out
    assert exercise.idea[:40] in third and section in third and 'show="formula"' in third
    assert exercise.hint[:30] not in third

    assert not selfcheck.check("08.4", _no_decay, show="formula")
    asked = capsys.readouterr().out
    assert f"Formula: {exercise.hint}" in asked
    assert "p.mul_" not in asked and "alpha=" not in asked  # the old hint was the code


def test_an_unknown_show_is_refused(capsys: pytest.CaptureFixture) -> None:
    assert not selfcheck.check("08.3", lambda grads, counts: np.zeros(1), show="code")
    assert "show can be" in capsys.readouterr().out


@pytest.mark.parametrize("exercise_id", sorted(all_exercises()))
def test_every_hint_is_maths_and_words_not_code(exercise_id: str) -> None:
    _, exercise = all_exercises()[exercise_id]
    for text in (exercise.idea, exercise.hint):
        assert not CODE.search(text), (exercise_id, CODE.search(text), text)


@pytest.mark.parametrize("exercise_id", sorted(i for i, (_, e) in all_exercises().items()
                                               if e.idea))
def test_every_tiered_exercise_points_at_a_section_its_reading_has(exercise_id: str) -> None:
    lesson, exercise = all_exercises()[exercise_id]
    headings = re.findall(r"^## (.+)$", (LESSONS / f"{lesson.name}.md").read_text("utf-8"),
                          re.MULTILINE)
    assert exercise.reading in headings, (exercise_id, exercise.reading)


def _hint_lines(exercise_id: str, failures: int, show: str = "") -> list[str]:
    """The hint line of each of ``failures`` failed checks of the exercise, in a fresh kernel."""
    lesson, exercise = all_exercises()[exercise_id]
    selfcheck._failed_checks.pop(exercise_id, None)
    return [selfcheck.hint_for(exercise, lesson, show) for _ in range(failures)]


@pytest.mark.parametrize("exercise_id", sorted(all_exercises()))
def test_every_exercise_escalates_idea_reading_then_how_to_ask_never_the_formula_unasked(
        exercise_id: str) -> None:
    """Lessons 01–03 printed the formula at the first failed check (they had no idea tier);
    in 04–08 the third check said what the second did."""
    lesson, exercise = all_exercises()[exercise_id]
    assert exercise.idea and exercise.reading, exercise_id
    first, second, third = _hint_lines(exercise_id, 3)
    assert len({first, second, third}) == 3, (first, second, third)
    assert first == f"Idea: {exercise.idea}"
    assert f"“{exercise.reading}” in lessons/{lesson.name}.md" in second
    assert 'show="formula"' in third and 'show="formula"' not in second
    for text in (first, second, third):
        assert exercise.hint not in text and "Formula:" not in text
    (asked,) = _hint_lines(exercise_id, 1, show="formula")
    assert asked.endswith(f"Formula: {exercise.hint}")


@pytest.mark.parametrize("exercise_id", ["02.5", "03.2", "03.4", "03.5"])
def test_a_first_failed_check_of_lessons_02_and_03_does_not_print_the_formula(
        exercise_id: str, capsys: pytest.CaptureFixture) -> None:
    _, exercise = all_exercises()[exercise_id]
    selfcheck.check(exercise_id, lambda *args: 0.0)
    printed = capsys.readouterr().out
    assert "Idea: " in printed and exercise.hint[:25] not in printed, printed


def test_the_grader_hints_with_the_idea_not_the_formula() -> None:
    from minigrad.grading.grader import ExerciseResult
    from minigrad.grading.reports import first_hint

    for lesson, exercise in all_exercises().values():
        hint = first_hint(ExerciseResult(lesson, exercise))
        assert hint == exercise.idea and exercise.hint not in hint, exercise.id
