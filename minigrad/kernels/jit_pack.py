"""The numba loops around `jit_gemm`'s matrix products: packing windows into columns,
adding them back (col2im), and moving results between NCHW and the products' layout.

Each loop runs the tasks start … stop-1 and releases the GIL, so `thread_pool.in_parallel`
can split the tasks between threads, or a thread that owns a chunk can run them all itself.
Write K = C·kh·kw and P = OH·OW; cols[c·kh·kw + i·kw + j, m·P + oh·OW + ow] holds the pixel
that tap (i, j) of window (oh, ow) of image m reads (0 where that is padding).

Two ways to fill cols:

* **stride 1, in two steps** (`pack_stride1`, and its adjoint `unpack_stride1`): first a
  plane with its padding written out, then, for each kernel column j, the padded plane
  shifted left by j and cut to the output width OW. In that shifted plane, row i·OW
  onwards *is* cols row (c, i, j) of one image: P contiguous values. So the last step
  copies long rows, and the short rows (OW values each, with their padding) are copied kw
  times instead of kh·kw times: on wide layers, much faster than the gather below.
* **any stride** (`pack` and its adjoint `col2im`): a gather through a table of window
  indices, `jit_gemm.window_table`, that marks padding with -1 (`pack` reads a copy
  that points padding at an appended 0 instead, `jit_gemm.gather_table`). Quicker for outputs
  narrower than 8 and for 1×1 kernels, which need no shifting.

Index arithmetic: numba checks every signed index for a negative value (Python's `a[-1]`),
which stops LLVM from vectorising a copy whose index it cannot prove non-negative. Loops
here therefore index slices with `range` counters, or use unsigned indices (`_U`).
"""

from __future__ import annotations

import numpy as np

from minigrad.kernels.compiler import njit

_U = np.uint64
SLACK = 8  # spare values after each padded row: `_shift_plane` copies whole blocks of 8


@njit(cache=True, nogil=True)
def pack_stride1(source, first, top, left, kh, kw, out_height, out_width, cols, start,
                 stop):  # pragma: no cover (jit)
    """cols for a stride-1 correlation: tap (i, j) of window (oh, ow) of image m reads
    source[first + m, c, oh - top + i, ow - left + j] (0 outside the source). Task = m·C + c:
    pad the plane, shift it kw times, copy its kh·kw rows of cols, while it is in cache."""
    channels = source.shape[1]
    rows = out_height + kh - 1  # the source rows the windows reach, padding included
    padded = np.empty((rows, out_width + kw - 1 + SLACK), dtype=cols.dtype)
    shifted = np.empty((kw, rows * out_width + SLACK), dtype=cols.dtype)
    plane = out_height * out_width
    for task in range(start, stop):
        m, c = task // channels, task % channels
        _pad_plane(source[first + m, c], top, left, padded)
        for j in range(kw):
            _shift_plane(padded, j, out_width, shifted[j])
        for i in range(kh):
            for j in range(kw):
                row = shifted[j, i * out_width:]  # = cols row (c, i, j) of image m
                target = cols[(c * kh + i) * kw + j, m * plane:]
                for p in range(plane):
                    target[p] = row[p]


@njit(cache=True, nogil=True)
def unpack_stride1(grad_cols, first, top, left, kh, kw, out_height, out_width, grad_x, start,
                   stop):  # pragma: no cover (jit)
    """The adjoint of `pack_stride1`: grad_x[first + m, c] = Σ of the grad_cols entries that
    were read from each pixel (padding dropped). Task = m·C + c, each step of the packing
    run backwards: the kh·kw rows added into kw shifted planes (long rows), those added
    into one padded plane, its inside copied out. One task owns one plane of grad_x."""
    channels, height, width = grad_x.shape[1], grad_x.shape[2], grad_x.shape[3]
    rows = out_height + kh - 1
    padded = np.empty((rows, out_width + kw - 1), dtype=grad_cols.dtype)
    shifted = np.empty((kw, rows * out_width), dtype=grad_cols.dtype)
    plane = out_height * out_width
    for task in range(start, stop):
        m, c = task // channels, task % channels
        shifted[:, :] = 0
        for i in range(kh):
            for j in range(kw):
                source = grad_cols[(c * kh + i) * kw + j, m * plane:]
                target = shifted[j, i * out_width:]
                for p in range(plane):
                    target[p] += source[p]
        padded[:, :] = 0
        for j in range(kw):
            for h in range(rows):
                source, target = shifted[j, h * out_width:], padded[h, j:]
                for ow in range(out_width):
                    target[ow] += source[ow]
        for h in range(height):
            source, target = padded[h + top, left:], grad_x[first + m, c, h]
            for w in range(width):
                target[w] = source[w]


