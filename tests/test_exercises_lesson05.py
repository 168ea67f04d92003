"""Lesson 05 exercises: the references pass their checks, and common mistakes do not
(cases run as the grader runs them: see tests/exercise_cases.py)."""

from __future__ import annotations

import numpy as np
import pytest
from exercise_cases import ExerciseCases

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.exercises.lessons import lesson05 as reference
from minigrad.exercises.lessons.lesson05_checks import CLASSIC, EXERCISES

SEEDS = range(8)

_cases = ExerciseCases(EXERCISES, reference, SEEDS)
BY_ID = _cases.by_id
caught = _cases.caught


# Well formed, reference passes, hidden cases fresh: tests/test_exercises_every_lesson.py


# ---------------------------------------------------------------------------- the engine agrees
def test_linear_backward_reference_matches_the_engine() -> None:
    for x, w, g in BY_ID["05.1"].hidden(np.random.default_rng(0)):
        xt = mg.tensor(x, dtype=mg.float64, requires_grad=True)
        wt = mg.tensor(w, dtype=mg.float64, requires_grad=True)
        bt = mg.zeros(w.shape[0], dtype=mg.float64, requires_grad=True)
        F.linear(xt, wt, bt).backward(mg.tensor(g, dtype=mg.float64))
        for ours, engine in zip(reference.linear_backward(x, w, g), (xt, wt, bt)):
            np.testing.assert_allclose(ours, engine.grad.numpy(), rtol=1e-12)


def test_syllabus_numbers_of_the_classic_network() -> None:
    error, grad, new = reference.network_step(*CLASSIC, 0.5)
    assert error == pytest.approx(0.298371109, abs=1e-9)
    assert grad[4] == pytest.approx(0.082167041, abs=1e-9)
    assert grad[0] == pytest.approx(0.000438568, abs=1e-9)
    assert new[4] == pytest.approx(0.40 - 0.5 * 0.082167041, abs=1e-9)


def test_network_step_matches_the_engine() -> None:
    for inputs, targets, w, b, lr in BY_ID["05.4"].hidden(np.random.default_rng(3)):
        wt = mg.tensor(w, dtype=mg.float64, requires_grad=True)
        i1, i2 = inputs
        h1 = (wt[0] * i1 + wt[1] * i2 + b[0]).sigmoid()
        h2 = (wt[2] * i1 + wt[3] * i2 + b[0]).sigmoid()
        o1 = (wt[4] * h1 + wt[5] * h2 + b[1]).sigmoid()
        o2 = (wt[6] * h1 + wt[7] * h2 + b[1]).sigmoid()
        error = 0.5 * (targets[0] - o1) ** 2 + 0.5 * (targets[1] - o2) ** 2
        error.backward()
        _, grad, _ = reference.network_step(inputs, targets, w, b, lr)
        np.testing.assert_allclose(grad, wt.grad.numpy(), rtol=1e-10, atol=1e-14)


# ---------------------------------------------------------------------------- mistakes
def _forgets_bias_sum(x, w, g):
    dx, dw, db = reference.linear_backward(x, w, g)
    return dx, dw, g[0]


def _transposed_weight_grad(x, w, g):
    dx, dw, db = reference.linear_backward(x, w, g)
    return dx, x.T @ g, db  # (d, h) instead of (h, d): wrong shape, or wrong values if square


def _divides_again(x, w, g):
    dx, dw, db = reference.linear_backward(x, w, g)
    return dx / len(x), dw / len(x), db / len(x)


@pytest.mark.parametrize("wrong", [_forgets_bias_sum, _transposed_weight_grad, _divides_again])
def test_linear_backward_mistakes_are_caught(wrong) -> None:
    caught("05.1", wrong)


def _relu_ge(name, y, g):
    if name == "relu":
        return g * (y >= 0)
    return reference.activation_backward(name, y, g)


def _sigmoid_from_input(name, y, g):
    if name == "sigmoid":
        s = 1 / (1 + np.exp(-y))  # treats the output as if it were the input
        return g * s * (1 - s)
    return reference.activation_backward(name, y, g)


def _tanh_sign(name, y, g):
    if name == "tanh":
        return g * (1 + y * y)
    return reference.activation_backward(name, y, g)


@pytest.mark.parametrize("wrong", [_relu_ge, _sigmoid_from_input, _tanh_sign])
def test_activation_mistakes_are_caught(wrong) -> None:
    caught("05.2", wrong)


def test_dividing_by_the_batch_again_is_named() -> None:
    messages = _cases.failures("05.1", _divides_again)
    batch_cases = [args for cases in _cases.case_sets("05.1") for args in cases
                   if len(args[0]) > 1]
    assert len(messages) == len(batch_cases)
    assert all("do not divide again" in message for message in messages), messages
    assert not any("do not divide again" in message
                   for message in _cases.failures("05.1", _transposed_weight_grad))


def test_the_relu_erratum_costs_half_of_the_activation_exercise() -> None:
    """y ≥ 0 instead of y > 0, the lesson's erratum, fails every relu case (each has an
    output of exactly 0), and relu is half of the cases."""
    for cases in _cases.case_sets("05.2"):
        relu = [args for args in cases if args[0] == "relu"]
        assert len(relu) * 2 == len(cases)
        assert len(_cases.failures("05.2", _relu_ge, [cases])) == len(relu)


def _no_batch_division(logits, targets):
    loss, grad = reference.softmax_cross_entropy(logits, targets)
    return loss, grad * logits.shape[0]


def _unstable(logits, targets):
    with np.errstate(all="ignore"):
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        rows = np.arange(len(targets))
        loss = -np.log(p[rows, targets]).mean()
        p[rows, targets] -= 1
    return float(loss), p / len(targets)


@pytest.mark.parametrize("wrong", [_no_batch_division, _unstable])
def test_cross_entropy_mistakes_are_caught(wrong) -> None:
    caught("05.3", wrong)


def _one_path_only(inputs, targets, w, b, lr):
    error, grad, _ = reference.network_step(inputs, targets, w, b, lr)
    # dE/dw1..w4 through o1 only: forgets that each hidden unit also feeds o2
    w = np.asarray(w)
    h = [1 / (1 + np.exp(-(w[0] * inputs[0] + w[1] * inputs[1] + b[0]))),
         1 / (1 + np.exp(-(w[2] * inputs[0] + w[3] * inputs[1] + b[0])))]
    o1 = 1 / (1 + np.exp(-(w[4] * h[0] + w[5] * h[1] + b[1])))
    delta = (o1 - targets[0]) * o1 * (1 - o1)
    grad = grad.copy()
    grad[0:2] = delta * w[4] * h[0] * (1 - h[0]) * np.asarray(inputs)
    grad[2:4] = delta * w[5] * h[1] * (1 - h[1]) * np.asarray(inputs)
    return error, grad, np.asarray(w) - lr * grad


def _gradient_ascent(inputs, targets, w, b, lr):
    error, grad, _ = reference.network_step(inputs, targets, w, b, lr)
    return error, grad, np.asarray(w) + lr * grad


@pytest.mark.parametrize("wrong", [_one_path_only, _gradient_ascent])
def test_network_step_mistakes_are_caught(wrong) -> None:
    caught("05.4", wrong)
