"""3×3 stride-1 convolution by Winograd's F(2×2, 3×3): 16 matrix products instead of 36.

A 2×2 block of outputs needs a 4×4 patch d of the input. Winograd's identity computes the
block from that patch and the 3×3 kernel g with 16 multiplications instead of 2·2·9 = 36:

    y_block = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A            (⊙: element by element, 4×4)

With C input channels the 16 products become 16 matrix products, one per position ξ of the
4×4 "Winograd domain", over all tiles p (n, tile row, tile column) at once:

    V[ξ, c, p] = (Bᵀ d_{c,p} B)[ξ]        U[ξ, o, c] = (G g_{o,c} Gᵀ)[ξ]
    M[ξ] = U[ξ] @ V[ξ]                    (O, C) @ (C, P), through BLAS
    y[n, o, 2·tr + a, 2·tc + b] = (Aᵀ M[:, o, p] A)[a, b]

The two gradients are the same computation run backwards (its adjoint), so they are exact
for the same reason the forward is:

    dM[ξ, o, p] = (A dy_{o,p} Aᵀ)[ξ]      dy_{o,p}: the 2×2 block of grad_y (0 past the edge)
    dU[ξ] = dM[ξ] @ V[ξ]ᵀ  → ∂L/∂w = Gᵀ dU G
    dV[ξ] = U[ξ]ᵀ @ dM[ξ]  → ∂L/∂x: each tile's B dV Bᵀ added back onto its 4×4 patch

2.25× fewer multiply-adds than the direct sum; the price is four passes over the data
(the transforms) and their rounding. In float32, against a float64 reference, the largest
error is a few 1e-7 of the result's largest value, as with packing + BLAS
(tests/kernels/test_winograd.py checks < 1e-6).
`minigrad.kernels`' table sends here the layers where it measured faster (`applies`); the
functions take a stride, as every conv algorithm's do, and it is (1, 1) for every layer
sent here.
"""

from __future__ import annotations

import numpy as np

from minigrad.kernels import jit_gemm
from minigrad.kernels.compiler import njit

# The F(2×2, 3×3) matrices (Lavin & Gray, 2015).
B_T = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], dtype=np.float64)
G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], dtype=np.float64)
A_T = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], dtype=np.float64)


def applies(x_shape: tuple, weight_shape: tuple, stride: tuple, padding: tuple) -> bool:
    """3×3 kernels at stride 1 (any padding: every read and write is bounds-checked), where
    it measures faster than packing + BLAS (forward + both gradients, one thread; see
    benchmarks/README.md): at least 16 input and output channels (each of the 16 products
    has the input channels as its inner dimension: with a few channels it is much slower),
    outputs of at least 8×8 (on 4×4 outputs it is no faster), and enough output pixels
    N·OH·OW to pay for its fixed costs (transforming the weights, and back for their
    gradient): 4096, or 1024 with 64 or more input channels."""
    out_h = x_shape[2] + 2 * padding[0] - 2
    out_w = x_shape[3] + 2 * padding[1] - 2
    pixels, channels = x_shape[0] * out_h * out_w, x_shape[1]
    return (tuple(weight_shape[2:]) == (3, 3) and tuple(stride) == (1, 1)
            and channels >= 16 and weight_shape[0] >= 16 and out_h >= 8 and out_w >= 8
            and (pixels >= 4096 or (channels >= 64 and pixels >= 1024)))


@njit(cache=True, nogil=True)
def _times_b_t(d0, d1, d2, d3):  # pragma: no cover (jit)
    """Bᵀ @ (d0, d1, d2, d3): the input transform of one column (or, on the right, row)."""
    return d0 - d2, d1 + d2, d2 - d1, d1 - d3


@njit(cache=True, nogil=True)
def _times_b(q0, q1, q2, q3):  # pragma: no cover (jit)
    """B @ (q0, q1, q2, q3): the transform's adjoint, for the input gradient."""
    return q0, q1 - q2 + q3, q1 + q2 - q0, -q3


@njit(cache=True, nogil=True)
def _times_a(g0, g1):  # pragma: no cover (jit)
    """A @ (g0, g1): a 2-vector of grad_y into the 4-point Winograd domain."""
    return g0, g0 + g1, g0 - g1, -g1


