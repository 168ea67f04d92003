"""Checks for lesson 08's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

import numpy as np

from minigrad.exercises.spec import Exercise, close


def _sgd_case(rng: np.random.Generator, momentum: float | None = None) -> tuple:
    shape = tuple(int(n) for n in rng.integers(1, 4, size=int(rng.integers(1, 3))))
    momentum = float(rng.choice([0.5, 0.9])) if momentum is None else momentum
    return (rng.normal(size=shape), rng.normal(size=shape), rng.normal(size=shape) * 0.3,
            float(rng.choice([0.01, 0.1, 0.5])), momentum, float(rng.choice([0.01, 0.3, 1.0])))


def _l2_case(rng: np.random.Generator) -> tuple:
    d, h, k = (int(n) for n in rng.integers(2, 5, size=3))
    return (rng.normal(size=(h, d)) * 0.7, rng.normal(size=(k, h)) * 0.7, rng.normal(size=d),
            rng.normal(size=k), float(rng.choice([0.01, 0.1, 0.5])))


def _micro_case(rng: np.random.Generator) -> tuple:
    parts = int(rng.integers(2, 5))
    shape = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    counts = [int(n) for n in rng.integers(1, 9, size=parts)]
    while len(set(counts)) == 1:  # unequal sizes: an unweighted average must fail
        counts[0] += 1
    return ([rng.normal(size=shape) for _ in range(parts)], counts)


def _adamw_case(rng: np.random.Generator, first: bool = False) -> tuple:
    n = int(rng.integers(2, 6))
    step = 1 if first else int(rng.integers(2, 30))
    m = np.zeros(n) if first else rng.normal(size=n) * 0.1
    v = np.zeros(n) if first else rng.random(n) * 0.05
    return (rng.normal(size=n), rng.normal(size=n), m, v, step,
            float(rng.choice([1e-3, 1e-2, 0.1])), 0.9, float(rng.choice([0.99, 0.999])),
            1e-8, float(rng.choice([0.01, 0.1, 0.5])))


EXERCISES = [
    Exercise(
        id="08.1", function="sgd_step", points=3,
        title="An SGD step with momentum and weight decay",
        hint="d = g + λw (add, never multiply g by 1 + λ); b = μb + d; w = w − lr·b.",
        visible=lambda: [(np.array([1.0, -2.0]), np.array([0.5, 0.5]), np.zeros(2), 0.1, 0.0,
                          0.1),
                         (np.array([1.0, -2.0]), np.array([0.5, 0.5]), np.array([1.0, 0.0]),
                          0.1, 0.9, 0.0),
                         (np.array([[2.0]]), np.array([[0.0]]), np.array([[0.0]]), 0.5, 0.9,
                          1.0)],
        hidden=lambda rng: [_sgd_case(rng, 0.0), _sgd_case(rng), _sgd_case(rng), _sgd_case(rng)],
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="08.2", function="l2_objective_gradients", points=5,
        title="Gradients of the L2-regularised objective",
        hint="dJ/dW2 = outer(o − y, h) + λW2; dJ/dz = (W2ᵀ(o − y)) ⊙ (1 − h²); "
             "dJ/dW1 = outer(dJ/dz, x) + λW1 — and J includes λ/2 (‖W1‖² + ‖W2‖²).",
        visible=lambda: [(np.array([[0.5, -0.5]]), np.array([[1.0], [2.0]]),
                          np.array([1.0, 2.0]), np.array([0.0, 1.0]), 0.1),
                         (np.eye(2) * 0.3, np.array([[0.2, -0.4], [0.1, 0.5], [1.0, 0.0]]),
                          np.array([1.0, -1.0]), np.array([0.5, 0.0, -0.5]), 0.0)],
        hidden=lambda rng: [_l2_case(rng) for _ in range(4)],
        compare=close(rtol=1e-8, atol=1e-12),
    ),
    Exercise(
        id="08.3", function="accumulate_microbatches", points=2,
        title="Micro-batches of unequal size",
        hint="Weight each micro-batch's mean gradient by its number of examples, then divide by "
             "the total number of examples.",
        visible=lambda: [([np.array([1.0, 0.0]), np.array([0.0, 1.0])], [3, 1]),
                         ([np.array([[2.0]]), np.array([[4.0]]), np.array([[8.0]])], [1, 1, 2])],
        hidden=lambda rng: [_micro_case(rng) for _ in range(4)],
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="08.4", function="adamw_step", points=4,
        title="An AdamW step",
        hint="Multiply w by (1 − lr·λ) first; update m and v with the raw gradient; step "
             "lr/(1 − β₁ᵗ) · m / (√v/√(1 − β₂ᵗ) + ε).",
        visible=lambda: [(np.array([1.0, -1.0]), np.array([0.1, -0.2]), np.zeros(2), np.zeros(2),
                          1, 0.1, 0.9, 0.999, 1e-8, 0.1),
                         (np.array([0.5]), np.array([1.0]), np.array([0.2]), np.array([0.01]), 5,
                          0.01, 0.9, 0.999, 1e-8, 0.5)],
        hidden=lambda rng: [_adamw_case(rng, first=True)] + [_adamw_case(rng) for _ in range(3)],
        compare=close(rtol=1e-8, atol=1e-12),
    ),
]