@njit(cache=True, nogil=True)
def _pad_plane(plane, top, left, padded):  # pragma: no cover (jit)
    """padded[h, w] = plane[h - top, w - left] (0 outside the plane)."""
    height, width = plane.shape
    rows, columns = padded.shape
    lo = min(max(left, 0), columns)  # the columns w with 0 ≤ w - left < width
    hi = max(min(width + left, columns), lo)
    for h in range(rows):
        row = padded[h]
        source = h - top
        if source < 0 or source >= height:
            row[:] = 0
            continue
        line, inside = plane[source, lo - left:], row[lo:]
        for w in range(hi - lo):
            inside[w] = line[w]
        row[:lo] = 0
        row[hi:] = 0


@njit(cache=True, nogil=True)
def _shift_plane(padded, j, out_width, shifted):  # pragma: no cover (jit)
    """shifted[h·OW + ow] = padded[h, ow + j]: each row copied in blocks of 8 (one vector),
    so up to 7 values past a row's end are read (padded has SLACK spare columns) and
    written (into the next row, written after it, or into the SLACK after the last)."""
    rows, columns = padded.shape
    source = padded.reshape(-1)
    for h in range(rows):
        s, d = _U(h * columns + j), _U(h * out_width)
        for block in range(0, out_width, 8):
            for k in range(8):
                shifted[d + _U(block + k)] = source[s + _U(block + k)]


@njit(cache=True, nogil=True)
def pack(x_planes, first, table, cols, channels, start, stop):  # pragma: no cover (jit)
    """cols[c·kh·kw + t, m·P + p] = x_planes[(first + m)·C + c, table[t, p]], where the
    table marks padding with H·W: the index of a 0 appended to a copy of the plane, so the
    gather has no branch and LLVM vectorises it (`jit_gemm.gather_table`; quicker than
    testing each index for -1). Task = m·C + c: one (image, channel) plane, kh·kw rows."""
    taps, plane = table.shape
    size = x_planes.shape[1]
    source = np.zeros(size + 1, dtype=cols.dtype)  # source[size] stays 0: the padding
    for task in range(start, stop):
        m, c = task // channels, task % channels
        line = x_planes[(first + m) * channels + c]
        for q in range(size):
            source[q] = line[q]
        base = m * plane
        for t in range(taps):
            row, index = cols[c * taps + t, base:base + plane], table[t]
            for p in range(plane):
                row[p] = source[index[p]]


@njit(cache=True, nogil=True)
def col2im(grad_cols, first, table, grad_planes, channels, start, stop):  # pragma: no cover
    """The adjoint of `pack`: grad_planes[(first + m)·C + c] = Σ of the grad_cols entries
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
def to_nchw(y_t, first, y, bias, start, stop):  # pragma: no cover (jit)
    """y[first + m, o, p] = y_t[o, m·P + p] + bias[o]; y is (N, O, P); task = m·O + o."""
    out_channels, plane = y.shape[1], y.shape[2]
    for task in range(start, stop):
        m, o = task // out_channels, task % out_channels
        shift = bias[o]
        source, target = y_t[o, m * plane:], y[first + m, o]
        for p in range(plane):
            target[p] = source[p] + shift


@njit(cache=True, nogil=True)
def from_nchw(g, first, g_t, start, stop):  # pragma: no cover (jit)
    """g_t[o, m·P + p] = g[first + m, o, p] (g is (N, O, P)): grad_y as the GEMM reads it."""
    out_channels, plane = g.shape[1], g.shape[2]
    for task in range(start, stop):
        m, o = task // out_channels, task % out_channels
        source, target = g[first + m, o], g_t[o, m * plane:]
        for p in range(plane):
            target[p] = source[p]
