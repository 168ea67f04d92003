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
    """Exercise 01.1 — the chain rule through three nested functions.

    f(x) = exp(sin(x²)). Return f'(x), worked out by hand with the chain rule: peel the
    functions from the outside in, each derivative taken at the value of what is inside it,
    and multiply.

    Example: ``composite_derivative(0.0) == 0.0`` (the innermost derivative 2x is 0 there).
    """
    ### BEGIN SOLUTION
    inner = x * x                      # x²
    middle = math.sin(inner)           # sin(x²)
    outer = math.exp(middle)           # exp(sin(x²))
    return outer * math.cos(inner) * (2.0 * x)
    ### END SOLUTION


def several_paths(a: float, b: float, c: float) -> dict[str, float]:
    """Exercise 01.2 — several paths from a variable to the loss add up.

    u = a + b,  v = u·c,  L = u·v + v.

    u reaches L twice: directly (in u·v) and through v. Return the loss and every partial
    derivative,
    ``{"L": L, "dL_dv": ∂L/∂v, "dL_du": ∂L/∂u, "dL_da": ∂L/∂a, "dL_db": ∂L/∂b, "dL_dc": ∂L/∂c}``.

    Example: at a=1, b=1, c=3: u = 2, v = 6, L = 18, ∂L/∂v = 3, ∂L/∂u = 15.
    """
    ### BEGIN SOLUTION
    u = a + b
    v = u * c
    loss = u * v + v
    dL_dv = u + 1.0                    # from u·v and from + v
    dL_du = v + dL_dv * c              # directly (u·v), plus through v = u·c
    return {
        "L": loss,
        "dL_dv": dL_dv,
        "dL_du": dL_du,
        "dL_da": dL_du * 1.0,
        "dL_db": dL_du * 1.0,
        "dL_dc": dL_dv * u,
    }
    ### END SOLUTION


def small_network(a: float, w1: float, w2: float, w3: float, w4: float) -> dict[str, float]:
    """Exercise 01.3 — gradients of a small network with a skip connection.

    b = w1·a,  c = w2·b,  d = w3·a + w4·c,  L = (d − 1)².

    Return ``{"L": L, "dL_dw1": …, "dL_dw2": …, "dL_dw3": …, "dL_dw4": …, "dL_da": …}``.
    The input a reaches d along two paths: directly (w3·a) and through b and c.

    Example: at a=1, w1=2, w2=3, w3=4, w4=5: d = 34, L = 1089, ∂L/∂w3 = 66, ∂L/∂a = 2244.
    """
    ### BEGIN SOLUTION
    b = w1 * a
    c = w2 * b
    d = w3 * a + w4 * c
    dL_dd = 2.0 * (d - 1.0)
    dL_dc = dL_dd * w4
    dL_db = dL_dc * w2
    return {
        "L": (d - 1.0) ** 2,
        "dL_dw1": dL_db * a,
        "dL_dw2": dL_dc * b,
        "dL_dw3": dL_dd * a,
        "dL_dw4": dL_dd * c,
        "dL_da": dL_dd * w3 + dL_db * w1,  # the direct path plus the path through b
    }
    ### END SOLUTION


def central_difference_estimate(f, x: float, eps: float) -> float:
    """Exercise 01.4 — a numerical derivative.

    Estimate f'(x) by the central difference (f(x + ε) − f(x − ε)) / 2ε, with ε = ``eps``.
    (Its error shrinks like ε²; the one-sided (f(x + ε) − f(x)) / ε only like ε.)

    Example: for f = cube, ``central_difference_estimate(f, 2.0, 0.1)`` ≈ 12.01.
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
