"""What holds for every lesson's exercises: well formed, the reference passes its visible and
hidden cases (as the grader runs them), and hidden cases change with the seed. Each lesson's
own file (test_exercises_lessonNN.py) tests the mistakes its exercises must catch."""

from __future__ import annotations

import numpy as np
import pytest
from support.exercise_cases import ExerciseCases

from minigrad.exercises.authoring.source import exercises, lessons_with_exercises, reference_module
from minigrad.exercises.codec import encode

SEEDS = range(6)
LESSONS = lessons_with_exercises()
CASES = {lesson.number: ExerciseCases(exercises(lesson), reference_module(lesson), SEEDS)
         for lesson in LESSONS}
ALL = [(lesson.number, exercise.id) for lesson in LESSONS for exercise in exercises(lesson)]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.slug)
def test_every_exercise_is_well_formed(lesson) -> None:  # type: ignore[no-untyped-def]
    listed = exercises(lesson)
    assert [exercise.id for exercise in listed] == \
        [f"{lesson.number:02d}.{k}" for k in range(1, len(listed) + 1)]
    reference = reference_module(lesson)
    for exercise in listed:
        assert 2 <= exercise.points <= 5, exercise.id
        assert callable(getattr(reference, exercise.function)), exercise.id
        assert exercise.hint and exercise.title, exercise.id


@pytest.mark.parametrize("number, exercise_id", ALL, ids=[exercise_id for _, exercise_id in ALL])
def test_reference_passes_visible_and_hidden_cases(number: int, exercise_id: str) -> None:
    cases = CASES[number]
    function = getattr(cases.reference, cases.by_id[exercise_id].function)
    assert cases.failures(exercise_id, function) == []


@pytest.mark.parametrize("number, exercise_id", ALL, ids=[exercise_id for _, exercise_id in ALL])
def test_hidden_cases_are_fresh_for_each_seed(number: int, exercise_id: str) -> None:
    hidden = CASES[number].by_id[exercise_id].hidden
    assert encode(hidden(np.random.default_rng(1))) != encode(hidden(np.random.default_rng(2)))
