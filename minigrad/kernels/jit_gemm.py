"""Convolution for every shape: numba packing around one BLAS matrix product per chunk.

This is `im2col` made fast, not a new idea. Write K = C·kh·kw (one window, flattened) and
P = OH·OW (output pixels of one image). For a chunk of images n0 … n1:

    cols[k, m·P + p] = x[n0 + m, c, oh·sh - ph + i, ow·sw - pw + j]   (0 where that is padding)
    forward       y_t = w_flat @ cols                       (O, K) @ (K, chunk·P)
    weight grad   grad_wᵀ += cols @ g_tᵀ                     (K, chunk·P) @ (chunk·P, O)
    input grad    grad_cols = w_flatᵀ @ g_t, added back onto the windows ("col2im")

with g_t[o, m·P + p] = grad_y[n0 + m, o, p]. What makes it fast where numpy's im2col is not:

* the packing is numba loops (`jit_pack`) that write each value of cols once, padding
  included; at stride 1 they copy long rows out of shifted copies of the planes, and
  col2im runs the same steps backwards;
* one float32 GEMM per chunk through numpy's BLAS (register-blocked, vectorised), cut into
  column slabs where OpenBLAS's small-matrix kernels are quicker (`blas.product`);
* a small layer (its batch one chunk) packs its windows once: the forward keeps them for
  the weight gradient (`packed`);
* the GEMM's (O, chunk·P) result goes to NCHW in a loop that also adds the bias, and
  grad_y comes to (O, chunk·P) the same way: the only layout changes are these two;
* the chunks are small (about an L2 cache), so cols is still in cache when the GEMM reads
  it (see CHUNK_BYTES), and they are shared out between threads: each thread packs its own
  chunks into its own workspace and runs its own one-thread GEMM, so no thread ever waits
  for another inside a product. A batch that is one chunk runs its GEMM on BLAS's own
  threads instead (see `over_chunks`). The workspace is one buffer per thread, kept between
  calls, so no call pays for fresh pages; together they never exceed WORKSPACE_BYTES
  (64 MB) unless a single image needs more.

Every kernel here is tested against `reference` (tests/kernels/test_gemm.py).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from functools import cached_property, lru_cache, partial
from typing import Callable

import numpy as np

from minigrad.kernels import blas, jit_pack, thread_pool
from minigrad.kernels.reference import Pair, output_size

# Chunk size. A chunk's cols + (O, chunk·P) matrix should stay in the L2 cache while the
# GEMM reads it back: 1 MB on one thread (an L2 of 1 MB per core; larger chunks were no
# quicker, far larger ones slower); 512 KB with several threads, where twice as many chunks
# split more evenly between them. That holds when our GEMMs run on one BLAS thread
# (`_one_blas_thread`). Where we cannot ask for that (a BLAS other than numpy's OpenBLAS)
# and BLAS has several threads, each GEMM is a rendezvous of its threads, which on a busy
# machine costs far more than the cache misses, so there a chunk is as large as
# WORKSPACE_BYTES, the bound on one call's scratch memory (a single image larger than that
# is still one chunk).
CACHE_CHUNK_BYTES = 1 << 20  # one thread
SHARED_CHUNK_BYTES = 512 << 10  # several threads
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


_set_blas_threads = blas.set_threads_local
CHUNK_BYTES = (CACHE_CHUNK_BYTES if thread_pool.THREADS == 1
               else SHARED_CHUNK_BYTES if _set_blas_threads is not None else WORKSPACE_BYTES)


def _one_blas_thread():
    """The GEMMs of a thread that owns chunks run on that thread only: the pool's threads
    already fill the cores, and a multi-threaded OpenBLAS call is a rendezvous, whose caller
    busy-waits until every BLAS thread has done its share. The setting is OpenBLAS's
    per-thread one, so the user's own matrix products keep every thread.
    (With one thread, or no way to ask, there is nothing to set: a do-nothing context.)"""
    if _set_blas_threads is None or thread_pool.THREADS == 1:
        return _NOTHING_TO_SET
    return _blas_limited_to_one_thread()


_NOTHING_TO_SET = nullcontext()


@contextmanager
def _blas_limited_to_one_thread():
    previous = _set_blas_threads(1)
    try:
        yield
    finally:
        _set_blas_threads(previous)


def _chunk(n_batch: int, per_image: int, itemsize: int) -> int:
    """How many images one chunk holds: as many as fit CHUNK_BYTES (at least one)."""
    budget = min(CHUNK_BYTES, WORKSPACE_BYTES // thread_pool.THREADS)
    return max(1, min(n_batch, budget // max(1, per_image * itemsize)))


def _one_chunk(n_batch: int, per_image: int, dtype: np.dtype) -> bool:
    """Whether `over_chunks` takes the whole batch as one chunk."""
    return _chunk(n_batch, per_image, np.dtype(dtype).itemsize) >= n_batch


def _plan(n_batch: int, per_image: int, itemsize: int) -> tuple[int, int]:
    """(images per chunk, threads that take chunks): one thread per chunk up to THREADS, for
    enough work, and only where our GEMMs can be kept on one BLAS thread each."""
    chunk = _chunk(n_batch, per_image, itemsize)
    chunks = -(-n_batch // chunk)
    threads = thread_pool.THREADS if _set_blas_threads is not None else 1
    return chunk, max(1, min(threads, chunks,
                             n_batch * per_image // thread_pool.MIN_ELEMENTS_PER_THREAD))


def peak_workspace_bytes(x_shape: tuple, w_shape: tuple, stride: Pair, padding: Pair,
                         itemsize: int = 4) -> int:
    """The scratch memory the GEMM path takes for this convolution (each of its three calls
    takes the same): one workspace per thread that takes chunks (plus, at stride 1, a few
    kilobytes per thread for one plane's padded and shifted copies)."""
    per_image = _forward_columns(x_shape, w_shape, stride, padding).per_image(w_shape[0])
    chunk, threads = _plan(x_shape[0], per_image, itemsize)
    return threads * chunk * per_image * itemsize


# ----------------------------------------------------------------------------- window tables
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


def gather_table(input_size: Pair, kernel: Pair, stride: Pair, padding: Pair) -> np.ndarray:
    """`window_table` as unsigned ints, with padding marked by H·W instead of -1: the index
    of the 0 that `jit_pack.pack` appends to its copy of each plane."""
    return _gather_table(tuple(input_size), tuple(kernel), tuple(stride), tuple(padding))


@lru_cache(maxsize=64)
def _gather_table(input_size: Pair, kernel: Pair, stride: Pair, padding: Pair) -> np.ndarray:
    table = _window_table(input_size, kernel, stride, padding)
    gather = np.where(table < 0, input_size[0] * input_size[1], table).astype(np.uint32)
    gather.flags.writeable = False  # shared between calls
    return gather


# ----------------------------------------------------------------------------- packing
@dataclass(frozen=True)
class _Columns:
    """How cols (K, m·P) is filled from a source (N, C, H, W): tap (i, j) of window (oh, ow)
    reads source[n, c, oh·sh - top + i, ow·sw - left + j] (0 outside the source)."""

    channels: int
    size: Pair
    kernel: Pair
    stride: Pair
    top: int
    left: int
    out: Pair

    @cached_property
    def depth(self) -> int:  # K
        return self.channels * self.kernel[0] * self.kernel[1]

    @cached_property
    def plane(self) -> int:  # P
        return self.out[0] * self.out[1]

    def per_image(self, out_rows: int) -> int:
        """Workspace elements per image: cols and the GEMM's result (out_rows, P)."""
        return (self.depth + out_rows) * self.plane

    def carve(self, space: np.ndarray, images: int, out_rows: int) -> tuple:
        """(cols, result) for a chunk of `images` images, cut from `space`."""
        columns = images * self.plane
        cols = space[:self.depth * columns].reshape(self.depth, columns)
        end = (self.depth + out_rows) * columns
        return cols, space[self.depth * columns:end].reshape(out_rows, columns)

    def shifts(self) -> bool:
        """Stride-1 packing through shifted planes, or the table's gather."""
        return self.stride == (1, 1) and self.out[1] >= SHIFT_MIN_WIDTH and self.kernel[1] > 1

    def fill(self, source: np.ndarray, first: int, cols: np.ndarray, loop: Callable) -> None:
        """cols for the images first … first + m - 1 of source (m = cols.shape[1] // P)."""
        tasks = cols.shape[1] // self.plane * self.channels
        if self.shifts():
            loop(jit_pack.pack_stride1, tasks, cols.size, source, first, self.top, self.left,
                 *self.kernel, *self.out, cols)
            return
        planes = source.reshape(source.shape[0] * self.channels, -1)
        loop(jit_pack.pack, tasks, cols.size, planes, first, self._gather, cols, self.channels)

    def unfill(self, grad_cols: np.ndarray, first: int, grad_x: np.ndarray,
               loop: Callable) -> None:
        """The adjoint of `fill`: grad_x[first … first + m - 1] = grad_cols added back onto
        the pixels the windows read ("col2im")."""
        tasks = grad_cols.shape[1] // self.plane * self.channels
        if self.shifts():
            loop(jit_pack.unpack_stride1, tasks, grad_cols.size, grad_cols, first, self.top,
                 self.left, *self.kernel, *self.out, grad_x)
            return
        planes = grad_x.reshape(grad_x.shape[0] * self.channels, -1)
        loop(jit_pack.col2im, tasks, grad_cols.size, grad_cols, first, self._table, planes,
             self.channels)

    @cached_property
    def _table(self) -> np.ndarray:
        return window_table(self.size, self.kernel, self.stride, (self.top, self.left))

    @cached_property
    def _gather(self) -> np.ndarray:
        return gather_table(self.size, self.kernel, self.stride, (self.top, self.left))


# Below this output width (and for 1×1 kernels, which need no shifting) the table's gather
# is quicker than shifted copies; from 8 columns on, the shifted copies are.
SHIFT_MIN_WIDTH = 8


def _forward_columns(x_shape: tuple, w_shape: tuple, stride: Pair, padding: Pair) -> _Columns:
    """How one layer's windows are packed, made once per shape (a training loop repeats a
    few shapes): on a small layer, building it anew would cost as much as packing."""
    return _columns(tuple(x_shape), tuple(w_shape), tuple(stride), tuple(padding))


@lru_cache(maxsize=256)
def _columns(x_shape: tuple, w_shape: tuple, stride: Pair, padding: Pair) -> _Columns:
    kernel = tuple(w_shape[2:])
    return _Columns(x_shape[1], tuple(x_shape[2:]), kernel, stride, padding[0],
                    padding[1], _out_size(x_shape, w_shape, stride, padding))


# ----------------------------------------------------------------------------- GEMM path
def over_chunks(n_batch: int, per_image: int, dtype: np.dtype, work: Callable) -> list:
    """Calls work(first, images, space, loop) for every chunk of images first … first +
    images - 1, space being that many images' workspace, and returns one result per thread:
    the sum of its chunks' results (None when work returns None).

    With several chunks, the chunks are split between the pool's threads: each packs, runs
    its own one-thread GEMM and unpacks, in its own workspace (work's numba loops then run
    inline, `loop = inline`). With one chunk (a small batch), work's numba loops are split
    between the pool's threads instead (`loop = in_parallel`) and the GEMM runs on BLAS's
    threads, as numpy's own products do: OpenBLAS shares a product out when it is large
    enough, and its threads, which wait for work a little before they sleep
    (`minigrad/_threads.py`), take it far sooner than the pool's sleeping threads would.
    """
    chunk, threads = _plan(n_batch, per_image, np.dtype(dtype).itemsize)
    firsts = list(range(0, n_batch, chunk))

    def run(part: list[int], loop: Callable) -> object:
        space = _workspace(chunk * per_image, dtype)
        total = None
        with _one_blas_thread() if loop is thread_pool.inline else _NOTHING_TO_SET:
            for first in part:
                images = min(chunk, n_batch - first)
                result = work(first, images, space[:images * per_image], loop)
                if total is None:
                    total = result
                elif result is not None:
                    total += result  # (each result is a fresh array: summed in place)
        return total

    if threads <= 1:
        return [run(firsts, thread_pool.in_parallel)]
    return thread_pool.run_in_pool([partial(run, list(part), thread_pool.inline)
                                 for part in np.array_split(firsts, threads)])


def applies(x_shape: tuple, weight_shape: tuple, stride: Pair, padding: Pair) -> bool:
    """Every shape: the table's last numba entry, for layers no other algorithm takes."""
    return True


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair,
                   bias: np.ndarray | None = None, packed: dict | None = None) -> np.ndarray:
    """y (N, O, OH, OW) = w_flat @ cols, chunk by chunk, plus bias (O,) if given.

    `packed`, a dict the layer's `conv2d_grad_weight` call will get too: when the whole batch
    is one chunk (a small layer), cols is packed into an array of its own and left there as
    packed["columns"], so the weight gradient need not pack the same windows again. (A larger
    layer's cols would no longer be in cache by then: it is packed again, chunk by chunk.)"""
    n_batch, out_channels = x.shape[0], w.shape[0]
    windows = _forward_columns(x.shape, w.shape, stride, padding)
    keep = packed is not None and _one_chunk(n_batch, windows.per_image(out_channels),
                                             x.dtype)
    x = np.ascontiguousarray(x)
    w_flat = np.ascontiguousarray(w, dtype=x.dtype).reshape(out_channels, windows.depth)
    bias = (np.zeros(out_channels, x.dtype) if bias is None
            else np.ascontiguousarray(bias, dtype=x.dtype))
    y = np.empty((n_batch, out_channels) + windows.out, dtype=x.dtype)
    y_planes = y.reshape(n_batch, out_channels, windows.plane)

    def work(first: int, images: int, space: np.ndarray, loop: Callable) -> None:
        cols, y_t = windows.carve(space, images, out_channels)
        if keep:
            cols = packed["columns"] = np.empty_like(cols)
        windows.fill(x, first, cols, loop)
        blas.product(w_flat, cols, y_t)
        loop(jit_pack.to_nchw, images * out_channels, y_t.size, y_t, first, y_planes, bias)

    over_chunks(n_batch, windows.per_image(out_channels), x.dtype, work)
    return y


def conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                      stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂x = col2im(w_flatᵀ @ g_t), chunk by chunk."""
    n_batch, out_channels = input_shape[0], w.shape[0]
    windows = _forward_columns(input_shape, w.shape, stride, padding)
    g = np.ascontiguousarray(grad_output)
    g_planes = g.reshape(n_batch, out_channels, windows.plane)
    w_flat = np.ascontiguousarray(w, dtype=g.dtype).reshape(out_channels, windows.depth)
    grad_x = np.empty(input_shape, dtype=g.dtype)

    def work(first: int, images: int, space: np.ndarray, loop: Callable) -> None:
        grad_cols, g_t = windows.carve(space, images, out_channels)
        loop(jit_pack.from_nchw, images * out_channels, g_t.size, g_planes, first, g_t)
        blas.product(w_flat.T, g_t, grad_cols)
        windows.unfill(grad_cols, first, grad_x, loop)

    over_chunks(n_batch, windows.per_image(out_channels), g.dtype, work)
    return grad_x


def conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                       stride: Pair, padding: Pair, packed: dict | None = None) -> np.ndarray:
    """∂L/∂w = (Σ over chunks of cols @ g_tᵀ)ᵀ (each thread sums its own chunks; then the
    threads' sums are added); cols is packed["columns"] where the forward left it.

    Why (K, O) and not g_t @ colsᵀ, the same numbers as (O, K): BLAS is quicker when the
    long side of its result is its rows (markedly with OpenBLAS's AVX-512 kernels, a little
    with its AVX2 ones)."""
    n_batch, out_channels = x.shape[0], weight_shape[0]
    if n_batch == 0:
        return np.zeros(weight_shape, dtype=x.dtype)
    windows = _forward_columns(x.shape, weight_shape, stride, padding)
    x = np.ascontiguousarray(x)
    g = np.ascontiguousarray(grad_output, dtype=x.dtype).reshape(n_batch, out_channels,
                                                                 windows.plane)

    kept = (packed or {}).get("columns")

    def work(first: int, images: int, space: np.ndarray, loop: Callable) -> np.ndarray:
        cols, g_t = windows.carve(space, images, out_channels)
        if kept is not None and kept.shape == cols.shape:
            cols = kept
        else:
            windows.fill(x, first, cols, loop)
        loop(jit_pack.from_nchw, images * out_channels, g_t.size, g, first, g_t)
        return blas.product(cols, g_t.T, np.empty((windows.depth, out_channels), dtype=x.dtype))

    parts = over_chunks(n_batch, windows.per_image(out_channels), x.dtype, work)
    return np.ascontiguousarray(sum(parts[1:], parts[0]).T).reshape(weight_shape)


def _out_size(x_shape: tuple, w_shape: tuple, stride: Pair, padding: Pair) -> Pair:
    return (output_size(x_shape[2], w_shape[2], stride[0], padding[0]),
            output_size(x_shape[3], w_shape[3], stride[1], padding[1]))
