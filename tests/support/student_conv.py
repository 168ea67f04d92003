"""A student's own numpy convolution, as 06.5 asks for it: outside the library, so the
harness's watch (`library_calls`, which flags calls into `minigrad.kernels` and `ops.conv`)
lets it through. Tests build student Functions from it, right or with a planted mistake."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def _padded(x: np.ndarray, padding: int) -> np.ndarray:
    return np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))


def _windows(x: np.ndarray, k: int, stride: int, padding: int) -> np.ndarray:
    """(N, C, OH, OW, k, k): every window of the padded input."""
    return sliding_window_view(_padded(x, padding), (k, k), axis=(2, 3))[:, :, ::stride, ::stride]


def forward(x: np.ndarray, weight: np.ndarray, stride: int, padding: int) -> np.ndarray:
    """y[n, o] = Σ_c x_p[n, c] ⋆ w[o, c] at stride s (no bias)."""
    return np.einsum("nchwij,ocij->nohw", _windows(x, weight.shape[-1], stride, padding), weight)


def input_grad(delta: np.ndarray, weight: np.ndarray, x_shape: tuple, stride: int,
               padding: int) -> np.ndarray:
    """dL/dx: δ[n, o, i, j] · w[o, c] added onto each window, the padding cropped."""
    k, (rows, columns) = weight.shape[-1], delta.shape[2:]
    grad = _padded(np.zeros(x_shape), padding)
    for m in range(k):
        for n in range(k):
            grad[:, :, m:m + stride * rows:stride, n:n + stride * columns:stride] += np.einsum(
                "nohw,oc->nchw", delta, weight[:, :, m, n])
    return grad[:, :, padding:padding + x_shape[2], padding:padding + x_shape[3]]


def weight_grad(x: np.ndarray, delta: np.ndarray, k: int, stride: int, padding: int) -> np.ndarray:
    """dL/dw[o, c, m, n] = Σ δ[n, o, i, j] · x_p[n, c, s·i + m, s·j + n]."""
    return np.einsum("nohw,nchwij->ocij", delta, _windows(x, k, stride, padding))
