"""Checks for lesson 05's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

from typing import Optional

import numpy as np

from minigrad.exercises.spec import Exercise, close

# The classic worked example (see the lesson): inputs, targets, w1..w8, b1, b2.
CLASSIC = (np.array([0.05, 0.10]), np.array([0.01, 0.99]),
           np.array([0.15, 0.20, 0.25, 0.30, 0.40, 0.45, 0.50, 0.55]), np.array([0.35, 0.60]))


def _linear_case(rng: np.random.Generator, square: bool = False) -> tuple:
    batch, d, h = (int(v) for v in rng.integers(2, 6, size=3))
    if square:  # B = d = h: a transposed answer has the right shape and the wrong values
        batch = d = h
    return (rng.normal(size=(batch, d)), rng.normal(size=(h, d)), rng.normal(size=(batch, h)))


def _cross_entropy_case(rng: np.random.Generator, scale: float = 2.0,
                        offset: float = 0.0) -> tuple:
    batch, classes = int(rng.integers(2, 7)), int(rng.integers(2, 6))
    logits = rng.normal(size=(batch, classes)) * scale + offset
    return (logits, [int(t) for t in rng.integers(0, classes, size=batch)])


_LINEAR_CLOSE = close(rtol=1e-9, atol=1e-12)


def _compare_linear(expected: tuple, got: object, args: tuple) -> Optional[str]:
    """close(), and when dW and db are exactly the expected values / B, says so: the mistake
    of dividing by the batch size a second time (G of a mean loss already holds 1/B)."""
    message = _LINEAR_CLOSE(expected, got)
    batch = args[0].shape[0]
    if message is None or batch == 1:
        return message
    try:
        divided = all(np.allclose(np.asarray(mine, dtype=float) * batch, right, rtol=1e-9,
                                  atol=1e-12) for mine, right in zip(got[1:3], expected[1:3]))
    except (TypeError, ValueError):
        divided = False
    if divided:
        return (f"{message}; your dW and db are the right ones divided by B = {batch}: G already "
                f"holds the mean's 1/B, so do not divide again")
    return message


def _relu_output(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    y = np.maximum(rng.normal(size=shape) * 2, 0)
    y[0, 0] = 0.0  # relu at a kink: its output is 0, so its derivative is 0
    return y


def _activation_hidden(rng: np.random.Generator) -> list[tuple]:
    """Two relu cases (each with an output of exactly 0, where y ≥ 0 is the erratum the
    lesson warns about), a sigmoid and a tanh case, in random order."""
    shape = tuple(int(n) for n in rng.integers(2, 5, size=2))
    x = rng.normal(size=shape) * 2
    cases = [("relu", _relu_output(rng, shape), rng.normal(size=shape)),
             ("relu", _relu_output(rng, shape), rng.normal(size=shape)),
             ("sigmoid", 1 / (1 + np.exp(-x)), rng.normal(size=shape)),
             ("tanh", np.tanh(x), rng.normal(size=shape))]
    return [cases[k] for k in rng.permutation(len(cases))]


def _network_case(rng: np.random.Generator) -> tuple:
    return (rng.uniform(-1, 1, size=2), rng.uniform(0, 1, size=2), rng.normal(size=8) * 0.8,
            rng.normal(size=2) * 0.5, float(rng.choice([0.1, 0.5, 1.0])))


EXERCISES = [
    Exercise(
        id="05.1", function="linear_backward", points=3,
        title="The backward pass of a Linear layer",
        hint="dX = G @ W (B, d); dW = G.T @ X (h, d); db = G.sum(axis=0) (h,) — let the shapes "
             "tell you where the transposes go.",
        visible=lambda: [(np.ones((1, 4)), np.ones((2, 4)), np.array([[8.0, 8.0]])),
                         (np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
                          np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
                          np.arange(9.0).reshape(3, 3) / 3)],
        hidden=lambda rng: [_linear_case(rng), _linear_case(rng), _linear_case(rng, True)],
        compare=_compare_linear,
    ),
    Exercise(
        id="05.2", function="activation_backward", points=3,
        title="Activations backward, from the output",
        hint="relu: g·(y > 0); sigmoid: g·y(1 − y); tanh: g·(1 − y²) — all from the output y.",
        visible=lambda: [("relu", np.array([0.0, 0.5, 2.0]), np.array([1.0, 1.0, 3.0])),
                         ("relu", np.array([[0.0, 1.5], [0.0, 0.0]]), np.full((2, 2), 2.0)),
                         ("sigmoid", np.array([0.5, 0.25, 0.9]), np.ones(3)),
                         ("tanh", np.array([[0.0, 0.5], [-0.5, 0.9]]), np.full((2, 2), 2.0))],
        hidden=_activation_hidden,
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="05.3", function="softmax_cross_entropy", points=4,
        title="Softmax cross-entropy: loss and p − y",
        hint="Gradient = (softmax(logits) − onehot(targets)) / B — divide by the batch size once; "
             "compute log-softmax from logits − max so that large logits do not overflow.",
        visible=lambda: [(np.array([[1.0, 2.0, 3.0]]), [2]),
                         (np.array([[0.0, 0.0], [1.0, -1.0]]), [0, 1]),
                         (np.array([[1000.0, 0.0, -1000.0], [2.0, 1.0, 0.5]]), [0, 2])],
        hidden=lambda rng: [_cross_entropy_case(rng), _cross_entropy_case(rng),
                            _cross_entropy_case(rng, scale=5.0),
                            _cross_entropy_case(rng, scale=300.0, offset=500.0)],
        compare=close(rtol=1e-7, atol=1e-10),
    ),
    Exercise(
        id="05.4", function="network_step", points=5,
        title="One step of the 2-2-2 sigmoid network",
        hint="δ_o = (o − t)·o(1 − o); dE/dw5 = δ_o1·h1. A hidden unit's δ adds both outputs: "
             "δ_h1 = (δ_o1·w5 + δ_o2·w7)·h1(1 − h1); dE/dw1 = δ_h1·i1.",
        visible=lambda: [(*CLASSIC, 0.5),
                         # both outputs feed back into each hidden unit: drop a path and
                         # this case fails (with all-zero weights it would not)
                         (np.array([1.0, -1.0]), np.array([0.0, 1.0]),
                          np.array([0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8]),
                          np.zeros(2), 1.0)],
        hidden=lambda rng: [_network_case(rng) for _ in range(4)],
        compare=close(rtol=1e-7, atol=1e-12),
    ),
]
