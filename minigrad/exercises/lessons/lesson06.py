"""Lesson 06 exercises — convolution, forward and backward.

Each function below is one exercise. Replace the body marked ``# YOUR CODE HERE`` and run
``check("06.N", function)`` to test it on the visible cases; the grader also runs hidden cases
on fresh random inputs. Work with ``numpy`` arrays (float64), one plane (H, W) at a time;
loops are fine. You may use ``minigrad`` to check yourself, but write the rules by hand.

The forward pass throughout (stride 1, no padding, "convolution" meaning correlation, as in
every deep-learning library):

    y[i, j] = Σ_m Σ_n w[m, n] · x[i + m, j + n] + b,     y has shape (H − k + 1, W − k + 1).
"""

from __future__ import annotations

import numpy as np


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


def conv_matrix(weight: np.ndarray, height: int, width: int) -> np.ndarray:
    """Exercise 06.4 — a convolution is a sparse linear layer with shared weights.

    Build the matrix M with ``M @ x.ravel() == conv(x, weight).ravel()`` for every input
    ``x`` of shape (height, width) (stride 1, no padding, no bias). M has one row per output
    position, in row-major order (R = height − k + 1 rows of S = width − k + 1 outputs), and
    one column per input pixel (row-major too): shape (R·S, height·width). Row i·S + j holds
    weight[m, n] in column (i + m)·width + (j + n), and 0 everywhere else — the same k·k
    numbers in every row, shifted. (Its transpose maps δ to dL/dx: the transposed
    convolution.)
    """
    ### BEGIN SOLUTION
    k = weight.shape[0]
    rows, columns = height - k + 1, width - k + 1
    matrix = np.zeros((rows * columns, height * width))
    for i in range(rows):
        for j in range(columns):
            for m in range(k):
                for n in range(k):
                    matrix[i * columns + j, (i + m) * width + (j + n)] = weight[m, n]
    return matrix
    ### END SOLUTION
