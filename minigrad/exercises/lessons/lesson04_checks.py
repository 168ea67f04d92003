"""Checks for lesson 04's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.exercises.codec import NamedFunction
from minigrad.exercises.mistakes import Case, Mistake, Raised, comparator, entry_mistake, near
from minigrad.exercises.spec import Exercise, close

_entry = entry_mistake  # a mistake in one entry of the answer dict

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


# ---------------------------------------------------------------------------- 04.2 mistakes
def _derivatives(coeffs: list[float], x: float, first: int = 1) -> list[float]:
    """p's derivatives of orders first, first + 1, first + 2 at x."""
    polynomial = np.polynomial.Polynomial(np.asarray(coeffs, dtype=float))
    return [float(polynomial.deriv(order)(x)) if order else float(polynomial(x))
            for order in range(first, first + 3)]


def _raised_saying(*words: str) -> Callable[[Case], bool]:
    return lambda case: isinstance(case.got, Raised) and all(word in case.got for word in words)


HIGHER_MISTAKES = [
    Mistake("your list starts with p(x) itself: its first entry is the first derivative",
            gives=lambda case: _derivatives(case.coeffs, case.x, first=0)),
    Mistake("your p″ and p‴ are 0: the first derivative was taken without create_graph, so "
            "it came back as a constant, with no graph left to differentiate",
            gives=lambda case: [_derivatives(case.coeffs, case.x)[0], 0.0, 0.0]),
    Mistake("your entries are all p′(x): each derivative is taken of the one before it, not "
            "of p again", gives=lambda case: [_derivatives(case.coeffs, case.x)[0]] * 3),
    Mistake("your polynomial reads coeffs from the highest power down: coeffs[k] multiplies x "
            "to the power k", gives=lambda case: _derivatives(case.coeffs[::-1], case.x)),
    Mistake("your powers are one too high: coeffs[0] is the constant term, which no derivative "
            "sees", gives=lambda case: _derivatives([0.0, *case.coeffs], case.x)),
    Mistake("your code differentiated a derivative that carries no graph (requires_grad is "
            "False): either it no longer depends on x, a constant whose further derivatives are "
            "all 0, or the derivative before it was taken without create_graph",
            when=_raised_saying("does not require grad"), raises=True),
]


# ---------------------------------------------------------------------------- 04.3 mistakes
def _hooks_seen(case: Case, factors: list[float], after: bool = False,
                start: float = 4.0) -> list[np.ndarray]:
    """What each hook receives when the hooks multiply by ``factors`` in turn, the first one
    receiving ``start``·x (``after``: what each one returns instead)."""
    gradient = start * np.asarray(case.x, dtype=float)
    seen = []
    for factor in factors:
        seen.append(gradient * factor if after else gradient)
        gradient = gradient * factor
    return seen


def _hook_mistake(says: str, factors: Callable[[Case], list[float]], after: bool = False,
                  start: float = 4.0, last_only: bool = False) -> Mistake:
    """Hooks that multiply by ``factors(case)``: the answer they give ("seen", and x.grad,
    which is 2·x times the product of the factors, or the last one's alone)."""
    def gives(case: Case) -> dict[str, Any]:
        used = factors(case)
        product = used[-1] if last_only and used else float(np.prod(used))
        return {"seen": _hooks_seen(case, used, after, start),
                "x_grad": 8.0 * np.asarray(case.x, dtype=float) * product}

    def shows(case: Case) -> bool:
        got, wrong = case.got, gives(case)
        return isinstance(got, dict) and all(near(got.get(key), wrong[key]) for key in wrong)

    return Mistake(says, when=shows)


HOOK_MISTAKES = [
    _hook_mistake("your hooks all multiply by the last factor: a hook made in a loop must "
                  "keep its own factor, not look up the loop variable when it runs",
                  lambda case: [case.factors[-1]] * len(case.factors) if case.factors else []),
    _hook_mistake("your hooks record the gradient after multiplying it: record what each one "
                  "receives", lambda case: case.factors, after=True),
    _hook_mistake("your hooks return nothing, so the gradient goes on unchanged: what a hook "
                  "returns is what backward carries on with",
                  lambda case: [1.0] * len(case.factors)),
    _hook_mistake("your hooks run in the reverse order of factors: hooks run in the order they "
                  "were registered", lambda case: case.factors[::-1]),
    _hook_mistake("your hooks see the gradient of x, not the gradient of h: register them on h",
                  lambda case: case.factors, start=8.0),
]


# ---------------------------------------------------------------------------- 04.4 mistakes
def _loss_gradients(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """(dL1/dx, dL2/dx) for L1 = Σ tanh(x), L2 = Σ tanh(x)²."""
    h = np.tanh(np.asarray(case.x, dtype=float))
    return 1.0 - h * h, 2.0 * h * (1.0 - h * h)


BACKWARDS_MISTAKES = [
    _entry("after_both", "your after_both is dL2/dx alone: x.grad was cleared between the two "
           "backwards, and backward adds into it", lambda case: _loss_gradients(case)[1]),
    _entry("after_both", "your after_both counts dL1/dx twice: after the second backward x.grad "
           "already holds the sum of both", lambda case: 2 * _loss_gradients(case)[0]
           + _loss_gradients(case)[1]),
    _entry("after_first", "your after_first is dL2/dx: the first backward is L1's",
           lambda case: _loss_gradients(case)[1]),
    _entry("after_first", "your after_first is x.grad after both backwards: copy it right "
           "after the first one", lambda case: sum(_loss_gradients(case))),
    Mistake("the second backward goes through h's node, which the first backward freed: ask "
            "the first backward to retain the graph",
            when=_raised_saying("backward through the graph a second time"), raises=True),
    Mistake("a loss must be a single number before backward: sum the losses over x's entries",
            when=_raised_saying("only for scalar outputs"), raises=True),
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
        compare=comparator(HIGHER_MISTAKES, names=("coeffs", "x"),
                           compare=close(rtol=1e-9, atol=1e-9), first_only=True),
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
        compare=comparator(HOOK_MISTAKES, names=("x", "factors"),
                           compare=close(rtol=1e-9, atol=1e-12), first_only=True),
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
        compare=comparator(BACKWARDS_MISTAKES, names=("x",),
                           compare=close(rtol=1e-9, atol=1e-12)),
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
