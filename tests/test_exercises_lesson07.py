"""Lesson 07 exercises: the references pass their checks and agree with the engine, and
common mistakes do not pass (cases run as the grader runs them: see tests/exercise_cases.py)."""

from __future__ import annotations

import numpy as np
import pytest
from exercise_cases import ExerciseCases

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.exercises.lessons import lesson07 as reference
from minigrad.exercises.lessons.lesson07_checks import EXERCISES

pytestmark = pytest.mark.usefixtures("warm_kernels")

SEEDS = range(8)

_cases = ExerciseCases(EXERCISES, reference, SEEDS)
BY_ID = _cases.by_id
caught = _cases.caught


# Well formed, reference passes, hidden cases fresh: tests/test_exercises_every_lesson.py


def _plane(array: np.ndarray, requires_grad: bool = True) -> mg.Tensor:
    return mg.tensor(array[None, None], dtype=mg.float64, requires_grad=requires_grad)


# ---------------------------------------------------------------------------- the engine agrees
@pytest.mark.parametrize("seed", range(4))
def test_max_and_avg_pool_references_match_the_engine(seed: int) -> None:
    for x, g, kernel, stride in BY_ID["07.2"].hidden(np.random.default_rng(seed)):
        xt = _plane(x)
        F.max_pool2d(xt, kernel, stride).backward(_plane(g, False))
        np.testing.assert_allclose(reference.max_pool_backward(x, g, kernel, stride),
                                   xt.grad.numpy()[0, 0], rtol=1e-12)
    for g, shape, kernel, stride in BY_ID["07.3"].hidden(np.random.default_rng(seed)):
        xt = _plane(np.zeros(shape))
        F.avg_pool2d(xt, kernel, stride).backward(_plane(g, False))
        np.testing.assert_allclose(reference.avg_pool_backward(g, shape, kernel, stride),
                                   xt.grad.numpy()[0, 0], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_conv_pool_step_matches_the_engine(seed: int) -> None:
    for x, w, b, g in BY_ID["07.4"].hidden(np.random.default_rng(seed)):
        xt, wt = _plane(x), _plane(w)
        bt = mg.tensor([b], dtype=mg.float64, requires_grad=True)
        y = F.max_pool2d(F.relu(F.conv2d(xt, wt, bt)), 2)
        y.backward(_plane(g, False))
        ours = reference.conv_pool_step(x, w, b, g)
        np.testing.assert_allclose(ours[0], y.numpy()[0, 0], rtol=1e-12)
        np.testing.assert_allclose(ours[1], wt.grad.numpy()[0, 0], rtol=1e-10, atol=1e-12)
        assert ours[2] == pytest.approx(bt.grad.numpy()[0], abs=1e-12)
        np.testing.assert_allclose(ours[3], xt.grad.numpy()[0, 0], rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------- mistakes
def _last_maximum(x, g, kernel, stride):
    grad = np.zeros_like(x, dtype=float)
    for i in range(g.shape[0]):
        for j in range(g.shape[1]):
            window = x[i * stride:i * stride + kernel, j * stride:j * stride + kernel]
            flat = window.size - 1 - np.argmax(window.ravel()[::-1])
            r, c = np.unravel_index(flat, window.shape)
            grad[i * stride + r, j * stride + c] += g[i, j]
    return grad


def _every_maximum(x, g, kernel, stride):
    grad = np.zeros_like(x, dtype=float)
    for i in range(g.shape[0]):
        for j in range(g.shape[1]):
            window = x[i * stride:i * stride + kernel, j * stride:j * stride + kernel]
            grad[i * stride:i * stride + kernel, j * stride:j * stride + kernel] += \
                g[i, j] * (window == window.max())
    return grad


def _overwrites_overlaps(x, g, kernel, stride):
    grad = np.zeros_like(x, dtype=float)
    for i in range(g.shape[0]):
        for j in range(g.shape[1]):
            window = x[i * stride:i * stride + kernel, j * stride:j * stride + kernel]
            r, c = np.unravel_index(np.argmax(window), window.shape)
            grad[i * stride + r, j * stride + c] = g[i, j]
    return grad


@pytest.mark.parametrize("wrong", [_last_maximum, _every_maximum, _overwrites_overlaps])
def test_max_pool_mistakes_are_caught(wrong) -> None:
    caught("07.2", wrong)


def _forgets_to_divide(g, shape, kernel, stride):
    return reference.avg_pool_backward(g, shape, kernel, stride) * kernel * kernel


def _divides_by_k(g, shape, kernel, stride):
    return reference.avg_pool_backward(g, shape, kernel, stride) * kernel


@pytest.mark.parametrize("wrong", [_forgets_to_divide, _divides_by_k])
def test_avg_pool_mistakes_are_caught(wrong) -> None:
    caught("07.3", wrong)


def _ignores_relu(x, w, b, g):
    y, _, _, _ = reference.conv_pool_step(x, w, b, g)
    big = reference.conv_pool_step(x, w, b + 100.0, g)  # every z > 0: the ReLU passes all
    return y, big[1], big[2], big[3]


def _flipped_kernel_for_dx(x, w, b, g):
    y, grad_w, grad_b, _ = reference.conv_pool_step(x, w, b, g)
    return y, grad_w, grad_b, reference.conv_pool_step(x, w[::-1, ::-1], b, g)[3]


def _relu_at_zero_passes(x, w, b, g):
    """The ReLU erratum, [z ≥ 0] instead of [z > 0]: the reference with every z = 0 nudged
    to a positive 1e-12 (too small to change the values beyond the grader's tolerance)."""
    y = reference.conv_pool_step(x, w, b, g)[0]
    return (y, *reference.conv_pool_step(x, w, b + 1e-12, g)[1:])


@pytest.mark.parametrize("wrong", [_ignores_relu, _flipped_kernel_for_dx, _relu_at_zero_passes])
def test_conv_pool_mistakes_are_caught(wrong) -> None:
    caught("07.4", wrong)


@pytest.mark.parametrize("seed", range(4))
def test_max_pool_forward_matches_the_engine(seed: int) -> None:
    for x, kernel, stride in BY_ID["07.1"].hidden(np.random.default_rng(seed)):
        values, indices = F.max_pool2d(_plane(x, False), kernel, stride, return_indices=True)
        ours = reference.max_pool_forward(x, kernel, stride)
        np.testing.assert_array_equal(ours[0], values.numpy()[0, 0])
        np.testing.assert_array_equal(ours[1], indices.numpy()[0, 0])


def _last_maximum_forward(x, kernel, stride):
    values, _ = reference.max_pool_forward(x, kernel, stride)
    return values, reference.max_pool_forward(x[::-1, ::-1], kernel, stride)[1]


def _window_indices(x, kernel, stride):
    values, indices = reference.max_pool_forward(x, kernel, stride)
    return values, indices % kernel


@pytest.mark.parametrize("wrong", [_last_maximum_forward, _window_indices])
def test_max_pool_forward_mistakes_are_caught(wrong) -> None:
    caught("07.1", wrong)
