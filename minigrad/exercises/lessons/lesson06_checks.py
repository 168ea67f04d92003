"""Checks for lesson 06's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

import numpy as np

from minigrad.exercises.spec import Exercise, close, exact

# The worked case of the lesson: 3×3 input, 2×2 kernel, 2×2 upstream gradient.
WORKED_X = np.arange(1.0, 10.0).reshape(3, 3)
WORKED_W = np.array([[1.0, 2.0], [3.0, 4.0]])
WORKED_DELTA = np.array([[1.0, 2.0], [-1.0, 1.0]])


def _weight_case(rng: np.random.Generator) -> tuple:
    k = int(rng.integers(2, 5))
    height, width = (int(v) for v in rng.integers(k, k + 5, size=2))
    return (rng.normal(size=(height, width)), rng.normal(size=(height - k + 1, width - k + 1)))


def _input_case(rng: np.random.Generator) -> tuple:
    k = int(rng.integers(2, 5))
    rows, columns = (int(v) for v in rng.integers(1, 6, size=2))
    # Not symmetric: an unrotated kernel gives a different answer.
    return (rng.normal(size=(k, k)), rng.normal(size=(rows, columns)))


def _matrix_case(rng: np.random.Generator) -> tuple:
    k = int(rng.integers(2, 4))  # (k = 1 gives a diagonal M, which a transposed answer matches)
    height, width = (int(v) for v in rng.integers(k, k + 4, size=2))
    return (rng.normal(size=(k, k)), height, width)


def _size_cases(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for _ in range(5):
        kernel, stride, padding = int(rng.integers(1, 6)), int(rng.integers(1, 4)), int(rng.integers(0, 3))
        cases.append((int(rng.integers(max(1, kernel - 2 * padding), 30)), kernel, stride, padding))
    return cases



EXERCISES = [
    Exercise(
        id="06.1", function="conv_weight_grad", points=4,
        title="The weight gradient: input correlated with δ",
        hint="grad_w[m, n] = np.sum(δ * x[m:m + R, n:n + S]) with (R, S) = δ.shape.",
        visible=lambda: [(WORKED_X, WORKED_DELTA),
                         (np.arange(16.0).reshape(4, 4), np.ones((2, 2))),
                         (np.eye(4), np.array([[1.0, 0.0, -1.0]]).T @ np.ones((1, 2)))],
        hidden=lambda rng: [_weight_case(rng) for _ in range(3)],
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="06.2", function="conv_input_grad", points=4,
        title="The input gradient: full convolution with the kernel rotated 180°",
        hint="np.pad(δ, k - 1), then slide w[::-1, ::-1] over it like the forward pass; or add "
             "w[m, n]·δ[i, j] into grad_x[i + m, j + n] for every i, j, m, n.",
        visible=lambda: [(WORKED_W, WORKED_DELTA),
                         (np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([[1.0]])),
                         (np.arange(9.0).reshape(3, 3), np.array([[1.0, -1.0]]))],
        hidden=lambda rng: [_input_case(rng) for _ in range(3)],
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="06.3", function="conv_output_size", points=2,
        title="Output size for stride and padding",
        hint="(size + 2*padding - kernel_size) // stride + 1 — integer division: a window that "
             "does not fit entirely is not counted.",
        visible=lambda: [(3, 2, 1, 0), (28, 3, 1, 1), (28, 5, 2, 2), (7, 3, 3, 0), (5, 3, 2, 1)],
        hidden=_size_cases,
        compare=exact(),
    ),
    Exercise(
        id="06.4", function="conv_matrix", points=3,
        title="Convolution as a sparse matrix with shared weights",
        hint="matrix[i*S + j, (i + m)*width + (j + n)] = weight[m, n] for every output (i, j) "
             "and kernel offset (m, n); everything else stays 0.",
        visible=lambda: [(WORKED_W, 3, 3), (np.array([[1.0, -1.0], [2.0, 0.5]]), 3, 4),
                         (np.array([[2.0]]), 2, 2)],
        hidden=lambda rng: [_matrix_case(rng) for _ in range(3)],
        compare=close(rtol=1e-12, atol=0.0),
    ),
]
