"""Checks for lesson 04's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

import numpy as np

from minigrad.exercises.codec import NamedFunction
from minigrad.exercises.mistakes import Case, Mistake, comparator, near
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


def _differences(case: Case, kind: str) -> np.ndarray:
    """04.1's Jacobian by a mistaken difference: "forward" (y(x + ε) − y(x)) / ε, "backward"
    (y(x) − y(x − ε)) / ε, "over eps" (a central difference divided by ε)."""
    weights, x, eps = np.asarray(case.weights, float), np.asarray(case.x, float), case.eps
    layer = lambda inputs: np.asarray(case.f(weights @ inputs), dtype=float)  # noqa: E731
    columns = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step[j] = eps
        ahead = layer(x + step) if kind != "backward" else layer(x)
        behind = layer(x - step) if kind != "forward" else layer(x)
        columns.append((ahead - behind) / eps)
    return np.stack(columns, axis=1)


def _loosely(got: np.ndarray, wrong: np.ndarray) -> bool:
    """Near at the rounding a difference quotient carries (its ε amplifies it)."""
    return near(got, wrong, rtol=1e-6, atol=1e-9)


JACOBIAN_MISTAKES = [
    Mistake("your J is transposed: row i is output i, column j is input j, so J has shape "
            "(outputs, inputs)", gives=lambda case: case.expected.T),
    Mistake("your columns are one-sided differences, from x to one side only: their error "
            "shrinks like ε, not ε²; look at both sides of x, the same distance away",
            when=lambda case: any(_loosely(case.got, _differences(case, kind))
                                  for kind in ("forward", "backward"))),
    Mistake("your J is twice the right one: the two points x − ε and x + ε are 2ε apart",
            when=lambda case: _loosely(case.got, _differences(case, "over eps"))),
    Mistake("your J is half the right one: the two points x − ε and x + ε are 2ε apart, not 4ε",
            gives=lambda case: case.expected / 2),
    Mistake("your J misses the layer's weights: y = f(W x), so each column goes through W "
            "before f", when=lambda case: _loosely(case.got, _without_weights(case))),
]


def _without_weights(case: Case) -> np.ndarray:
    """The Jacobian of f alone (a square matrix, when W is not)."""
    x, eps = np.asarray(case.x, float), case.eps
    columns = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step[j] = eps
        columns.append((np.asarray(case.f(x + step)) - np.asarray(case.f(x - step))) / (2 * eps))
    return np.stack(columns, axis=1)


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


# ---------------------------------------------------------------------------- 04.5 cases
def _softplus_hidden(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for ndim in (1, 2, 1):
        shape = tuple(int(n) for n in rng.integers(2, 5, size=ndim))
        cases.append((rng.normal(size=shape) * 2, rng.normal(size=shape)))
    return cases


# 04.5's answer: (y, dL/dx, second derivative, "second backward" verdict, retain_graph verdict).
def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.asarray(x, dtype=float)))


SOFTPLUS_MISTAKES = [
    Mistake("your dL/dx is softplus' alone: multiply it by grad_output, the gradient arriving "
            "from above", part=1, gives=lambda case: _sigmoid(case.x)),
    Mistake("your dL/dx multiplies grad_output by softplus itself: its derivative is another "
            "function, one you already have on Tensors", part=1,
            gives=lambda case: np.asarray(case.v) * np.logaddexp(0.0, case.x)),
    Mistake("your dL/dx multiplies grad_output by softplus' second derivative: backward "
            "needs the first", part=1,
            gives=lambda case: np.asarray(case.v) * _sigmoid(case.x) * (1 - _sigmoid(case.x))),
    Mistake("your backward cannot be differentiated again, which is what this exercise is "
            "about: with create_graph=True its result carries no graph back to x. "
            "The engine records only the operations it runs itself, and a result computed on "
            "numpy arrays has none",
            when=lambda case: case.got[2] is None and case.expected[2] is not None),
    Mistake("a second backward through your node ran without retain_graph: keep x with "
            "ctx.save_for_backward (the engine frees it after backward), not as an attribute "
            "of ctx", when=lambda case: case.got[3] == "no error"),
]


EXERCISES = [
    Exercise(
        id="04.1", function="numerical_jacobian", points=4,
        title="A central-difference Jacobian",
        reading="7. When gradients go wrong",
        idea="Move one input at a time by ±ε, leaving the others alone, and see how every output "
             "moves: that change, divided by the step, is one column of J.",
        hint="Column j is (y(x + ε e_j) − y(x − ε e_j)) / 2ε with y(x) = f(W x); J "
             "has shape (outputs, inputs).",
        visible=lambda: [(NamedFunction("tanh"), np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 0.5]]),
                          np.array([0.1, -0.2, 0.3]), 1e-6),
                         (NamedFunction("square"), np.array([[1.0, 0.0], [1.0, 1.0],
                                                             [0.0, 2.0]]),
                          np.array([1.0, 2.0]), 1e-4)],
        hidden=lambda rng: [_jacobian_case(rng) for _ in range(4)],
        # A central difference (or the exact Jacobian) agrees with the reference to ~ε²; a
        # one-sided difference is off by ~ε.
        compare=comparator(JACOBIAN_MISTAKES, names=("f", "weights", "x", "eps"),
                           compare=close(rtol=1e-5, atol=2e-6), first_only=True),
    ),
    Exercise(
        id="04.2", function="higher_derivatives", points=3,
        title="Derivatives of derivatives",
        reading="3. How long a graph lives",
        idea="Ask minigrad for the derivative in a form it can differentiate again (a graph, not "
             "a number), and repeat; a derivative that no longer depends on x is a constant.",
        hint="p′ taken with create_graph=True is itself a graph in x, so p″ = "
             "d(p′)/dx and so on; a derivative that no longer requires grad is a "
             "constant, and every later one is 0.",
        visible=lambda: [([0.0, 0.0, 0.0, 1.0], 2.0), ([1.0, -2.0, 0.5], 3.0),
                         ([0.0, 1.0], -1.0)],
        hidden=_polynomial_hidden,
        compare=close(rtol=1e-9, atol=1e-9),
    ),
    Exercise(
        id="04.3", function="hook_trace", points=3,
        title="Hooks run in registration order",
        reading="2. Who keeps a gradient: `retain_grad`, hooks, `autograd.grad`",
        idea="Each hook receives what the previous hook returned; what the last one returns is "
             "what backward carries on with. Write down dL/dh before any hook runs.",
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
        reading="3. How long a graph lives",
        idea="The first backward frees what h's node saved unless told to keep it; a leaf's .grad "
             "is added to, not overwritten, by each backward.",
        hint="dL1/dx = 1 − tanh²(x); dL2/dx = 2·tanh(x)·(1 − tanh²(x)); the second backward "
             "adds to x.grad, and needs retain_graph=True on the first.",
        visible=lambda: [(np.array([0.0]),), (np.array([0.5, -1.0, 2.0]),)],
        hidden=lambda rng: [(rng.normal(size=int(rng.integers(1, 6))),) for _ in range(3)],
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="04.5", function="softplus_function", points=4,
        title="A Function that create_graph can differentiate",
        reading="3. How long a graph lives",
        idea="The derivative of softplus is a function you already have on Tensors. Keep the "
             "input the way the engine can free and version-check, and build backward's result "
             "from Tensor operations so that the engine can record them.",
        hint="softplus(x) = log(1 + eˣ), softplus′(x) = σ(x); dL/dx = grad_output · "
             "σ(x), computed from the saved x with Tensor operations (so that "
             "create_graph can differentiate it again: softplus″ = σ(x)(1 − σ(x))).",
        visible=lambda: [(np.array([0.0]), np.array([2.0])),  # v ≠ 1: v·σ(x) is not σ(x)
                         (np.array([[1.0, -2.0], [0.5, 3.0]]), np.array([[1.0, 2.0],
                                                                         [-1.0, 0.5]]))],
        hidden=_softplus_hidden,
        compare=comparator(SOFTPLUS_MISTAKES, names=("x", "v")),
        parts=("y", "dL/dx", "second derivative", "second backward", "retain_graph"),
        weights=(1, 1, 4, 1, 1),  # the point: a backward create_graph can differentiate
    ),
]
