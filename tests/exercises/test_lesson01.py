"""Lesson 01 exercises: the references pass their checks and agree with central differences;
the graphs differ from the worked examples on screen (cases run as the grader runs them)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.exercise_cases import ExerciseCases

from minigrad.exercises.lessons import lesson01 as reference
from minigrad.exercises.lessons.lesson01_checks import EXERCISES
from minigrad.scalar.numerical import numerical_gradient

_cases = ExerciseCases(EXERCISES, reference, range(6))
BY_ID = _cases.by_id


@pytest.mark.parametrize("exercise_id", sorted(BY_ID))
def test_reference_passes_visible_and_hidden_cases(exercise_id: str) -> None:
    assert _cases.failures(exercise_id, getattr(reference, BY_ID[exercise_id].function)) == []


def test_composite_matches_central_differences() -> None:
    for (x,) in BY_ID["01.1"].hidden(np.random.default_rng(0)):
        numeric = numerical_gradient(lambda t: math.exp(math.sin(t * t)), [x])[0]
        assert reference.composite_derivative(x) == pytest.approx(numeric, rel=1e-7, abs=1e-8)


def test_several_paths_matches_central_differences_and_its_example() -> None:
    def loss(a: float, b: float, c: float) -> float:
        u = a + b
        v = u * c
        return u * v + v

    result = reference.several_paths(1.0, 1.0, 3.0)
    assert (result["L"], result["dL_dv"], result["dL_du"]) == (18.0, 3.0, 15.0)
    for args in BY_ID["01.2"].hidden(np.random.default_rng(1)):
        result = reference.several_paths(*args)
        numeric = numerical_gradient(loss, list(args))
        np.testing.assert_allclose([result["dL_da"], result["dL_db"], result["dL_dc"]], numeric,
                                   rtol=1e-6, atol=1e-8)


def test_small_network_matches_central_differences_and_its_example() -> None:
    def loss(a: float, w1: float, w2: float, w3: float, w4: float) -> float:
        return (w3 * a + w4 * (w2 * (w1 * a)) - 1.0) ** 2

    result = reference.small_network(1.0, 2.0, 3.0, 4.0, 5.0)
    assert (result["L"], result["dL_dw3"], result["dL_da"]) == (1089.0, 66.0, 2244.0)
    for args in BY_ID["01.3"].hidden(np.random.default_rng(2)):
        result = reference.small_network(*args)
        numeric = numerical_gradient(loss, list(args))
        got = [result[key] for key in ("dL_da", "dL_dw1", "dL_dw2", "dL_dw3", "dL_dw4")]
        np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-7)


def test_the_exercises_are_not_the_worked_examples() -> None:
    # The notebook works f = (x²+1)³, L = v² + u with u = ab, and L = 10 − d on screen.
    assert reference.composite_derivative(1.0) != 24.0
    assert reference.several_paths(2.0, 3.0, 1.0)["L"] != 55.0
    assert reference.small_network(1.0, 2.0, 3.0, 4.0, 5.0)["L"] != -13.0


def test_the_visible_examples_in_the_docstrings_hold() -> None:
    assert reference.composite_derivative(0.0) == 0.0
    assert reference.central_difference_estimate(lambda x: x ** 3, 2.0, 0.1) == \
        pytest.approx(12.01)
