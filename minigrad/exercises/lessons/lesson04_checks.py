"""Checks for lesson 04's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

import numpy as np

from minigrad.exercises.codec import NamedFunction
from minigrad.exercises.spec import Exercise, close

# Smooth on the whole real line and tame on |z| ≲ 3, so central differences are well behaved.
SMOOTH = ("sin", "cos", "tanh", "sigmoid", "softplus", "square", "cube", "exp_sin",
          "sin_of_square")


# ---------------------------------------------------------------------------- 04.1 cases
def _jacobian_case(rng: np.random.Generator) -> tuple:
    m, n = (int(v) for v in rng.integers(2, 5, size=2))
    while m == n:  # a transposed Jacobian then has the wrong shape too
        m = int(rng.integers(2, 6))
    weights = rng.normal(size=(m, n)) / np.sqrt(n)
    return (NamedFunction(str(rng.choice(SMOOTH))), weights, rng.normal(size=n),
            float(rng.choice([1e-4, 3e-4])))


# ---------------------------------------------------------------------------- 04.2 cases
def _polynomial_hidden(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for degree in (1, 2, 3, 4, 5):
        coeffs = [float(c) for c in np.round(rng.normal(size=degree + 1), 3)]
        cases.append((coeffs, float(np.round(rng.uniform(-2, 2), 3))))
    return cases


# ---------------------------------------------------------------------------- 04.3 cases
def _hook_hidden(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for count in (1, 2, 3):
        x = rng.normal(size=int(rng.integers(1, 5)))
        factors = [float(f) for f in np.round(rng.uniform(-3, 3, size=count), 2)]
        cases.append((x, factors))
    return cases


EXERCISES = [
    Exercise(
        id="04.1", function="numerical_jacobian", points=4,
        title="A central-difference Jacobian",
        hint="Column j is (y(x + ε e_j) − y(x − ε e_j)) / 2ε with y(x) = f(W @ x); stack the "
             "columns so that J has shape (outputs, inputs).",
        visible=lambda: [(NamedFunction("tanh"), np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 0.5]]),
                          np.array([0.1, -0.2, 0.3]), 1e-6),
                         (NamedFunction("square"), np.array([[1.0, 0.0], [1.0, 1.0],
                                                             [0.0, 2.0]]),
                          np.array([1.0, 2.0]), 1e-4)],
        hidden=lambda rng: [_jacobian_case(rng) for _ in range(4)],
        # A central difference (or the exact Jacobian) agrees with the reference to ~ε²; a
        # one-sided difference is off by ~ε.
        compare=close(rtol=1e-5, atol=2e-6),
    ),
    Exercise(
        id="04.2", function="higher_derivatives", points=3,
        title="Derivatives of derivatives",
        hint="(d1,) = mg.autograd.grad(p, x, create_graph=True); differentiate d1 the same way; "
             "a derivative with requires_grad=False is a constant: the next one is 0.",
        visible=lambda: [([0.0, 0.0, 0.0, 1.0], 2.0), ([1.0, -2.0, 0.5], 3.0),
                         ([0.0, 1.0], -1.0)],
        hidden=_polynomial_hidden,
        compare=close(rtol=1e-9, atol=1e-9),
    ),
    Exercise(
        id="04.3", function="hook_trace", points=3,
        title="Hooks run in registration order",
        hint="dL/dh = 2h = 4x reaches the first hook; each hook passes its result to the next; "
             "x.grad = 2 × what the last hook returned.",
        visible=lambda: [(np.array([1.0, 2.0]), [10.0]), (np.array([1.0, -1.0, 0.5]), [2.0, 3.0]),
                         (np.array([3.0]), [])],
        hidden=_hook_hidden,
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="04.4", function="two_backwards", points=3,
        title="Two losses through one graph",
        hint="dL1/dx = 1 − tanh²(x); dL2/dx = 2·tanh(x)·(1 − tanh²(x)); the second backward "
             "adds to x.grad, and needs retain_graph=True on the first.",
        visible=lambda: [(np.array([0.0]),), (np.array([0.5, -1.0, 2.0]),)],
        hidden=lambda rng: [(rng.normal(size=int(rng.integers(1, 6))),) for _ in range(3)],
        compare=close(rtol=1e-9, atol=1e-12),
    ),
]
