"""Max and average pooling as numba kernels: the loops of `reference`, compiled.

Each kernel works on a range of image planes (x viewed as (N·C, H, W)) and writes into
arrays the caller allocated; `thread_pool.in_parallel` shares the planes out between threads.
The 2×2, stride 2, unpadded windows every course network uses have unrolled kernels of their
own (`_max_pool_2x2`, `_avg_pool_2x2`).
"""

from __future__ import annotations

import numpy as np

from minigrad.kernels.compiler import njit
from minigrad.kernels.reference import Pair, output_size
from minigrad.kernels.thread_pool import in_parallel

_U = np.uint64  # an unsigned index: numba then skips its check for negative indices


@njit(cache=True, nogil=True)
def _max_pool(x, values, indices, kh, kw, sh, sw, ph, pw, start, stop):  # pragma: no cover (jit)
    """values/indices[p, oh, ow] for planes start … stop-1 (x: (P, H, W))."""
    _, height, width = x.shape
    _, out_height, out_width = values.shape
    for plane in range(start, stop):
        image = x[plane]
        for oh in range(out_height):
            top = oh * sh - ph
            h_start = max(top, 0)
            h_end = min(top + kh, height)
            for ow in range(out_width):
                left = ow * sw - pw
                w_start = max(left, 0)
                w_end = min(left + kw, width)
                best = image[h_start, w_start]  # the first real pixel, as PyTorch starts
                best_index = h_start * width + w_start
                for hi in range(h_start, h_end):
                    for wj in range(w_start, w_end):
                        value = image[hi, wj]
                        if value > best or value != value:  # a NaN wins (value != value)
                            best = value
                            best_index = hi * width + wj
                values[plane, oh, ow] = best
                indices[plane, oh, ow] = best_index


@njit(cache=True, nogil=True)
def _max_pool_backward(g, indices, grad, start, stop):  # pragma: no cover (jit)
    """grad[p] = 0, then grad[p].flat[indices[p, oh, ow]] += g[p, oh, ow] (grad: (P, H·W),
    uninitialised). Each thread zeroes its own planes just before scattering into them: in
    parallel, and while they are in cache, which beats one np.zeros up front."""
    _, out_height, out_width = g.shape
    for plane in range(start, stop):
        target = grad[plane]
        target[:] = 0
        for oh in range(out_height):
            for ow in range(out_width):
                target[indices[plane, oh, ow]] += g[plane, oh, ow]


@njit(cache=True, nogil=True)
def _max_pool_2x2(x, values, indices, start, stop):  # pragma: no cover (jit)
    """`_max_pool` for the common 2×2, stride 2, no padding case, its four reads unrolled.

    The NaN test (`value != value`, so that a NaN wins as in PyTorch) is what makes the
    general loop slow: with it, LLVM keeps a branch per comparison, and on random data half
    of them are mispredicted. So each plane is first computed with plain `>` comparisons,
    which compile to branch-free selects, several times quicker, while noting
    whether any of its values is NaN; only a plane that held one is computed again by the
    general loop. Ties go to the first maximum in scan order either way. (Flat unsigned
    indices instead of row slices: on 4×4 planes the slicing cost more than the windows.)
    """
    _, height, width = x.shape
    _, out_height, out_width = values.shape
    source, maxima, places = x.reshape(-1), values.reshape(-1), indices.reshape(-1)
    for plane in range(start, stop):
        seen_nan = False
        for oh in range(out_height):
            top = 2 * oh * width  # the window row's first index within the plane
            upper = _U(plane * height * width + top)
            lower = upper + _U(width)
            out = _U((plane * out_height + oh) * out_width)
            for ow in range(out_width):
                k = _U(2 * ow)
                a, b = source[upper + k], source[upper + k + _U(1)]
                c, d = source[lower + k], source[lower + k + _U(1)]
                seen_nan |= (a != a) | (b != b) | (c != c) | (d != d)
                best, offset = a, 0
                if b > best:
                    best, offset = b, 1
                if c > best:
                    best, offset = c, width
                if d > best:
                    best, offset = d, width + 1
                maxima[out + _U(ow)] = best
                places[out + _U(ow)] = top + 2 * ow + offset
        if seen_nan:  # rare: the plane again, with the NaN test
            _max_pool(x, values, indices, 2, 2, 2, 2, 0, 0, plane, plane + 1)


@njit(cache=True, nogil=True)
def _avg_pool(x, y, kh, kw, sh, sw, ph, pw, start, stop):  # pragma: no cover (jit)
    _, height, width = x.shape
    _, out_height, out_width = y.shape
    area = kh * kw
    for plane in range(start, stop):
        for oh in range(out_height):
            top = oh * sh - ph
            for ow in range(out_width):
                left = ow * sw - pw
                total = 0.0
                for hi in range(max(top, 0), min(top + kh, height)):
                    for wj in range(max(left, 0), min(left + kw, width)):
                        total += x[plane, hi, wj]
                y[plane, oh, ow] = total / area


