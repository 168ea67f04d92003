"""Convolution and pooling as matrix products over unfolded windows ("im2col"), in numpy.

im2col copies every kh×kw window of the (padded) input into one row of a matrix

    cols[n, oh, ow, (c, i, j)] = x_padded[n, c, oh·sh + i, ow·sw + j],   shape (N·OH·OW, C·kh·kw)

so that the convolution becomes one matrix product with the flattened kernel:

    y = cols @ w.reshape(O, C·kh·kw)ᵀ                      (N·OH·OW, O)
    ∂L/∂w = grad_yᵀ @ cols                                  (O, C·kh·kw)
    ∂L/∂cols = grad_y @ w_flat,  then col2im adds each row back onto its window.

The matrix product runs in BLAS, which is why this is much faster than loops; the price is
the memory of `cols` (kh·kw copies of the input). This path needs nothing but numpy and is
the one used when numba is missing or MINIGRAD_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from minigrad.kernels.reference import Pair, output_size


def _pad(x: np.ndarray, padding: Pair, value: float = 0.0) -> np.ndarray:
    if padding == (0, 0):
        return x
    ph, pw = padding
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=value)


def windows(x: np.ndarray, kernel: Pair, stride: Pair, padding: Pair,
            pad_value: float = 0.0) -> np.ndarray:
    """A read-only view (N, C, OH, OW, kh, kw) of every window of the padded input (no copy)."""
    view = sliding_window_view(_pad(x, padding, pad_value), kernel, axis=(2, 3))
    return view[:, :, ::stride[0], ::stride[1]]


def im2col(x: np.ndarray, kernel: Pair, stride: Pair, padding: Pair) -> np.ndarray:
    """The window matrix cols, (N·OH·OW, C·kh·kw): one row per output position."""
    view = windows(x, kernel, stride, padding)  # (N, C, OH, OW, kh, kw)
    n_batch, channels, oh_size, ow_size, kh, kw = view.shape
    return view.transpose(0, 2, 3, 1, 4, 5).reshape(n_batch * oh_size * ow_size,
                                                    channels * kh * kw)


def col2im(cols: np.ndarray, input_shape: tuple, kernel: Pair, stride: Pair,
           padding: Pair) -> np.ndarray:
    """The adjoint of im2col: add every row of cols back onto the window it came from."""
    n_batch, channels, height, width = input_shape
    kh, kw = kernel
    oh_size = output_size(height, kh, stride[0], padding[0])
    ow_size = output_size(width, kw, stride[1], padding[1])
    blocks = cols.reshape(n_batch, oh_size, ow_size, channels, kh, kw)
    padded = np.zeros((n_batch, channels, height + 2 * padding[0], width + 2 * padding[1]),
                      dtype=cols.dtype)
    # One strided slice per kernel offset (kh·kw numpy additions, none per pixel).
    for i in range(kh):
        for j in range(kw):
            rows = slice(i, i + stride[0] * oh_size, stride[0])
            columns = slice(j, j + stride[1] * ow_size, stride[1])
            padded[:, :, rows, columns] += blocks[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return padded[:, :, padding[0]:padding[0] + height, padding[1]:padding[1] + width]


KEEP_BYTES = 16 << 20  # the largest cols a forward keeps for the weight gradient


def applies(x_shape: tuple, weight_shape: tuple, stride: Pair, padding: Pair) -> bool:
    """Every shape and dtype."""
    return True


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair,
                   bias: np.ndarray | None = None, packed: dict | None = None) -> np.ndarray:
    """y = cols @ w_flatᵀ (+ bias), reshaped to (N, O, OH, OW); cols is left in `packed`
    (if given) for the weight gradient, unless it is larger than KEEP_BYTES."""
    n_batch, _, height, width = x.shape
    out_channels, _, kh, kw = w.shape
    oh_size = output_size(height, kh, stride[0], padding[0])
    ow_size = output_size(width, kw, stride[1], padding[1])
    cols = im2col(x, (kh, kw), stride, padding)
    if packed is not None and cols.nbytes <= KEEP_BYTES:
        packed["columns"] = cols
    y = cols @ w.reshape(out_channels, -1).T
    if bias is not None:
        y += bias  # y is (N·OH·OW, O): one bias per column
    return np.ascontiguousarray(y.reshape(n_batch, oh_size, ow_size, out_channels)
                                .transpose(0, 3, 1, 2))


def _rows(grad_output: np.ndarray) -> np.ndarray:
    """grad_y as a (N·OH·OW, O) matrix, matching the rows of cols."""
    return grad_output.transpose(0, 2, 3, 1).reshape(-1, grad_output.shape[1])


def conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                      stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂x = col2im(grad_y @ w_flat)."""
    cols_grad = _rows(grad_output) @ w.reshape(w.shape[0], -1)
    return np.ascontiguousarray(col2im(cols_grad, input_shape, w.shape[2:], stride, padding))


def conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                       stride: Pair, padding: Pair, packed: dict | None = None) -> np.ndarray:
    """∂L/∂w = grad_yᵀ @ cols, reshaped to (O, C, kh, kw) (cols from `packed` if the
    forward left it there)."""
    cols = (packed or {}).get("columns")
    if cols is None:
        cols = im2col(x, tuple(weight_shape[2:]), stride, padding)
    return (_rows(grad_output).T @ cols).reshape(weight_shape)


def max_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair,
                       padding: Pair) -> tuple[np.ndarray, np.ndarray]:
    """Window maxima and the flat input index h·W + w of each (first maximum wins; a NaN
    wins over numbers, the last NaN over earlier ones; padding never wins)."""
    n_batch, channels, height, width = x.shape
    kh, kw = kernel
    view = windows(x, kernel, stride, padding, pad_value=-np.inf)
    flat = view.reshape(view.shape[:4] + (kh * kw,))
    # Which window slots are real pixels (not padding), and their flat input index.
    rows = np.arange(view.shape[2])[:, None] * stride[0] - padding[0] + np.arange(kh)[None, :]
    columns = np.arange(view.shape[3])[:, None] * stride[1] - padding[1] + np.arange(kw)[None, :]
    row_ok = (rows >= 0) & (rows < height)
    column_ok = (columns >= 0) & (columns < width)
    inside = (row_ok[:, None, :, None] & column_ok[None, :, None, :]).reshape(
        rows.shape[0], columns.shape[0], kh * kw)
    position = (rows[:, None, :, None] * width + columns[None, :, None, :]).reshape(inside.shape)

    values = flat.max(axis=-1)  # NaN propagates, as wanted
    is_nan = np.isnan(flat)
    winner = (flat == values[..., None]) & inside
    first_max = np.argmax(winner, axis=-1)
    last_nan = kh * kw - 1 - np.argmax(is_nan[..., ::-1], axis=-1)
    slot = np.where(is_nan.any(axis=-1), last_nan, first_max)
    oh_index = np.arange(view.shape[2])[:, None]
    ow_index = np.arange(view.shape[3])[None, :]
    indices = position[oh_index, ow_index, slot]
    return np.ascontiguousarray(values), indices.astype(np.int64)


def max_pool2d_backward(grad_output: np.ndarray, indices: np.ndarray,
                        input_shape: tuple) -> np.ndarray:
    """Scatter-add each output's gradient onto its argmax (bincount = a vectorised +=)."""
    n_batch, channels, height, width = input_shape
    planes = n_batch * channels
    plane_size = height * width
    offsets = (np.arange(planes) * plane_size)[:, None]
    targets = (indices.reshape(planes, indices.shape[2] * indices.shape[3]) + offsets).ravel()
    summed = np.bincount(targets, weights=grad_output.ravel(), minlength=planes * plane_size)
    return summed.astype(grad_output.dtype, copy=False).reshape(input_shape)


def avg_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair, padding: Pair) -> np.ndarray:
    """Mean over each window, zero padding included in the count."""
    view = windows(x, kernel, stride, padding)
    return (view.sum(axis=(4, 5)) / (kernel[0] * kernel[1])).astype(x.dtype, copy=False)


def avg_pool2d_backward(grad_output: np.ndarray, input_shape: tuple, kernel: Pair,
                        stride: Pair, padding: Pair) -> np.ndarray:
    """Every window pixel receives grad / (kh·kw): col2im of the shared gradient."""
    kh, kw = kernel
    n_batch, channels, height, width = input_shape
    share = grad_output / (kh * kw)
    padded = np.zeros((n_batch, channels, height + 2 * padding[0], width + 2 * padding[1]),
                      dtype=grad_output.dtype)
    oh_size, ow_size = grad_output.shape[2:]
    for i in range(kh):
        for j in range(kw):
            padded[:, :, i:i + stride[0] * oh_size:stride[0],
                   j:j + stride[1] * ow_size:stride[1]] += share
    return np.ascontiguousarray(
        padded[:, :, padding[0]:padding[0] + height, padding[1]:padding[1] + width])
