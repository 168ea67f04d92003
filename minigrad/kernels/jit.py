"""Convolution and pooling as numba kernels: the loops of `reference`, compiled and parallel.

Same functions, same arguments, same results as `reference` and `im2col` (the tests check
all three against each other). Importing this module imports numba; `minigrad.kernels`
does that only when a kernel is first needed, and falls back to `im2col` without numba.

Where the speed comes from (x 32×16×28×28, w 32×16×3×3, 2 cores):

* **two compiled conv loops serve all three conv functions**: the input gradient is the
  forward correlation again (of grad_y with the kernel rotated 180°), and a stride s > 1 is
  the stride-1 loop on a grid dilated by s. Fewer kernels also means less compile time;
* **parallel loops** (`prange`) over independent pieces of the output: (image, block of
  output channels) for the correlation, (input channel, block of output channels) for the
  weight gradient; no two threads write the same element, so no locks are needed;
* **flat rows**: with the padded input stored row after row, the window that output pixel
  q = oh·Wp + ow reads at kernel offset (i, j) starts at q + i·Wp + j. So for one offset,
  *all* output pixels read one contiguous 1-D slice of the input, and the innermost loop is
  a long, unit-stride multiply-add that LLVM turns into SIMD instructions. The price: the
  output is computed on the padded width Wp and the Wp - OW extra columns are dropped;
* **blocking over 4 output channels**: each input value loaded feeds 4 products, so the loop
  is limited by arithmetic rather than by loads.

Pooling is memory-bound and cheap; its loops run on one thread (no `parallel=True`, which
would triple their compile time for little gain on 2 cores).

`fastmath=True` lets LLVM reorder float additions (needed to vectorise the reductions of
the weight gradient); results differ from the reference only by rounding.
`cache=True` stores the machine code on disk (see `minigrad.kernels.cache`), so only the
first run on a machine pays the compilation (a few seconds per kernel and dtype).
"""

from __future__ import annotations

import numpy as np

from minigrad.kernels.cache import choose_cache_dir
from minigrad.kernels.reference import Pair, output_size

_CACHE_DIR = choose_cache_dir()  # before numba reads its configuration (see kernels.cache)

import numba  # noqa: E402
from numba import njit, prange  # noqa: E402

if _CACHE_DIR is not None:  # numba may have been imported, and configured, before us
    numba.config.CACHE_DIR = _CACHE_DIR

BLOCK = 4  # output channels computed together (each input load feeds 4 products)


def _pad(x: np.ndarray, padding: Pair, value: float = 0.0) -> np.ndarray:
    ph, pw = padding
    if ph == 0 and pw == 0:
        return np.ascontiguousarray(x)
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=value)


# ----------------------------------------------------------------------------- stride 1, flat rows
@njit(parallel=True, cache=True, fastmath=True)
def _correlate_flat(x_flat, w, row_width, out_height, out_width):  # pragma: no cover (jit)
    """y_wide[n, o, q] = Σ_c,i,j w[o, c, i, j] · x_flat[n, c, q + i·row_width + j]
    for q < (out_height - 1)·row_width + out_width; shape (N, O, out_height·row_width).
    O must be a multiple of BLOCK (the caller pads w with zero kernels)."""
    n_batch, channels, _ = x_flat.shape
    out_channels, _, kh, kw = w.shape
    length = (out_height - 1) * row_width + out_width
    y = np.zeros((n_batch, out_channels, out_height * row_width), dtype=x_flat.dtype)
    blocks = out_channels // BLOCK
    for task in prange(n_batch * blocks):
        n = task // blocks
        o0 = (task % blocks) * BLOCK
        y0 = y[n, o0]
        y1 = y[n, o0 + 1]
        y2 = y[n, o0 + 2]
        y3 = y[n, o0 + 3]
        for c in range(channels):
            for i in range(kh):
                for j in range(kw):
                    source = x_flat[n, c, i * row_width + j:i * row_width + j + length]
                    w0 = w[o0, c, i, j]
                    w1 = w[o0 + 1, c, i, j]
                    w2 = w[o0 + 2, c, i, j]
                    w3 = w[o0 + 3, c, i, j]
                    for q in range(length):
                        value = source[q]
                        y0[q] += w0 * value
                        y1[q] += w1 * value
                        y2[q] += w2 * value
                        y3[q] += w3 * value
    return y


@njit(parallel=True, cache=True, fastmath=True)
def _weight_grad_flat(x_flat, g_wide, kh, kw, row_width, length):  # pragma: no cover (jit)
    """grad_w[o, c, i, j] = Σ_n Σ_q g_wide[n, o, q] · x_flat[n, c, q + i·row_width + j]
    (g_wide is zero in the dropped columns, so they add nothing). O must be a multiple of
    BLOCK (the caller pads g_wide with zero maps)."""
    n_batch, channels, _ = x_flat.shape
    out_channels = g_wide.shape[1]
    grad_w = np.zeros((out_channels, channels, kh, kw), dtype=x_flat.dtype)
    blocks = out_channels // BLOCK
    for task in prange(channels * blocks):
        c = task // blocks
        o0 = (task % blocks) * BLOCK
        for i in range(kh):
            for j in range(kw):
                start = i * row_width + j
                sums = np.zeros(BLOCK, dtype=x_flat.dtype)  # accumulate in the input dtype
                t0, t1, t2, t3 = sums[0], sums[1], sums[2], sums[3]
                for n in range(n_batch):
                    source = x_flat[n, c, start:start + length]
                    g0 = g_wide[n, o0]
                    g1 = g_wide[n, o0 + 1]
                    g2 = g_wide[n, o0 + 2]
                    g3 = g_wide[n, o0 + 3]
                    for q in range(length):
                        value = source[q]
                        t0 += g0[q] * value
                        t1 += g1[q] * value
                        t2 += g2[q] * value
                        t3 += g3[q] * value
                grad_w[o0, c, i, j] = t0
                grad_w[o0 + 1, c, i, j] = t1
                grad_w[o0 + 2, c, i, j] = t2
                grad_w[o0 + 3, c, i, j] = t3
    return grad_w


