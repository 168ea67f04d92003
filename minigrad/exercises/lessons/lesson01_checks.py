"""Checks for lesson 01's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

import numpy as np

from minigrad.exercises.codec import NamedFunction
from minigrad.exercises.spec import Exercise, close

# Smooth everywhere on the sampled range, so central differences are well behaved.
SMOOTH = ("sin", "cos", "exp", "cube", "tanh", "sigmoid", "composite", "sin_of_square", "exp_sin")


def _uniform(rng: np.random.Generator, low: float, high: float, size: int) -> list[float]:
    return [float(value) for value in rng.uniform(low, high, size)]


def _function_cases(rng: np.random.Generator, count: int) -> list[tuple]:
    names = rng.choice(SMOOTH, size=count)
    return [(NamedFunction(str(name)), float(rng.uniform(-2, 2)), float(10 ** rng.uniform(-4, -1)))
            for name in names]


EXERCISES = [
    Exercise(
        id="01.1", function="composite_derivative", points=2,
        title="The chain rule through three functions",
        reading="1. The chain rule",
        idea="Peel the three functions from the outside in: each one's derivative is taken at the "
             "value of what is inside it, and the derivatives multiply.",
        hint="exp'(s) = exp(s) at s = sin(x²), times sin'(t) = cos(t) at t = x², times "
             "(x²)' = 2x.",
        visible=lambda: [(1.0,), (-0.5,), (0.0,)],
        hidden=lambda rng: [(x,) for x in _uniform(rng, -3, 3, 5)],
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="01.2", function="several_paths", points=3,
        title="Several paths add up",
        reading="2. Several paths add",
        idea="u reaches L along two paths, directly and through v: each path gives a product of "
             "local derivatives, and the paths add. a and b reach L only through u.",
        hint="∂L/∂v = u + 1; u reaches L directly (∂L/∂u gets v) and through v (∂L/∂v · c); "
             "add both, then ∂L/∂a = ∂L/∂b = ∂L/∂u.",
        visible=lambda: [(1.0, 1.0, 3.0), (2.0, -0.5, 0.25)],
        hidden=lambda rng: [tuple(_uniform(rng, -3, 3, 3)) for _ in range(4)],
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="01.3", function="small_network", points=3,
        title="Gradients of a network with a skip connection",
        reading="4. A small network, symbolically",
        idea="Go back from L one node at a time, each node's gradient from the one after it; a "
             "reaches d along two paths, and their contributions add.",
        hint="∂L/∂d = 2(d − 1); a gets one contribution directly (∂L/∂d · w3) and one through "
             "b (∂L/∂d · w4 · w2 · w1).",
        visible=lambda: [(1.0, 2.0, 3.0, 4.0, 5.0), (0.5, -1.0, 0.25, 2.0, -3.0)],
        hidden=lambda rng: [tuple(_uniform(rng, -2, 2, 5)) for _ in range(4)],
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="01.4", function="central_difference_estimate", points=3,
        title="A central-difference derivative",
        reading="5. Checking a derivative numerically",
        idea="Look at f on both sides of x, the same distance ε away, and divide the change by "
             "the distance between the two points you looked at.",
        hint="Evaluate f on both sides of x, (f(x + ε) − f(x − ε)), and divide by 2ε — not by ε.",
        visible=lambda: [(NamedFunction("cube"), 2.0, 0.1), (NamedFunction("sin"), 0.5, 1e-3)],
        hidden=lambda rng: _function_cases(rng, 5),
        compare=close(rtol=1e-9, atol=1e-9),
    ),
    Exercise(
        id="01.5", function="central_difference_errors", points=4,
        title="The error of the estimate across ε",
        reading="5. Checking a derivative numerically",
        idea="One estimate per ε, each compared with the exact derivative that f carries; an "
             "error is a distance, never negative, one per ε in the same shape.",
        hint="One central-difference estimate per ε; the error is the absolute value of "
             "(estimate − the exact f′(x)), in a float64 array shaped like eps_values.",
        visible=lambda: [(NamedFunction("cube"), 2.0, np.logspace(-1, -4, 4)),
                         (NamedFunction("exp"), 0.0, np.array([0.1, 0.01])),
                         (NamedFunction("sin"), 0.5, np.array([0.1, 0.01, 0.001]))],
        hidden=lambda rng: [(NamedFunction(str(rng.choice(SMOOTH))), float(rng.uniform(-2, 2)),
                             np.logspace(-1, -4, int(rng.integers(3, 8))))
                            for _ in range(3)],
        compare=close(rtol=1e-6, atol=1e-9),
    ),
]
