"""Lesson 03 exercises — tensors, Jacobians, and how a tensor op is built.

Each function below is one exercise. Replace the body marked ``# YOUR CODE HERE`` and run
``check("03.N", function)`` to test it on the visible cases; the grader also runs hidden cases
on fresh random inputs. Work with ``numpy`` arrays (float64); you may use ``minigrad`` to
check yourself, but write the rules by hand.

The theme of the lesson: backward never builds a Jacobian J (for y = f(x), J_ij = ∂y_i/∂x_j).
It receives v = dL/dy, shaped like y, and returns Jᵀv = dL/dx, shaped like x.

Exercises 03.5–03.7 are real ``Function`` subclasses, written inside the graded function so
that the grader finds them. ``forward(ctx, ...)`` gets numpy arrays and returns one;
``backward(ctx, grad_output)`` gets a Tensor and returns one gradient per input (a Tensor or
a numpy array, exactly the input's shape). ``run_function`` (given) applies your op to float64
leaves, checks it with ``gradcheck`` and runs backward; copy a class out of its function to use
it elsewhere, as ``Cube.apply(t)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import minigrad as mg
from minigrad.autograd import Function, gradcheck
from minigrad.exercises.harness import run_function  # given


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


def cube_function(x: np.ndarray, grad_output: np.ndarray) -> tuple[np.ndarray, list, str]:
    """Exercise 03.5 — your first Function: y = x³, elementwise.

    Fill in ``Cube.forward`` (keep what backward needs with ``ctx.save_for_backward``) and
    ``Cube.backward`` (read it back from ``ctx.saved_tensors``; dy/dx = 3x², times
    ``grad_output``). ``run_function`` does the rest and returns ``(y, [dL/dx], verdict)``,
    the verdict being gradcheck's: "passed", or what it found.

    Example: x = [1, 2], grad_output = [1, 1] → y = [1, 8], dL/dx = [3, 12].
    """
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ### BEGIN SOLUTION
            ctx.save_for_backward(x)
            return x ** 3
            ### END SOLUTION

        @staticmethod
        def backward(ctx, grad_output):
            ### BEGIN SOLUTION
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x * x
            ### END SOLUTION

    return run_function(Cube, [x], grad_output)


def broadcast_mul_function(a: np.ndarray, b: np.ndarray,
                           grad_output: np.ndarray) -> tuple[np.ndarray, list, str]:
    """Exercise 03.6 — a broadcasting product, out = a * b (numpy broadcasting rules).

    ``a`` and ``b`` may have different shapes (say (2, 3) and (3,), or (4, 1) and (1, 5)).
    d(out)/da = b and d(out)/db = a entry by entry, but each gradient must come back with its
    own input's shape: sum over the axes broadcasting added or stretched (exercise 03.1).
    The engine refuses a gradient of the wrong shape ("returned an invalid gradient").
    Returns ``(out, [dL/da, dL/db], verdict)``.

    Example: a of shape (2, 3), b of shape (3,), grad_output all ones → dL/db = a.sum(axis=0).
    """
    class BroadcastMul(Function):
        @staticmethod
        def forward(ctx, a, b):
            ### BEGIN SOLUTION
            ctx.save_for_backward(a, b)
            return a * b
            ### END SOLUTION

        @staticmethod
        def backward(ctx, grad_output):
            ### BEGIN SOLUTION
            a, b = (t.numpy() for t in ctx.saved_tensors)
            g = grad_output.numpy()

            def sum_back(grad, shape):  # the rule of exercise 03.1
                leading = grad.ndim - len(shape)
                stretched = tuple(leading + axis for axis, size in enumerate(shape)
                                  if size == 1 and grad.shape[leading + axis] != 1)
                summed = grad.sum(axis=tuple(range(leading)) + stretched, keepdims=True)
                return summed.reshape(shape)

            return sum_back(g * b, a.shape), sum_back(g * a, b.shape)
            ### END SOLUTION

    return run_function(BroadcastMul, [a, b], grad_output)


def sum_function(x: np.ndarray, dim: int | list[int], keepdim: bool,
                 grad_output: np.ndarray) -> tuple[np.ndarray, list, str]:
    """Exercise 03.7 — a reduction: y = x.sum(dim, keepdim).

    ``dim`` is one axis or a list of axes (negative ones count from the end; numpy wants a
    tuple: ``x.sum(axis=tuple(dim))``). Every entry of
    x that went into a sum gets that sum's gradient (d(sum)/dx_i = 1): put the reduced axes
    back with length 1 if ``keepdim`` is False, then broadcast to x's shape. Settings reach
    ``forward`` as keyword arguments: ``forward(ctx, x, dim, keepdim)``; anything backward needs
    besides tensors (a shape, the axes) can be kept on ``ctx`` as a plain attribute
    (``ctx.shape = x.shape``).
    Returns ``(y, [dL/dx], verdict)``.

    Example: x of shape (2, 3), dim = 1, keepdim = False, grad_output = [1, 2] →
    dL/dx = [[1, 1, 1], [2, 2, 2]].
    """
    class Sum(Function):
        @staticmethod
        def forward(ctx, x, dim, keepdim):
            ### BEGIN SOLUTION
            axes = (dim,) if isinstance(dim, int) else tuple(dim)
            ctx.axes = tuple(axis % x.ndim for axis in axes)
            ctx.keepdim, ctx.input_shape = keepdim, x.shape
            return x.sum(axis=ctx.axes, keepdims=keepdim)
            ### END SOLUTION

        @staticmethod
        def backward(ctx, grad_output):
            ### BEGIN SOLUTION
            g = grad_output.numpy()
            if not ctx.keepdim:
                g = np.expand_dims(g, ctx.axes)
            return np.broadcast_to(g, ctx.input_shape).copy()
            ### END SOLUTION

    return run_function(Sum, [x], grad_output, dim=dim, keepdim=keepdim)


def forward_mode(program: list[list], direction: dict[str, float]) -> dict[str, dict[str, float]]:
    """Exercise 03.8 — forward mode: push one input direction through a program.

    ``program`` is written as in exercise 02.3: ``[name, "input", number]`` or
    ``[name, op, operand, ...]`` with op one of ``"+", "*", "**", "exp", "log", "tanh",
    "relu"``; the last step is the output L. ``direction`` gives u_i for the inputs (an input
    it does not name has u_i = 0).

    Carry a dual number (value, tangent) through every step, starting each input at
    (number, u_i). The tangent rules are the chain rule in forward order:

        (a + b)' = a' + b'          (a·b)' = a'·b + a·b'          exp(a)' = exp(a)·a'
        log(a)' = a'/a              tanh(a)' = (1 − tanh²a)·a'    relu(a)' = a' if a > 0 else 0
        (a^b)' = b·a^(b−1)·a' + a^b·ln(a)·b'   (the ln term only when b' ≠ 0; a > 0 then)

    Return ``{"value": {name: value}, "tangent": {name: tangent}}`` for every step. The
    tangent of L is Ju = Σ_i (∂L/∂x_i)·u_i — exercise 02.3's gradient, one direction at a time.

    Example: ``[["x", "input", 3.0], ["y", "*", "x", "x"]]`` with direction ``{"x": 1.0}`` →
    tangents ``{"x": 1.0, "y": 6.0}``.
    """
    ### BEGIN SOLUTION
    value: dict[str, float] = {}
    tangent: dict[str, float] = {}
    for name, op, *operands in program:
        if op == "input":
            value[name], tangent[name] = float(operands[0]), float(direction.get(name, 0.0))
            continue
        a, da = value[operands[0]], tangent[operands[0]]
        if op in ("+", "*", "**"):
            b, db = value[operands[1]], tangent[operands[1]]
        if op == "+":
            value[name], tangent[name] = a + b, da + db
        elif op == "*":
            value[name], tangent[name] = a * b, da * b + a * db
        elif op == "**":
            out = a ** b
            slope = b * a ** (b - 1) * da
            if db != 0.0:
                slope += out * math.log(a) * db
            value[name], tangent[name] = out, slope
        elif op == "exp":
            value[name] = math.exp(a)
            tangent[name] = value[name] * da
        elif op == "log":
            value[name], tangent[name] = math.log(a), da / a
        elif op == "tanh":
            value[name] = math.tanh(a)
            tangent[name] = (1.0 - value[name] ** 2) * da
        elif op == "relu":
            value[name], tangent[name] = max(a, 0.0), da if a > 0 else 0.0
        else:
            raise ValueError(f"unknown op {op!r}")
    return {"value": value, "tangent": tangent}
    ### END SOLUTION
