"""The three kernel implementations (reference loops, im2col, numba) agree with each other."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad import kernels
from minigrad.kernels import im2col, reference

pytest.importorskip("numba")
from support import numba_kernels as jit  # noqa: E402
from support.tolerance import kernel_tolerance  # noqa: E402

pytestmark = pytest.mark.usefixtures("warm_kernels")

FAST = {"im2col": im2col, "jit": jit}
DTYPES = [np.float32, np.float64]



def _conv_cases(count: int = 12) -> list[tuple]:
    """Random (x shape, w shape, stride, padding) with at least one output pixel."""
    rng = np.random.default_rng(20260)
    cases = []
    while len(cases) < count:
        n, c, o = rng.integers(1, 4), rng.integers(1, 4), rng.integers(1, 7)
        kh, kw = rng.integers(1, 4), rng.integers(1, 4)
        h, w = rng.integers(1, 8), rng.integers(1, 8)
        stride = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        padding = (int(rng.integers(0, 4)), int(rng.integers(0, 4)))
        if h + 2 * padding[0] < kh or w + 2 * padding[1] < kw:
            continue
        cases.append(((n, c, h, w), (o, c, kh, kw), stride, padding))
    # Past the numba kernels' blocks: more than 8 output channels (a second, partial block)
    # and kernels larger than one 3×3 tile of taps.
    cases.append(((2, 3, 9, 8), (11, 3, 5, 4), (2, 1), (2, 1)))
    cases.append(((1, 2, 7, 7), (17, 2, 4, 6), (1, 1), (3, 0)))
    return cases


CONV_CASES = _conv_cases()


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("case", CONV_CASES, ids=[str(i) for i in range(len(CONV_CASES))])
@pytest.mark.parametrize("name", FAST)
def test_conv_kernels_agree_with_reference(name: str, case: tuple, dtype: type) -> None:
    x_shape, w_shape, stride, padding = case
    rng = np.random.default_rng(1)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    fast = FAST[name]
    expected = reference.conv2d_forward(x, w, stride, padding)
    y = fast.conv2d_forward(x, w, stride, padding)
    assert y.dtype == dtype and y.shape == expected.shape
    np.testing.assert_allclose(y, expected, **kernel_tolerance(dtype))

    g = rng.standard_normal(expected.shape).astype(dtype)
    grad_x = fast.conv2d_grad_input(g, w, x_shape, stride, padding)
    assert grad_x.dtype == dtype
    np.testing.assert_allclose(grad_x, reference.conv2d_grad_input(g, w, x_shape, stride, padding),
                               **kernel_tolerance(dtype))
    grad_w = fast.conv2d_grad_weight(x, g, w_shape, stride, padding)
    assert grad_w.dtype == dtype
    np.testing.assert_allclose(grad_w, reference.conv2d_grad_weight(x, g, w_shape, stride, padding),
                               **kernel_tolerance(dtype))


@pytest.mark.parametrize("kw", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("name", FAST)
def test_a_nan_or_inf_input_reaches_only_the_outputs_whose_window_holds_it(name: str,
                                                                          kw: int) -> None:
    """The numba loops take kernel columns three at a time; a kernel padded with zero columns
    would multiply 0 by the inf beside a window (0·inf = nan) and spread nan to neighbours."""
    x = np.arange(2 * 7 * 8, dtype=np.float32).reshape(1, 2, 7, 8)
    x[0, 0, 3, 4], x[0, 1, 5, 1] = np.inf, np.nan
    w = np.ones((3, 2, 2, kw), dtype=np.float32)
    expected = reference.conv2d_forward(x, w, (1, 1), (1, 0))
    y = FAST[name].conv2d_forward(x, w, (1, 1), (1, 0))
    np.testing.assert_array_equal(np.isnan(y), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(y), np.isinf(expected))
    g = np.ones_like(expected)
    g[0, 1, 2, 2] = np.nan
    grad_x = FAST[name].conv2d_grad_input(g, w, x.shape, (1, 1), (1, 0))
    np.testing.assert_array_equal(
        np.isnan(grad_x), np.isnan(reference.conv2d_grad_input(g, w, x.shape, (1, 1), (1, 0))))
    for padding in ((1, 0), (0, 0), (0, 1)):  # the weight gradient, for a finite grad_y
        ones = np.ones_like(reference.conv2d_forward(x, w, (1, 1), padding))
        grad_w = FAST[name].conv2d_grad_weight(x, ones, w.shape, (1, 1), padding)
        exact = reference.conv2d_grad_weight(x, ones, w.shape, (1, 1), padding)
        np.testing.assert_array_equal(np.isnan(grad_w), np.isnan(exact))
        np.testing.assert_array_equal(np.isinf(grad_w), np.isinf(exact))


def test_conv_grad_input_is_the_adjoint_of_forward() -> None:
    """<conv(x), g> = <x, grad_input(g)> for every x and g: the definition of the transpose."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 7, 6))
    w = rng.standard_normal((4, 3, 3, 2))
    y = reference.conv2d_forward(x, w, (2, 1), (1, 2))
    g = rng.standard_normal(y.shape)
    assert np.vdot(y, g) == pytest.approx(np.vdot(x, reference.conv2d_grad_input(
        g, w, x.shape, (2, 1), (1, 2))))
    assert np.vdot(y, g) == pytest.approx(np.vdot(w, reference.conv2d_grad_weight(
        x, g, w.shape, (2, 1), (1, 2))))