@njit(cache=True, nogil=True)
def _transform_input(x, ph, pw, tiles_h, tiles_w, v):  # pragma: no cover (jit)
    """v[ξ, c, p] = (Bᵀ d B)[ξ], d the 4×4 patch of x at (2·tr - ph, 2·tc - pw), 0 outside.
    Four padded rows are copied first, so the loop over tiles has no branch and writes
    each of its 16 outputs to a contiguous run."""
    n_images, channels, height, width = x.shape
    rows = np.zeros((4, 2 * tiles_w + 2), dtype=x.dtype)
    for n in range(n_images):
        for c in range(channels):
            for tr in range(tiles_h):
                for i in range(4):
                    r = 2 * tr - ph + i
                    for col in range(2 * tiles_w + 2):
                        s = col - pw
                        inside = 0 <= r < height and 0 <= s < width
                        rows[i, col] = x[n, c, r, s] if inside else 0.0
                base = (n * tiles_h + tr) * tiles_w
                for tc in range(tiles_w):
                    k, p = 2 * tc, base + tc
                    # t = Bᵀ d, column by column: column j of t is col[j]
                    col0 = _times_b_t(rows[0, k], rows[1, k], rows[2, k], rows[3, k])
                    col1 = _times_b_t(rows[0, k + 1], rows[1, k + 1],
                                      rows[2, k + 1], rows[3, k + 1])
                    col2 = _times_b_t(rows[0, k + 2], rows[1, k + 2],
                                      rows[2, k + 2], rows[3, k + 2])
                    col3 = _times_b_t(rows[0, k + 3], rows[1, k + 3],
                                      rows[2, k + 3], rows[3, k + 3])
                    for i in range(4):  # then t B, row by row: row i of t is col*[i]
                        out = _times_b_t(col0[i], col1[i], col2[i], col3[i])
                        v[4 * i, c, p], v[4 * i + 1, c, p] = out[0], out[1]
                        v[4 * i + 2, c, p], v[4 * i + 3, c, p] = out[2], out[3]


@njit(cache=True, nogil=True)
def _untransform_output(m, bias, tiles_h, tiles_w, y):  # pragma: no cover (jit)
    """y[n, o, 2·tr + a, 2·tc + b] = (Aᵀ m[:, o, p] A)[a, b] + bias[o], inside y only."""
    n_images, outputs, out_h, out_w = y.shape
    rows = np.empty((2, 2 * tiles_w), dtype=y.dtype)
    for n in range(n_images):
        for o in range(outputs):
            for tr in range(tiles_h):
                base = (n * tiles_h + tr) * tiles_w
                for tc in range(tiles_w):
                    p = base + tc
                    # s_i = (Aᵀ m)[:, j] rows: row 0 = m0 + m1 + m2, row 1 = m1 - m2 - m3
                    r00 = m[0, o, p] + m[4, o, p] + m[8, o, p]
                    r01 = m[1, o, p] + m[5, o, p] + m[9, o, p]
                    r02 = m[2, o, p] + m[6, o, p] + m[10, o, p]
                    r03 = m[3, o, p] + m[7, o, p] + m[11, o, p]
                    r10 = m[4, o, p] - m[8, o, p] - m[12, o, p]
                    r11 = m[5, o, p] - m[9, o, p] - m[13, o, p]
                    r12 = m[6, o, p] - m[10, o, p] - m[14, o, p]
                    r13 = m[7, o, p] - m[11, o, p] - m[15, o, p]
                    rows[0, 2 * tc] = r00 + r01 + r02 + bias[o]
                    rows[0, 2 * tc + 1] = r01 - r02 - r03 + bias[o]
                    rows[1, 2 * tc] = r10 + r11 + r12 + bias[o]
                    rows[1, 2 * tc + 1] = r11 - r12 - r13 + bias[o]
                for a in range(min(2, out_h - 2 * tr)):
                    for s in range(out_w):
                        y[n, o, 2 * tr + a, s] = rows[a, s]


