"""Numerical derivatives: the reference every backward rule is checked against.

The derivative is a limit, f'(x) = lim_{ε→0} (f(x+ε) − f(x)) / ε. A computer cannot take the
limit, but it can pick a small ε. The *central* difference

    f'(x) ≈ (f(x+ε) − f(x−ε)) / 2ε

is much better than the one-sided (forward) one, because the ε² terms of the two Taylor
expansions cancel:

    f(x±ε) = f(x) ± ε f'(x) + ε²/2 f''(x) ± ε³/6 f'''(x) + …
    ⇒ (f(x+ε) − f(x−ε)) / 2ε = f'(x) + ε²/6 f'''(x) + …     (truncation error O(ε²))
    ⇒ (f(x+ε) − f(x)) / ε     = f'(x) + ε/2 f''(x) + …       (truncation error O(ε))

Shrinking ε is not free: f(x±ε) are each rounded to about machine epsilon (≈ 2.2e-16 in float64)
times |f(x)|, and that rounding error is divided by 2ε. The total error is therefore roughly

    ε²/6 |f'''(x)|  +  eps_machine·|f(x)| / ε,

smallest near ε ≈ 1e-5 … 1e-6 in float64 (about 1e-10 relative error): a V on a log–log plot,
which :func:`difference_errors` lets you draw. Check gradients in float64, away from kinks
(``relu`` at 0, ``abs`` at 0), where neither side of the difference sees the other branch.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from minigrad.scalar.value import Value

DEFAULT_EPS = 1e-6

ScalarFunction = Callable[..., "float | Value"]


def central_difference(f: ScalarFunction, x: float, eps: float = DEFAULT_EPS) -> float:
    """Estimate f'(x) as (f(x+ε) − f(x−ε)) / 2ε; error O(ε²) + round-off ~ eps_machine/ε.

    ``f`` takes one float and returns a float (or a :class:`Value`, whose ``.data`` is used).
    """
    eps = _check_eps(eps)
    x = _check_point(x, "x")
    _check_eps_resolves(x, eps)
    return (_evaluate(f, x + eps) - _evaluate(f, x - eps)) / (2.0 * eps)


def forward_difference(f: ScalarFunction, x: float, eps: float = DEFAULT_EPS) -> float:
    """Estimate f'(x) as (f(x+ε) − f(x)) / ε; error O(ε) — shown for comparison only."""
    eps = _check_eps(eps)
    x = _check_point(x, "x")
    _check_eps_resolves(x, eps)
    return (_evaluate(f, x + eps) - _evaluate(f, x)) / eps


def partial_derivative(f: ScalarFunction, point: Sequence[float], index: int,
                       eps: float = DEFAULT_EPS) -> float:
    """Estimate ∂f/∂x_i at ``point`` by a central difference along coordinate ``index``.

    ∂f/∂x_i ≈ (f(θ + ε e_i) − f(θ − ε e_i)) / 2ε, where e_i is the i-th unit vector and
    ``f(*point)`` takes one float per coordinate.
    """
    eps = _check_eps(eps)
    coordinates = [_check_point(value, f"point[{i}]") for i, value in enumerate(point)]
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"index must be an int, got {type(index).__name__}: {index!r}")
    if not -len(coordinates) <= index < len(coordinates):
        raise IndexError(
            f"index {index} is out of range for a point with {len(coordinates)} coordinates"
        )
    _check_eps_resolves(coordinates[index], eps)
    plus, minus = list(coordinates), list(coordinates)
    plus[index] += eps
    minus[index] -= eps
    return (_evaluate(f, *plus) - _evaluate(f, *minus)) / (2.0 * eps)


def numerical_gradient(f: ScalarFunction, point: Sequence[float],
                       eps: float = DEFAULT_EPS) -> list[float]:
    """All partial derivatives [∂f/∂x_0, …, ∂f/∂x_{n−1}] of ``f(*point)``, by central differences.

    Costs 2n evaluations of f — which is why training uses backpropagation (one backward pass,
    whatever n is) and keeps finite differences for checking.
    """
    return [partial_derivative(f, point, i, eps) for i in range(len(point))]


def difference_errors(f: ScalarFunction, x: float, exact: float,
                      eps_values: Sequence[float] | np.ndarray | None = None,
                      method: str = "central") -> tuple[np.ndarray, np.ndarray]:
    """The absolute error |estimate − exact| of a finite difference for each ε in ``eps_values``.

    Returns ``(eps, error)``, two float64 arrays of the same length, ready for a log–log plot:
    the error falls like ε² (central) or ε (forward) until round-off, ~eps_machine/ε, takes over.
    ``eps_values`` defaults to 10^0 … 10^-16 (33 values). No ε is rejected here: where x ± ε
    rounds back to x the estimate is 0, and the error plot shows it.
    """
    if method not in ("central", "forward"):
        raise ValueError(f"method must be 'central' or 'forward', got {method!r}")
    if eps_values is None:
        eps_values = np.logspace(0, -16, 33)
    eps_array = np.asarray(eps_values, dtype=np.float64).reshape(-1)
    for eps in eps_array:
        _check_eps(float(eps))
    x = _check_point(x, "x")
    exact = _check_point(exact, "exact")
    errors = np.empty_like(eps_array)
    for i, eps in enumerate(eps_array.tolist()):
        if method == "central":
            estimate = (_evaluate(f, x + eps) - _evaluate(f, x - eps)) / (2.0 * eps)
        else:
            estimate = (_evaluate(f, x + eps) - _evaluate(f, x)) / eps
        errors[i] = abs(estimate - exact)
    return eps_array, errors


# ---------------------------------------------------------------------------- checks
def _check_eps(eps: float) -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating, np.integer)):
        raise TypeError(f"eps must be a positive float, got {type(eps).__name__}: {eps!r}")
    eps = float(eps)
    if not math.isfinite(eps) or eps <= 0.0:
        raise ValueError(f"eps must be a positive, finite step size (e.g. 1e-6), got {eps!r}")
    return eps


def _check_eps_resolves(x: float, eps: float) -> None:
    # Below ~eps_machine·|x| the step vanishes in rounding and the estimate is exactly 0.
    if x + eps == x or x - eps == x:
        raise ValueError(
            f"eps={eps!r} is too small to change x={x!r} in float64 (x + eps == x); "
            "use a larger eps such as 1e-6 (relative to |x|)"
        )


def _check_point(value: object, name: str) -> float:
    if isinstance(value, Value):
        value = value.data
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}: {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def _evaluate(f: ScalarFunction, *args: float) -> float:
    result = f(*args)
    if isinstance(result, Value):
        return result.data
    try:
        return float(result)
    except (TypeError, ValueError):
        raise TypeError(
            f"f must return a real number (or a Value), got {type(result).__name__}: {result!r}"
        ) from None
