"""Lesson 08 exercises: the references pass their checks, agree with minigrad.optim and the
engine, and common mistakes do not pass (cases run as the grader runs them)."""

from __future__ import annotations

import numpy as np
import pytest
from exercise_cases import ExerciseCases

import minigrad as mg
import minigrad.optim as optim
from minigrad.exercises.lessons import lesson08 as reference
from minigrad.exercises.lessons.lesson08_checks import EXERCISES

SEEDS = range(8)

_cases = ExerciseCases(EXERCISES, reference, SEEDS)
BY_ID = _cases.by_id
caught = _cases.caught


# Well formed, reference passes, hidden cases fresh: tests/test_exercises_every_lesson.py


# ---------------------------------------------------------------------------- references agree
def test_sgd_reference_matches_optim_sgd_over_steps() -> None:
    rng = np.random.default_rng(0)
    start, grads = rng.normal(size=3), rng.normal(size=(4, 3))
    p = mg.tensor(start, dtype=mg.float64, requires_grad=True)
    opt = optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.3)
    w, buffer = start.copy(), np.zeros(3)
    for g in grads:
        p.grad = mg.tensor(g, dtype=mg.float64)
        opt.step()
        w, buffer = reference.sgd_step(w, g, buffer, 0.1, 0.9, 0.3)
    np.testing.assert_allclose(p.numpy(), w, rtol=1e-12)


def test_l2_reference_matches_the_engine() -> None:
    for w1, w2, x, y, lam in BY_ID["08.2"].hidden(np.random.default_rng(4)):
        t1 = mg.tensor(w1, dtype=mg.float64, requires_grad=True)
        t2 = mg.tensor(w2, dtype=mg.float64, requires_grad=True)
        o = t2 @ (t1 @ mg.tensor(x, dtype=mg.float64)).tanh()
        J = 0.5 * ((o - mg.tensor(y, dtype=mg.float64)) ** 2).sum() + \
            lam / 2 * ((t1 ** 2).sum() + (t2 ** 2).sum())
        J.backward()
        value, g1, g2 = reference.l2_objective_gradients(w1, w2, x, y, lam)
        assert value == pytest.approx(J.item(), rel=1e-12)
        np.testing.assert_allclose(g1, t1.grad.numpy(), rtol=1e-10)
        np.testing.assert_allclose(g2, t2.grad.numpy(), rtol=1e-10)


def test_adamw_reference_matches_optim_adamw_over_steps() -> None:
    rng = np.random.default_rng(1)
    start, grads = rng.normal(size=3), rng.normal(size=(5, 3))
    p = mg.tensor(start, dtype=mg.float64, requires_grad=True)
    opt = optim.AdamW([p], lr=0.05, weight_decay=0.2)
    w, m, v = start.copy(), np.zeros(3), np.zeros(3)
    for step, g in enumerate(grads, start=1):
        p.grad = mg.tensor(g, dtype=mg.float64)
        opt.step()
        w, m, v = reference.adamw_step(w, g, m, v, step, 0.05, 0.9, 0.999, 1e-8, 0.2)
    np.testing.assert_allclose(p.numpy(), w, rtol=1e-12)


# ---------------------------------------------------------------------------- mistakes
def _multiplies_by_one_plus_lambda(w, g, b, lr, momentum, wd):
    new_b = momentum * b + g * (1 + wd)  # the erratum: scaling g instead of adding λw
    return w - lr * new_b, new_b


def _decay_outside_momentum(w, g, b, lr, momentum, wd):
    new_b = momentum * b + g
    return w - lr * (new_b + wd * w), new_b


@pytest.mark.parametrize("wrong", [_multiplies_by_one_plus_lambda, _decay_outside_momentum])
def test_sgd_mistakes_are_caught(wrong) -> None:
    caught("08.1", wrong)


def _forgets_decay_in_gradient(w1, w2, x, y, lam):
    value, g1, g2 = reference.l2_objective_gradients(w1, w2, x, y, lam)
    return value, g1 - lam * w1, g2 - lam * w2


def _relu_derivative(w1, w2, x, y, lam):
    value, _, g2 = reference.l2_objective_gradients(w1, w2, x, y, lam)
    h = np.tanh(w1 @ x)
    grad_z = (w2.T @ (w2 @ h - y)) * (w1 @ x > 0)
    return value, np.outer(grad_z, x) + lam * w1, g2


@pytest.mark.parametrize("wrong", [_forgets_decay_in_gradient, _relu_derivative])
def test_l2_mistakes_are_caught(wrong) -> None:
    caught("08.2", wrong)


def test_unweighted_average_is_caught() -> None:
    caught("08.3", lambda grads, counts: sum(grads) / len(grads))


def _adam_with_l2(w, g, m, v, step, lr, beta1, beta2, eps, wd):
    return reference.adamw_step(w, g + wd * w, m, v, step, lr, beta1, beta2, eps, 0.0)


def _no_bias_correction(w, g, m, v, step, lr, beta1, beta2, eps, wd):
    decayed = w * (1 - lr * wd)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    return decayed - lr * m / (np.sqrt(v) + eps), m, v


@pytest.mark.parametrize("wrong", [_adam_with_l2, _no_bias_correction])
def test_adamw_mistakes_are_caught(wrong) -> None:
    caught("08.4", wrong)
