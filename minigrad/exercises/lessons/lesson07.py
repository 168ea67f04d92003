"""Lesson 07 exercises — pooling, a convolution + pooling step by hand, and two pooling Functions.

Each function below is one exercise. Replace the body marked ``# YOUR CODE HERE`` and run
``check("07.N", function)`` to test it on the visible cases; the grader also runs hidden cases
on fresh random inputs. Exercises 07.1–07.4 work on one image plane (H, W) of ``numpy``
float64 values; loops are fine. You may use ``minigrad`` to check yourself, but write the
rules by hand.

Windows: output (i, j) of a k×k pooling with stride s reads the input rows s·i … s·i + k − 1
and columns s·j … s·j + k − 1 (no padding); the output has (H − k) // s + 1 rows.

Exercises 07.5 and 07.6 are real ``Function`` subclasses on a batch of images, (N, C, H, W):
the layers ``nn.MaxPool2d`` and ``nn.AvgPool2d`` are made of these. ``forward(ctx, x,
kernel_size, stride)`` gets a numpy array and the two settings and returns a numpy array;
``backward(ctx, grad_output)`` gets a Tensor (``grad_output.numpy()`` is its array) and returns
dL/dx, a numpy array of x's shape. What backward needs that is not a tensor — the argmax
positions forward found, the input's shape, the settings — can be kept on ``ctx`` as plain
attributes (``ctx.argmax = ...``); an *input* that backward needs goes through
``ctx.save_for_backward`` (lesson 04: so that the engine can free it and notice if it was
changed in place). ``run_pool`` (given) applies your op and runs backward.
Write the pooling yourself, with numpy: a Function that hands its work to the library's
pooling (``F.max_pool2d``, ``nn.MaxPool2d``, ``minigrad.kernels``, PyTorch's) scores 0.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

import minigrad as mg
from minigrad.autograd import Function, gradcheck
from minigrad.exercises.harness import run_pool  # given


def max_pool_forward(x: np.ndarray, kernel_size: int,
                     stride: int) -> tuple[np.ndarray, np.ndarray]:
    """Exercise 07.1 — max pooling's forward pass, and where each maximum is.

    ``x`` (H, W); window (i, j) is x[s·i : s·i + k, s·j : s·j + k] (k = kernel_size,
    s = stride). Return ``(values, indices)``, both of shape ((H − k) // s + 1,
    (W − k) // s + 1): values[i, j] is the window's maximum and
    indices[i, j] = r·W + c its position (r, c) in x, flattened row by row — what PyTorch
    returns with ``return_indices=True``, and all that backward needs. If a window holds
    its maximum more than once, take the **first** in row-by-row order (PyTorch's rule).
    """
    ### BEGIN SOLUTION
    rows = (x.shape[0] - kernel_size) // stride + 1
    columns = (x.shape[1] - kernel_size) // stride + 1
    values = np.zeros((rows, columns))
    indices = np.zeros((rows, columns), dtype=np.int64)
    for i in range(rows):
        for j in range(columns):
            window = x[i * stride:i * stride + kernel_size, j * stride:j * stride + kernel_size]
            r, c = np.unravel_index(np.argmax(window), window.shape)
            values[i, j] = window[r, c]
            indices[i, j] = (i * stride + r) * x.shape[1] + (j * stride + c)
    return values, indices
    ### END SOLUTION


def max_pool_backward(x: np.ndarray, grad_output: np.ndarray, kernel_size: int,
                      stride: int) -> np.ndarray:
    """Exercise 07.2 — max pooling's backward pass: route each gradient to its window's argmax.

    ``x`` (H, W) is the input of a kernel_size × kernel_size max pooling with the given
    stride; ``grad_output`` is dL/dy, one entry per window. Return dL/dx, shaped like x:
    each window's gradient goes to the position of that window's maximum and nowhere else
    (max pooling is x ⊙ mask, with a 1 in the mask at each argmax). If a window holds its
    maximum twice, the **first** one in row-by-row order gets it (PyTorch's rule). Windows
    that overlap (stride < kernel_size) may send gradient to the same pixel: add them up.
    """
    ### BEGIN SOLUTION
    grad_x = np.zeros_like(x, dtype=float)
    rows, columns = grad_output.shape
    for i in range(rows):
        for j in range(columns):
            window = x[i * stride:i * stride + kernel_size, j * stride:j * stride + kernel_size]
            r, c = np.unravel_index(np.argmax(window), window.shape)  # argmax: the first max
            grad_x[i * stride + r, j * stride + c] += grad_output[i, j]
    return grad_x
    ### END SOLUTION


def avg_pool_backward(grad_output: np.ndarray, input_shape: tuple[int, int], kernel_size: int,
                      stride: int) -> np.ndarray:
    """Exercise 07.3 — average pooling's backward pass.

    y[i, j] is the mean of a kernel_size × kernel_size window of x, so each of the k·k
    pixels of the window has ∂y[i, j]/∂x = 1/(k·k). Given ``grad_output`` = dL/dy, return
    dL/dx with shape ``input_shape``: every pixel of window (i, j) receives
    grad_output[i, j] / (k·k), summed over all the windows that contain it (pixels in no
    window get 0).
    """
    ### BEGIN SOLUTION
    grad_x = np.zeros(input_shape)
    share = grad_output / (kernel_size * kernel_size)
    rows, columns = grad_output.shape
    for i in range(rows):
        for j in range(columns):
            grad_x[i * stride:i * stride + kernel_size,
                   j * stride:j * stride + kernel_size] += share[i, j]
    return grad_x
    ### END SOLUTION


def conv_pool_step(x: np.ndarray, weight: np.ndarray, bias: float,
                   grad_output: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """Exercise 07.4 — one convolution + ReLU + 2×2 max pooling, forward and backward by hand.

    ``x`` (H, W), ``weight`` (k, k), ``bias`` a number. Forward, stride 1, no padding:

        z[i, j] = Σ_m Σ_n weight[m, n] · x[i + m, j + n] + bias      (H − k + 1, W − k + 1)
        a = relu(z)
        y = 2×2 max pooling of a with stride 2                         (rows // 2, columns // 2)

    (rows or columns of a left over by the pooling are simply not used.) ``grad_output``
    is dL/dy. Return ``(y, dL/dweight, dL/dbias, dL/dx)``. Backward, step by step: the pooling
    routes dL/dy to each window's first maximum (δ_a); the ReLU keeps it where z > 0
    (δ_z = δ_a · [z > 0]); then dL/dweight[m, n] = Σ_ij δ_z[i, j] · x[i + m, j + n] (x
    correlated with δ_z), dL/dbias = Σ δ_z, and dL/dx[i + m, j + n] += weight[m, n] · δ_z[i, j]
    (the full convolution of δ_z with the kernel turned by 180°).
    """
    ### BEGIN SOLUTION
    k = weight.shape[0]
    rows, columns = x.shape[0] - k + 1, x.shape[1] - k + 1
    z = np.full((rows, columns), float(bias))
    for m in range(k):
        for n in range(k):
            z += weight[m, n] * x[m:m + rows, n:n + columns]
    a = np.maximum(z, 0.0)
    y = np.zeros((rows // 2, columns // 2))
    delta_a = np.zeros_like(a)
    for i in range(rows // 2):
        for j in range(columns // 2):
            window = a[2 * i:2 * i + 2, 2 * j:2 * j + 2]
            r, c = np.unravel_index(np.argmax(window), window.shape)
            y[i, j] = window[r, c]
            delta_a[2 * i + r, 2 * j + c] += grad_output[i, j]
    delta_z = delta_a * (z > 0)
    grad_weight = np.zeros_like(weight, dtype=float)
    grad_x = np.zeros_like(x, dtype=float)
    for m in range(k):
        for n in range(k):
            grad_weight[m, n] = np.sum(delta_z * x[m:m + rows, n:n + columns])
            grad_x[m:m + rows, n:n + columns] += weight[m, n] * delta_z
    return y, grad_weight, float(delta_z.sum()), grad_x
    ### END SOLUTION


def max_pool2d_function(x: np.ndarray, kernel_size: int, stride: int,
                        grad_output: np.ndarray) -> tuple[np.ndarray, np.ndarray, Optional[bool]]:
    """Exercise 07.5 — max pooling as a ``Function``, on a batch (N, C, H, W).

    ``forward`` pools every plane x[n, c] with kernel_size × kernel_size windows and the
    given stride (no padding): y has shape (N, C, (H − k) // s + 1, (W − k) // s + 1). It
    must also remember, for every window, *where* its maximum was (the argmax; the first
    one in row-by-row order on a tie, as PyTorch) — ``backward`` needs nothing else.
    ``backward`` sends each entry of grad_output to its window's argmax; a pixel that wins
    several overlapping windows gets the sum of their gradients. Return dL/dx, x's shape.

    ``run_pool`` returns ``(y, dL/dx, gradcheck's verdict)``.
    """
    class MaxPool2d(Function):
        @staticmethod
        def forward(ctx, x, kernel_size, stride):
            ### BEGIN SOLUTION
            batch, channels, height, width = x.shape
            rows = (height - kernel_size) // stride + 1
            columns = (width - kernel_size) // stride + 1
            y = np.zeros((batch, channels, rows, columns))
            argmax = np.zeros((batch, channels, rows, columns, 2), dtype=np.int64)
            for i in range(rows):
                for j in range(columns):
                    top, left = i * stride, j * stride
                    window = x[:, :, top:top + kernel_size, left:left + kernel_size]
                    flat = window.reshape(batch, channels, -1)
                    first = flat.argmax(axis=2)  # np.argmax keeps the first maximum
                    y[:, :, i, j] = np.take_along_axis(flat, first[..., None], 2)[..., 0]
                    argmax[:, :, i, j, 0] = top + first // kernel_size
                    argmax[:, :, i, j, 1] = left + first % kernel_size
            ctx.argmax, ctx.input_shape = argmax, x.shape
            return y
            ### END SOLUTION

        @staticmethod
        def backward(ctx, grad_output):
            ### BEGIN SOLUTION
            g = grad_output.numpy()
            grad_x = np.zeros(ctx.input_shape)
            n, c, i, j = np.indices(g.shape)
            rows, columns = ctx.argmax[..., 0], ctx.argmax[..., 1]
            np.add.at(grad_x, (n, c, rows, columns), g)  # add.at: repeated pixels add up
            return grad_x
            ### END SOLUTION

    return run_pool(MaxPool2d, x, grad_output, kernel_size=kernel_size, stride=stride)


def avg_pool2d_function(x: np.ndarray, kernel_size: int, stride: int,
                        grad_output: np.ndarray) -> tuple[np.ndarray, np.ndarray, Optional[bool]]:
    """Exercise 07.6 — average pooling as a ``Function``, on a batch (N, C, H, W).

    ``forward``: y[n, c, i, j] is the mean of the kernel_size × kernel_size window (i, j) of
    x[n, c] (stride s, no padding). ``backward``: every pixel of a window gets 1/(k·k) of
    that window's gradient; overlapping windows add. Return dL/dx, x's shape.

    ``run_pool`` returns ``(y, dL/dx, gradcheck's verdict)``.
    """
    class AvgPool2d(Function):
        @staticmethod
        def forward(ctx, x, kernel_size, stride):
            ### BEGIN SOLUTION
            batch, channels, height, width = x.shape
            rows = (height - kernel_size) // stride + 1
            columns = (width - kernel_size) // stride + 1
            y = np.zeros((batch, channels, rows, columns))
            for i in range(rows):
                for j in range(columns):
                    window = x[:, :, i * stride:i * stride + kernel_size,
                               j * stride:j * stride + kernel_size]
                    y[:, :, i, j] = window.mean(axis=(2, 3))
            ctx.input_shape, ctx.kernel_size, ctx.stride = x.shape, kernel_size, stride
            return y
            ### END SOLUTION

        @staticmethod
        def backward(ctx, grad_output):
            ### BEGIN SOLUTION
            k, s = ctx.kernel_size, ctx.stride
            share = grad_output.numpy() / (k * k)
            grad_x = np.zeros(ctx.input_shape)
            for i in range(share.shape[2]):
                for j in range(share.shape[3]):
                    grad_x[:, :, i * s:i * s + k, j * s:j * s + k] += share[:, :, i, j, None, None]
            return grad_x
            ### END SOLUTION

    return run_pool(AvgPool2d, x, grad_output, kernel_size=kernel_size, stride=stride)
