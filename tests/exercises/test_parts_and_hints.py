"""Per-part credit for answers of several values, and hints in tiers."""

from __future__ import annotations

import numpy as np

from minigrad.exercises import selfcheck
from minigrad.grading.grader import CaseResult, ExerciseResult
from minigrad.exercises.spec import Exercise, close, judge
from minigrad.course.catalog import LESSONS


def _exercise(**settings) -> Exercise:
    base = dict(id="99.1", function="f", points=3, title="three values",
                hint="the formula", visible=lambda: [(1.0,)])
    return Exercise(**{**base, **settings})


def test_a_right_answer_gets_full_credit_and_no_message() -> None:
    exercise = _exercise(parts=("a", "b", "c"))
    assert judge(exercise, (1.0, np.ones(2), 3.0), (1.0, np.ones(2), 3.0), ()) == (None, 1.0)


def test_each_part_is_scored_on_its_own_and_the_message_names_them() -> None:
    exercise = _exercise(parts=("E", "dE/dw", "new weights"))
    expected = (0.5, np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    message, credit = judge(exercise, expected, (0.5, np.array([1.0, 2.5]), [3.0, 4.0]), ())
    assert credit == 2 / 3
    assert "right: E, new weights; wrong: dE/dw" in message
    assert "result[1]" in message  # the comparator's own message comes first


def test_without_parts_an_answer_is_right_or_wrong_as_a_whole() -> None:
    expected = (0.5, np.array([1.0, 2.0]))
    assert judge(_exercise(), expected, (0.5, np.array([1.0, 2.5])), ())[1] == 0.0


def test_a_wrong_number_of_values_earns_nothing() -> None:
    exercise = _exercise(parts=("a", "b"))
    message, credit = judge(exercise, (1.0, 2.0), (1.0,), ())
    assert credit == 0.0 and "expected 2 items" in message


def test_parts_are_judged_by_the_exercises_own_comparator_in_context() -> None:
    def compare(expected, got, args):  # b must equal a + args[0]: only right in context
        return None if got[1] == got[0] + args[0] else "b is not a + x"

    exercise = _exercise(parts=("a", "b"), compare=compare)
    assert judge(exercise, (1.0, 3.0), (1.0, 5.0), (2.0,)) == ("b is not a + x (right: a; wrong: b)", 0.5)


def test_partial_credit_counts_in_the_score_and_the_status() -> None:
    exercise = _exercise(points=4, parts=("a", "b"))
    result = ExerciseResult(LESSONS[0], exercise, [
        CaseResult(True, True), CaseResult(False, False, "wrong", "x", credit=0.5)])
    assert result.score == 3.0
    assert result.points_for(visible=False) == (1.0, 2.0)
    assert result.status == "1.5/2 cases"  # fits the table's status column
    assert ExerciseResult(LESSONS[0], _exercise(), [CaseResult(True, False, "wrong", "x")]).score == 0


def test_check_gives_the_idea_then_the_reading_and_the_formula_only_on_request(capsys, monkeypatch) -> None:
    monkeypatch.setattr(selfcheck, "_failed_checks", {})
    exercise = _exercise(idea="think of both paths", hint="d = a + b", reading="2. Paths")
    first, second = selfcheck.hint_for(exercise), selfcheck.hint_for(exercise)
    asked = selfcheck.hint_for(exercise, show="formula")
    assert "think of both paths" in first and "2. Paths" not in first and "d = a + b" not in first
    assert "think of both paths" in second and "2. Paths" in second and "d = a + b" not in second
    assert "d = a + b" in asked
    assert selfcheck.hint_for(_exercise(id="99.2")) == "Hint: the formula"  # no idea: formula