@njit(cache=True, nogil=True)
def _avg_pool_backward(g, grad, kh, kw, sh, sw, ph, pw, start, stop):  # pragma: no cover (jit)
    _, height, width = grad.shape
    _, out_height, out_width = g.shape
    area = kh * kw
    for plane in range(start, stop):
        for oh in range(out_height):
            top = oh * sh - ph
            for ow in range(out_width):
                left = ow * sw - pw
                share = g[plane, oh, ow] / area
                for hi in range(max(top, 0), min(top + kh, height)):
                    for wj in range(max(left, 0), min(left + kw, width)):
                        grad[plane, hi, wj] += share


@njit(cache=True, nogil=True)
def _avg_pool_2x2(x, y, start, stop):  # pragma: no cover (jit)
    """`_avg_pool` for 2×2, stride 2, no padding: the same sum in the same order, without
    the window bounds (several times faster on the course's pooling layers)."""
    _, out_height, out_width = y.shape
    for plane in range(start, stop):
        image = x[plane]
        for oh in range(out_height):
            upper, lower, out = image[2 * oh], image[2 * oh + 1], y[plane, oh]
            for ow in range(out_width):
                total = 0.0
                total += upper[2 * ow]
                total += upper[2 * ow + 1]
                total += lower[2 * ow]
                total += lower[2 * ow + 1]
                out[ow] = total / 4


@njit(cache=True, nogil=True)
def _avg_pool_2x2_backward(g, grad, start, stop):  # pragma: no cover (jit)
    """grad (uninitialised) for 2×2, stride 2, no padding: the windows tile the plane, so
    each pixel is written once with its window's share; an odd last row or column, which
    no window reaches, is zeroed first."""
    _, out_height, out_width = g.shape
    _, height, width = grad.shape
    for plane in range(start, stop):
        target = grad[plane]
        if height % 2 or width % 2:
            target[:, :] = 0
        for oh in range(out_height):
            upper, lower, source = target[2 * oh], target[2 * oh + 1], g[plane, oh]
            for ow in range(out_width):
                share = source[ow] / 4
                upper[2 * ow] = share
                upper[2 * ow + 1] = share
                lower[2 * ow] = share
                lower[2 * ow + 1] = share


def _is_2x2(kernel: Pair, stride: Pair, padding: Pair) -> bool:
    """The pooling every course network uses, which has its own unrolled kernels."""
    return kernel == (2, 2) and stride == (2, 2) and padding == (0, 0)


def _planes(array: np.ndarray) -> np.ndarray:
    """(N, C, H, W) as a contiguous (N·C, H, W)."""
    return np.ascontiguousarray(array).reshape((-1,) + array.shape[2:])


def max_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair,
                       padding: Pair) -> tuple[np.ndarray, np.ndarray]:
    """Window maxima and their flat input indices; see `reference.max_pool2d_forward`."""
    n_batch, channels, height, width = x.shape
    out_shape = (n_batch, channels, output_size(height, kernel[0], stride[0], padding[0]),
                 output_size(width, kernel[1], stride[1], padding[1]))
    values = np.empty(out_shape, dtype=x.dtype)
    indices = np.empty(out_shape, dtype=np.int64)
    if _is_2x2(kernel, stride, padding):
        in_parallel(_max_pool_2x2, n_batch * channels, x.size, _planes(x), _planes(values),
                     _planes(indices))
    else:
        in_parallel(_max_pool, n_batch * channels, x.size, _planes(x), _planes(values),
                     _planes(indices), *kernel, *stride, *padding)
    return values, indices


def max_pool2d_backward(grad_output: np.ndarray, indices: np.ndarray,
                        input_shape: tuple) -> np.ndarray:
    n_batch, channels, height, width = input_shape
    grad = np.empty((n_batch * channels, height * width), dtype=grad_output.dtype)
    in_parallel(_max_pool_backward, n_batch * channels, grad.size, _planes(grad_output),
                 _planes(indices), grad)
    return grad.reshape(input_shape)


def avg_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair, padding: Pair) -> np.ndarray:
    n_batch, channels, height, width = x.shape
    y = np.empty((n_batch, channels, output_size(height, kernel[0], stride[0], padding[0]),
                  output_size(width, kernel[1], stride[1], padding[1])), dtype=x.dtype)
    if _is_2x2(kernel, stride, padding):
        in_parallel(_avg_pool_2x2, n_batch * channels, x.size, _planes(x), _planes(y))
    else:
        in_parallel(_avg_pool, n_batch * channels, x.size, _planes(x), _planes(y), *kernel,
                     *stride, *padding)
    return y


def avg_pool2d_backward(grad_output: np.ndarray, input_shape: tuple, kernel: Pair,
                        stride: Pair, padding: Pair) -> np.ndarray:
    if _is_2x2(kernel, stride, padding):
        grad = np.empty(input_shape, dtype=grad_output.dtype)
        in_parallel(_avg_pool_2x2_backward, input_shape[0] * input_shape[1], grad.size,
                     _planes(grad_output), _planes(grad))
        return grad
    grad = np.zeros(input_shape, dtype=grad_output.dtype)
    in_parallel(_avg_pool_backward, input_shape[0] * input_shape[1], grad.size,
                 _planes(grad_output), _planes(grad), *kernel, *stride, *padding)
    return grad
