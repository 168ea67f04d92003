"""Checks for lesson 01's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from minigrad.exercises.codec import NamedFunction
from minigrad.exercises.mistakes import Case, Mistake, comparator, entry_mistake, near
from minigrad.exercises.spec import Exercise, close

_entry = entry_mistake  # a mistake in one entry of the answer dict

# Smooth everywhere on the sampled range, so central differences are well behaved.
SMOOTH = ("sin", "cos", "exp", "cube", "tanh", "sigmoid", "composite", "sin_of_square", "exp_sin")


def _uniform(rng: np.random.Generator, low: float, high: float, size: int) -> list[float]:
    return [float(value) for value in rng.uniform(low, high, size)]


def _function_cases(rng: np.random.Generator, count: int) -> list[tuple]:
    names = rng.choice(SMOOTH, size=count)
    return [(NamedFunction(str(name)), float(rng.uniform(-2, 2)), float(10 ** rng.uniform(-4, -1)))
            for name in names]


def _loosely(got: Any, wrong: Any) -> bool:
    """Near at the rounding a difference quotient carries (its ε amplifies it)."""
    return near(got, wrong, rtol=1e-6, atol=1e-9)


def _every_gradient(says: str, factor: Callable[[Case], float]) -> Mistake:
    """A mistake that scales every gradient of 01.3's answer (not L) by ``factor``."""
    def shows(case: Case) -> bool:
        got, expected, scale = case.got, case.expected, factor(case)
        keys = [key for key in expected if key != "L"]
        return (isinstance(got, dict) and all(key in got for key in keys)
                and not near(got["dL_dw3"], expected["dL_dw3"])
                and all(near(got[key], expected[key] * scale) for key in keys))

    return Mistake(says, when=shows)


# ---------------------------------------------------------------------------- 01.1 mistakes
def _chain(x: float, outer: bool = True, middle: Callable[[float], float] = math.cos,
           at: Optional[float] = None, inner: Optional[float] = None) -> float:
    """exp(sin(x²))' with one of its three factors changed."""
    square = x * x
    value = math.exp(math.sin(square)) if outer else 1.0
    return value * middle(square if at is None else at) * (2.0 * x if inner is None else inner)


COMPOSITE_MISTAKES = [
    Mistake("your derivative misses the innermost factor, the derivative of x²: every "
            "function of the chain gives one factor, the innermost too",
            gives=lambda case: _chain(case.x, inner=1.0)),
    Mistake("your derivative misses the outermost factor, the derivative of exp taken at "
            "sin(x²): every function of the chain gives one factor, the outermost too",
            gives=lambda case: _chain(case.x, outer=False)),
    Mistake("your middle factor, the derivative of sin, is taken at x: take it at the value "
            "inside it, x²", gives=lambda case: _chain(case.x, at=case.x)),
    Mistake("your middle factor is the derivative of cos, not the derivative of sin: look "
            "again at its function and its sign",
            gives=lambda case: _chain(case.x, middle=lambda t: -math.sin(t))),
    Mistake("your innermost factor, the derivative of x², is half the right one",
            gives=lambda case: _chain(case.x, inner=case.x)),
    Mistake("you returned f(x) itself, not its derivative",
            gives=lambda case: math.exp(math.sin(case.x * case.x))),
    Mistake("your factors are added: the derivatives along one chain multiply",
            gives=lambda case: (math.exp(math.sin(case.x ** 2)) + math.cos(case.x ** 2)
                                + 2.0 * case.x)),
]


# ---------------------------------------------------------------------------- 01.2 mistakes
def _u(case: Case) -> float:
    return case.a + case.b


PATHS_MISTAKES = [
    _entry("dL_dv", "your dL_dv misses one of the two places v appears in L: it is in u·v and "
           "it is added on its own (+ v), and each gives a term", lambda case: _u(case)),
    _entry("dL_du", "your dL_du has only the direct path (u·v): u also reaches L through v, "
           "and that path adds to it", lambda case: _u(case) * case.c, group="dL_du"),
    _entry("dL_du", "your dL_du has only the path through v: u also reaches L directly, in "
           "u·v, and that path adds to it",
           lambda case: (_u(case) + 1.0) * case.c, group="dL_du"),
    _entry("dL_dc", "your dL_dc is the local derivative of v by c alone: multiply it by dL_dv, "
           "the gradient that arrives at v", lambda case: _u(case)),
    _entry("dL_da", "your dL_da is the local derivative of u by a alone: multiply it by dL_du, "
           "the gradient that arrives at u", lambda case: 1.0),
    _entry("dL_db", "your dL_db is the local derivative of u by b alone: multiply it by dL_du, "
           "the gradient that arrives at u", lambda case: 1.0),
]


# ---------------------------------------------------------------------------- 01.3 mistakes
def _network(case: Case) -> dict[str, float]:
    """01.3's forward values and the gradient at d."""
    b = case.w1 * case.a
    c = case.w2 * b
    d = case.w3 * case.a + case.w4 * c
    return {"b": b, "c": c, "d": d, "dd": 2.0 * (d - 1.0)}


