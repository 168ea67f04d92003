"""Convolution for every shape: numba packing around one BLAS matrix product per chunk.

This is `im2col` made fast, not a new idea. Write K = C·kh·kw (one window, flattened) and
P = OH·OW (output pixels of one image). For a chunk of images n0 … n1:

    cols[k, m·P + p] = x[n0 + m, c, oh·sh - ph + i, ow·sw - pw + j]   (0 where that is padding)
    forward       y_t = w_flat @ cols                       (O, K) @ (K, chunk·P)
    weight grad   grad_w += g_t @ colsᵀ                      (O, chunk·P) @ (chunk·P, K)
    input grad    grad_cols = w_flatᵀ @ g_t, added back onto the windows ("col2im")

with g_t[o, m·P + p] = grad_y[n0 + m, o, p]. What makes it fast where numpy's im2col is not:

* the packing is a parallel numba loop that writes each value of cols once, padding
  included (no padded copy of x, no strided numpy copy);
* one float32 GEMM per chunk through numpy's BLAS (multi-threaded, register-blocked);
  the weight gradient adds up one GEMM per chunk (one in all when the batch fits a chunk:
  on one thread, a single GEMM over the whole batch was slower, its cols out of cache);
* the GEMM's (O, chunk·P) result goes to NCHW in a parallel loop that also adds the bias,
  and grad_y comes to (O, chunk·P) the same way: the only layout changes are these two;
* each GEMM runs on one BLAS thread (the numba loops around it use the others), and the
  chunks are small (about an L2 cache), so cols is still in cache when the GEMM reads it
  (see CHUNK_BYTES). The workspace (cols plus one (O, chunk·P) matrix) is one buffer per
  thread, kept between calls, so no call pays for fresh pages; it never exceeds
  WORKSPACE_BYTES (64 MB) unless a single image needs more.

For the first layer of a network (C·kh·kw tiny, e.g. 1×3×3), packing costs as much as the
product, so `direct_*` loops compute those convolutions straight from x; `jit` chooses.
Every kernel here is tested against `reference` (tests/test_kernels_gemm.py).
"""

from __future__ import annotations

import ctypes
import threading
from contextlib import contextmanager
from functools import lru_cache, partial
from pathlib import Path
from typing import Callable

import numpy as np

from minigrad.kernels import jit_pool
from minigrad.kernels.compiler import njit
from minigrad.kernels.reference import Pair, output_size

# Chunk size. A chunk's cols + (O, chunk·P) matrix should stay in the L2 cache while the
# GEMM reads it back: 512 KB beat 2, 8 and 64 MB by 20–40 % on every network shape (one
# thread, CPU time). That holds when our GEMMs run on one BLAS thread (`_one_blas_thread`).
# Where we cannot ask for that (a BLAS other than numpy's OpenBLAS) and BLAS has several
# threads, each GEMM is a rendezvous of its threads, which costs far more than the cache
# misses on a busy machine (LeNet's epoch: 63 s with 512 KB chunks against 25 s with 16 MB,
# load 11 on 2 cores), so there a chunk is as large as WORKSPACE_BYTES, the bound on one
# call's scratch memory (a single image larger than that is still one chunk).
CACHE_CHUNK_BYTES = 512 << 10
WORKSPACE_BYTES = 64 << 20

_local = threading.local()


def _workspace(count: int, dtype: np.dtype) -> np.ndarray:
    """A flat scratch array of `count` elements, reused by later calls of this thread."""
    need = count * np.dtype(dtype).itemsize
    buffer = getattr(_local, "buffer", None)
    if buffer is None or buffer.size < need:
        buffer = np.empty(max(need, 1 << 16), dtype=np.uint8)
        _local.buffer = buffer
    return buffer[:need].view(dtype)


def _find_set_blas_threads():
    """OpenBLAS's `openblas_set_num_threads_local` in numpy's own OpenBLAS (numpy wheels
    bundle it in numpy.libs), or None (another BLAS, or an older OpenBLAS)."""
    folder = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for library in sorted(folder.glob("libscipy_openblas*.so*")):
        try:
            function = ctypes.CDLL(str(library)).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        function.argtypes, function.restype = [ctypes.c_int], ctypes.c_int
        return function
    return None


