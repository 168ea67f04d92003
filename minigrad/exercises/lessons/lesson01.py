"""Lesson 01 exercises — derivatives and the chain rule, by hand and checked numerically.

Each function below is one exercise. Replace the lines under ``# YOUR CODE HERE`` with your
own code and run ``check("01.N", function)`` to test it on the visible cases; the grader also
runs hidden cases on fresh random inputs. Work the derivatives out by hand: ``math`` and
``numpy`` are here for arithmetic, not for differentiating for you.

Some exercises receive a function ``f`` (a ``NamedFunction`` such as ``sin`` or ``cube``):
call it like any function, ``f(x)``; ``f.derivative(x)`` is its exact derivative.
"""

from __future__ import annotations

import math

import numpy as np


def composite_derivative(x: float) -> float:
    """Exercise 01.1 — the chain rule on a composite.

    f(x) = (x² + 1)³. Return f'(x), worked out by hand with the chain rule:
    the outer derivative, taken at the inner value, times the inner derivative.

    Example: ``composite_derivative(1.0) == 24.0``.
    """
    ### BEGIN SOLUTION
    inner = x * x + 1.0
    return 3.0 * inner**2 * (2.0 * x)
    ### END SOLUTION


def several_paths(a: float, b: float, c: float) -> dict[str, float]:
    """Exercise 01.2 — several paths from a variable to the loss add up.

    u = a·b,  v = u + c,  L = v² + u.

    u reaches L twice: through v and directly. Return the loss and every partial derivative,
    ``{"L": L, "dL_dv": ∂L/∂v, "dL_du": ∂L/∂u, "dL_da": ∂L/∂a, "dL_db": ∂L/∂b, "dL_dc": ∂L/∂c}``.

    Example: at a=2, b=3, c=1: L = 55, ∂L/∂v = 14, ∂L/∂u = 15, ∂L/∂a = 45, ∂L/∂b = 30,
    ∂L/∂c = 14.
    """
    ### BEGIN SOLUTION
    u = a * b
    v = u + c
    loss = v * v + u
    dL_dv = 2.0 * v
    dL_du = dL_dv * 1.0 + 1.0  # through v, plus the direct path
    return {
        "L": loss,
        "dL_dv": dL_dv,
        "dL_du": dL_du,
        "dL_da": dL_du * b,
        "dL_db": dL_du * a,
        "dL_dc": dL_dv * 1.0,
    }
    ### END SOLUTION


def small_network(a: float, w1: float, w2: float, w3: float, w4: float) -> dict[str, float]:
    """Exercise 01.3 — gradients of a small network.

    b = w1·a,  c = w2·a,  d = w3·b + w4·c,  L = 10 − d.

    Return ``{"L": L, "dL_dw1": …, "dL_dw2": …, "dL_dw3": …, "dL_dw4": …, "dL_da": …}``.
    The input a reaches L along two paths (through b and through c).

    Example: at a=1, w1=2, w2=3, w3=4, w4=5: L = −13, ∂L/∂w1 = −4, ∂L/∂a = −23.
    """
    ### BEGIN SOLUTION
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    dL_dd = -1.0
    dL_db = dL_dd * w3
    dL_dc = dL_dd * w4
    return {
        "L": 10.0 - d,
        "dL_dw1": dL_db * a,
        "dL_dw2": dL_dc * a,
        "dL_dw3": dL_dd * b,
        "dL_dw4": dL_dd * c,
        "dL_da": dL_db * w1 + dL_dc * w2,
    }
    ### END SOLUTION


def central_difference(f, x: float, eps: float) -> float:
    """Exercise 01.4 — a numerical derivative.

    Estimate f'(x) by the central difference (f(x + ε) − f(x − ε)) / 2ε, with ε = ``eps``.
    (Its error shrinks like ε²; the one-sided (f(x + ε) − f(x)) / ε only like ε.)

    Example: for f = cube, ``central_difference(f, 2.0, 0.1)`` ≈ 12.01.
    """
    ### BEGIN SOLUTION
    return (f(x + eps) - f(x - eps)) / (2.0 * eps)
    ### END SOLUTION


def central_difference_errors(f, x: float, eps_values: np.ndarray) -> np.ndarray:
    """Exercise 01.5 — how the error of the estimate depends on ε.

    For every ε in ``eps_values`` (a float64 array), return the absolute error
    |central difference estimate − f'(x)|, where the exact derivative is ``f.derivative(x)``.
    Return a float64 array of the same shape as ``eps_values``.

    Plotted on log–log axes against ε, these errors fall like ε² (the truncation error) until
    round-off, which grows like 1/ε, takes over: a V.
    """
    ### BEGIN SOLUTION
    exact = f.derivative(x)
    errors = np.empty_like(eps_values, dtype=np.float64)
    for i, eps in enumerate(eps_values):
        estimate = (f(x + eps) - f(x - eps)) / (2.0 * eps)
        errors[i] = abs(estimate - exact)
    return errors
    ### END SOLUTION
