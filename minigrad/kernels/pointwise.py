"""1×1 convolutions ("pointwise", channel mixing) as matrix products straight on the NCHW planes.

A 1×1 kernel reads one pixel per window, so there is nothing to pack: with x viewed as
(N, C, P) (P = H·W pixels of one image) and w as the matrix (O, C),

    forward       y[n]  = w @ x[n] + b          (O, C) @ (C, P), written into y's planes
    input grad    ∂L/∂x[n] = wᵀ @ g[n]           (C, O) @ (O, P)
    weight grad   ∂L/∂w = Σ_n g[n] @ x[n]ᵀ       (O, P) @ (P, C), summed over the images

Each is a batched `np.matmul` (one BLAS product per image) whose result *is* the NCHW
array: no packing, no col2im and no layout change, which the general path (`jit_gemm`)
needs and which take a large share of its time on 1×1 layers (see benchmarks/README.md).
A stride s keeps every s-th row and column of x (`x[:, :, ::sh, ::sw]`, the only pixels the
windows read) and puts the input gradient back on those pixels (the others get 0). The
functions take a padding, as every conv algorithm's do; it is (0, 0) for every layer
`minigrad.kernels`' table sends here (`applies`).

The images are split into chunks (`jit_gemm.over_chunks`): a chunk's result is still in
cache when the bias is added to it, and the chunks are shared out between threads.
Tested against `reference` in tests/kernels/test_pointwise.py.
"""

from __future__ import annotations

import numpy as np

from minigrad.kernels import jit_gemm
from minigrad.kernels.reference import Pair


def applies(x_shape: tuple, weight_shape: tuple, stride: Pair, padding: Pair) -> bool:
    """1×1 kernels without padding (any stride)."""
    return tuple(weight_shape[2:]) == (1, 1) and tuple(padding) == (0, 0)


def _planes(array: np.ndarray) -> np.ndarray:
    """(N, C, H, W) viewed as (N, C, H·W), contiguous (copied only if it is not)."""
    array = np.ascontiguousarray(array)
    n_batch, channels, height, width = array.shape
    return array.reshape(n_batch, channels, height * width)


def _per_image(channels: int, outputs: int, pixels: int) -> int:
    """Values one image's product touches (its input and its output planes): sizes chunks."""
    return (channels + outputs) * pixels


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair,
                   bias: np.ndarray | None = None, packed: dict | None = None) -> np.ndarray:
    """y (N, O, OH, OW) = w @ x[n] for every image n (x subsampled by the stride), + bias."""
    x = x[:, :, ::stride[0], ::stride[1]]
    n_batch, channels, out_h, out_w = x.shape
    outputs = w.shape[0]
    x_planes = _planes(x)
    w_matrix = np.ascontiguousarray(w, dtype=x.dtype).reshape(outputs, channels)
    y = np.empty((n_batch, outputs, out_h, out_w), dtype=x.dtype)
    y_planes = y.reshape(n_batch, outputs, out_h * out_w)
    shift = None if bias is None else np.asarray(bias, dtype=x.dtype).reshape(outputs, 1)

    def work(first: int, images: int, space: np.ndarray, loop: object) -> None:
        out = y_planes[first:first + images]
        np.matmul(w_matrix, x_planes[first:first + images], out=out)
        if shift is not None:
            out += shift

    jit_gemm.over_chunks(n_batch, _per_image(channels, outputs, out_h * out_w), x.dtype, work)
    return y


def conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                      stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂x (N, C, H, W): wᵀ @ g[n] on the pixels the stride kept, 0 on the others."""
    n_batch, outputs, out_h, out_w = grad_output.shape
    channels = input_shape[1]
    g_planes = _planes(grad_output)
    w_t = np.ascontiguousarray(w, dtype=g_planes.dtype).reshape(outputs, channels).T
    strided = tuple(stride) != (1, 1)
    grad_x = (np.zeros if strided else np.empty)(input_shape, dtype=g_planes.dtype)
    # at stride 1 the products write grad_x itself; otherwise a buffer, then every s-th pixel
    grad_planes = (np.empty((n_batch, channels, out_h * out_w), dtype=g_planes.dtype)
                   if strided else grad_x.reshape(n_batch, channels, out_h * out_w))

    def work(first: int, images: int, space: np.ndarray, loop: object) -> None:
        np.matmul(w_t, g_planes[first:first + images], out=grad_planes[first:first + images])

    jit_gemm.over_chunks(n_batch, _per_image(channels, outputs, out_h * out_w),
                          g_planes.dtype, work)
    if strided:
        grad_x[:, :, ::stride[0], ::stride[1]] = grad_planes.reshape(n_batch, channels, out_h,
                                                                     out_w)
    return grad_x


def conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                       stride: Pair, padding: Pair, packed: dict | None = None) -> np.ndarray:
    """∂L/∂w (O, C, 1, 1) = Σ_n g[n] @ x[n]ᵀ (x subsampled by the stride)."""
    x = x[:, :, ::stride[0], ::stride[1]]
    n_batch, channels = x.shape[:2]
    outputs = weight_shape[0]
    if n_batch == 0:
        return np.zeros(weight_shape, dtype=x.dtype)
    x_planes = _planes(x)
    g_planes = _planes(grad_output.astype(x.dtype, copy=False))

    def work(first: int, images: int, space: np.ndarray, loop: object) -> np.ndarray:
        chunk = slice(first, first + images)
        return np.matmul(g_planes[chunk], x_planes[chunk].transpose(0, 2, 1)).sum(axis=0)

    parts = jit_gemm.over_chunks(n_batch, _per_image(channels, outputs, x_planes.shape[2]),
                                  x.dtype, work)
    return sum(parts[1:], parts[0]).reshape(weight_shape)