_set_blas_threads = _find_set_blas_threads()
CHUNK_BYTES = (CACHE_CHUNK_BYTES if jit_pool.THREADS == 1 or _set_blas_threads is not None
               else WORKSPACE_BYTES)


@contextmanager
def _one_blas_thread():
    """Our GEMMs run on the calling thread only. A multi-threaded OpenBLAS call is a
    rendezvous: its caller busy-waits until every BLAS thread has done its share, and on a
    busy machine that wait took 60 ms per GEMM (a 1 ms layer took 200 ms). The setting is
    OpenBLAS's per-thread one, so the user's own matrix products keep every thread."""
    if _set_blas_threads is None or jit_pool.THREADS == 1:
        yield
        return
    previous = _set_blas_threads(1)
    try:
        yield
    finally:
        _set_blas_threads(previous)


def _chunk(n_batch: int, per_image: int, itemsize: int) -> int:
    """How many images one chunk holds: as many as fit CHUNK_BYTES (at least one)."""
    budget = min(CHUNK_BYTES, WORKSPACE_BYTES // jit_pool.THREADS)
    return max(1, min(n_batch, budget // max(1, per_image * itemsize)))


def _plan(n_batch: int, per_image: int, itemsize: int) -> tuple[int, int]:
    """(images per chunk, threads that take chunks): one thread per chunk up to THREADS, for
    enough work, and only where our GEMMs can be kept on one BLAS thread each."""
    chunk = _chunk(n_batch, per_image, itemsize)
    chunks = -(-n_batch // chunk)
    threads = jit_pool.THREADS if _set_blas_threads is not None else 1
    return chunk, max(1, min(threads, chunks,
                             n_batch * per_image // jit_pool.MIN_ELEMENTS_PER_THREAD))


def peak_workspace_bytes(x_shape: tuple, w_shape: tuple, stride: Pair, padding: Pair,
                         itemsize: int = 4) -> int:
    """The scratch memory the GEMM path takes for this convolution (largest of its three):
    one workspace per thread that takes chunks."""
    n_batch, channels, height, width = x_shape
    out_channels, _, kh, kw = w_shape
    plane = (output_size(height, kh, stride[0], padding[0])
             * output_size(width, kw, stride[1], padding[1]))
    per_image = (channels * kh * kw + out_channels) * plane
    chunk, threads = _plan(n_batch, per_image, itemsize)
    return threads * chunk * per_image * itemsize


# ----------------------------------------------------------------------------- numba loops
# Each loop runs the tasks start … stop-1 and releases the GIL, so `_in_parallel` (shared
# with the pooling kernels) can split the tasks between threads, or run them inline when
# the work is small: numba's parallel launch costs 40–70 µs, more than a small layer's work.
def window_table(input_size: Pair, kernel: Pair, stride: Pair, padding: Pair) -> np.ndarray:
    """(kh·kw, OH·OW) int32: table[i·kw + j, oh·OW + ow] = the flat index h·W + w of the
    input pixel that tap (i, j) of window (oh, ow) reads, or -1 where that is padding."""
    return _window_table(tuple(input_size), tuple(kernel), tuple(stride), tuple(padding))


@lru_cache(maxsize=64)
def _window_table(input_size: Pair, kernel: Pair, stride: Pair, padding: Pair) -> np.ndarray:
    (height, width), (kh, kw) = input_size, kernel
    out_height = output_size(height, kh, stride[0], padding[0])
    out_width = output_size(width, kw, stride[1], padding[1])
    rows = np.arange(kh)[:, None] + np.arange(out_height)[None, :] * stride[0] - padding[0]
    columns = np.arange(kw)[:, None] + np.arange(out_width)[None, :] * stride[1] - padding[1]
    inside = (((rows >= 0) & (rows < height))[:, None, :, None]
              & ((columns >= 0) & (columns < width))[None, :, None, :])
    index = rows[:, None, :, None] * width + columns[None, :, None, :]
    table = np.where(inside, index, -1).reshape(kh * kw, out_height * out_width)
    table = table.astype(np.int32)
    table.flags.writeable = False  # shared between calls
    return table


@njit(cache=True, nogil=True)
def _pack(x_planes, first, table, cols, channels, start, stop):  # pragma: no cover (jit)
    """cols[c·kh·kw + t, m·P + p] = x_planes[(first + m)·C + c, table[t, p]], 0 where the
    table says padding. Task = m·C + c: one (image, channel) plane, kh·kw rows of cols."""
    taps, plane = table.shape
    for task in range(start, stop):
        m, c = task // channels, task % channels
        source = x_planes[(first + m) * channels + c]
        base = m * plane
        for t in range(taps):
            row = c * taps + t
            for p in range(plane):
                s = table[t, p]
                cols[row, base + p] = source[s] if s >= 0 else 0


@njit(cache=True, nogil=True)
def _col2im(grad_cols, first, table, grad_planes, channels, start, stop):  # pragma: no cover
    """The adjoint of `_pack`: grad_planes[(first + m)·C + c] = Σ of the grad_cols entries
    that were read from each pixel. One task owns one plane, so threads never collide."""
    taps, plane = table.shape
    for task in range(start, stop):
        m, c = task // channels, task % channels
        target = grad_planes[(first + m) * channels + c]
        target[:] = 0
        base = m * plane
        for t in range(taps):
            row = c * taps + t
            for p in range(plane):
                s = table[t, p]
                if s >= 0:
                    target[s] += grad_cols[row, base + p]


@njit(cache=True, nogil=True)
def _to_nchw(y_t, first, y, bias, start, stop):  # pragma: no cover (jit)
    """y[first + m, o, p] = y_t[o, m·P + p] + bias[o]; y is (N, O, P); task = m·O + o."""
    out_channels, plane = y.shape[1], y.shape[2]
    for task in range(start, stop):
        m, o = task // out_channels, task % out_channels
        shift = bias[o]
        for p in range(plane):
            y[first + m, o, p] = y_t[o, m * plane + p] + shift


@njit(cache=True, nogil=True)
def _from_nchw(g, first, g_t, start, stop):  # pragma: no cover (jit)
    """g_t[o, m·P + p] = g[first + m, o, p] (g is (N, O, P)): grad_y as the GEMM reads it."""
    out_channels, plane = g.shape[1], g.shape[2]
    for task in range(start, stop):
        m, o = task // out_channels, task % out_channels
        for p in range(plane):
            g_t[o, m * plane + p] = g[first + m, o, p]


# ----------------------------------------------------------------------------- GEMM path
def _sizes(x_shape: tuple, w_shape: tuple, stride: Pair, padding: Pair) -> tuple:
    n_batch, channels, height, width = x_shape
    out_channels, _, kh, kw = w_shape
    out_height = output_size(height, kh, stride[0], padding[0])
    out_width = output_size(width, kw, stride[1], padding[1])
    return n_batch, channels, out_channels, channels * kh * kw, out_height * out_width


def _over_chunks(n_batch: int, depth: int, out_channels: int, plane: int, dtype: np.dtype,
                 work: Callable) -> list:
    """Calls work(first, cols, other, loop) for every chunk of images first … first + m - 1,
    with cols (K, m·P) and other (O, m·P) in a thread's workspace, and returns one result per
    thread: the sum of its chunks' results (or None when work returns None).

    With several chunks, the chunks are split between the pool's threads: each packs, runs
    its own one-thread GEMM and unpacks, in its own workspace (work's numba loops then run
    inline, `loop = inline`). With one chunk (a small batch), work's numba loops are split
    between threads instead (`loop = _in_parallel`) and the GEMM runs on one thread.
    """
    per_image = (depth + out_channels) * plane
    chunk, threads = _plan(n_batch, per_image, np.dtype(dtype).itemsize)
    firsts = list(range(0, n_batch, chunk))

    def run(part: list[int], loop: Callable) -> object:
        space = _workspace(chunk * per_image, dtype)
        total = None
        with _one_blas_thread():
            for first in part:
                columns = min(chunk, n_batch - first) * plane
                cols = space[:depth * columns].reshape(depth, columns)
                other = space[depth * columns:(depth + out_channels) * columns]
                result = work(first, cols, other.reshape(out_channels, columns), loop)
                total = result if total is None else total + result
        return total

    if threads <= 1:
        return [run(firsts, jit_pool._in_parallel)]
    return jit_pool.run_in_pool([partial(run, list(part), jit_pool.inline)
                                 for part in np.array_split(firsts, threads)])


def gemm_conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair,
                        bias: np.ndarray | None = None) -> np.ndarray:
    """y (N, O, OH, OW) = w_flat @ cols, chunk by chunk, plus bias (O,) if given."""
    n_batch, channels, out_channels, depth, plane = _sizes(x.shape, w.shape, stride, padding)
    table = window_table(x.shape[2:], w.shape[2:], stride, padding)
    x_planes = np.ascontiguousarray(x).reshape(n_batch * channels, -1)
    w_flat = np.ascontiguousarray(w, dtype=x.dtype).reshape(out_channels, depth)
    bias = (np.zeros(out_channels, x.dtype) if bias is None
            else np.ascontiguousarray(bias, dtype=x.dtype))
    y = np.empty((n_batch, out_channels) + _out_size(x.shape, w.shape, stride, padding),
                 dtype=x.dtype)
    y_planes = y.reshape(n_batch, out_channels, plane)

    def work(first: int, cols: np.ndarray, y_t: np.ndarray, loop: Callable) -> None:
        images = cols.shape[1] // plane
        loop(_pack, images * channels, cols.size, x_planes, first, table, cols, channels)
        np.dot(w_flat, cols, out=y_t)
        loop(_to_nchw, images * out_channels, y_t.size, y_t, first, y_planes, bias)

    _over_chunks(n_batch, depth, out_channels, plane, x.dtype, work)
    return y


def gemm_conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                           stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂x = col2im(w_flatᵀ @ g_t), chunk by chunk."""
    n_batch, channels, out_channels, depth, plane = _sizes(input_shape, w.shape, stride,
                                                           padding)
    table = window_table(input_shape[2:], w.shape[2:], stride, padding)
    g = np.ascontiguousarray(grad_output).reshape(n_batch, out_channels, plane)
    w_flat = np.ascontiguousarray(w, dtype=g.dtype).reshape(out_channels, depth)
    grad_x = np.empty(input_shape, dtype=g.dtype)
    grad_planes = grad_x.reshape(n_batch * channels, -1)

    def work(first: int, grad_cols: np.ndarray, g_t: np.ndarray, loop: Callable) -> None:
        images = grad_cols.shape[1] // plane
        loop(_from_nchw, images * out_channels, g_t.size, g, first, g_t)
        np.dot(w_flat.T, g_t, out=grad_cols)
        loop(_col2im, images * channels, grad_cols.size, grad_cols, first, table, grad_planes,
             channels)

    _over_chunks(n_batch, depth, out_channels, plane, g.dtype, work)
    return grad_x


def gemm_conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                            stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂w = Σ over chunks of g_t @ colsᵀ (each thread sums its own chunks; then the
    threads' sums are added)."""
    n_batch, channels, out_channels, depth, plane = _sizes(x.shape, weight_shape, stride,
                                                           padding)
    table = window_table(x.shape[2:], weight_shape[2:], stride, padding)
    x_planes = np.ascontiguousarray(x).reshape(n_batch * channels, -1)
    g = np.ascontiguousarray(grad_output, dtype=x.dtype).reshape(n_batch, out_channels, plane)

    def work(first: int, cols: np.ndarray, g_t: np.ndarray, loop: Callable) -> np.ndarray:
        images = cols.shape[1] // plane
        loop(_pack, images * channels, cols.size, x_planes, first, table, cols, channels)
        loop(_from_nchw, images * out_channels, g_t.size, g, first, g_t)
        return g_t @ cols.T

    if n_batch == 0:
        return np.zeros(weight_shape, dtype=x.dtype)
    parts = _over_chunks(n_batch, depth, out_channels, plane, x.dtype, work)
    return sum(parts[1:], parts[0]).reshape(weight_shape)


def _out_size(x_shape: tuple, w_shape: tuple, stride: Pair, padding: Pair) -> Pair:
    return (output_size(x_shape[2], w_shape[2], stride[0], padding[0]),
            output_size(x_shape[3], w_shape[3], stride[1], padding[1]))
