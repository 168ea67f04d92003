"""Run an exercise's checks in-process, as the grader would, to test the checks themselves.

Each case goes through the JSON codec both ways, as it does between the grader and a student
process, and is judged by the exercise's own comparator against the reference; an error the function
raises is named as the grader names it (``mistakes.name_raised``).
"""

from __future__ import annotations

from types import ModuleType
from typing import Callable, Optional, Sequence

import numpy as np

from minigrad.exercises.codec import decode, encode
from minigrad.exercises.mistakes import name_raised
from minigrad.exercises.spec import Exercise


class ExerciseCases:
    """The visible and hidden cases of one lesson's exercises, and who passes them."""

    def __init__(self, exercises: Sequence[Exercise], reference: ModuleType, seeds: range) -> None:
        self.by_id = {exercise.id: exercise for exercise in exercises}
        self.reference = reference
        self.seeds = seeds

    def case_sets(self, exercise_id: str, seeds: Optional[range] = None) -> list[list[tuple]]:
        """The visible cases first, then one hidden set per seed.

        An exercise with its own time limit (the capstone trains a network for each case) gets
        one hidden set: the others would repeat a minute of training to show nothing new.
        """
        exercise = self.by_id[exercise_id]
        seeds = self.seeds if seeds is None else seeds
        if exercise.timeout is not None:
            seeds = seeds[:1]
        return [list(exercise.visible())] + [list(exercise.hidden(np.random.default_rng(seed)))
                                             for seed in seeds]

    def failures(self, exercise_id: str, function: Callable,
                 sets: Optional[list] = None) -> list[str]:
        """Messages for every case ``function`` gets wrong (visible and several hidden sets)."""
        exercise = self.by_id[exercise_id]
        expected_function = getattr(self.reference, exercise.function)
        messages = []
        for cases in sets if sets is not None else self.case_sets(exercise_id):
            for args in cases:
                args = decode(encode(args))
                # The expected answer the grader holds, where it holds one (the capstone's
                # labels: the reference need not run), else the reference's.
                solve = exercise.answer or expected_function
                expected = decode(encode(solve(*args)))
                if function is expected_function and solve is expected_function:
                    got = expected  # the reference against itself: run it once
                else:
                    try:
                        with np.errstate(all="ignore"):
                            got = decode(encode(function(*decode(encode(args)))))
                    except Exception as error:  # a wrong answer may crash: a failure too
                        messages.append(name_raised(exercise.compare, expected,
                                                    f"{type(error).__name__}: {error}", args))
                        continue
                message = exercise.compare(expected, got, args)
                if message:
                    messages.append(message)
        return messages

    def caught(self, exercise_id: str, wrong: Callable) -> list[str]:
        """Check that ``wrong`` fails the visible cases and, separately, the hidden ones."""
        sets = self.case_sets(exercise_id)
        visible = self.failures(exercise_id, wrong, sets[:1])
        hidden = self.failures(exercise_id, wrong, sets[1:])
        assert visible, "the visible cases let this mistake through"
        assert hidden, "the hidden cases let this mistake through"
        return visible + hidden
