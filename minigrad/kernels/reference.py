"""Convolution and pooling in plain loops: the definitions, written to be read.

Every function takes and returns numpy arrays (NCHW layout) and knows nothing of autograd.
These are the specifications the fast algorithms (`im2col` and the numba ones) are tested against; they
are slow (one Python step per multiply-add), so use them on small arrays only.

Notation: input x (N, C, H, W), weight w (O, C, kh, kw), stride (sh, sw), padding (ph, pw),
output y (N, O, OH, OW) with OH = (H + 2 ph - kh) // sh + 1 (likewise OW). Output position
(oh, ow) reads the input window whose top-left corner is (oh·sh - ph, ow·sw - pw); input
positions outside the image are zeros (conv, avg-pool) or never chosen (max-pool).
"""

from __future__ import annotations

import numpy as np

Pair = tuple[int, int]


def output_size(size: int, kernel: int, stride: int, padding: int) -> int:
    """Number of window positions along one axis: (size + 2·padding - kernel) // stride + 1."""
    return (size + 2 * padding - kernel) // stride + 1


def _inside(x: np.ndarray, i: int, j: int) -> bool:
    return 0 <= i < x.shape[-2] and 0 <= j < x.shape[-1]


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair,
                   bias: np.ndarray | None = None) -> np.ndarray:
    """y[n, o, oh, ow] = b[o] + Σ_c Σ_i Σ_j w[o, c, i, j] · x[n, c, oh·sh - ph + i, ow·sw - pw + j]
    (b = 0 when bias is None)."""
    n_batch, channels, height, width = x.shape
    out_channels, _, kh, kw = w.shape
    oh_size = output_size(height, kh, stride[0], padding[0])
    ow_size = output_size(width, kw, stride[1], padding[1])
    y = np.zeros((n_batch, out_channels, oh_size, ow_size), dtype=x.dtype)
    for n in range(n_batch):
        for o in range(out_channels):
            for oh in range(oh_size):
                for ow in range(ow_size):
                    total = 0.0 if bias is None else bias[o]
                    for c in range(channels):
                        for i in range(kh):
                            for j in range(kw):
                                hi = oh * stride[0] - padding[0] + i
                                wj = ow * stride[1] - padding[1] + j
                                if _inside(x, hi, wj):
                                    total += w[o, c, i, j] * x[n, c, hi, wj]
                    y[n, o, oh, ow] = total
    return y


def conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                      stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂x: every output position sends grad · w back to the input pixels it read.

    grad_x[n, c, oh·sh - ph + i, ow·sw - pw + j] += w[o, c, i, j] · grad_y[n, o, oh, ow]
    (the transposed convolution; for stride 1 it is the "full" correlation of grad_y with
    the kernel rotated by 180°).
    """
    grad_x = np.zeros(input_shape, dtype=grad_output.dtype)
    n_batch, out_channels, oh_size, ow_size = grad_output.shape
    _, channels, kh, kw = w.shape
    for n in range(n_batch):
        for o in range(out_channels):
            for oh in range(oh_size):
                for ow in range(ow_size):
                    for c in range(channels):
                        for i in range(kh):
                            for j in range(kw):
                                hi = oh * stride[0] - padding[0] + i
                                wj = ow * stride[1] - padding[1] + j
                                if _inside(grad_x, hi, wj):
                                    grad_x[n, c, hi, wj] += w[o, c, i, j] * grad_output[n, o, oh, ow]
    return grad_x


def conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                       stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂w[o, c, i, j] = Σ_n Σ_oh Σ_ow grad_y[n, o, oh, ow] · x[n, c, oh·sh - ph + i, ow·sw - pw + j]:
    the input correlated with the upstream gradient (grad_y plays the kernel)."""
    grad_w = np.zeros(weight_shape, dtype=grad_output.dtype)
    out_channels, channels, kh, kw = weight_shape
    n_batch, _, oh_size, ow_size = grad_output.shape
    for o in range(out_channels):
        for c in range(channels):
            for i in range(kh):
                for j in range(kw):
                    total = 0.0
                    for n in range(n_batch):
                        for oh in range(oh_size):
                            for ow in range(ow_size):
                                hi = oh * stride[0] - padding[0] + i
                                wj = ow * stride[1] - padding[1] + j
                                if _inside(x, hi, wj):
                                    total += grad_output[n, o, oh, ow] * x[n, c, hi, wj]
                    grad_w[o, c, i, j] = total
    return grad_w


