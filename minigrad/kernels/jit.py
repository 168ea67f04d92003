"""Convolution and pooling as numba kernels: the loops of `reference`, compiled and parallel.

Same functions, same arguments, same results as `reference` and `im2col` (the tests check
all three against each other). Importing this module imports numba; `minigrad.kernels`
does that only when a kernel is first needed, and falls back to `im2col` without numba.

Where the speed comes from (x 32×16×28×28, w 32×16×3×3, 2 cores):

* **two compiled conv loops serve all three conv functions**: the input gradient is the
  forward correlation again (of grad_y with the kernel rotated 180°), and a stride s > 1 is
  the stride-1 loop on a grid dilated by s. Fewer kernels also means less compile time;
* **parallel loops** (`prange`) over independent pieces of the output: (image, block of
  output channels) for the correlation, (pair of output channels, input channel, 3×3
  tile of kernel taps) for the weight gradient, (image, channel) for `_flat_planes`; no two
  threads write the same element, so no locks are needed;
* **flat rows**: with the padded input stored row after row, the window that output pixel
  q = oh·Wp + ow reads at kernel offset (i, j) starts at q + i·Wp + j. So for one offset,
  *all* output pixels read one contiguous 1-D slice of the input, and the innermost loop is
  a long, unit-stride multiply-add that LLVM turns into SIMD instructions. The price: the
  output is computed on the padded width Wp and the Wp - OW extra columns are dropped;
* **blocking over 8 output channels and 3 kernel columns**: each input value loaded feeds
  8 products, and each output value is loaded and stored once per 3 kernel taps instead of
  once per tap, so the loop is limited by arithmetic rather than by memory traffic. (The
  kernel is padded with zeros to a multiple of 8 channels and 3 columns; the kernel and
  the output maps of one task fit in the L1/L2 cache.) The weight gradient keeps its
  running sums in registers instead: 2 output channels × a 3×3 tile of taps, 18 sums;
* **512-bit vectors where the CPU has them**: on AVX-512 CPUs `minigrad.kernels.compiler`
  asks LLVM for the host's own features without its preference for 256-bit vectors, so one
  multiply-add instruction works on 16 floats instead of 8 (in alternating runs against
  PyTorch, the conv ratio in CPU time went from 1.30–1.51× to 1.21–1.36×);
* **no serial numpy copies around the loops**: the padded, flat copies of x and grad_y
  that the loops read are built by one more parallel kernel (`_flat_planes`), which also
  spreads grad_y out for strided convs; the forward loop writes only the real output
  channels, so its result needs no further copy.

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

from minigrad.kernels import im2col, jit_gemm
from minigrad.kernels.compiler import njit, prange
from minigrad.kernels.jit_pool import (avg_pool2d_backward, avg_pool2d_forward,  # noqa: F401
                                       max_pool2d_backward, max_pool2d_forward)
from minigrad.kernels.reference import Pair, output_size

BLOCK = 8  # output channels computed together (each input value loaded feeds 8 of them)
GRAD_BLOCK = 2  # output channels whose weight gradients are accumulated together
TAPS = 3  # neighbouring kernel columns computed together (each output is stored once per 3)


# ----------------------------------------------------------------------------- flat planes
@njit(parallel=True, cache=True)
def _flat_planes(x, channels, top, left, step_h, step_w, height, width, slack):  # pragma: no cover (jit)
    """x (N, C, H, W) laid out as flat planes: flat[n, c, (top + h·step_h)·width + left +
    w·step_w] = x[n, c, h, w], zero everywhere else; shape (N, channels, height·width + slack).

    One helper builds every layout the two loops below read: x zero-padded (top = ph,
    left = pw, steps 1), grad_y dilated by the stride (steps = stride) and padded, grad_y on
    the padded width with zero columns (top = left = 0); channels ≥ C adds zero planes, and
    the slack is the zeros the loops may read past the last row. Each plane is filled by
    one thread, so this copy runs in parallel too.
    """
    n_batch, old_channels, old_height, old_width = x.shape
    flat = np.empty((n_batch, channels, height * width + slack), dtype=x.dtype)
    for plane in prange(n_batch * channels):
        n, c = plane // channels, plane % channels
        out = flat[n, c]
        # Plain loops: numba turns them into fast vector code, and slices with a step into
        # slow generic copies.
        if c >= old_channels or step_w > 1:
            for k in range(out.size):
                out[k] = 0
            for h in range(old_height if c < old_channels else 0):
                row = (top + h * step_h) * width + left
                for k in range(old_width):
                    out[row + k * step_w] = x[n, c, h, k]
        else:  # contiguous rows: write each element once, zeros only between the rows
            written = 0
            for h in range(old_height):
                row = (top + h * step_h) * width + left
                for k in range(written, row):
                    out[k] = 0
                target, source = out[row:row + old_width], x[n, c, h]
                for k in range(old_width):
                    target[k] = source[k]
                written = row + old_width
            for k in range(written, out.size):
                out[k] = 0
    return flat


# ----------------------------------------------------------------------------- stride 1, flat rows
@njit(parallel=True, cache=True, fastmath=True)
def _correlate_flat(x_flat, w, row_width, y):  # pragma: no cover (jit)
    """Fills y (N, O, out_height, out_width), allocated by the caller:
    y[n, o, oh, ow] = Σ_c,i,j w[o, c, i, j] · x_flat[n, c, q + i·row_width + j] where
    q = oh·row_width + ow.

    The caller pads w with zero kernels to a multiple of BLOCK output channels (the results
    of those are not stored) and with zero columns to a multiple of TAPS, and leaves
    TAPS - 1 zeros after the last row of x_flat. (y comes from numpy rather than from
    numba so that the autograd engine can keep it as a gradient without copying it.)
    """
    n_batch, channels, _ = x_flat.shape
    _, _, kh, kw = w.shape
    _, out_channels, out_height, out_width = y.shape
    length = (out_height - 1) * row_width + out_width
    blocks = w.shape[0] // BLOCK
    for task in prange(n_batch * blocks):
        n = task // blocks
        o = (task % blocks) * BLOCK
        # This task's 8 output maps, on the padded width: small enough to stay in cache.
        wide = np.zeros((BLOCK, out_height * row_width), dtype=x_flat.dtype)
        y0, y1, y2, y3, y4, y5, y6, y7 = (wide[0], wide[1], wide[2], wide[3], wide[4], wide[5],
                                          wide[6], wide[7])
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
                    a4, b4, c4 = w[o + 4, c, i, j], w[o + 4, c, i, j + 1], w[o + 4, c, i, j + 2]
                    a5, b5, c5 = w[o + 5, c, i, j], w[o + 5, c, i, j + 1], w[o + 5, c, i, j + 2]
                    a6, b6, c6 = w[o + 6, c, i, j], w[o + 6, c, i, j + 1], w[o + 6, c, i, j + 2]
                    a7, b7, c7 = w[o + 7, c, i, j], w[o + 7, c, i, j + 1], w[o + 7, c, i, j + 2]
                    for q in range(length):
                        v0, v1, v2 = s0[q], s1[q], s2[q]
                        y0[q] += a0 * v0 + b0 * v1 + c0 * v2
                        y1[q] += a1 * v0 + b1 * v1 + c1 * v2
                        y2[q] += a2 * v0 + b2 * v1 + c2 * v2
                        y3[q] += a3 * v0 + b3 * v1 + c3 * v2
                        y4[q] += a4 * v0 + b4 * v1 + c4 * v2
                        y5[q] += a5 * v0 + b5 * v1 + c5 * v2
                        y6[q] += a6 * v0 + b6 * v1 + c6 * v2
                        y7[q] += a7 * v0 + b7 * v1 + c7 * v2
        # Keep the out_width real columns of each padded-width row, of the real channels.
        for k in range(min(BLOCK, out_channels - o)):
            for oh in range(out_height):
                y[n, o + k, oh, :] = wide[k, oh * row_width:oh * row_width + out_width]


@njit(parallel=True, cache=True, fastmath=True)
def _weight_grad_flat(x_flat, g_wide, kh, kw, row_width, length):  # pragma: no cover (jit)
    """grad_w[o, c, i, j] = Σ_n Σ_q g_wide[n, o, q] · x_flat[n, c, q + i·row_width + j]
    (g_wide is zero in the dropped columns, so they add nothing).

    Blocked over GRAD_BLOCK = 2 output channels and a 3×3 tile of taps: 18 running sums,
    each input value loaded feeds 2 of them, each grad_y value 9. The caller rounds O up
    to a multiple of 2 and kh, kw up to multiples of TAPS, and leaves enough zeros after
    the last row of x_flat for the extra rows and columns.
    """
    n_batch, channels, _ = x_flat.shape
    out_channels = g_wide.shape[1]
    grad_w = np.zeros((out_channels, channels, kh, kw), dtype=x_flat.dtype)
    blocks, tile_rows, tile_columns = out_channels // GRAD_BLOCK, kh // TAPS, kw // TAPS
    tiles = tile_rows * tile_columns
    # task = (pair of o, c, tile of taps), in this order: consecutive tasks share the pair's
    # grad_y rows, which stay in cache, and each pair reads all of x once (in most layers
    # x has fewer channels than grad_y; the other order was 10% slower here).
    for task in prange(blocks * channels * tiles):
        o, c = (task // (channels * tiles)) * GRAD_BLOCK, task // tiles % channels
        i, j = (task % tiles // tile_columns) * TAPS, (task % tile_columns) * TAPS
        zero = np.zeros(1, dtype=x_flat.dtype)[0]  # accumulate in the input dtype
        a00 = a01 = a02 = a10 = a11 = a12 = a20 = a21 = a22 = zero  # output channel o
        b00 = b01 = b02 = b10 = b11 = b12 = b20 = b21 = b22 = zero  # output channel o + 1
        for n in range(n_batch):
            ga, gb = g_wide[n, o], g_wide[n, o + 1]
            start = i * row_width + j  # the 3×3 tile: three taps of three kernel rows
            r00 = x_flat[n, c, start:start + length]
            r01 = x_flat[n, c, start + 1:start + 1 + length]
            r02 = x_flat[n, c, start + 2:start + 2 + length]
            start += row_width
            r10 = x_flat[n, c, start:start + length]
            r11 = x_flat[n, c, start + 1:start + 1 + length]
            r12 = x_flat[n, c, start + 2:start + 2 + length]
            start += row_width
            r20 = x_flat[n, c, start:start + length]
            r21 = x_flat[n, c, start + 1:start + 1 + length]
            r22 = x_flat[n, c, start + 2:start + 2 + length]
            for q in range(length):
                e, f = ga[q], gb[q]
                v = r00[q]
                a00 += e * v
                b00 += f * v
                v = r01[q]
                a01 += e * v
                b01 += f * v
                v = r02[q]
                a02 += e * v
                b02 += f * v
                v = r10[q]
                a10 += e * v
                b10 += f * v
                v = r11[q]
                a11 += e * v
                b11 += f * v
                v = r12[q]
                a12 += e * v
                b12 += f * v
                v = r20[q]
                a20 += e * v
                b20 += f * v
                v = r21[q]
                a21 += e * v
                b21 += f * v
                v = r22[q]
                a22 += e * v
                b22 += f * v
        grad_w[o, c, i, j], grad_w[o, c, i, j + 1], grad_w[o, c, i, j + 2] = a00, a01, a02
        grad_w[o, c, i + 1, j], grad_w[o, c, i + 1, j + 1], grad_w[o, c, i + 1, j + 2] = a10, a11, a12
        grad_w[o, c, i + 2, j], grad_w[o, c, i + 2, j + 1], grad_w[o, c, i + 2, j + 2] = a20, a21, a22
        b = o + 1
        grad_w[b, c, i, j], grad_w[b, c, i, j + 1], grad_w[b, c, i, j + 2] = b00, b01, b02
        grad_w[b, c, i + 1, j], grad_w[b, c, i + 1, j + 1], grad_w[b, c, i + 1, j + 2] = b10, b11, b12
        grad_w[b, c, i + 2, j], grad_w[b, c, i + 2, j + 1], grad_w[b, c, i + 2, j + 2] = b20, b21, b22
    return grad_w


# ----------------------------------------------------------------------------- public: conv
def _to_blocks(w: np.ndarray) -> np.ndarray:
    """w with zero kernels appended up to a multiple of BLOCK output channels and zero
    columns up to a multiple of TAPS kernel columns (contiguous)."""
    missing_out = -w.shape[0] % BLOCK
    missing_columns = -w.shape[3] % TAPS
    if missing_out or missing_columns:
        w = np.pad(w, ((0, missing_out), (0, 0), (0, 0), (0, missing_columns)))
    return np.ascontiguousarray(w)


def _correlate(x: np.ndarray, w: np.ndarray, padding: Pair, spread: Pair = (1, 1)) -> np.ndarray:
    """Stride-1 correlation of x spread out by `spread` (spread - 1 zeros between neighbours:
    a strided conv's output laid out on the stride-1 grid) and zero-padded by `padding`:
    (N, O, Hp - kh + 1, Wp - kw + 1), Hp = (H - 1)·spread + 1 + 2·padding (likewise Wp)."""
    n_batch, channels, height, width = x.shape
    padded_height = (height - 1) * spread[0] + 1 + 2 * padding[0]
    padded_width = (width - 1) * spread[1] + 1 + 2 * padding[1]
    x_flat = _flat_planes(np.ascontiguousarray(x), channels, padding[0], padding[1], spread[0],
                          spread[1], padded_height, padded_width, TAPS - 1)
    kh, kw = w.shape[2:]
    y = np.empty((n_batch, w.shape[0], padded_height - kh + 1, padded_width - kw + 1),
                 dtype=x.dtype)
    _correlate_flat(x_flat, _to_blocks(w.astype(x.dtype, copy=False)), padded_width, y)
    return y


def _spoilt_by_padding(y: np.ndarray, kw: int) -> bool:
    """True if y may hold a nan that exact arithmetic would not: the kernel was padded with
    zero columns (kw not a multiple of TAPS), and 0 · inf = nan where those columns met an
    inf or nan beside a window. Such results are recomputed with im2col. (3×3 kernels need
    no padding, so they never pay for this check.)"""
    return kw % TAPS != 0 and not np.isfinite(y).all()


def flat_conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair) -> np.ndarray:
    """y (N, O, OH, OW) by the flat-row loops; see `reference.conv2d_forward`.

    A stride s > 1 computes the stride-1 result and keeps every s-th row and column: s² times
    the work, accepted to keep one compiled kernel (strided convs are rare in this course).
    """
    height, width = x.shape[2:]
    kh, kw = w.shape[2:]
    y = _correlate(x, w, padding)
    if _spoilt_by_padding(y, kw):
        return im2col.conv2d_forward(x, w, stride, padding)
    if stride == (1, 1):
        return y
    out_height = output_size(height, kh, stride[0], padding[0])
    out_width = output_size(width, kw, stride[1], padding[1])
    return np.ascontiguousarray(y[:, :, ::stride[0], ::stride[1]][:, :, :out_height, :out_width])


def flat_conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                           stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂x (N, C, H, W) by the flat-row loops; see `reference.conv2d_grad_input`.

    The "full" correlation of grad_y (spread out by the stride, zero-padded by k - 1) with
    the kernel rotated by 180° and its two channel axes swapped: the forward kernel once more.
    """
    height, width = input_shape[2:]
    kh, kw = w.shape[2:]
    ph, pw = padding
    rotated = w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
    if stride == (1, 1) and ph <= kh - 1 and pw <= kw - 1:  # exactly the input's size
        grad_x = _correlate(grad_output, rotated, (kh - 1 - ph, kw - 1 - pw))
    else:
        # General case: the gradient of the padded input (rows the windows never reach stay
        # 0), then the padding cut off.
        full = _correlate(grad_output, rotated, (kh - 1, kw - 1), stride)
        grad_pad = np.zeros(tuple(input_shape[:2]) + (height + 2 * ph, width + 2 * pw),
                            dtype=full.dtype)
        grad_pad[:, :, :full.shape[2], :full.shape[3]] = full
        grad_x = np.ascontiguousarray(grad_pad[:, :, ph:ph + height, pw:pw + width])
    if _spoilt_by_padding(grad_x, kw):
        return im2col.conv2d_grad_input(grad_output, w, input_shape, stride, padding)
    return grad_x


def flat_conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                            stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂w (O, C, kh, kw) by the flat-row loops; see `reference.conv2d_grad_weight`."""
    out_channels, _, kh, kw = weight_shape
    n_batch, channels, height, width = x.shape
    padded_height, padded_width = height + 2 * padding[0], width + 2 * padding[1]
    # Rows and columns rounded up to whole 3×3 tiles; the extra rows read zeros past the end.
    tiled_height, tiled_width = kh + -kh % TAPS, kw + -kw % TAPS
    x_flat = _flat_planes(np.ascontiguousarray(x), channels, padding[0], padding[1], 1, 1,
                          padded_height, padded_width,
                          (tiled_height - kh) * padded_width + TAPS - 1)
    # grad_y spread out by the stride, on the padded width: zero in the extra columns (so
    # they add nothing) and in the extra output channels that round O up to GRAD_BLOCK.
    out_height, out_width = grad_output.shape[2:]
    spread_height = (out_height - 1) * stride[0] + 1
    spread_width = (out_width - 1) * stride[1] + 1
    g_wide = _flat_planes(np.ascontiguousarray(grad_output, dtype=x.dtype),
                          out_channels + -out_channels % GRAD_BLOCK, 0, 0, stride[0], stride[1],
                          spread_height, padded_width, 0)
    length = (spread_height - 1) * padded_width + spread_width
    grad_w = _weight_grad_flat(x_flat, g_wide, tiled_height, tiled_width, padded_width, length)
    grad_w = np.ascontiguousarray(grad_w[:out_channels, :, :kh, :kw])
    if not np.isfinite(grad_w).all():
        # x holds inf or nan: the sums also ran over the dropped columns, where 0 · inf = nan
        # may have been added to a sum that is finite in exact terms. Recompute those rare
        # cases exactly (a finite result is always exact: the dropped columns add zeros).
        return im2col.conv2d_grad_weight(x, grad_output, weight_shape, stride, padding)
    return grad_w


# ----------------------------------------------------------------------------- public: dispatch
def uses_flat_loops(x_shape: tuple, w_shape: tuple, stride: Pair) -> bool:
    """Which of the two conv paths serves this shape (forward and both gradients alike).

    Measured per shape (one thread, CPU time; benchmarks/README.md): the flat-row loops win
    at stride 1 on large planes with several channels, where packing would copy each input
    value kh·kw times (32×16×28×28 with 3×3: 25 against 35 ms; 32×16×16×16 with 7×7: 32
    against 51 ms). Everywhere else (small planes, strides, one- or three-channel first
    layers, 1×1 kernels) packing + GEMM (`jit_gemm`) is faster, by 1.5–6×.
    """
    channels, height, width = x_shape[1:]
    return (stride == (1, 1) and channels >= FLAT_MIN_CHANNELS and w_shape[3] >= TAPS
            and height * width >= FLAT_MIN_PLANE)


FLAT_MIN_PLANE = 16 * 16  # input pixels per plane
FLAT_MIN_CHANNELS = 8


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair,
                   bias: np.ndarray | None = None) -> np.ndarray:
    """y (N, O, OH, OW) (+ bias (O,) if given); see `reference.conv2d_forward`."""
    if not uses_flat_loops(x.shape, w.shape, stride):
        return jit_gemm.gemm_conv2d_forward(x, w, stride, padding, bias)
    y = flat_conv2d_forward(x, w, stride, padding)
    if bias is not None:
        y += bias.reshape(1, -1, 1, 1)
    return y


def conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                      stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂x (N, C, H, W); see `reference.conv2d_grad_input`."""
    if not uses_flat_loops(input_shape, w.shape, stride):
        return jit_gemm.gemm_conv2d_grad_input(grad_output, w, input_shape, stride, padding)
    return flat_conv2d_grad_input(grad_output, w, input_shape, stride, padding)


def conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                       stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂w (O, C, kh, kw); see `reference.conv2d_grad_weight`."""
    if not uses_flat_loops(x.shape, weight_shape, stride):
        return jit_gemm.gemm_conv2d_grad_weight(x, grad_output, weight_shape, stride, padding)
    return flat_conv2d_grad_weight(x, grad_output, weight_shape, stride, padding)


def conv2d_grad_bias(grad_output: np.ndarray) -> np.ndarray:
    return grad_output.sum(axis=(0, 2, 3))