@njit(cache=True, nogil=True)
def _transform_grad_output(g, tiles_h, tiles_w, dm):  # pragma: no cover (jit)
    """dm[ξ, o, p] = (A dy Aᵀ)[ξ], dy the 2×2 block of g at (2·tr, 2·tc), 0 past the edge."""
    n_images, outputs, out_h, out_w = g.shape
    rows = np.zeros((2, 2 * tiles_w), dtype=g.dtype)
    for n in range(n_images):
        for o in range(outputs):
            for tr in range(tiles_h):
                for a in range(2):
                    r = 2 * tr + a
                    for s in range(2 * tiles_w):
                        rows[a, s] = g[n, o, r, s] if r < out_h and s < out_w else 0.0
                base = (n * tiles_h + tr) * tiles_w
                for tc in range(tiles_w):
                    k, p = 2 * tc, base + tc
                    left = _times_a(rows[0, k], rows[1, k])  # A dy, column 0
                    right = _times_a(rows[0, k + 1], rows[1, k + 1])  # column 1
                    for i in range(4):  # then (A dy) Aᵀ, row by row
                        out = _times_a(left[i], right[i])
                        dm[4 * i, o, p], dm[4 * i + 1, o, p] = out[0], out[1]
                        dm[4 * i + 2, o, p], dm[4 * i + 3, o, p] = out[2], out[3]


@njit(cache=True, nogil=True)
def _untransform_input_grad(dv, ph, pw, tiles_h, tiles_w, grad):  # pragma: no cover (jit)
    """grad[n, c] += B dv[:, c, p] Bᵀ on each tile's 4×4 patch (the parts inside x): the
    patches are added into one padded plane, whose inside is then copied to grad."""
    n_images, channels, height, width = grad.shape
    plane = np.empty((2 * tiles_h + 2, 2 * tiles_w + 2), dtype=grad.dtype)
    for n in range(n_images):
        for c in range(channels):
            plane[:] = 0.0
            for tr in range(tiles_h):
                base = (n * tiles_h + tr) * tiles_w
                for tc in range(tiles_w):
                    p = base + tc
                    # dv Bᵀ, row by row: row i is row_i
                    row0 = _times_b(dv[0, c, p], dv[1, c, p], dv[2, c, p], dv[3, c, p])
                    row1 = _times_b(dv[4, c, p], dv[5, c, p], dv[6, c, p], dv[7, c, p])
                    row2 = _times_b(dv[8, c, p], dv[9, c, p], dv[10, c, p], dv[11, c, p])
                    row3 = _times_b(dv[12, c, p], dv[13, c, p], dv[14, c, p], dv[15, c, p])
                    top, left = 2 * tr, 2 * tc
                    for j in range(4):  # then B (dv Bᵀ), column by column
                        out = _times_b(row0[j], row1[j], row2[j], row3[j])
                        for i in range(4):
                            plane[top + i, left + j] += out[i]
            for r in range(max(0, ph), min(height + ph, 2 * tiles_h + 2)):
                for s in range(max(0, pw), min(width + pw, 2 * tiles_w + 2)):
                    grad[n, c, r - ph, s - pw] += plane[r, s]


def _tiles(out_h: int, out_w: int) -> tuple[int, int]:
    return (out_h + 1) // 2, (out_w + 1) // 2


SKEW = 48  # values between two of the 16 matrices of V, M, dM, dV (see `_carve`)


def _per_image(tiles: int, channels: int, outputs: int) -> int:
    """Workspace values one image takes: V (or dV) and M (or dM), plus room for the skews."""
    return 16 * tiles * (channels + outputs) + 2 * 16 * SKEW


def _carve(space: np.ndarray, *shapes: tuple) -> list[np.ndarray]:
    """(16, rows, columns) arrays carved out of a chunk's workspace. The 16 matrices of each
    are not packed back to back: the transforms write to all 16 at once, and 16 streams a
    power of two apart in memory compete for the same cache sets (4K aliasing, which slows
    the grad_y transform several times), so each matrix starts SKEW values after the previous one ends."""
    arrays, start = [], 0
    for _, rows, columns in shapes:
        size = 16 * (rows * columns + SKEW)
        block = space[start:start + size].reshape(16, rows * columns + SKEW)
        arrays.append(block[:, :rows * columns].reshape(16, rows, columns))
        start += size
    return arrays