NETWORK_MISTAKES = [
    _entry("dL_da", "your dL_da has only the path through b and c: a also reaches d directly "
           "(w3·a), and that path adds to it",
           lambda case: _network(case)["dd"] * case.w4 * case.w2 * case.w1, group="dL_da"),
    _entry("dL_da", "your dL_da has only the direct path (w3·a): a also reaches d through b "
           "and c, and that path adds to it",
           lambda case: _network(case)["dd"] * case.w3, group="dL_da"),
    _every_gradient("every gradient is half the right one: the derivative of the square "
                    "(d − 1)² brings a factor 2 you left out", lambda case: 0.5),
    _every_gradient("every gradient has the wrong sign: the gradient at d is positive when "
                    "d > 1 (raising d raises the loss there)", lambda case: -1.0),
    _every_gradient("every gradient leaves out the − 1 of the loss (d − 1)²: the gradient at "
                    "d depends on how far d is from 1",
                    lambda case: _network(case)["d"] / (_network(case)["d"] - 1.0)),
    _entry("dL_dw1", "your dL_dw1 is the gradient at b: multiply it by the local derivative of "
           "b by w1, the input a",
           lambda case: _network(case)["dd"] * case.w4 * case.w2),
    _entry("dL_dw2", "your dL_dw2 is the gradient at c: multiply it by the local derivative of "
           "c by w2, which is b", lambda case: _network(case)["dd"] * case.w4),
    _entry("dL_dw4", "your dL_dw4 is the gradient at d: multiply it by the local derivative of "
           "d by w4, which is c", lambda case: _network(case)["dd"]),
]


# ---------------------------------------------------------------------------- 01.4 mistakes
def _quotient(case: Case, kind: str) -> float:
    """A mistaken difference quotient of f at x."""
    f, x, eps = case.f, case.x, case.eps
    return {"forward": lambda: (f(x + eps) - f(x)) / eps,
            "backward": lambda: (f(x) - f(x - eps)) / eps,
            "over eps": lambda: (f(x + eps) - f(x - eps)) / eps,
            "times eps": lambda: (f(x + eps) - f(x - eps)) / 2.0 * eps,
            "over 2": lambda: (f(x + eps) - f(x - eps)) / 2.0,
            "reversed": lambda: (f(x - eps) - f(x + eps)) / (2.0 * eps)}[kind]()


ESTIMATE_MISTAKES = [
    Mistake("your estimate is a one-sided difference, from x to one side only: its error "
            "shrinks like ε, not ε²; look at both sides of x, the same distance away",
            when=lambda case: any(_loosely(case.got, _quotient(case, kind))
                                  for kind in ("forward", "backward"))),
    Mistake("your estimate is twice the right one: the two points x − ε and x + ε are 2ε apart",
            when=lambda case: _loosely(case.got, _quotient(case, "over eps"))),
    Mistake("your change in f is multiplied by ε where it should be divided by the distance: "
            "Python reads a division followed by a product from left to right",
            when=lambda case: _loosely(case.got, _quotient(case, "times eps"))),
    Mistake("your change in f is divided by 2, not by the distance between the two points: "
            "the distance is 2ε", when=lambda case: _loosely(case.got, _quotient(case, "over 2"))),
    Mistake("your estimate has the wrong sign: subtract the value on the left of x from the "
            "value on its right",
            when=lambda case: _loosely(case.got, _quotient(case, "reversed"))),
    Mistake("you returned the exact derivative f.derivative(x): this exercise asks for the "
            "estimate from f's values alone",
            when=lambda case: near(case.got, case.f.derivative(case.x))),
]


# ---------------------------------------------------------------------------- 01.5 mistakes
def _estimates(case: Case, kind: str = "central") -> np.ndarray:
    f, x = case.f, case.x
    quotient = {"central": lambda eps: (f(x + eps) - f(x - eps)) / (2.0 * eps),
                "forward": lambda eps: (f(x + eps) - f(x)) / eps,
                "over eps": lambda eps: (f(x + eps) - f(x - eps)) / eps}[kind]
    return np.array([quotient(float(eps)) for eps in case.eps_values], dtype=np.float64)


def _errors(case: Case, kind: str = "central") -> np.ndarray:
    return np.abs(_estimates(case, kind) - case.f.derivative(case.x))


ERRORS_MISTAKES = [
    Mistake("some of your errors are negative: an error is a distance between the estimate "
            "and f′(x), never negative",
            when=lambda case: bool(np.any(np.asarray(case.got, float) < 0))
            and _loosely(np.abs(np.asarray(case.got, float)), case.expected)),
    Mistake("you returned the estimates themselves, not their distance to the exact f′(x)",
            when=lambda case: _loosely(case.got, _estimates(case))),
    Mistake("your errors are divided by |f′(x)|, relative errors: the exercise asks for the "
            "absolute error",
            when=lambda case: _loosely(case.got,
                                       case.expected / abs(case.f.derivative(case.x)))),
    Mistake("your errors are squared: the exercise asks for the absolute error itself",
            when=lambda case: _loosely(case.got, case.expected ** 2)),
    Mistake("your estimates are one-sided differences (x to x + ε): their error shrinks like "
            "ε, not ε²; look at both sides of x",
            when=lambda case: _loosely(case.got, _errors(case, "forward"))),
    Mistake("your estimates divide the change by ε: the two points x − ε and x + ε are 2ε "
            "apart", when=lambda case: _loosely(case.got, _errors(case, "over eps"))),
]


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
        compare=comparator(COMPOSITE_MISTAKES, names=("x",),
                           compare=close(rtol=1e-9, atol=1e-12), first_only=True),
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
        compare=comparator(PATHS_MISTAKES, names=("a", "b", "c"),
                           compare=close(rtol=1e-9, atol=1e-12)),
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
        compare=comparator(NETWORK_MISTAKES, names=("a", "w1", "w2", "w3", "w4"),
                           compare=close(rtol=1e-9, atol=1e-12)),
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
        compare=comparator(ESTIMATE_MISTAKES, names=("f", "x", "eps"),
                           compare=close(rtol=1e-9, atol=1e-9), first_only=True),
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
        compare=comparator(ERRORS_MISTAKES, names=("f", "x", "eps_values"),
                           compare=close(rtol=1e-6, atol=1e-9), first_only=True),
    ),
]
