"""Lesson 01 exercises: the references pass their checks and agree with central differences;
the graphs differ from the worked examples on screen (cases run as the grader runs them)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.exercise_cases import ExerciseCases
from support.wrong_students import assert_named

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


# ---------------------------------------------------------------------------- named mistakes
# Each: a wrong solution as a student writes it (a line of the reference replaced), and the
# sentence every case it fails must name.
COMPOSITE = "    return outer * math.cos(inner) * (2.0 * x)\n"
PATHS_DU = "    dL_du = v + dL_dv * c              # directly (u·v), plus through v = u·c\n"
NETWORK_DD = "    dL_dd = 2.0 * (d - 1.0)\n"
ESTIMATE = "    return (f(x + eps) - f(x - eps)) / (2.0 * eps)\n"
ERRORS = "        errors[i] = abs(estimate - exact)\n"

NAMED_MISTAKES = [
    ("01.1", (COMPOSITE, "    return outer * math.cos(inner)\n"), "misses the innermost factor"),
    ("01.1", (COMPOSITE, "    return math.cos(inner) * (2.0 * x)\n"),
     "misses the outermost factor"),
    ("01.1", (COMPOSITE, "    return outer * math.cos(x) * (2.0 * x)\n"), "is taken at x"),
    ("01.1", (COMPOSITE, "    return outer * -math.sin(inner) * (2.0 * x)\n"),
     "the derivative of cos, not the derivative of sin"),
    ("01.1", (COMPOSITE, "    return outer * math.cos(inner) * x\n"), "is half the right one"),
    ("01.1", (COMPOSITE, "    return outer\n"), "you returned f(x) itself"),
    ("01.1", (COMPOSITE, "    return outer + math.cos(inner) + 2.0 * x\n"),
     "your factors are added"),
    ("01.2", ("    dL_dv = u + 1.0 ", "    dL_dv = u "),
     "your dL_dv misses one of the two places"),
    ("01.2", (PATHS_DU, "    dL_du = v\n"), "your dL_du has only the direct path"),
    ("01.2", (PATHS_DU, "    dL_du = dL_dv * c\n"), "your dL_du has only the path through v"),
    ("01.2", ('"dL_dc": dL_dv * u,', '"dL_dc": u,'), "your dL_dc is the local derivative"),
    ("01.2", ('"dL_da": dL_du * 1.0,', '"dL_da": 1.0,'), "your dL_da is the local derivative"),
    ("01.3", ('"dL_da": dL_dd * w3 + dL_db * w1,', '"dL_da": dL_db * w1,'),
     "your dL_da has only the path through b and c"),
    ("01.3", ('"dL_da": dL_dd * w3 + dL_db * w1,', '"dL_da": dL_dd * w3,'),
     "your dL_da has only the direct path"),
    ("01.3", (NETWORK_DD, "    dL_dd = d - 1.0\n"), "every gradient is half the right one"),
    ("01.3", (NETWORK_DD, "    dL_dd = 2.0 * (1.0 - d)\n"), "every gradient has the wrong sign"),
    ("01.3", (NETWORK_DD, "    dL_dd = 2.0 * d\n"), "leaves out the − 1 of the loss"),
    ("01.3", ('"dL_dw1": dL_db * a,', '"dL_dw1": dL_db,'), "your dL_dw1 is the gradient at b"),
    ("01.3", ('"dL_dw2": dL_dc * b,', '"dL_dw2": dL_dc,'), "your dL_dw2 is the gradient at c"),
    ("01.3", ('"dL_dw4": dL_dd * c,', '"dL_dw4": dL_dd,'), "your dL_dw4 is the gradient at d"),
    ("01.4", (ESTIMATE, "    return (f(x + eps) - f(x)) / eps\n"), "a one-sided difference"),
    ("01.4", (ESTIMATE, "    return (f(x) - f(x - eps)) / eps\n"), "a one-sided difference"),
    ("01.4", (ESTIMATE, "    return (f(x + eps) - f(x - eps)) / eps\n"),
     "your estimate is twice the right one"),
    ("01.4", (ESTIMATE, "    return (f(x + eps) - f(x - eps)) / 2 * eps\n"),
     "multiplied by ε where it should be divided"),
    ("01.4", (ESTIMATE, "    return (f(x + eps) - f(x - eps)) / 2\n"), "divided by 2, not by"),
    ("01.4", (ESTIMATE, "    return (f(x - eps) - f(x + eps)) / (2.0 * eps)\n"),
     "your estimate has the wrong sign"),
    ("01.4", (ESTIMATE, "    return f.derivative(x)\n"), "you returned the exact derivative"),
    ("01.5", (ERRORS, "        errors[i] = estimate - exact\n"),
     "some of your errors are negative"),
    ("01.5", (ERRORS, "        errors[i] = estimate\n"), "you returned the estimates themselves"),
    ("01.5", (ERRORS, "        errors[i] = abs(estimate - exact) / abs(exact)\n"),
     "relative errors"),
    ("01.5", (ERRORS, "        errors[i] = (estimate - exact) ** 2\n"), "your errors are squared"),
    ("01.5", ("        estimate = (f(x + eps) - f(x - eps)) / (2.0 * eps)\n",
              "        estimate = (f(x + eps) - f(x)) / eps\n"),
     "your estimates are one-sided differences"),
    ("01.5", ("        estimate = (f(x + eps) - f(x - eps)) / (2.0 * eps)\n",
              "        estimate = (f(x + eps) - f(x - eps)) / eps\n"),
     "your estimates divide the change by ε"),
]


@pytest.mark.parametrize("exercise_id, replaced, sentence", NAMED_MISTAKES,
                         ids=[f"{m[0]}-{m[2][:30]}" for m in NAMED_MISTAKES])
def test_a_wrong_solution_gets_the_sentence_that_names_its_mistake(
        exercise_id: str, replaced: tuple[str, str], sentence: str) -> None:
    assert_named(exercise_id, replaced, sentence)


def test_every_exercise_has_five_named_mistakes_each_tested() -> None:
    from minigrad.exercises.lessons import lesson01_checks as checks

    tested = {exercise_id for exercise_id, _, _ in NAMED_MISTAKES}
    for exercise_id, mistakes in (("01.1", checks.COMPOSITE_MISTAKES),
                                  ("01.2", checks.PATHS_MISTAKES),
                                  ("01.3", checks.NETWORK_MISTAKES),
                                  ("01.4", checks.ESTIMATE_MISTAKES),
                                  ("01.5", checks.ERRORS_MISTAKES)):
        assert exercise_id in tested
        assert len(mistakes) >= 5
        assert sum(1 for e, _, _ in NAMED_MISTAKES if e == exercise_id) >= 5
