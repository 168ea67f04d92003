"""Lesson 06 exercises — convolution, forward and backward.

Each function below is one exercise. Replace the body marked ``# YOUR CODE HERE`` and run
``check("06.N", function)`` to test it on the visible cases; the grader also runs hidden cases
on fresh random inputs. Work with ``numpy`` arrays (float64); loops are fine. You may use
``minigrad`` to check yourself, but write the rules by hand.

Exercises 06.1–06.4 work on one plane (H, W). The forward pass there ("convolution" meaning
correlation, as in every deep-learning library), with stride s and no padding:

    y[i, j] = Σ_m Σ_n w[m, n] · x[s·i + m, s·j + n] + b,     y has ⌊(H − k)/s⌋ + 1 rows.

Exercise 06.5 puts it all together: the ``Conv2d`` ``Function`` of a real network, on a batch
of images with several channels, a stride and a padding. ``run_conv2d`` (given) runs it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minigrad as mg
from minigrad.autograd import Function, gradcheck
from minigrad.exercises.harness import run_conv2d  # given


def conv_weight_grad(x: np.ndarray, grad_output: np.ndarray) -> np.ndarray:
    """Exercise 06.1 — the weight gradient is the input correlated with δ.

    ``x`` (H, W) is the input of a k × k convolution and ``grad_output`` δ = dL/dy its
    upstream gradient, shape (H − k + 1, W − k + 1); so k = H − δ.shape[0] + 1. Return
    dL/dw, shape (k, k):

        dL/dw[m, n] = Σ_i Σ_j δ[i, j] · x[i + m, j + n]

    — the same sliding sum as the forward pass, with δ in the place of the kernel.
    """
    ### BEGIN SOLUTION
    rows, columns = grad_output.shape
    k = x.shape[0] - rows + 1
    grad_w = np.zeros((k, k))
    for m in range(k):
        for n in range(k):
            grad_w[m, n] = np.sum(grad_output * x[m:m + rows, n:n + columns])
    return grad_w
    ### END SOLUTION


def conv_input_grad(weight: np.ndarray, grad_output: np.ndarray) -> np.ndarray:
    """Exercise 06.2 — the input gradient is a full convolution with the kernel turned 180°.

    ``weight`` (k, k), ``grad_output`` δ = dL/dy of shape (R, S). Return dL/dx, shape
    (R + k − 1, S + k − 1). Each x[p, q] fed every output y[i, j] with p = i + m, q = j + n,
    through the weight w[m, n], so

        dL/dx[p, q] = Σ_i Σ_j δ[i, j] · w[p − i, q − j]       (terms with p − i or q − j
                                                                outside 0 … k − 1 are 0)

    Equivalently: pad δ with k − 1 zeros on every side and slide the kernel *rotated by 180°*
    (w[::-1, ::-1]) over it, exactly like the forward pass — a "full" convolution.
    """
    ### BEGIN SOLUTION
    k = weight.shape[0]
    padded = np.pad(grad_output, k - 1)
    rotated = weight[::-1, ::-1]
    rows, columns = grad_output.shape[0] + k - 1, grad_output.shape[1] + k - 1
    grad_x = np.zeros((rows, columns))
    for m in range(k):
        for n in range(k):
            grad_x += rotated[m, n] * padded[m:m + rows, n:n + columns]
    return grad_x
    ### END SOLUTION


def conv_output_size(size: int, kernel_size: int, stride: int, padding: int) -> int:
    """Exercise 06.3 — how many outputs along one axis?

    An axis of ``size`` pixels is padded with ``padding`` zeros on both ends; a window of
    ``kernel_size`` pixels starts at 0 and moves ``stride`` pixels at a time, as long as it
    still fits. Return the number of window positions:

        ⌊(size + 2·padding − kernel_size) / stride⌋ + 1

    (You may assume at least one window fits: kernel_size ≤ size + 2·padding.) Check it on
    the digits CNN of lesson 07: 8 pixels, kernel 3, padding 1, stride 1 keep 8 pixels.
    """
    ### BEGIN SOLUTION
    return (size + 2 * padding - kernel_size) // stride + 1
    ### END SOLUTION


def strided_input_grad(weight: np.ndarray, grad_output: np.ndarray, stride: int,
                       height: int, width: int) -> np.ndarray:
    """Exercise 06.4 — the input gradient of a convolution with a stride.

    The forward pass read x (``height`` × ``width``) with a k × k ``weight`` and a ``stride``
    s, no padding: y[i, j] = Σ_m Σ_n w[m, n] · x[s·i + m, s·j + n]. ``grad_output`` δ = dL/dy
    has shape (R, S). Return dL/dx, shape (height, width).

    Exercise 06.2's rule does not apply as it stands: neighbouring outputs no longer read
    neighbouring windows. Think about where δ[i, j] goes back to, and how to turn the strided
    case into a stride-1 one. Not every pixel of x was necessarily read: when s does not divide
    height − k, the last rows were skipped by every window.
    """
    ### BEGIN SOLUTION
    k = weight.shape[0]
    rows, columns = grad_output.shape
    # s − 1 zeros between neighbouring entries of δ: the outputs a stride-1 pass would have had
    dilated = np.zeros((stride * (rows - 1) + 1, stride * (columns - 1) + 1))
    dilated[::stride, ::stride] = grad_output
    padded = np.pad(dilated, k - 1)
    rotated = weight[::-1, ::-1]
    full_rows, full_columns = dilated.shape[0] + k - 1, dilated.shape[1] + k - 1
    grad_x = np.zeros((height, width))  # rows past full_rows were never read: gradient 0
    for m in range(k):
        for n in range(k):
            grad_x[:full_rows, :full_columns] += rotated[m, n] * padded[m:m + full_rows,
                                                                         n:n + full_columns]
    return grad_x
    ### END SOLUTION


def conv2d_function(x: np.ndarray, weight: np.ndarray, bias: np.ndarray,
                    grad_output: np.ndarray, stride: int, padding: int) -> tuple[Any, ...]:
    """Exercise 06.5 — your own Conv2d: a batch, several channels, stride and padding.

    Shapes (NCHW): x (N, C, H, W), weight (O, C, k, k), bias (O,), output y (N, O, OH, OW)
    with OH = ⌊(H + 2p − k)/s⌋ + 1 (OW likewise). With x_p the input padded with p zeros on
    each side of H and W:

        y[n, o, i, j]   = Σ_c Σ_m Σ_n' w[o, c, m, n'] · x_p[n, c, s·i + m, s·j + n'] + b[o]
        dL/db[o]        = Σ_n Σ_i Σ_j δ[n, o, i, j]
        dL/dw[o, c]     = Σ_n x_p[n, c] ⋆ δ[n, o]         (stride s: δ's entries s apart)
        dL/dx_p[n, c]   = Σ_o full(δ[n, o] dilated, rot180 w[o, c]),   then crop p

    "Dilated": s − 1 zeros between neighbouring entries of δ (exercise 06.4); rows of x_p
    that no window read get gradient 0. Write ``forward(ctx, x, weight, bias, stride,
    padding)`` (numpy arrays in, one out; keep what backward needs on ``ctx``) and
    ``backward(ctx, grad_output)`` (returns dL/dx, dL/dw, dL/db, each with its input's shape).
    ``run_conv2d`` returns ``(y, dL/dx, dL/dw, dL/db, gradcheck passed)``. Copy the class out
    to use it elsewhere: ``Conv2d.apply(x, w, b, stride=2, padding=1)``.
    """
    class Conv2d(Function):
        @staticmethod
        def forward(ctx, x, weight, bias, stride, padding):
            ### BEGIN SOLUTION
            ctx.save_for_backward(x, weight)
            ctx.stride, ctx.padding = stride, padding
            padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
            k = weight.shape[-1]
            rows = (padded.shape[2] - k) // stride + 1
            columns = (padded.shape[3] - k) // stride + 1
            y = np.zeros((x.shape[0], weight.shape[0], rows, columns))
            for m in range(k):
                for n in range(k):
                    # every output's input pixel at kernel offset (m, n): shape (N, C, OH, OW)
                    window = padded[:, :, m:m + stride * rows:stride, n:n + stride * columns:stride]
                    y += np.einsum("NCHW,OC->NOHW", window, weight[:, :, m, n])
            return y + bias[None, :, None, None]
            ### END SOLUTION

        @staticmethod
        def backward(ctx, grad_output):
            ### BEGIN SOLUTION
            x, weight = (t.numpy() for t in ctx.saved_tensors)
            delta = grad_output.numpy()
            stride, padding, k = ctx.stride, ctx.padding, weight.shape[-1]
            batch, out_channels, rows, columns = delta.shape
            padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))

            grad_bias = delta.sum(axis=(0, 2, 3))
            grad_weight = np.zeros_like(weight)
            for m in range(k):
                for n in range(k):
                    window = padded[:, :, m:m + stride * rows:stride, n:n + stride * columns:stride]
                    grad_weight[:, :, m, n] = np.einsum("NOHW,NCHW->OC", delta, window)

            dilated = np.zeros((batch, out_channels, stride * (rows - 1) + 1,
                                stride * (columns - 1) + 1))
            dilated[:, :, ::stride, ::stride] = delta
            full = np.pad(dilated, ((0, 0), (0, 0), (k - 1, k - 1), (k - 1, k - 1)))
            rotated = weight[:, :, ::-1, ::-1]
            full_rows, full_columns = dilated.shape[2] + k - 1, dilated.shape[3] + k - 1
            grad_padded = np.zeros(padded.shape)  # rows no window read keep gradient 0
            for m in range(k):
                for n in range(k):
                    grad_padded[:, :, :full_rows, :full_columns] += np.einsum(
                        "NOHW,OC->NCHW", full[:, :, m:m + full_rows, n:n + full_columns],
                        rotated[:, :, m, n])
            grad_x = grad_padded[:, :, padding:padding + x.shape[2], padding:padding + x.shape[3]]
            return grad_x, grad_weight, grad_bias
            ### END SOLUTION

    return run_conv2d(Conv2d, x, weight, bias, grad_output, stride, padding)
