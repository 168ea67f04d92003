"""Checks for lesson 07's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

import numpy as np

from minigrad.exercises.spec import Exercise, close


def _pool_case(rng: np.random.Generator, ties: bool, overlap: bool = False) -> tuple:
    kernel = int(rng.integers(2, 4))
    stride = int(rng.integers(1, kernel)) if overlap else kernel
    smallest = kernel + stride if overlap else kernel  # overlap: at least 2×2 windows
    height, width = (int(v) for v in rng.integers(smallest, 9, size=2))
    x = (rng.integers(-2, 3, size=(height, width)).astype(float) if ties
         else rng.normal(size=(height, width)))
    if overlap:  # a pixel that wins the four windows it lies in: gradients must add up
        x[stride, stride] = x.max() + 1.0
    rows, columns = (height - kernel) // stride + 1, (width - kernel) // stride + 1
    return (x, rng.normal(size=(rows, columns)), kernel, stride)


def _avg_case(rng: np.random.Generator, overlap: bool = False) -> tuple:
    x, grad_output, kernel, stride = _pool_case(rng, ties=False, overlap=overlap)
    return (grad_output, tuple(x.shape), kernel, stride)


def _conv_pool_case(rng: np.random.Generator) -> tuple:
    k = int(rng.integers(2, 4))
    height, width = (int(v) for v in rng.integers(k + 2, k + 7, size=2))
    x = rng.normal(size=(height, width))
    rows, columns = height - k + 1, width - k + 1
    return (x, rng.normal(size=(k, k)), float(rng.normal() * 0.5),
            rng.normal(size=(rows // 2, columns // 2)))


def _conv_pool_kink_case(rng: np.random.Generator) -> tuple:
    """Small integers (exact arithmetic) drawn until some pooling window holds no positive z
    and its first position has z exactly 0: there the gradient stops at the ReLU, which
    [z ≥ 0] (the erratum) would let through."""
    while True:
        x = rng.integers(-2, 3, size=(6, 6)).astype(float)
        weight = rng.integers(-1, 3, size=(2, 2)).astype(float)
        bias = float(rng.integers(-2, 3))
        z = bias + sum(weight[m, n] * x[m:m + 5, n:n + 5] for m in range(2) for n in range(2))
        for i in range(2):
            for j in range(2):
                window = z[2 * i:2 * i + 2, 2 * j:2 * j + 2]
                if window.max() <= 0 and window[0, 0] == 0:
                    return x, weight, bias, rng.normal(size=(2, 2)) + 2.0


def _forward_case(rng: np.random.Generator, ties: bool, overlap: bool = False) -> tuple:
    x, _, kernel, stride = _pool_case(rng, ties, overlap)
    return (x, kernel, stride)


EXERCISES = [
    Exercise(
        id="07.1", function="max_pool_forward", points=3,
        title="Max pooling forward, with the argmax indices",
        hint="np.argmax(window) is the first maximum in row-by-row order; np.unravel_index "
             "gives (r, c) in the window; the index is (i*s + r) * W + (j*s + c).",
        visible=lambda: [(np.array([[1.0, 2.0, 0.0, 1.0], [4.0, 3.0, 5.0, 2.0]]), 2, 2),
                         (np.array([[3.0, 3.0], [1.0, 3.0]]), 2, 2),
                         (np.arange(9.0).reshape(3, 3), 2, 1)],
        hidden=lambda rng: [_forward_case(rng, ties=False), _forward_case(rng, ties=True),
                            _forward_case(rng, ties=True, overlap=True)],
        compare=close(rtol=1e-12, atol=0.0),
    ),
    Exercise(
        id="07.2", function="max_pool_backward", points=4,
        title="Max pooling backward: argmax routing",
        hint="For each window: np.argmax of the window gives the first maximum (row by row); "
             "np.unravel_index turns it into (r, c); add grad_output[i, j] there (+=, windows "
             "may overlap).",
        visible=lambda: [
            (np.array([[1.0, 2.0], [4.0, 3.0]]), np.array([[10.0]]), 2, 2),
            (np.array([[1.0, 5.0, 5.0, 0.0], [5.0, 2.0, 7.0, 7.0]]), np.array([[1.0, 2.0]]), 2, 2),
            (np.array([[0.0, 9.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
             np.array([[1.0, 2.0], [3.0, 4.0]]), 2, 1)],
        hidden=lambda rng: [_pool_case(rng, ties=False), _pool_case(rng, ties=True),
                            _pool_case(rng, ties=True, overlap=True)],
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="07.3", function="avg_pool_backward", points=3,
        title="Average pooling backward: grad / (k·k)",
        hint="Each window pixel gets grad_output[i, j] / (k*k); add over windows (+=).",
        visible=lambda: [(np.array([[4.0]]), (2, 2), 2, 2),
                         (np.array([[1.0, 2.0], [3.0, 4.0]]), (5, 5), 2, 2),
                         (np.array([[9.0, 9.0]]), (3, 4), 3, 1)],
        hidden=lambda rng: [_avg_case(rng), _avg_case(rng, overlap=True), _avg_case(rng)],
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="07.4", function="conv_pool_step", points=5,
        title="One conv + ReLU + max-pool step, forward and backward",
        hint="Backward from the top: pool routes to the first max of each 2×2 window of a; ReLU "
             "keeps it where z > 0 (not z ≥ 0); then dW = correlate(x, δ_z), db = Σ δ_z, and "
             "dL/dx[m:m+rows, n:n+cols] += weight[m, n]·δ_z.",
        visible=lambda: [
            (np.arange(16.0).reshape(4, 4) / 4, np.array([[1.0, 0.0], [0.0, -1.0]]), 0.5,
             np.array([[1.0]])),
            (np.array([[1.0, -2.0, 3.0, 0.5, 2.0], [0.0, 1.0, -1.0, 2.0, 1.0],
                       [2.0, 0.5, 1.0, -3.0, 0.0], [1.0, 1.0, 0.0, 2.0, -1.0],
                       [0.5, -1.0, 2.0, 1.0, 3.0]]),
             np.array([[0.5, -1.0], [1.0, 0.25]]), -0.1, np.array([[1.0, -2.0], [0.5, 3.0]])),
            # z = [[0, -3], [-3, -1]]: the pool routes to z = 0, where the ReLU stops it
            (np.array([[1.0, -1.0, -2.0], [-1.0, 1.0, -1.0], [-2.0, -1.0, 0.0]]), np.ones((2, 2)),
             0.0, np.array([[2.0]]))],
        hidden=lambda rng: [_conv_pool_case(rng) for _ in range(3)] + [_conv_pool_kink_case(rng)],
        compare=close(rtol=1e-8, atol=1e-10),
    ),
]