def test_conv_reference_on_a_worked_case() -> None:
    """3×3 input, 2×2 kernel: y[i, j] = Σ w[m, n]·x[i+m, j+n] written out by hand."""
    x = np.arange(1.0, 10.0).reshape(1, 1, 3, 3)
    w = np.array([[1.0, 2.0], [3.0, 4.0]]).reshape(1, 1, 2, 2)
    y = reference.conv2d_forward(x, w, (1, 1), (0, 0))
    expected = [[1 * 1 + 2 * 2 + 3 * 4 + 4 * 5, 1 * 2 + 2 * 3 + 3 * 5 + 4 * 6],
                [1 * 4 + 2 * 5 + 3 * 7 + 4 * 8, 1 * 5 + 2 * 6 + 3 * 8 + 4 * 9]]
    np.testing.assert_array_equal(y[0, 0], expected)


def _pool_cases(count: int = 12) -> list[tuple]:
    rng = np.random.default_rng(7)
    cases = []
    while len(cases) < count:
        kernel = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        stride = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        padding = (int(rng.integers(0, kernel[0] // 2 + 1)), int(rng.integers(0, kernel[1] // 2 + 1)))
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 8)),
                 int(rng.integers(1, 8)))
        if shape[2] + 2 * padding[0] < kernel[0] or shape[3] + 2 * padding[1] < kernel[1]:
            continue
        cases.append((shape, kernel, stride, padding))
    # The 2×2, stride 2 pooling of every course network has its own numba kernels: even and
    # odd sizes (an odd last row or column belongs to no window).
    cases.append(((2, 3, 6, 8), (2, 2), (2, 2), (0, 0)))
    cases.append(((1, 2, 7, 5), (2, 2), (2, 2), (0, 0)))
    return cases


POOL_CASES = _pool_cases()


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("case", POOL_CASES, ids=[str(i) for i in range(len(POOL_CASES))])
@pytest.mark.parametrize("name", FAST)
def test_pool_kernels_agree_with_reference(name: str, case: tuple, dtype: type) -> None:
    shape, kernel, stride, padding = case
    rng = np.random.default_rng(3)
    # Few distinct values: plenty of ties, so the tie rule is checked too.
    x = rng.integers(-2, 3, size=shape).astype(dtype)
    fast = FAST[name]
    values, indices = fast.max_pool2d_forward(x, kernel, stride, padding)
    expected_values, expected_indices = reference.max_pool2d_forward(x, kernel, stride, padding)
    np.testing.assert_array_equal(values, expected_values)
    np.testing.assert_array_equal(indices, expected_indices)
    assert values.dtype == dtype and indices.dtype == np.int64
    g = rng.standard_normal(values.shape).astype(dtype)
    np.testing.assert_allclose(fast.max_pool2d_backward(g, indices, shape),
                               reference.max_pool2d_backward(g, indices, shape),
                               **kernel_tolerance(dtype))

    y = fast.avg_pool2d_forward(x, kernel, stride, padding)
    assert y.dtype == dtype
    np.testing.assert_allclose(y, reference.avg_pool2d_forward(x, kernel, stride, padding),
                               **kernel_tolerance(dtype))
    grad = fast.avg_pool2d_backward(g, shape, kernel, stride, padding)
    assert grad.dtype == dtype
    np.testing.assert_allclose(grad, reference.avg_pool2d_backward(g, shape, kernel, stride,
                                                                   padding), **kernel_tolerance(dtype))


@pytest.mark.parametrize("name", ["reference", "im2col", "jit"])
def test_max_pool_ties_nan_and_minus_infinity(name: str) -> None:
    """First maximum in row-major order wins a tie; NaN beats numbers (the last NaN wins);
    a window of -inf picks its first real pixel, never the padding."""
    module = {"reference": reference, "im2col": im2col, "jit": jit}[name]
    x = np.array([[[[1.0, 5.0, 5.0, 0.0],
                    [5.0, 2.0, np.nan, np.nan],
                    [-np.inf, -np.inf, 3.0, 3.0],
                    [-np.inf, -np.inf, 3.0, 3.0]]]])
    values, indices = module.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0))
    np.testing.assert_array_equal(values[0, 0], [[5.0, np.nan], [-np.inf, 3.0]])
    np.testing.assert_array_equal(indices[0, 0], [[1, 7], [8, 10]])
    padded_values, padded_indices = module.max_pool2d_forward(x[:, :, 2:, :2], (2, 2), (1, 1), (1, 1))
    assert np.all(np.isneginf(padded_values))
    np.testing.assert_array_equal(padded_indices[0, 0], [[0, 0, 1], [0, 0, 1], [2, 2, 3]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_2x2_fast_planes_and_their_nan_rerun_match_the_reference(dtype) -> None:
    """The unrolled 2×2 kernel compares without NaN tests and reruns a plane that held a NaN:
    on data with many ties, NaNs, infinities and odd sizes it must pick the very values and
    indices the reference scan picks."""
    rng = np.random.default_rng(7)
    x = rng.integers(-3, 4, size=(3, 5, 9, 11)).astype(dtype)  # small integers: many ties
    mark = rng.random(x.shape)
    x[mark < 0.03] = np.nan
    x[(mark >= 0.03) & (mark < 0.05)] = np.inf
    x[(mark >= 0.05) & (mark < 0.07)] = -np.inf
    values, indices = jit.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0))
    expected_values, expected_indices = reference.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0))
    np.testing.assert_array_equal(values, expected_values)  # (NaN positions included)
    np.testing.assert_array_equal(indices, expected_indices)


