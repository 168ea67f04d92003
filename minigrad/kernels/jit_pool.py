"""Max and average pooling as numba kernels: the loops of `reference`, compiled.

Pooling is memory-bound and cheap next to convolution; these loops run on one thread (no
`parallel=True`, which would triple their compile time for little gain on 2 cores).
Re-exported by `jit`, which is the module `minigrad.kernels` dispatches to.
"""

from __future__ import annotations

import numpy as np

from minigrad.kernels.compiler import njit
from minigrad.kernels.reference import Pair, output_size


@njit(cache=True)
def _max_pool(x, kh, kw, sh, sw, ph, pw, out_height, out_width):  # pragma: no cover (jit)
    n_batch, channels, height, width = x.shape
    values = np.empty((n_batch, channels, out_height, out_width), dtype=x.dtype)
    indices = np.empty((n_batch, channels, out_height, out_width), dtype=np.int64)
    for plane in range(n_batch * channels):
        n = plane // channels
        c = plane % channels
        for oh in range(out_height):
            top = oh * sh - ph
            h_start = max(top, 0)
            h_end = min(top + kh, height)
            for ow in range(out_width):
                left = ow * sw - pw
                w_start = max(left, 0)
                w_end = min(left + kw, width)
                best = -np.inf
                best_index = h_start * width + w_start
                for hi in range(h_start, h_end):
                    for wj in range(w_start, w_end):
                        value = x[n, c, hi, wj]
                        if value > best or np.isnan(value):
                            best = value
                            best_index = hi * width + wj
                values[n, c, oh, ow] = best
                indices[n, c, oh, ow] = best_index
    return values, indices


@njit(cache=True)
def _max_pool_backward(g, indices, height, width):  # pragma: no cover (jit)
    n_batch, channels, out_height, out_width = g.shape
    grad = np.zeros((n_batch, channels, height * width), dtype=g.dtype)
    for plane in range(n_batch * channels):
        n = plane // channels
        c = plane % channels
        target = grad[n, c]
        for oh in range(out_height):
            for ow in range(out_width):
                target[indices[n, c, oh, ow]] += g[n, c, oh, ow]
    return grad.reshape((n_batch, channels, height, width))


@njit(cache=True)
def _avg_pool(x, kh, kw, sh, sw, ph, pw, out_height, out_width):  # pragma: no cover (jit)
    n_batch, channels, height, width = x.shape
    y = np.empty((n_batch, channels, out_height, out_width), dtype=x.dtype)
    area = kh * kw
    for plane in range(n_batch * channels):
        n = plane // channels
        c = plane % channels
        for oh in range(out_height):
            top = oh * sh - ph
            for ow in range(out_width):
                left = ow * sw - pw
                total = 0.0
                for hi in range(max(top, 0), min(top + kh, height)):
                    for wj in range(max(left, 0), min(left + kw, width)):
                        total += x[n, c, hi, wj]
                y[n, c, oh, ow] = total / area
    return y


@njit(cache=True)
def _avg_pool_backward(g, height, width, kh, kw, sh, sw, ph, pw):  # pragma: no cover (jit)
    n_batch, channels, out_height, out_width = g.shape
    grad = np.zeros((n_batch, channels, height, width), dtype=g.dtype)
    area = kh * kw
    for plane in range(n_batch * channels):
        n = plane // channels
        c = plane % channels
        for oh in range(out_height):
            top = oh * sh - ph
            for ow in range(out_width):
                left = ow * sw - pw
                share = g[n, c, oh, ow] / area
                for hi in range(max(top, 0), min(top + kh, height)):
                    for wj in range(max(left, 0), min(left + kw, width)):
                        grad[n, c, hi, wj] += share
    return grad


def max_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair,
                       padding: Pair) -> tuple[np.ndarray, np.ndarray]:
    """Window maxima and their flat input indices; see `reference.max_pool2d_forward`."""
    height, width = x.shape[2:]
    out_height = output_size(height, kernel[0], stride[0], padding[0])
    out_width = output_size(width, kernel[1], stride[1], padding[1])
    return _max_pool(np.ascontiguousarray(x), kernel[0], kernel[1], stride[0], stride[1],
                     padding[0], padding[1], out_height, out_width)


def max_pool2d_backward(grad_output: np.ndarray, indices: np.ndarray,
                        input_shape: tuple) -> np.ndarray:
    return _max_pool_backward(np.ascontiguousarray(grad_output), np.ascontiguousarray(indices),
                              input_shape[2], input_shape[3])


def avg_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair, padding: Pair) -> np.ndarray:
    height, width = x.shape[2:]
    out_height = output_size(height, kernel[0], stride[0], padding[0])
    out_width = output_size(width, kernel[1], stride[1], padding[1])
    return _avg_pool(np.ascontiguousarray(x), kernel[0], kernel[1], stride[0], stride[1],
                     padding[0], padding[1], out_height, out_width)


def avg_pool2d_backward(grad_output: np.ndarray, input_shape: tuple, kernel: Pair,
                        stride: Pair, padding: Pair) -> np.ndarray:
    return _avg_pool_backward(np.ascontiguousarray(grad_output), input_shape[2],
                              input_shape[3], kernel[0], kernel[1], stride[0], stride[1],
                              padding[0], padding[1])
