"""Lesson 06 exercises: the references pass their checks and agree with the engine, the
worked case's numbers, and common mistakes do not pass (see tests/exercise_cases.py)."""

from __future__ import annotations

import numpy as np
import pytest
from exercise_cases import ExerciseCases

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.exercises.lessons import lesson06 as reference
from minigrad.exercises.lessons.lesson06_checks import (EXERCISES, WORKED_DELTA, WORKED_W,
                                                        WORKED_X)

pytestmark = pytest.mark.usefixtures("warm_kernels")

SEEDS = range(8)

_cases = ExerciseCases(EXERCISES, reference, SEEDS)
BY_ID = _cases.by_id
caught = _cases.caught


# Well formed, reference passes, hidden cases fresh: tests/test_exercises_every_lesson.py


def _plane(array: np.ndarray, requires_grad: bool = True) -> mg.Tensor:
    return mg.tensor(array[None, None], dtype=mg.float64, requires_grad=requires_grad)


def test_worked_case_by_hand() -> None:
    np.testing.assert_array_equal(reference.conv_weight_grad(WORKED_X, WORKED_DELTA),
                                  [[6.0, 9.0], [15.0, 18.0]])
    np.testing.assert_array_equal(reference.conv_input_grad(WORKED_W, WORKED_DELTA),
                                  [[1.0, 4.0, 4.0], [2.0, 9.0, 10.0], [-3.0, -1.0, 4.0]])


@pytest.mark.parametrize("seed", range(4))
def test_gradients_match_the_engine(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for x, delta in BY_ID["06.1"].hidden(rng):
        k = x.shape[0] - delta.shape[0] + 1
        w = rng.normal(size=(k, k))
        xt, wt = _plane(x), _plane(w)
        F.conv2d(xt, wt).backward(_plane(delta, False))
        np.testing.assert_allclose(reference.conv_weight_grad(x, delta), wt.grad.numpy()[0, 0],
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(reference.conv_input_grad(w, delta), xt.grad.numpy()[0, 0],
                                   rtol=1e-10, atol=1e-12)


def test_output_size_matches_the_engine() -> None:
    for size, kernel, stride, padding in BY_ID["06.3"].hidden(np.random.default_rng(0)):
        y = F.conv2d(mg.zeros(1, 1, size, size), mg.zeros(1, 1, kernel, kernel), stride=stride,
                     padding=padding)
        assert y.shape[2] == reference.conv_output_size(size, kernel, stride, padding)


# ---------------------------------------------------------------------------- mistakes
def _convolves_the_other_way(x, delta):
    return reference.conv_weight_grad(x, delta)[::-1, ::-1]


def _unrotated_kernel(w, delta):
    return reference.conv_input_grad(w[::-1, ::-1], delta)


def _forgets_the_padding(w, delta):
    return reference.conv_input_grad(w, delta)[:delta.shape[0], :delta.shape[1]]


def _ceil_instead_of_floor(size, kernel, stride, padding):
    return -(-(size + 2 * padding - kernel) // stride) + 1


def _padding_once(size, kernel, stride, padding):
    return (size + padding - kernel) // stride + 1


@pytest.mark.parametrize("exercise_id, wrong", [
    ("06.1", _convolves_the_other_way), ("06.2", _unrotated_kernel),
    ("06.2", _forgets_the_padding), ("06.3", _ceil_instead_of_floor), ("06.3", _padding_once)])
def test_mistakes_are_caught(exercise_id, wrong) -> None:
    caught(exercise_id, wrong)


def test_conv_matrix_times_the_image_is_the_convolution() -> None:
    rng = np.random.default_rng(5)
    for w, height, width in BY_ID["06.4"].hidden(rng):
        image = rng.normal(size=(height, width))
        y = F.conv2d(_plane(image, False), _plane(w, False)).numpy()[0, 0]
        np.testing.assert_allclose(reference.conv_matrix(w, height, width) @ image.ravel(),
                                   y.ravel(), rtol=1e-12, atol=1e-12)


def _column_major(w, height, width):
    return reference.conv_matrix(w.T, width, height)


def _unshared(w, height, width):
    matrix = reference.conv_matrix(w, height, width)
    matrix[1:] = 0  # only the first output position gets its weights
    return matrix


@pytest.mark.parametrize("wrong", [_column_major, _unshared])
def test_conv_matrix_mistakes_are_caught(wrong) -> None:
    caught("06.4", wrong)