def test_max_pool_backward_adds_where_windows_share_a_winner() -> None:
    x = np.array([[[[0.0, 9.0, 0.0]]]])
    values, indices = reference.max_pool2d_forward(x, (1, 2), (1, 1), (0, 0))
    np.testing.assert_array_equal(indices[0, 0, 0], [1, 1])
    grad = kernels.max_pool2d_backward(np.array([[[[2.0, 3.0]]]]), indices, x.shape)
    np.testing.assert_array_equal(grad[0, 0, 0], [0.0, 5.0, 0.0])


def test_dispatch_uses_numba_when_it_is_importable() -> None:
    assert kernels.backend_name() == ("im2col" if kernels.jit_disabled() else "jit")


@pytest.mark.skipif(kernels.jit_disabled(), reason="MINIGRAD_DISABLE_JIT=1: float32 → im2col")
def test_the_table_sends_each_dtype_and_shape_class_to_its_algorithm() -> None:
    from minigrad.kernels import jit_gemm, jit_pool, jit_winograd, pointwise

    wide_3x3 = ((16, 16, 16, 16), (16, 16, 3, 3), (1, 1), (1, 1))
    unpadded_1x1 = ((2, 8, 5, 5), (4, 8, 1, 1), (2, 2), (0, 0))
    other = ((2, 3, 9, 9), (4, 3, 5, 5), (1, 1), (2, 2))
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    assert kernels.conv_algorithm(f32, *wide_3x3) is jit_winograd
    assert kernels.conv_algorithm(f32, *unpadded_1x1) is pointwise
    assert kernels.conv_algorithm(f32, *other) is jit_gemm
    for dtype in (f64, np.dtype(np.float16)):
        for case in (wide_3x3, unpadded_1x1, other):
            assert kernels.conv_algorithm(dtype, *case) is im2col
    assert kernels.pool_algorithm(f32) is jit_pool
    assert kernels.pool_algorithm(f64) is im2col
    # a scalar type names the same row as its dtype
    assert kernels.conv_algorithm(np.float32, *wide_3x3) is jit_winograd
    assert kernels.pool_algorithm(np.float32) is jit_pool


def test_every_conv_algorithm_takes_the_same_arguments_with_a_bias() -> None:
    """reference, im2col and the numba algorithms: conv2d_forward(x, w, stride, padding, bias)."""
    rng = np.random.default_rng(3)
    x, w, bias = rng.standard_normal((2, 3, 6, 6)), rng.standard_normal((4, 3, 3, 3)), rng.standard_normal(4)
    without = reference.conv2d_forward(x, w, (1, 1), (1, 1))
    expected = without + bias.reshape(1, -1, 1, 1)
    np.testing.assert_allclose(reference.conv2d_forward(x, w, (1, 1), (1, 1), bias), expected,
                               rtol=1e-12, atol=1e-12)
    for module in (im2col, jit):
        np.testing.assert_allclose(module.conv2d_forward(x, w, (1, 1), (1, 1), bias), expected,
                                   **kernel_tolerance(np.float64))


def test_pool_kernels_split_large_inputs_between_threads(monkeypatch) -> None:
    """Large inputs run on several threads (plane ranges); the result must not change."""
    from minigrad.kernels import jit_pool, thread_pool

    x = np.random.default_rng(4).integers(-3, 4, size=(4, 8, 40, 40)).astype(np.float32)
    monkeypatch.setattr(thread_pool, "THREADS", 1)
    single = jit_pool.max_pool2d_forward(x, (3, 3), (2, 2), (1, 1))
    single_avg = jit_pool.avg_pool2d_forward(x, (2, 2), (1, 1), (0, 0))
    monkeypatch.setattr(thread_pool, "THREADS", 3)
    monkeypatch.setattr(thread_pool, "MIN_ELEMENTS_PER_THREAD", 1000)
    values, indices = jit_pool.max_pool2d_forward(x, (3, 3), (2, 2), (1, 1))
    np.testing.assert_array_equal(values, single[0])
    np.testing.assert_array_equal(indices, single[1])
    np.testing.assert_array_equal(jit_pool.avg_pool2d_forward(x, (2, 2), (1, 1), (0, 0)), single_avg)
    g = np.ones_like(values)
    np.testing.assert_array_equal(jit_pool.max_pool2d_backward(g, indices, x.shape),
                                  reference.max_pool2d_backward(g, indices, x.shape))
