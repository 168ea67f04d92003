"""Central differences: accuracy, the ε² error law, the V-shaped error curve, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minigrad import Value
from minigrad.scalar.numerical import (
    DEFAULT_EPS,
    central_difference,
    difference_errors,
    forward_difference,
    numerical_gradient,
    partial_derivative,
)


def f(x):
    return (x ** 2 + 1) ** 3


def f_prime(x):
    return 6 * x * (x ** 2 + 1) ** 2


@pytest.mark.parametrize("x", [-1.5, 0.3, 2.0])
def test_central_difference_matches_the_derivative(x):
    assert central_difference(f, x) == pytest.approx(f_prime(x), rel=1e-8)
    assert central_difference(math.sin, x) == pytest.approx(math.cos(x), abs=1e-9)


def test_default_eps_is_small_but_resolvable():
    assert DEFAULT_EPS == 1e-6


def test_central_is_second_order_and_forward_first_order():
    # exp at 0: every derivative is 1, so the leading error terms are ε²/6 and ε/2.
    for eps in (1e-2, 1e-3):
        central_error = central_difference(math.exp, 0.0, eps) - 1.0
        forward_error = forward_difference(math.exp, 0.0, eps) - 1.0
        assert central_error == pytest.approx(eps ** 2 / 6, rel=1e-2)
        assert forward_error == pytest.approx(eps / 2, rel=1e-2)


def test_a_function_returning_a_value_is_accepted():
    assert central_difference(lambda x: Value(x).tanh(), 0.5) == pytest.approx(
        1 - math.tanh(0.5) ** 2, rel=1e-8)


def test_partial_derivative_and_gradient():
    def g(a, b, c):
        return a * b ** 2 + math.exp(c)

    point = [1.5, -2.0, 0.5]
    exact = [4.0, 2 * 1.5 * -2.0, math.exp(0.5)]
    assert partial_derivative(g, point, 1) == pytest.approx(exact[1], rel=1e-8)
    assert partial_derivative(g, point, -1) == pytest.approx(exact[2], rel=1e-8)
    assert numerical_gradient(g, point) == pytest.approx(exact, rel=1e-8)
    assert point == [1.5, -2.0, 0.5]  # the caller's point is not modified


def test_difference_errors_draws_a_v():
    eps, errors = difference_errors(math.sin, 1.0, math.cos(1.0))
    assert eps.dtype == np.float64 and errors.shape == eps.shape == (33,)
    assert eps[0] == 1.0 and eps[-1] == pytest.approx(1e-16)
    best = int(np.argmin(errors))
    # The minimum sits in the middle (ε ≈ 1e-5 … 1e-6), far below both ends of the V.
    assert 1e-7 <= eps[best] <= 1e-4
    assert errors[best] < 1e-9
    assert errors[0] > 1e3 * errors[best] and errors[-1] > 1e3 * errors[best]
    # Left arm: truncation error ≈ ε²/6·|f'''| falls 100× per decade of ε.
    assert errors[2] / errors[4] == pytest.approx(100, rel=0.05)


def test_difference_errors_forward_falls_like_eps():
    eps, errors = difference_errors(math.exp, 0.0, 1.0, eps_values=[1e-2, 1e-3],
                                    method="forward")
    assert errors[0] / errors[1] == pytest.approx(10, rel=0.02)


@pytest.mark.parametrize("eps", [0.0, -1e-6, math.inf, math.nan])
def test_bad_eps_values_are_refused(eps):
    with pytest.raises(ValueError, match="eps must be a positive, finite"):
        central_difference(f, 1.0, eps)
    with pytest.raises(ValueError, match="eps must be a positive, finite"):
        difference_errors(f, 1.0, f_prime(1.0), eps_values=[1e-3, eps])


def test_eps_too_small_for_x_is_refused():
    with pytest.raises(ValueError, match="too small to change x"):
        central_difference(f, 1e6, 1e-12)


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="eps must be a positive float, got str"):
        central_difference(f, 1.0, "small")
    with pytest.raises(TypeError, match="x must be a real number"):
        central_difference(f, "1.0")
    with pytest.raises(IndexError, match="index 3 is out of range.*3 coordinates"):
        partial_derivative(lambda a, b, c: a, [1.0, 2.0, 3.0], 3)
    with pytest.raises(TypeError, match="f must return a real number"):
        central_difference(lambda x: [x], 1.0)
    with pytest.raises(ValueError, match="method must be"):
        difference_errors(f, 1.0, 1.0, method="backward")