# ----------------------------------------------------------------------------- public: conv
def _dilate(g: np.ndarray, stride: Pair) -> np.ndarray:
    """g with stride - 1 zeros between neighbours: a strided conv's output laid out on the
    stride-1 grid, so the two flat kernels above serve every stride."""
    if stride == (1, 1):
        return g
    n_batch, channels, height, width = g.shape
    spread = np.zeros((n_batch, channels, (height - 1) * stride[0] + 1,
                       (width - 1) * stride[1] + 1), dtype=g.dtype)
    spread[:, :, ::stride[0], ::stride[1]] = g
    return spread


def _to_blocks(maps: np.ndarray, axis: int = 0) -> np.ndarray:
    """maps with zero maps appended along `axis` up to a multiple of BLOCK (contiguous)."""
    missing = -maps.shape[axis] % BLOCK
    if missing:
        widths = [(0, 0)] * maps.ndim
        widths[axis] = (0, missing)
        maps = np.pad(maps, widths)
    return np.ascontiguousarray(maps)


def _correlate(x_pad: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Stride-1 correlation of an already padded input: (N, O, Hp - kh + 1, Wp - kw + 1)."""
    n_batch, channels, padded_height, padded_width = x_pad.shape
    kh, kw = w.shape[2:]
    out_height, out_width = padded_height - kh + 1, padded_width - kw + 1
    x_flat = np.ascontiguousarray(x_pad).reshape(n_batch, channels, padded_height * padded_width)
    wide = _correlate_flat(x_flat, _to_blocks(w), padded_width, out_height, out_width)
    wide = wide.reshape(n_batch, -1, out_height, padded_width)  # (N, O rounded up, OH, Wp)
    return wide[:, :w.shape[0], :, :out_width]


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair) -> np.ndarray:
    """y (N, O, OH, OW); see `reference.conv2d_forward`.

    A stride s > 1 computes the stride-1 result and keeps every s-th row and column: s² times
    the work, accepted to keep one compiled kernel (strided convs are rare in this course).
    """
    height, width = x.shape[2:]
    kh, kw = w.shape[2:]
    out_height = output_size(height, kh, stride[0], padding[0])
    out_width = output_size(width, kw, stride[1], padding[1])
    y = _correlate(_pad(x, padding), w.astype(x.dtype, copy=False))
    if stride != (1, 1):
        y = y[:, :, ::stride[0], ::stride[1]][:, :, :out_height, :out_width]
    return np.ascontiguousarray(y)


def conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                      stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂x (N, C, H, W); see `reference.conv2d_grad_input`.

    The "full" correlation of grad_y (dilated by the stride, zero-padded by k - 1) with the
    kernel rotated by 180° and its two channel axes swapped: the forward kernel once more.
    """
    height, width = input_shape[2:]
    kh, kw = w.shape[2:]
    ph, pw = padding
    g = _dilate(np.ascontiguousarray(grad_output), stride)
    rotated = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3), dtype=g.dtype)
    if stride == (1, 1) and ph <= kh - 1 and pw <= kw - 1:  # exactly the input's size
        return np.ascontiguousarray(_correlate(_pad(g, (kh - 1 - ph, kw - 1 - pw)), rotated))
    # General case: the gradient of the padded input (rows the windows never reach stay 0),
    # then the padding cut off.
    full = _correlate(_pad(g, (kh - 1, kw - 1)), rotated)
    grad_pad = np.zeros(input_shape[:2] + (height + 2 * ph, width + 2 * pw), dtype=g.dtype)
    grad_pad[:, :, :full.shape[2], :full.shape[3]] = full
    return np.ascontiguousarray(grad_pad[:, :, ph:ph + height, pw:pw + width])


def conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                       stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂w (O, C, kh, kw); see `reference.conv2d_grad_weight`."""
    kh, kw = weight_shape[2:]
    x_pad = _pad(x, padding)
    n_batch, channels, padded_height, padded_width = x_pad.shape
    g = _dilate(np.ascontiguousarray(grad_output, dtype=x.dtype), stride)
    out_height, out_width = g.shape[2:]
    # grad_y on the padded width: zeros in the extra columns, so they add nothing.
    out_channels = g.shape[1]
    g_wide = np.zeros((n_batch, out_channels + -out_channels % BLOCK, out_height, padded_width),
                      dtype=g.dtype)
    g_wide[:, :out_channels, :, :out_width] = g
    length = (out_height - 1) * padded_width + out_width
    grad_w = _weight_grad_flat(x_pad.reshape(n_batch, channels, -1),
                               g_wide.reshape(n_batch, g_wide.shape[1], -1), kh, kw,
                               padded_width, length)
    return grad_w[:out_channels]


def conv2d_grad_bias(grad_output: np.ndarray) -> np.ndarray:
    return grad_output.sum(axis=(0, 2, 3))


# ----------------------------------------------------------------------------- pooling
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
