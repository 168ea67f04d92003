"""Lesson 03 exercises — tensors, Jacobians and vector–Jacobian products.

Each function below is one exercise. Replace the body marked ``# YOUR CODE HERE`` and run
``check("03.N", function)`` to test it on the visible cases; the grader also runs hidden cases
on fresh random inputs. Work with ``numpy`` arrays (float64); you may use ``minigrad`` to
check yourself, but write the rules by hand.

The theme of the lesson: backward never builds a Jacobian J (for y = f(x), J_ij = ∂y_i/∂x_j).
It receives v = dL/dy, shaped like y, and returns Jᵀv = dL/dx, shaped like x.
"""

from __future__ import annotations

from typing import Callable

import numpy as np


def sum_to_shape(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Exercise 03.1 — the gradient of a broadcast input.

    An input of shape ``shape`` was broadcast (numpy rules) to ``grad.shape`` in the forward
    pass, so each of its entries was used several times: its gradient is the *sum* of the
    gradients of all its copies. Return ``grad`` summed back to ``shape``.

    Broadcasting (1) adds leading axes and (2) stretches axes of length 1. Sum over the
    leading axes so that the number of dimensions matches, then over every axis where
    ``shape`` has length 1 but ``grad`` does not — keeping that axis with length 1.

    Example: grad of shape (4, 2, 3), shape (2, 1) → sum over axis 0, then axis 2 (kept):
    result shape (2, 1).
    """
    ### BEGIN SOLUTION
    extra_leading = grad.ndim - len(shape)
    stretched = tuple(extra_leading + axis for axis, size in enumerate(shape)
                      if size == 1 and grad.shape[extra_leading + axis] != 1)
    summed = grad.sum(axis=tuple(range(extra_leading)) + stretched, keepdims=True)
    return summed.reshape(shape)  # drop the kept leading axes
    ### END SOLUTION


def matmul_backward(a: np.ndarray, b: np.ndarray,
                    grad_output: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exercise 03.2 — the backward pass of a matrix product.

    C = A @ B with A of shape (n, k), B of shape (k, m), C of shape (n, m); ``grad_output`` is
    G = dL/dC, shape (n, m). Return ``(dL/dA, dL/dB)``, each shaped like its input:

        C_ij = Σ_p A_ip B_pj   ⇒   dL/dA = G Bᵀ  (n, m)(m, k),   dL/dB = Aᵀ G  (k, n)(n, m).

    The shapes alone tell you where the transposes go.
    """
    ### BEGIN SOLUTION
    return grad_output @ b.T, a.T @ grad_output
    ### END SOLUTION


def mean_backward(grad_output: np.ndarray, input_shape: tuple[int, ...],
                  dim: int | tuple[int, ...], keepdim: bool) -> np.ndarray:
    """Exercise 03.3 — the backward pass of a mean over some dimensions.

    The forward pass was ``y = x.mean(dim, keepdim)`` for an x of shape ``input_shape``;
    ``dim`` is one axis or a tuple of axes (negative ones count from the end). ``grad_output``
    is dL/dy, shaped like y. Return dL/dx, shape ``input_shape``.

    Every x entry in a group of N averaged entries contributes 1/N to its mean, so

        dL/dx = dL/dy / N, copied along the reduced axes      (N = product of their lengths).

    With ``keepdim=False`` the reduced axes are gone from ``grad_output``: put them back with
    length 1 (``np.expand_dims``) *before* broadcasting — numpy aligns shapes from the right,
    which is not where a reduced middle axis was.

    Example: x of shape (2, 2), y = x.mean() (dim = (0, 1)), dL/dy = 1 → 0.25 everywhere.
    """
    ### BEGIN SOLUTION
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(axis % len(input_shape) for axis in dims)  # -1 → the last axis
    count = int(np.prod([input_shape[axis] for axis in dims]))
    if not keepdim:
        grad_output = np.expand_dims(grad_output, dims)
    return np.broadcast_to(grad_output / count, input_shape).copy()
    ### END SOLUTION


def softmax_vjp(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Exercise 03.4 — a vector–Jacobian product without the Jacobian.

    s = softmax(x) along the last axis, s_i = e^{x_i} / Σ_j e^{x_j}; ``x`` has shape (n,) or
    (B, n), one softmax per row. ``v`` = dL/ds has the shape of x. Return dL/dx = Jᵀv, shape
    of x.

    The Jacobian of one row is J_ij = ∂s_i/∂x_j = s_i (δ_ij − s_j), so

        (Jᵀv)_j = Σ_i v_i s_i (δ_ij − s_j) = s_j (v_j − Σ_i s_i v_i)

    — O(n) work per row instead of the O(n²) of forming J. Subtract max(x) before ``exp``
    so that large inputs do not overflow (softmax does not change).
    """
    ### BEGIN SOLUTION
    shifted = np.exp(x - x.max(axis=-1, keepdims=True))
    s = shifted / shifted.sum(axis=-1, keepdims=True)
    return s * (v - (s * v).sum(axis=-1, keepdims=True))
    ### END SOLUTION


def numerical_jacobian(f: Callable[[np.ndarray], np.ndarray], weights: np.ndarray,
                       x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Exercise 03.5 — a Jacobian by central differences (what ``gradcheck`` compares with).

    A layer maps x of shape (n,) to y = f(W x) of shape (m,): ``weights`` is W, shape (m, n),
    and ``f`` is applied elementwise (a ``NamedFunction`` such as ``tanh``: call it, ``f(z)``).
    Return its Jacobian J, shape (m, n), J_ij = ∂y_i/∂x_j — row i is output i, column j is
    input j — built column by column:

        J[:, j] ≈ (y(x + ε e_j) − y(x − ε e_j)) / 2ε,   e_j = the j-th unit vector.

    Do not change ``x`` itself (work on copies). Any vector function would do here: the layer
    is only the example.
    """
    ### BEGIN SOLUTION
    def layer(inputs: np.ndarray) -> np.ndarray:
        return np.asarray(f(weights @ inputs), dtype=np.float64)

    x = np.asarray(x, dtype=np.float64)
    columns = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step[j] = eps
        columns.append((layer(x + step) - layer(x - step)) / (2.0 * eps))
    return np.stack(columns, axis=1)
    ### END SOLUTION


def cross_entropy_backward(logits: np.ndarray,
                           targets: list[int]) -> tuple[float, np.ndarray]:
    """Exercise 03.6 — log-softmax + negative log-likelihood, forward and backward.

    ``logits`` has shape (B, C): B examples, C classes; ``targets`` holds B class indices.
    The loss is the mean over the batch of −log softmax(logits_b)[targets_b]. Return
    ``(loss, dloss/dlogits)`` with the gradient of shape (B, C):

        log softmax(z)_c = z_c − m − log Σ_k e^{z_k − m}   (m = max_k z_k, for stability)
        dloss/dlogits = (softmax(logits) − onehot(targets)) / B

    The 1/B comes from the mean — once.
    """
    ### BEGIN SOLUTION
    batch = logits.shape[0]
    rows = np.arange(batch)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -log_probs[rows, targets].mean()
    grad = np.exp(log_probs)
    grad[rows, targets] -= 1.0
    return float(loss), grad / batch
    ### END SOLUTION
