"""1×1 convolutions as products on the NCHW planes (`pointwise`) against the reference loops:
strides 1–3 (uneven too), odd image sizes, batch 0 and 1, bias, float32 and float64, inputs
that are not C-contiguous, chunks and threads, and the dispatch that sends 1×1 layers here."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.kernels import reference

pytest.importorskip("numba")
from support import numba_kernels as jit  # noqa: E402
from support.tolerance import kernel_tolerance  # noqa: E402
from minigrad.kernels import jit_gemm, pointwise, thread_pool  # noqa: E402

pytestmark = pytest.mark.usefixtures("warm_kernels")

DTYPES = [np.float32, np.float64]
CASES = [((2, 3, 5, 7), 4, (1, 1)),     # odd sizes, stride 1
         ((1, 8, 16, 16), 16, (2, 2)),  # batch 1, stride 2 (a residual shortcut)
         ((3, 2, 7, 6), 5, (2, 1)),     # uneven stride
         ((2, 4, 10, 11), 3, (3, 3)),   # stride 3, sizes it does not divide
         ((1, 1, 1, 1), 1, (1, 1))]     # the smallest conv



def _check(x_shape: tuple, outputs: int, stride: tuple, dtype: type, layout=np.asarray) -> None:
    rng = np.random.default_rng(0)
    x = layout(rng.standard_normal(x_shape).astype(dtype))
    w = rng.standard_normal((outputs, x_shape[1], 1, 1)).astype(dtype)
    bias = rng.standard_normal(outputs).astype(dtype)
    expected = reference.conv2d_forward(x, w, stride, (0, 0)) + bias.reshape(1, -1, 1, 1)
    y = pointwise.conv2d_forward(x, w, stride, (0, 0), bias)
    assert y.dtype == dtype and y.shape == expected.shape and y.flags.c_contiguous
    np.testing.assert_allclose(y, expected, **kernel_tolerance(dtype))
    g = layout(rng.standard_normal(expected.shape).astype(dtype))
    grad_x = pointwise.conv2d_grad_input(g, w, x_shape, stride, (0, 0))
    assert grad_x.dtype == dtype and grad_x.shape == x_shape
    np.testing.assert_allclose(grad_x, reference.conv2d_grad_input(g, w, x_shape, stride, (0, 0)),
                               **kernel_tolerance(dtype))
    grad_w = pointwise.conv2d_grad_weight(x, g, w.shape, stride, (0, 0))
    assert grad_w.dtype == dtype and grad_w.shape == w.shape
    np.testing.assert_allclose(grad_w, reference.conv2d_grad_weight(x, g, w.shape, stride, (0, 0)),
                               **kernel_tolerance(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=["odd", "batch1-s2", "s2x1", "s3", "1x1x1"])
def test_pointwise_agrees_with_reference(case: tuple, dtype: type) -> None:
    _check(*case, dtype=dtype)


@pytest.mark.parametrize("case", CASES[:3], ids=["odd", "batch1-s2", "s2x1"])
def test_fortran_ordered_inputs(case: tuple) -> None:
    _check(*case, dtype=np.float64, layout=np.asfortranarray)


def test_empty_batch() -> None:
    x, w = np.ones((0, 3, 4, 4)), np.ones((2, 3, 1, 1))
    assert pointwise.conv2d_forward(x, w, (1, 1), (0, 0)).shape == (0, 2, 4, 4)
    assert pointwise.conv2d_grad_input(np.ones((0, 2, 2, 2)), w, x.shape, (2, 2),
                                     (0, 0)).shape == x.shape
    np.testing.assert_array_equal(pointwise.conv2d_grad_weight(x, np.ones((0, 2, 4, 4)), w.shape,
                                                               (1, 1), (0, 0)), np.zeros(w.shape))


@pytest.mark.parametrize("stride", [(1, 1), (2, 2)])
def test_in_many_chunks_and_threads(monkeypatch, stride: tuple) -> None:
    """Chunks of two images (a partial last one) shared between three threads: the same
    numbers as the reference; the weight gradient sums every thread's chunks."""
    monkeypatch.setattr(jit_gemm, "CHUNK_BYTES", 2 * (3 + 4) * 36 * 8)
    monkeypatch.setattr(thread_pool, "THREADS", 3)
    monkeypatch.setattr(thread_pool, "MIN_ELEMENTS_PER_THREAD", 1)
    _check((5, 3, 6, 6), 4, stride, dtype=np.float64)


@pytest.mark.parametrize("padding, expected", [((0, 0), True), ((1, 1), False)])
def test_the_numba_backend_sends_unpadded_1x1_layers_here(monkeypatch, padding: tuple,
                                                           expected: bool) -> None:
    calls = []
    forward = pointwise.conv2d_forward
    monkeypatch.setattr(pointwise, "conv2d_forward", lambda *a: calls.append(a) or forward(*a))
    x, w = np.ones((1, 2, 4, 4), np.float32), np.ones((3, 2, 1, 1), np.float32)
    y = jit.conv2d_forward(x, w, (1, 1), padding)
    np.testing.assert_allclose(y, reference.conv2d_forward(x, w, (1, 1), padding))
    assert bool(calls) is expected