def conv2d_grad_bias(grad_output: np.ndarray) -> np.ndarray:
    """∂L/∂b[o] = Σ over batch and positions of grad_y[n, o, :, :] (each b[o] is added everywhere)."""
    return grad_output.sum(axis=(0, 2, 3))


def max_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair,
                       padding: Pair) -> tuple[np.ndarray, np.ndarray]:
    """Each window's maximum, and where it is: indices[n, c, oh, ow] = h·W + w of the winner.

    Windows are scanned row by row; the *first* maximum wins a tie (as in PyTorch), and a NaN
    beats everything (the last NaN wins). Padding is never chosen.
    """
    n_batch, channels, height, width = x.shape
    oh_size = output_size(height, kernel[0], stride[0], padding[0])
    ow_size = output_size(width, kernel[1], stride[1], padding[1])
    values = np.zeros((n_batch, channels, oh_size, ow_size), dtype=x.dtype)
    indices = np.zeros((n_batch, channels, oh_size, ow_size), dtype=np.int64)
    for n in range(n_batch):
        for c in range(channels):
            for oh in range(oh_size):
                for ow in range(ow_size):
                    best, best_index = -np.inf, -1
                    for i in range(kernel[0]):
                        for j in range(kernel[1]):
                            hi = oh * stride[0] - padding[0] + i
                            wj = ow * stride[1] - padding[1] + j
                            if not _inside(x, hi, wj):
                                continue
                            value = x[n, c, hi, wj]
                            if best_index < 0 or value > best or np.isnan(value):
                                best, best_index = value, hi * width + wj
                    values[n, c, oh, ow] = best
                    indices[n, c, oh, ow] = best_index
    return values, indices


def max_pool2d_backward(grad_output: np.ndarray, indices: np.ndarray,
                        input_shape: tuple) -> np.ndarray:
    """grad_x = grad_y routed to each window's argmax (0 elsewhere); overlapping windows add."""
    grad_x = np.zeros(input_shape, dtype=grad_output.dtype)
    width = input_shape[3]
    n_batch, channels, oh_size, ow_size = grad_output.shape
    for n in range(n_batch):
        for c in range(channels):
            for oh in range(oh_size):
                for ow in range(ow_size):
                    index = indices[n, c, oh, ow]
                    grad_x[n, c, index // width, index % width] += grad_output[n, c, oh, ow]
    return grad_x


def avg_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair, padding: Pair) -> np.ndarray:
    """Each window's sum divided by kh·kw, padding counted as zeros (count_include_pad=True)."""
    n_batch, channels, height, width = x.shape
    oh_size = output_size(height, kernel[0], stride[0], padding[0])
    ow_size = output_size(width, kernel[1], stride[1], padding[1])
    y = np.zeros((n_batch, channels, oh_size, ow_size), dtype=x.dtype)
    area = kernel[0] * kernel[1]
    for n in range(n_batch):
        for c in range(channels):
            for oh in range(oh_size):
                for ow in range(ow_size):
                    total = 0.0
                    for i in range(kernel[0]):
                        for j in range(kernel[1]):
                            hi = oh * stride[0] - padding[0] + i
                            wj = ow * stride[1] - padding[1] + j
                            if _inside(x, hi, wj):
                                total += x[n, c, hi, wj]
                    y[n, c, oh, ow] = total / area
    return y


def avg_pool2d_backward(grad_output: np.ndarray, input_shape: tuple, kernel: Pair,
                        stride: Pair, padding: Pair) -> np.ndarray:
    """grad_x: each output's gradient, divided by kh·kw, added to every pixel of its window."""
    grad_x = np.zeros(input_shape, dtype=grad_output.dtype)
    n_batch, channels, oh_size, ow_size = grad_output.shape
    area = kernel[0] * kernel[1]
    for n in range(n_batch):
        for c in range(channels):
            for oh in range(oh_size):
                for ow in range(ow_size):
                    share = grad_output[n, c, oh, ow] / area
                    for i in range(kernel[0]):
                        for j in range(kernel[1]):
                            hi = oh * stride[0] - padding[0] + i
                            wj = ow * stride[1] - padding[1] + j
                            if _inside(grad_x, hi, wj):
                                grad_x[n, c, hi, wj] += share
    return grad_x
