"""The numba conv path (packing + GEMM) against the reference loops: both ways of packing
(stride 1 through shifted planes, other strides through the window table), float32 and
float64, strides, paddings (wider than the kernel too), odd shapes, chunking, threads, bias,
nan and inf."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from minigrad import kernels
from minigrad.kernels import im2col, reference

pytest.importorskip("numba")
from support import numba_kernels as jit  # noqa: E402
from support.tolerance import kernel_tolerance  # noqa: E402
from minigrad.kernels import jit_gemm, thread_pool  # noqa: E402

pytestmark = pytest.mark.usefixtures("warm_kernels")

DTYPES = [np.float32, np.float64]
GEMM = {"forward": jit_gemm.conv2d_forward, "grad_input": jit_gemm.conv2d_grad_input,
        "grad_weight": jit_gemm.conv2d_grad_weight}
DISPATCH = {"forward": jit.conv2d_forward, "grad_input": jit.conv2d_grad_input,
            "grad_weight": jit.conv2d_grad_weight}



def _check(path: dict, x_shape: tuple, w_shape: tuple, stride: tuple, padding: tuple,
           dtype: type, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    expected = reference.conv2d_forward(x, w, stride, padding)
    y = path["forward"](x, w, stride, padding)
    assert y.dtype == dtype and y.shape == expected.shape and y.flags.c_contiguous
    np.testing.assert_allclose(y, expected, **kernel_tolerance(dtype))
    g = rng.standard_normal(expected.shape).astype(dtype)
    grad_x = path["grad_input"](g, w, x_shape, stride, padding)
    assert grad_x.dtype == dtype and grad_x.shape == x_shape
    np.testing.assert_allclose(grad_x, reference.conv2d_grad_input(g, w, x_shape, stride, padding),
                               **kernel_tolerance(dtype))
    grad_w = path["grad_weight"](x, g, w_shape, stride, padding)
    assert grad_w.dtype == dtype and grad_w.shape == w_shape
    np.testing.assert_allclose(grad_w, reference.conv2d_grad_weight(x, g, w_shape, stride,
                                                                    padding), **kernel_tolerance(dtype))


# Kernels 1, 3, 5, 7 and non-square ones; strides 1–3; paddings 0, "same" and uneven; odd
# image sizes; windows that hang over the bottom-right edge (stride not dividing the size).
GEMM_CASES = [
    ((2, 1, 8, 8), (16, 1, 3, 3), (1, 1), (1, 1)),    # digits conv1: one input channel
    ((3, 16, 4, 4), (32, 16, 3, 3), (1, 1), (1, 1)),  # digits conv2: a 4×4 plane
    ((2, 1, 12, 11), (5, 1, 5, 5), (1, 1), (0, 0)),   # LeNet conv1, smaller
    ((2, 3, 9, 10), (4, 3, 7, 7), (2, 2), (3, 3)),    # 7×7 stride 2, "same"-like padding
    ((1, 2, 7, 6), (3, 2, 1, 1), (2, 1), (0, 0)),     # 1×1, uneven stride
    ((2, 3, 7, 9), (5, 3, 2, 4), (3, 2), (1, 2)),     # non-square kernel, windows overhang
    ((1, 2, 3, 3), (2, 2, 3, 3), (1, 1), (2, 2)),     # padding ≥ kernel - 1: padding-only rows
    ((1, 1, 1, 1), (1, 1, 1, 1), (1, 1), (0, 0)),     # the smallest conv
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("case", GEMM_CASES, ids=[str(i) for i in range(len(GEMM_CASES))])
def test_gemm_path_agrees_with_reference(case: tuple, dtype: type) -> None:
    _check(GEMM, *case, dtype=dtype)


# Small enough for the reference loops (each a few hundred thousand Python steps): the
# wide stride-1 layers, through the float32 rows of the dispatch table.
WIDE_CASES = [((1, 8, 16, 16), (3, 8, 3, 3), (1, 1), (1, 1)),
              ((1, 8, 16, 16), (2, 8, 7, 7), (1, 1), (3, 3)),
              ((1, 8, 16, 17), (3, 8, 3, 6), (1, 1), (0, 2)),
              ((2, 3, 9, 8), (4, 3, 3, 2), (1, 1), (3, 4))]  # padding wider than the kernel


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("case", WIDE_CASES, ids=["3x3", "7x7", "3x6", "wide-padding"])
def test_stride1_packing_through_the_backend_agrees_with_reference(case: tuple,
                                                                   dtype: type) -> None:
    _check(DISPATCH, *case, dtype=dtype, seed=1)


# Shapes at the edges of the packing rules: an empty batch, padding wider than the kernel,
# a kernel as large as the image, long rows with a wide kernel, 2-wide and 1-tall kernels.
EDGE_CASES = [((0, 3, 9, 9), (4, 3, 3, 3), (1, 1), (1, 1)),
              ((2, 3, 9, 9), (4, 3, 3, 3), (1, 1), (4, 4)),
              ((1, 1, 12, 12), (2, 1, 12, 12), (1, 1), (0, 0)),
              ((1, 2, 3, 40), (3, 2, 3, 9), (1, 1), (1, 4)),
              ((2, 2, 11, 13), (3, 2, 2, 8), (1, 1), (0, 0)),
              ((2, 3, 10, 12), (5, 3, 1, 3), (1, 1), (0, 1))]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("case", EDGE_CASES, ids=["empty", "pad4", "k=image", "long", "2x8",
                                                   "1x3"])
def test_edge_shapes_from_a_fortran_ordered_input_agree_with_reference(case: tuple,
                                                                       dtype: type) -> None:
    """The kernels take any memory layout (here x in Fortran order) and any shape PyTorch
    accepts."""
    x_shape, w_shape, stride, padding = case
    rng = np.random.default_rng(5)
    x = np.asfortranarray(rng.standard_normal(x_shape).astype(dtype))
    w = rng.standard_normal(w_shape).astype(dtype)
    y = jit.conv2d_forward(x, w, stride, padding)
    expected = reference.conv2d_forward(x, w, stride, padding)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y, expected, **kernel_tolerance(dtype))
    g = np.asfortranarray(rng.standard_normal(expected.shape).astype(dtype))
    np.testing.assert_allclose(jit.conv2d_grad_input(g, w, x_shape, stride, padding),
                               reference.conv2d_grad_input(g, w, x_shape, stride, padding),
                               **kernel_tolerance(dtype))
    np.testing.assert_allclose(jit.conv2d_grad_weight(x, g, w_shape, stride, padding),
                               reference.conv2d_grad_weight(x, g, w_shape, stride, padding),
                               **kernel_tolerance(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_gemm_path_in_many_chunks_and_threads(monkeypatch, dtype: type) -> None:
    """A chunk of one or two images (and a partial last chunk), tasks split between three
    threads: the same numbers as one chunk."""
    monkeypatch.setattr(jit_gemm, "CHUNK_BYTES", 2 * (3 * 9 + 4) * 36 * np.dtype(dtype).itemsize)
    monkeypatch.setattr(thread_pool, "THREADS", 3)
    monkeypatch.setattr(thread_pool, "MIN_ELEMENTS_PER_THREAD", 1)
    assert jit_gemm._chunk(5, (3 * 9 + 4) * 36, np.dtype(dtype).itemsize) == 2
    _check(GEMM, (5, 3, 6, 6), (4, 3, 3, 3), (1, 1), (1, 1), dtype=dtype)


@pytest.mark.parametrize("stride", [(1, 1), (2, 2)])
def test_only_threads_that_own_chunks_hold_blas_to_one_thread(monkeypatch, stride: tuple) -> None:
    """A batch split into chunks between threads: each of those threads runs its GEMMs on one
    BLAS thread. A batch of one chunk leaves BLAS its own threads (its numba loops are the
    ones split between the pool's threads)."""
    monkeypatch.setattr(thread_pool, "THREADS", 2)
    monkeypatch.setattr(thread_pool, "MIN_ELEMENTS_PER_THREAD", 1)
    monkeypatch.setattr(jit_gemm, "_set_blas_threads", lambda count: 1)
    holds = []
    limited = jit_gemm._blas_limited_to_one_thread
    monkeypatch.setattr(jit_gemm, "_blas_limited_to_one_thread",
                        lambda: holds.append(threading.current_thread().name) or limited())
    _check(GEMM, (1, 3, 9, 9), (16, 3, 3, 3), stride, (1, 1), dtype=np.float64)
    assert holds == []
    monkeypatch.setattr(jit_gemm, "CHUNK_BYTES", 1)  # one image a chunk: two chunks, two threads
    _check(GEMM, (2, 3, 9, 9), (16, 3, 3, 3), stride, (1, 1), dtype=np.float64)
    # forward, input gradient, weight gradient: in each, the calling thread and a pool thread
    assert len(holds) == 6 and holds.count(threading.main_thread().name) == 3


@pytest.mark.parametrize("chunk_bytes", ["cache", "workspace"])
def test_the_workspace_stays_within_its_bound(monkeypatch, chunk_bytes: str) -> None:
    """x 32×16×28×28, w 32×16×3×3, pad 1: per image, cols (16·9 × 784) and the product's
    (32 × 784), 0.55 MB, in each of the three calls. So one chunk within the 64 MB bound
    (several threads), or one image per chunk with the cache-sized chunks, the chunks split
    between the pool's threads, a workspace each; the per-thread buffer is reused, not
    grown, by the other calls."""
    limit = {"cache": jit_gemm.CACHE_CHUNK_BYTES, "workspace": jit_gemm.WORKSPACE_BYTES}
    monkeypatch.setattr(jit_gemm, "CHUNK_BYTES", limit[chunk_bytes])
    monkeypatch.setattr(jit_gemm._local, "buffer", None, raising=False)
    x = np.ones((32, 16, 28, 28), dtype=np.float32)
    w = np.ones((32, 16, 3, 3), dtype=np.float32)
    peak = jit_gemm.peak_workspace_bytes(x.shape, w.shape, (1, 1), (1, 1))
    per_image = (16 * 9 + 32) * 784 * 4
    threads = thread_pool.THREADS if jit_gemm._set_blas_threads is not None else 1
    share = jit_gemm.WORKSPACE_BYTES // threads  # each thread's part of the bound
    chunk_images = 1 if chunk_bytes == "cache" else min(32, share // per_image)
    chunks = -(-32 // chunk_images)
    assert peak == min(threads, chunks) * chunk_images * per_image
    assert peak <= jit_gemm.WORKSPACE_BYTES
    x_grad = jit_gemm.conv2d_grad_input(np.ones((32, 32, 28, 28), dtype=np.float32), w,
                                             x.shape, (1, 1), (1, 1))
    buffer = jit_gemm._local.buffer  # the calling thread's (it takes the first chunks)
    assert buffer.size == chunk_images * per_image
    y = jit_gemm.conv2d_forward(x, w, (1, 1), (1, 1))
    jit_gemm.conv2d_grad_weight(x, y, w.shape, (1, 1), (1, 1))
    assert jit_gemm._local.buffer is buffer
    np.testing.assert_array_equal(x_grad[0, 0, 1:-1, 1:-1], 32 * 9.0)  # 9 windows × 32 maps
    np.testing.assert_array_equal(y[0, 0, 1:-1, 1:-1], 144.0)  # interior windows: 16·9 ones
    np.testing.assert_array_equal(y[0, 0, 0, 1:-1], 96.0)  # the top row misses a kernel row
    monkeypatch.setattr(jit_gemm, "WORKSPACE_BYTES", 1 << 18)  # the hard bound wins
    # (shared by the threads that take chunks: 6 images in all, 6 // THREADS each)
    assert jit_gemm._chunk(64, 10000, 4) == max(1, 6 // thread_pool.THREADS)


def test_window_table_on_a_worked_case() -> None:
    """A 3×3 image, 2×2 kernel, stride 2, padding 1: two windows per axis; taps on padding
    read -1, the others the flat index h·3 + w."""
    table = jit_gemm.window_table((3, 3), (2, 2), (2, 2), (1, 1))
    assert table.shape == (4, 4)
    np.testing.assert_array_equal(table, [[-1, -1, -1, 4],   # tap (0, 0)
                                          [-1, -1, 3, 5],    # tap (0, 1)
                                          [-1, 1, -1, 7],    # tap (1, 0)
                                          [0, 2, 6, 8]])     # tap (1, 1)


def test_gather_table_points_padding_at_the_appended_zero() -> None:
    """The same case for `pack`'s gather: padding reads index H·W = 9 (a 0 that the kernel
    appends to its copy of the plane), as unsigned ints."""
    table = jit_gemm.gather_table((3, 3), (2, 2), (2, 2), (1, 1))
    assert table.dtype == np.uint32
    np.testing.assert_array_equal(table, [[9, 9, 9, 4], [9, 9, 3, 5], [9, 1, 9, 7],
                                          [0, 2, 6, 8]])


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("module", [jit, im2col, kernels], ids=["jit", "im2col", "dispatch"])
def test_bias_is_added_in_the_forward(module, dtype: type) -> None:
    rng = np.random.default_rng(3)
    for x_shape, w_shape, stride, padding in (GEMM_CASES[3], WIDE_CASES[0]):
        x = rng.standard_normal(x_shape).astype(dtype)
        w = rng.standard_normal(w_shape).astype(dtype)
        bias = rng.standard_normal(w_shape[0]).astype(dtype)
        expected = reference.conv2d_forward(x, w, stride, padding) + bias.reshape(1, -1, 1, 1)
        y = module.conv2d_forward(x, w, stride, padding, bias)
        assert y.dtype == dtype
        np.testing.assert_allclose(y, expected, **kernel_tolerance(dtype))


@pytest.mark.parametrize("kw", [1, 2, 3, 5])
@pytest.mark.parametrize("stride", [(1, 1), (2, 1)])
def test_gemm_path_keeps_nan_and_inf_where_the_reference_has_them(kw: int, stride: tuple) -> None:
    """Padding is packed as zeros that are multiplied by finite weights, so a nan or inf in
    x reaches exactly the outputs whose window holds it, in all three functions."""
    x = np.arange(2 * 7 * 8, dtype=np.float32).reshape(1, 2, 7, 8)
    x[0, 0, 3, 4], x[0, 1, 5, 1], x[0, 1, 0, 7] = np.inf, np.nan, -np.inf
    w = np.ones((3, 2, 2, kw), dtype=np.float32)
    padding = (1, 0)
    expected = reference.conv2d_forward(x, w, stride, padding)
    y = jit_gemm.conv2d_forward(x, w, stride, padding)
    for test in (np.isnan, np.isposinf, np.isneginf):
        np.testing.assert_array_equal(test(y), test(expected))
    g = np.ones_like(expected)
    g[0, 1, 2, 0] = np.nan
    grad_x = jit_gemm.conv2d_grad_input(g, w, x.shape, stride, padding)
    exact = reference.conv2d_grad_input(g, w, x.shape, stride, padding)
    np.testing.assert_array_equal(np.isnan(grad_x), np.isnan(exact))
    ones = np.ones_like(expected)
    grad_w = jit_gemm.conv2d_grad_weight(x, ones, w.shape, stride, padding)
    exact = reference.conv2d_grad_weight(x, ones, w.shape, stride, padding)
    for test in (np.isnan, np.isposinf, np.isneginf):
        np.testing.assert_array_equal(test(grad_w), test(exact))
    finite = np.isfinite(exact)
    np.testing.assert_allclose(grad_w[finite], exact[finite], rtol=1e-5)


def test_the_gemms_run_on_one_blas_thread_and_restore_the_setting(monkeypatch) -> None:
    """With several threads, our GEMMs ask numpy's OpenBLAS for one thread (its per-thread
    setting) and give the old setting back afterwards."""
    if jit_gemm._set_blas_threads is None:
        pytest.skip("numpy's BLAS is not its bundled OpenBLAS")
    monkeypatch.setattr(thread_pool, "THREADS", 2)
    before = jit_gemm._set_blas_threads(3)  # a known setting outside
    try:
        with jit_gemm._one_blas_thread():
            inside = jit_gemm._set_blas_threads(1)  # returns the setting in force
        after = jit_gemm._set_blas_threads(3)
    finally:
        jit_gemm._set_blas_threads(before)
    assert (inside, after) == (1, 3)


@pytest.mark.parametrize("module", [jit_gemm, im2col], ids=["jit_gemm", "im2col"])
def test_the_weight_gradient_reuses_the_windows_its_forward_packed(module) -> None:
    """A small layer (one chunk): the forward leaves its packed windows in `packed` and the
    weight gradient uses them instead of packing x again, so windows packed from another
    input give that input's gradient; without `packed`, x is packed as before."""
    rng = np.random.default_rng(5)
    x, other = rng.standard_normal((2, 2, 3, 6, 6))
    w = rng.standard_normal((4, 3, 3, 3))
    g = rng.standard_normal((2, 4, 6, 6))
    packed: dict = {}
    y = module.conv2d_forward(other, w, (1, 1), (1, 1), packed=packed)
    assert set(packed) == {"columns"}
    np.testing.assert_allclose(y, reference.conv2d_forward(other, w, (1, 1), (1, 1)),
                               **kernel_tolerance(np.float64))
    expected = reference.conv2d_grad_weight(other, g, w.shape, (1, 1), (1, 1))
    np.testing.assert_allclose(module.conv2d_grad_weight(x, g, w.shape, (1, 1), (1, 1), packed),
                               expected, **kernel_tolerance(np.float64))
    np.testing.assert_allclose(module.conv2d_grad_weight(x, g, w.shape, (1, 1), (1, 1)),
                               reference.conv2d_grad_weight(x, g, w.shape, (1, 1), (1, 1)),
                               **kernel_tolerance(np.float64))


def test_a_layer_of_several_chunks_keeps_no_windows(monkeypatch) -> None:
    """Past one chunk the windows are packed again in the weight gradient, chunk by chunk
    (kept, they would no longer be in cache): nothing is left in `packed`."""
    monkeypatch.setattr(jit_gemm, "CHUNK_BYTES", 2 * (3 * 9 + 4) * 36 * 8)
    x = np.ones((5, 3, 6, 6))
    packed: dict = {}
    jit_gemm.conv2d_forward(x, np.ones((4, 3, 3, 3)), (1, 1), (1, 1), packed=packed)
    assert packed == {}


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("transposed", [False, True], ids=["a", "a.T"])
def test_a_product_in_column_slabs_is_the_same_product(monkeypatch, dtype, transposed) -> None:
    """blas.product cuts a product into column slabs of at most SMALL_PRODUCT multiply-adds
    (here three slabs of 32 columns of 4 × 8 in one stacked matmul, and a last slab of 4): the
    same numbers as one np.dot, for a transposed left factor too (the input gradient's wᵀ)."""
    from minigrad.kernels import blas

    monkeypatch.setattr(blas, "SMALL_PRODUCT", 4 * 8 * 32)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((8, 4) if transposed else (4, 8)).astype(dtype)
    a = a.T if transposed else a
    b = rng.standard_normal((8, 100)).astype(dtype)
    calls = []
    matmul = np.matmul
    monkeypatch.setattr(np, "matmul", lambda *args, **kw: calls.append(1) or matmul(*args, **kw))
    out = blas.product(a, b, np.empty((4, 100), dtype=dtype))
    assert len(calls) == 2  # (3 × 32) + 4 columns
    np.testing.assert_allclose(out, a @ b, **kernel_tolerance(dtype))
    monkeypatch.setattr(blas, "SMALL_PRODUCT", 0)  # no small-matrix kernels: one np.dot
    np.testing.assert_allclose(blas.product(a, b, np.empty((4, 100), dtype=dtype)), a @ b,
                               **kernel_tolerance(dtype))
    assert len(calls) == 2


def test_openblas_names_its_kernel_set() -> None:
    from minigrad.kernels import blas

    name = blas.core_name()
    assert isinstance(name, str) and name
    assert blas.SMALL_PRODUCT == (100 ** 3 if name.lower() in blas.SMALL_MATRIX_KERNELS else 0)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("case", GEMM_CASES[:4], ids=[str(i) for i in range(4)])
def test_gemm_path_with_its_products_in_slabs(monkeypatch, case: tuple, dtype: type) -> None:
    """The products of a layer cut into 16-column slabs: the reference's numbers."""
    from minigrad.kernels import blas

    monkeypatch.setattr(blas, "SMALL_PRODUCT", 1)
    monkeypatch.setattr(blas, "MIN_SLAB_COLUMNS", 0)
    slabs = []
    matmul = np.matmul
    monkeypatch.setattr(np, "matmul", lambda *args, **kw: slabs.append(1) or matmul(*args, **kw))
    _check(GEMM, *case, dtype=dtype)
    assert slabs
