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
* **blocking over 4 output channels and 3 kernel columns**: each input value loaded feeds
  4 products, and each output value is loaded and stored once per 3 kernel taps instead of
  once per tap, so the loop is limited by arithmetic rather than by memory traffic. (The
  kernel is padded with zeros to a multiple of 4 channels and 3 columns; the kernel and
  the output map of one task fit in the L1/L2 cache.)

The pooling kernels live in `jit_pool` (re-exported here, so this module offers all seven
functions, like `reference` and `im2col`). `minigrad.kernels` sends float32 here and
float64 to `im2col`, so each kernel is compiled once; called directly, these accept both.

`fastmath=True` lets LLVM reorder float additions (needed to vectorise the reductions of
the weight gradient); results differ from the reference only by rounding.
`cache=True` stores the machine code on disk (see `minigrad.kernels.cache`), so only the
first run on a machine pays the compilation (a few seconds per kernel and dtype).
"""

from __future__ import annotations

import numpy as np

from minigrad.kernels.compiler import njit, prange
from minigrad.kernels.jit_pool import (avg_pool2d_backward, avg_pool2d_forward,  # noqa: F401
                                       max_pool2d_backward, max_pool2d_forward)
from minigrad.kernels.reference import Pair, output_size

BLOCK = 4  # output channels computed together (each input value loaded feeds 4 of them)
TAPS = 3  # neighbouring kernel columns computed together (each output is stored once per 3)


# ----------------------------------------------------------------------------- stride 1, flat rows
@njit(parallel=True, cache=True, fastmath=True)
def _correlate_flat(x_flat, w, row_width, out_height, out_width):  # pragma: no cover (jit)
    """y[n, o, oh, ow] = Σ_c,i,j w[o, c, i, j] · x_flat[n, c, q + i·row_width + j] where
    q = oh·row_width + ow; shape (N, O, out_height, out_width).

    The caller pads w with zero kernels to a multiple of BLOCK output channels and with zero
    columns to a multiple of TAPS, and leaves TAPS - 1 zeros after the last row of x_flat.
    """
    n_batch, channels, _ = x_flat.shape
    out_channels, _, kh, kw = w.shape
    length = (out_height - 1) * row_width + out_width
    y = np.empty((n_batch, out_channels, out_height, out_width), dtype=x_flat.dtype)
    blocks = out_channels // BLOCK
    for task in prange(n_batch * blocks):
        n = task // blocks
        o = (task % blocks) * BLOCK
        # This task's 4 output maps, on the padded width: small enough to stay in cache.
        wide = np.zeros((BLOCK, out_height * row_width), dtype=x_flat.dtype)
        y0, y1, y2, y3 = wide[0], wide[1], wide[2], wide[3]
        for c in range(channels):
            for i in range(kh):
                for j in range(0, kw, TAPS):  # three neighbouring taps of one kernel row
                    start = i * row_width + j
                    s0 = x_flat[n, c, start:start + length]
                    s1 = x_flat[n, c, start + 1:start + 1 + length]
                    s2 = x_flat[n, c, start + 2:start + 2 + length]
                    a0, b0, c0 = w[o, c, i, j], w[o, c, i, j + 1], w[o, c, i, j + 2]
                    a1, b1, c1 = w[o + 1, c, i, j], w[o + 1, c, i, j + 1], w[o + 1, c, i, j + 2]
                    a2, b2, c2 = w[o + 2, c, i, j], w[o + 2, c, i, j + 1], w[o + 2, c, i, j + 2]
                    a3, b3, c3 = w[o + 3, c, i, j], w[o + 3, c, i, j + 1], w[o + 3, c, i, j + 2]
                    for q in range(length):
                        v0, v1, v2 = s0[q], s1[q], s2[q]
                        y0[q] += a0 * v0 + b0 * v1 + c0 * v2
                        y1[q] += a1 * v0 + b1 * v1 + c1 * v2
                        y2[q] += a2 * v0 + b2 * v1 + c2 * v2
                        y3[q] += a3 * v0 + b3 * v1 + c3 * v2
        for k in range(BLOCK):  # keep the out_width real columns of each padded-width row
            for oh in range(out_height):
                y[n, o + k, oh, :] = wide[k, oh * row_width:oh * row_width + out_width]
    return y


@njit(parallel=True, cache=True, fastmath=True)
def _weight_grad_flat(x_flat, g_wide, kh, kw, row_width, length):  # pragma: no cover (jit)
    """grad_w[o, c, i, j] = Σ_n Σ_q g_wide[n, o, q] · x_flat[n, c, q + i·row_width + j]
    (g_wide is zero in the dropped columns, so they add nothing). As for `_correlate_flat`,
    O is a multiple of BLOCK, kw a multiple of TAPS, and x_flat ends with TAPS - 1 zeros."""
    n_batch, channels, _ = x_flat.shape
    out_channels = g_wide.shape[1]
    grad_w = np.zeros((out_channels, channels, kh, kw), dtype=x_flat.dtype)
    blocks = out_channels // BLOCK
    for task in prange(channels * blocks):
        c = task // blocks
        o = (task % blocks) * BLOCK
        for i in range(kh):
            for j in range(0, kw, TAPS):
                start = i * row_width + j
                zero = np.zeros(1, dtype=x_flat.dtype)[0]  # accumulate in the input dtype
                t00 = t01 = t02 = t10 = t11 = t12 = t20 = t21 = t22 = t30 = t31 = t32 = zero
                for n in range(n_batch):
                    s0 = x_flat[n, c, start:start + length]
                    s1 = x_flat[n, c, start + 1:start + 1 + length]
                    s2 = x_flat[n, c, start + 2:start + 2 + length]
                    g0, g1, g2, g3 = g_wide[n, o], g_wide[n, o + 1], g_wide[n, o + 2], g_wide[n, o + 3]
                    for q in range(length):
                        v0, v1, v2 = s0[q], s1[q], s2[q]
                        e = g0[q]
                        t00 += e * v0
                        t01 += e * v1
                        t02 += e * v2
                        e = g1[q]
                        t10 += e * v0
                        t11 += e * v1
                        t12 += e * v2
                        e = g2[q]
                        t20 += e * v0
                        t21 += e * v1
                        t22 += e * v2
                        e = g3[q]
                        t30 += e * v0
                        t31 += e * v1
                        t32 += e * v2
                grad_w[o, c, i, j], grad_w[o, c, i, j + 1], grad_w[o, c, i, j + 2] = t00, t01, t02
                grad_w[o + 1, c, i, j], grad_w[o + 1, c, i, j + 1], grad_w[o + 1, c, i, j + 2] = t10, t11, t12
                grad_w[o + 2, c, i, j], grad_w[o + 2, c, i, j + 1], grad_w[o + 2, c, i, j + 2] = t20, t21, t22
                grad_w[o + 3, c, i, j], grad_w[o + 3, c, i, j + 1], grad_w[o + 3, c, i, j + 2] = t30, t31, t32
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


def _flat_padded(x: np.ndarray, padding: Pair) -> tuple[np.ndarray, int, int]:
    """x zero-padded, each (padded) image plane stored as one flat row followed by TAPS - 1
    zeros (the slack the kernels' last three-tap group may read); and the padded Hp, Wp."""
    n_batch, channels, height, width = x.shape
    padded_height, padded_width = height + 2 * padding[0], width + 2 * padding[1]
    plane = padded_height * padded_width
    flat = np.zeros((n_batch, channels, plane + TAPS - 1), dtype=x.dtype)
    image = flat[:, :, :plane].reshape(n_batch, channels, padded_height, padded_width)
    image[:, :, padding[0]:padding[0] + height, padding[1]:padding[1] + width] = x
    return flat, padded_height, padded_width


def _to_blocks(w: np.ndarray) -> np.ndarray:
    """w with zero kernels appended up to a multiple of BLOCK output channels and zero
    columns up to a multiple of TAPS kernel columns (contiguous)."""
    missing_out = -w.shape[0] % BLOCK
    missing_columns = -w.shape[3] % TAPS
    if missing_out or missing_columns:
        w = np.pad(w, ((0, missing_out), (0, 0), (0, 0), (0, missing_columns)))
    return np.ascontiguousarray(w)


def _correlate(x: np.ndarray, w: np.ndarray, padding: Pair) -> np.ndarray:
    """Stride-1 correlation of x zero-padded by `padding`: (N, O, Hp - kh + 1, Wp - kw + 1)."""
    x_flat, padded_height, padded_width = _flat_padded(x, padding)
    kh, kw = w.shape[2:]
    out_height, out_width = padded_height - kh + 1, padded_width - kw + 1
    y = _correlate_flat(x_flat, _to_blocks(w.astype(x.dtype, copy=False)), padded_width,
                        out_height, out_width)
    return y[:, :w.shape[0]]  # without the zero kernels that rounded O up to BLOCK


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair) -> np.ndarray:
    """y (N, O, OH, OW); see `reference.conv2d_forward`.

    A stride s > 1 computes the stride-1 result and keeps every s-th row and column: s² times
    the work, accepted to keep one compiled kernel (strided convs are rare in this course).
    """
    height, width = x.shape[2:]
    kh, kw = w.shape[2:]
    y = _correlate(x, w, padding)
    if stride != (1, 1):
        out_height = output_size(height, kh, stride[0], padding[0])
        out_width = output_size(width, kw, stride[1], padding[1])
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
    g = _dilate(grad_output, stride)
    rotated = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
    if stride == (1, 1) and ph <= kh - 1 and pw <= kw - 1:  # exactly the input's size
        return np.ascontiguousarray(_correlate(g, rotated, (kh - 1 - ph, kw - 1 - pw)))
    # General case: the gradient of the padded input (rows the windows never reach stay 0),
    # then the padding cut off.
    full = _correlate(g, rotated, (kh - 1, kw - 1))
    grad_pad = np.zeros(tuple(input_shape[:2]) + (height + 2 * ph, width + 2 * pw), dtype=g.dtype)
    grad_pad[:, :, :full.shape[2], :full.shape[3]] = full
    return np.ascontiguousarray(grad_pad[:, :, ph:ph + height, pw:pw + width])


def conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                       stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂w (O, C, kh, kw); see `reference.conv2d_grad_weight`."""
    out_channels, _, kh, kw = weight_shape
    x_flat, _, padded_width = _flat_padded(x, padding)
    g = _dilate(grad_output.astype(x.dtype, copy=False), stride)
    n_batch, _, out_height, out_width = g.shape
    # grad_y on the padded width, zero in the extra columns (so they add nothing) and in the
    # extra output channels that round O up to a multiple of BLOCK.
    g_wide = np.zeros((n_batch, out_channels + -out_channels % BLOCK, out_height, padded_width),
                      dtype=g.dtype)
    g_wide[:, :out_channels, :, :out_width] = g
    length = (out_height - 1) * padded_width + out_width
    grad_w = _weight_grad_flat(x_flat, g_wide.reshape(n_batch, g_wide.shape[1], -1), kh,
                               kw + -kw % TAPS, padded_width, length)
    return np.ascontiguousarray(grad_w[:out_channels, :, :, :kw])


def conv2d_grad_bias(grad_output: np.ndarray) -> np.ndarray:
    return grad_output.sum(axis=(0, 2, 3))
