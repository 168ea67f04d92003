"""Checks for lesson 03's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

import numpy as np

from minigrad.exercises.codec import NamedFunction
from minigrad.exercises.spec import Exercise, close

# Smooth on the whole real line and tame on |z| ≲ 3, so central differences are well behaved.
SMOOTH = ("sin", "cos", "tanh", "sigmoid", "softplus", "square", "cube", "exp_sin",
          "sin_of_square")


def _arange(*shape: int) -> np.ndarray:
    return np.arange(float(np.prod(shape))).reshape(shape)


# ---------------------------------------------------------------------------- 03.1 cases
def _broadcast_case(rng: np.random.Generator) -> tuple:
    """A target shape with some length-1 axes, and a gradient shape it broadcasts to."""
    shape = tuple(int(rng.choice([1, int(rng.integers(2, 5))])) for _ in range(rng.integers(0, 4)))
    stretched = tuple(int(rng.integers(2, 5)) if size == 1 and rng.random() < 0.7 else size
                      for size in shape)
    leading = tuple(int(n) for n in rng.integers(2, 5, size=int(rng.integers(0, 3))))
    grad = rng.normal(size=leading + stretched)
    return (np.asarray(grad, dtype=np.float64), shape)


def _sum_to_shape_hidden(rng: np.random.Generator) -> list[tuple]:
    cases = [_broadcast_case(rng) for _ in range(5)]
    # Always one case that stretches a middle axis and adds a leading one.
    n, m = (int(v) for v in rng.integers(2, 5, size=2))
    cases.append((rng.normal(size=(3, n, 4, m)), (n, 1, m)))
    return cases


# ---------------------------------------------------------------------------- 03.2 cases
def _matmul_case(rng: np.random.Generator, square: bool) -> tuple:
    n, k, m = (int(v) for v in rng.integers(2, 6, size=3))
    if square:
        n = k = m
    return (rng.normal(size=(n, k)), rng.normal(size=(k, m)), rng.normal(size=(n, m)))


# ---------------------------------------------------------------------------- 03.3 cases
def _mean_case(rng: np.random.Generator, shape: tuple[int, ...], dim, keepdim: bool) -> tuple:
    """(dL/dy, input shape, dim, keepdim) with dL/dy shaped like x.mean(dim, keepdim)."""
    reduced = {axis % len(shape) for axis in ((dim,) if isinstance(dim, int) else dim)}
    if keepdim:
        output_shape = tuple(1 if axis in reduced else size for axis, size in enumerate(shape))
    else:
        output_shape = tuple(size for axis, size in enumerate(shape) if axis not in reduced)
    return (rng.normal(size=output_shape), shape, dim, keepdim)


def _mean_hidden(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for _ in range(4):
        ndim = int(rng.integers(1, 5))
        shape = tuple(int(n) for n in rng.integers(2, 5, size=ndim))
        count = int(rng.integers(1, ndim + 1))
        axes = sorted(int(a) for a in rng.choice(ndim, size=count, replace=False))
        axes = [a - ndim if rng.random() < 0.3 else a for a in axes]  # some negative
        dim = axes[0] if count == 1 and rng.random() < 0.5 else tuple(axes)
        cases.append(_mean_case(rng, shape, dim, bool(rng.random() < 0.5)))
    # A square matrix averaged over its last axis: broadcasting without expand_dims
    # silently puts the gradient along the wrong axis.
    n = int(rng.integers(2, 5))
    cases.append(_mean_case(rng, (n, n), 1, False))
    cases.append(_mean_case(rng, (2, n, n), -1, False))
    return cases


# ---------------------------------------------------------------------------- 03.4 cases
def _softmax_hidden(rng: np.random.Generator) -> list[tuple]:
    n = int(rng.integers(3, 7))
    batch = int(rng.integers(2, 5))
    large = rng.normal(size=(batch, n)) * 50 + 800  # exp(800) overflows: subtract the max
    return [(rng.normal(size=n), rng.normal(size=n)),
            (rng.normal(size=(batch, n)), rng.normal(size=(batch, n))),
            (rng.normal(size=(batch, n)) * 3, rng.normal(size=(batch, n))),
            (large, rng.normal(size=(batch, n)))]


# ---------------------------------------------------------------------------- 03.5 cases
def _jacobian_case(rng: np.random.Generator) -> tuple:
    m, n = (int(v) for v in rng.integers(2, 5, size=2))
    while m == n:  # a transposed Jacobian then has the wrong shape too
        m = int(rng.integers(2, 6))
    weights = rng.normal(size=(m, n)) / np.sqrt(n)
    return (NamedFunction(str(rng.choice(SMOOTH))), weights, rng.normal(size=n),
            float(rng.choice([1e-4, 3e-4])))


# ---------------------------------------------------------------------------- 03.6 cases
def _cross_entropy_case(rng: np.random.Generator, scale: float = 2.0,
                        offset: float = 0.0) -> tuple:
    batch, classes = int(rng.integers(2, 7)), int(rng.integers(2, 6))
    logits = rng.normal(size=(batch, classes)) * scale + offset
    return (logits, [int(t) for t in rng.integers(0, classes, size=batch)])


EXERCISES = [
    Exercise(
        id="03.1", function="sum_to_shape", points=3,
        title="Summing a gradient over broadcast axes",
        hint="Sum over the extra leading axes, then over each axis where the target has length 1 "
             "(keepdims=True); the result must have exactly the target shape.",
        visible=lambda: [(_arange(4, 2, 3), (2, 1)), (_arange(2, 3), (3,)),
                         (_arange(2, 3), (1, 3)), (_arange(2, 3), (2, 3)), (_arange(2, 3), ())],
        hidden=_sum_to_shape_hidden,
        compare=close(rtol=1e-9, atol=1e-9),
    ),
    Exercise(
        id="03.2", function="matmul_backward", points=3,
        title="The backward pass of a matrix product",
        hint="Match the shapes: dL/dA (n, k) = G (n, m) @ Bᵀ (m, k); dL/dB (k, m) = Aᵀ (k, n) "
             "@ G (n, m).",
        visible=lambda: [(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[5.0, 6.0], [7.0, 8.0]]),
                          np.array([[1.0, 0.0], [0.0, 0.0]])),
                         (_arange(2, 3), _arange(3, 4), np.ones((2, 4)))],
        hidden=lambda rng: [_matmul_case(rng, square) for square in (False, False, True, True)],
        compare=close(rtol=1e-9, atol=1e-9),
    ),
    Exercise(
        id="03.3", function="mean_backward", points=3,
        title="The backward pass of a mean",
        hint="Divide by N, the number of entries averaged together; with keepdim=False first "
             "give the reduced axes back with length 1 (np.expand_dims), then broadcast.",
        visible=lambda: [(np.array(1.0), (2, 2), (0, 1), False),
                         (np.array([1.0, 2.0]), (2, 3), 1, False),
                         (np.array([[3.0, 6.0, 9.0]]), (2, 3), 0, True),
                         (np.array([1.0, 2.0, 3.0]), (3, 3), -1, False)],
        hidden=_mean_hidden,
        compare=close(rtol=1e-9, atol=1e-12),
    ),
    Exercise(
        id="03.4", function="softmax_vjp", points=4,
        title="The softmax VJP without the Jacobian",
        hint="Per row: s ⊙ (v − Σ s·v), with s = softmax(x) computed from x − max(x); the sum "
             "runs over the last axis only.",
        visible=lambda: [(np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 0.0])),
                         (np.array([0.5, -1.0, 2.0, 0.0]), np.ones(4)),
                         (_arange(2, 3) / 2, np.array([[1.0, -1.0, 0.0], [0.0, 2.0, 1.0]])),
                         (np.array([1000.0, 1001.0, 999.0]), np.array([0.0, 1.0, 0.0]))],
        hidden=_softmax_hidden,
        compare=close(rtol=1e-7, atol=1e-10),
    ),
    Exercise(
        id="03.5", function="numerical_jacobian", points=4,
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
        id="03.6", function="cross_entropy_backward", points=4,
        title="Cross-entropy: loss and gradient",
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
]