def _weights_transformed(w: np.ndarray) -> np.ndarray:
    """U (16, O, C) = G g Gᵀ for every kernel (two BLAS products)."""
    g = G.astype(w.dtype)
    u = np.tensordot(np.tensordot(w, g, axes=([3], [1])), g, axes=([2], [1]))  # (O, C, b, a)
    return np.ascontiguousarray(u.transpose(3, 2, 0, 1)).reshape(16, *w.shape[:2])


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: tuple, padding: tuple,
                   bias: np.ndarray | None = None, packed: dict | None = None) -> np.ndarray:
    """y (N, O, OH, OW) for a 3×3 kernel at stride 1 (see `applies`), chunk by chunk
    (`jit_gemm.over_chunks`: the chunks shared out between threads, one-thread BLAS)."""
    x = np.ascontiguousarray(x)
    n, channels, height, width = x.shape
    outputs = w.shape[0]
    out_h, out_w = height + 2 * padding[0] - 2, width + 2 * padding[1] - 2
    y = np.empty((n, outputs, out_h, out_w), dtype=x.dtype)
    b = (np.zeros(outputs, dtype=x.dtype) if bias is None
         else np.ascontiguousarray(bias, dtype=x.dtype))
    if y.size == 0:
        y[...] = b.reshape(-1, 1, 1)
        return y
    u = _weights_transformed(w.astype(x.dtype, copy=False))
    tiles_h, tiles_w = _tiles(out_h, out_w)
    tiles = tiles_h * tiles_w

    def work(first: int, images: int, space: np.ndarray, loop: object) -> None:
        v, m = _carve(space, (16, channels, images * tiles), (16, outputs, images * tiles))
        _transform_input(x[first:first + images], padding[0], padding[1], tiles_h, tiles_w, v)
        np.matmul(u, v, out=m)
        _untransform_output(m, b, tiles_h, tiles_w, y[first:first + images])

    jit_gemm.over_chunks(n, _per_image(tiles, channels, outputs), x.dtype, work)
    return y


def conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                      stride: tuple, padding: tuple) -> np.ndarray:
    """∂L/∂x (N, C, H, W): dV = Uᵀ dM, each tile's B dV Bᵀ added onto its patch."""
    grad = np.zeros(input_shape, dtype=grad_output.dtype)
    if grad.size == 0 or grad_output.size == 0:
        return grad
    grad_output = np.ascontiguousarray(grad_output)
    n, outputs, out_h, out_w = grad_output.shape
    channels = input_shape[1]
    u_t = np.ascontiguousarray(
        _weights_transformed(w.astype(grad.dtype, copy=False)).transpose(0, 2, 1))
    tiles_h, tiles_w = _tiles(out_h, out_w)
    tiles = tiles_h * tiles_w

    def work(first: int, images: int, space: np.ndarray, loop: object) -> None:
        dm, dv = _carve(space, (16, outputs, images * tiles), (16, channels, images * tiles))
        _transform_grad_output(grad_output[first:first + images], tiles_h, tiles_w, dm)
        np.matmul(u_t, dm, out=dv)
        _untransform_input_grad(dv, padding[0], padding[1], tiles_h, tiles_w,
                                grad[first:first + images])

    jit_gemm.over_chunks(n, _per_image(tiles, channels, outputs), grad.dtype, work)
    return grad


def conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                       stride: tuple, padding: tuple, packed: dict | None = None) -> np.ndarray:
    """∂L/∂w (O, C, 3, 3) = Gᵀ dU G with dU[ξ] = Σ over chunks of dM[ξ] @ V[ξ]ᵀ."""
    if x.size == 0 or grad_output.size == 0:
        return np.zeros(weight_shape, dtype=x.dtype)
    x = np.ascontiguousarray(x)
    grad_output = np.ascontiguousarray(grad_output, dtype=x.dtype)
    n, outputs, out_h, out_w = grad_output.shape
    channels = x.shape[1]
    tiles_h, tiles_w = _tiles(out_h, out_w)
    tiles = tiles_h * tiles_w

    def work(first: int, images: int, space: np.ndarray, loop: object) -> np.ndarray:
        v, dm = _carve(space, (16, channels, images * tiles), (16, outputs, images * tiles))
        _transform_input(x[first:first + images], padding[0], padding[1], tiles_h, tiles_w, v)
        _transform_grad_output(grad_output[first:first + images], tiles_h, tiles_w, dm)
        return np.matmul(dm, v.transpose(0, 2, 1))

    parts = jit_gemm.over_chunks(n, _per_image(tiles, channels, outputs), x.dtype, work)
    du = sum(parts[1:], parts[0])
    g = G.astype(x.dtype)  # Gᵀ dU G for every (o, c)
    du = du.reshape(4, 4, outputs, channels).transpose(2, 3, 0, 1)  # (O, C, 4, 4)
    grad = np.tensordot(np.tensordot(du, g, axes=([3], [0])), g, axes=([2], [0]))  # (O, C, j, i)
    return np.ascontiguousarray(grad.swapaxes(2, 3))
