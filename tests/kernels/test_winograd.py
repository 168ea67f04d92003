"""Winograd's F(2×2, 3×3) (`kernels/jit_winograd.py`) against the reference loops: forward
and both gradients, on edge shapes (an empty batch, padding wider than the kernel, odd
outputs that leave half-filled tiles, Fortran-ordered and non-contiguous inputs), its
float32 error against a float64 reference, and which layers the dispatch sends to it."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.kernels import im2col, reference

pytest.importorskip("numba")
from support import numba_kernels as jit  # noqa: E402
from support.tolerance import kernel_tolerance  # noqa: E402
from minigrad.kernels import jit_winograd  # noqa: E402

pytestmark = pytest.mark.usefixtures("warm_kernels")


def _arrays(x_shape: tuple, out_channels: int, padding: tuple, dtype: type, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = (rng.standard_normal((out_channels, x_shape[1], 3, 3)) / 3).astype(dtype)
    out = (x_shape[2] + 2 * padding[0] - 2, x_shape[3] + 2 * padding[1] - 2)
    g = rng.standard_normal((x_shape[0], out_channels) + out).astype(dtype)
    return x, w, g


def _expected(x, w, g, padding):
    return (reference.conv2d_forward(x, w, (1, 1), padding),
            reference.conv2d_grad_input(g, w, x.shape, (1, 1), padding),
            reference.conv2d_grad_weight(x, g, w.shape, (1, 1), padding))


def _winograd(x, w, g, padding, bias=None):
    return (jit_winograd.conv2d_forward(x, w, (1, 1), padding, bias),
            jit_winograd.conv2d_grad_input(g, w, x.shape, (1, 1), padding),
            jit_winograd.conv2d_grad_weight(x, g, w.shape, (1, 1), padding))


@pytest.mark.parametrize("x_shape, out_channels, padding", [
    ((2, 3, 7, 6), 4, (1, 1)),     # odd output height: the last row of tiles is half outside
    ((1, 2, 5, 5), 3, (0, 0)),     # valid: 3×3 output, every tile row and column half used
    ((2, 2, 4, 5), 2, (3, 2)),     # padding wider than the kernel, different per axis
    ((1, 1, 3, 3), 1, (0, 0)),     # one output pixel
    ((3, 16, 9, 9), 16, (1, 1)),   # 16 channels, as in the layers the dispatch sends here
])
def test_matches_the_reference_loops_in_float64(x_shape, out_channels, padding) -> None:
    x, w, g = _arrays(x_shape, out_channels, padding, np.float64)
    for got, expected in zip(_winograd(x, w, g, padding), _expected(x, w, g, padding)):
        assert got.shape == expected.shape and got.dtype == np.float64
        np.testing.assert_allclose(got, expected, **kernel_tolerance(np.float64))


def test_bias_is_added_to_every_output() -> None:
    x, w, g = _arrays((2, 3, 6, 6), 4, (1, 1), np.float64)
    bias = np.arange(4, dtype=np.float64)
    expected = reference.conv2d_forward(x, w, (1, 1), (1, 1)) + bias.reshape(-1, 1, 1)
    np.testing.assert_allclose(jit_winograd.conv2d_forward(x, w, (1, 1), (1, 1), bias), expected,
                               **kernel_tolerance(np.float64))


def test_empty_batch() -> None:
    x, w, g = _arrays((0, 3, 6, 6), 4, (1, 1), np.float32)
    y, grad_x, grad_w = _winograd(x, w, g, (1, 1))
    assert y.shape == (0, 4, 6, 6) and grad_x.shape == x.shape
    assert grad_w.shape == w.shape and not grad_w.any()


def test_fortran_ordered_and_strided_inputs() -> None:
    x, w, g = _arrays((2, 16, 8, 10), 16, (1, 1), np.float32)
    expected = _expected(x.astype(np.float64), w.astype(np.float64), g.astype(np.float64), (1, 1))
    for layout in (np.asfortranarray, lambda a: np.repeat(a, 2, axis=-1)[..., ::2]):
        got = _winograd(layout(x), layout(w), layout(g), (1, 1))
        for value, want in zip(got, expected):
            np.testing.assert_allclose(value, want, rtol=1e-4, atol=1e-4)


def test_float32_error_against_float64() -> None:
    """The transforms add a few roundings: the largest error, relative to the result's
    largest value, stays under 1e-6 (float32's own step is 1.2e-7)."""
    x, w, g = _arrays((2, 16, 8, 8), 16, (1, 1), np.float32)
    expected = _expected(x.astype(np.float64), w.astype(np.float64), g.astype(np.float64), (1, 1))
    for got, want in zip(_winograd(x, w, g, (1, 1)), expected):
        error = np.abs(got.astype(np.float64) - want).max() / np.abs(want).max()
        print(f"float32 error {error:.2e}")
        assert error < 1e-6, error


@pytest.mark.parametrize("x_shape, w_shape, stride, expected", [
    ((32, 16, 28, 28), (32, 16, 3, 3), (1, 1), True),
    ((32, 128, 8, 8), (128, 128, 3, 3), (1, 1), True),
    ((32, 1, 8, 8), (16, 1, 3, 3), (1, 1), False),     # one input channel: BLAS on K=1
    ((32, 16, 4, 4), (32, 16, 3, 3), (1, 1), False),   # 4×4 outputs: no faster
    ((64, 32, 16, 16), (64, 32, 3, 3), (2, 2), False),  # stride 2
    ((32, 20, 12, 12), (50, 20, 5, 5), (1, 1), False),  # 5×5
    ((1, 16, 32, 32), (32, 16, 3, 3), (1, 1), False),   # batch 1: 1024 output pixels
    ((1, 64, 32, 32), (64, 64, 3, 3), (1, 1), True),    # ... enough with 64 channels
    ((1, 128, 16, 16), (128, 128, 3, 3), (1, 1), False),  # 256 output pixels
    ((16, 16, 16, 16), (16, 16, 3, 3), (1, 1), True),   # 4096 output pixels
])
def test_dispatch(x_shape, w_shape, stride, expected) -> None:
    assert jit_winograd.applies(x_shape, w_shape, stride, (1, 1)) is expected


def test_the_numba_backend_sends_wide_3x3_layers_here() -> None:
    """(Against im2col in float64, itself tested against the reference loops, which would
    take minutes on a layer this large.)"""
    x, w, g = _arrays((1, 64, 32, 32), 16, (1, 1), np.float32)
    assert jit_winograd.applies(x.shape, w.shape, (1, 1), (1, 1))
    x64, w64, g64 = x.astype(np.float64), w.astype(np.float64), g.astype(np.float64)
    expected = (im2col.conv2d_forward(x64, w64, (1, 1), (1, 1)),
                im2col.conv2d_grad_input(g64, w64, x.shape, (1, 1), (1, 1)),
                im2col.conv2d_grad_weight(x64, g64, w.shape, (1, 1), (1, 1)))
    got = (jit.conv2d_forward(x, w, (1, 1), (1, 1)),
           jit.conv2d_grad_input(g, w, x.shape, (1, 1), (1, 1)),
           jit.conv2d_grad_weight(x, g, w.shape, (1, 1), (1, 1)))
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-4, atol=1e-4)


def test_one_tile_is_the_direct_correlation() -> None:
    """Aᵀ[(G g Gᵀ) ⊙ (Bᵀ d B)]A: the identity itself, on one 4×4 patch and one 3×3 kernel."""
    rng = np.random.default_rng(1)
    d, g = rng.standard_normal((4, 4)), rng.standard_normal((3, 3))
    B_T, G, A_T = jit_winograd.B_T, jit_winograd.G, jit_winograd.A_T
    block = A_T @ ((G @ g @ G.T) * (B_T @ d @ B_T.T)) @ A_T.T
    direct = np.array([[(d[r:r + 3, s:s + 3] * g).sum() for s in range(2)] for r in range(2)])
    np.testing.assert_allclose(block, direct, rtol=1e-12, atol=1e-12)
