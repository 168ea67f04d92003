"""Convolution and pooling kernels: plain numpy arrays in and out, no autograd.

Three implementations of the same seven functions, one module each, tested against each other:

reference   plain Python loops, the definitions (slow; read these first)
im2col      unfold the windows into a matrix and use one matrix product (numpy + BLAS)
jit         numba-compiled loops (fast; needs numba): convolution in jit_gemm (numba
            packing, jit_pack, around one BLAS product per chunk), pooling in jit_pool

Also here: `cache` (where numba stores compiled kernels) and `compiler` (numba, imported
after that choice, and told to use 512-bit vectors on CPUs with AVX-512).

The functions below call the *fast* implementation for the array's dtype:

* float32 (training): `jit` when numba can be imported, else `im2col` with a one-line
  warning. ``MINIGRAD_DISABLE_JIT=1`` chooses `im2col` without a warning (to compare, or
  where compiling is unwelcome). The choice is made on the first call, so `import minigrad`
  never imports numba.
* float64 (gradient checks, worked examples): always `im2col`, whose BLAS products are fast
  in double precision too; so numba compiles (and caches) each kernel once, for float32,
  which halves the first-run compile time. `jit` itself accepts float64 (the tests use it).

Shapes (NCHW): x (N, C, H, W), w (O, C, kh, kw), grad_output (N, O or C, OH, OW);
stride, padding and kernel are (height, width) pairs of ints.
"""

from __future__ import annotations

import os
import types
import warnings

import numpy as np

from minigrad.kernels import im2col, reference
from minigrad.kernels.reference import Pair, output_size

__all__ = [
    "backend_name", "conv2d_forward", "conv2d_grad_input", "conv2d_grad_weight",
    "conv2d_grad_bias", "max_pool2d_forward", "max_pool2d_backward", "avg_pool2d_forward",
    "avg_pool2d_backward", "output_size", "warm_up", "im2col", "reference",
]

_backend: types.ModuleType | None = None


def jit_disabled() -> bool:
    return os.environ.get("MINIGRAD_DISABLE_JIT", "").strip().lower() not in ("", "0", "false", "no")


def _load_backend() -> types.ModuleType:
    global _backend
    if _backend is not None:
        return _backend
    if jit_disabled():
        _backend = im2col
        return _backend
    try:
        from minigrad.kernels import jit
    except ImportError as error:  # numba missing or broken: numpy still works
        warnings.warn(f"minigrad: numba unavailable ({error}); conv/pool use the slower "
                      "numpy im2col kernels", RuntimeWarning, stacklevel=3)
        _backend = im2col
        return _backend
    _backend = jit
    return _backend


def _for(array: np.ndarray) -> types.ModuleType:
    """The implementation for this dtype (see the module docstring)."""
    return _load_backend() if array.dtype == np.float32 else im2col


def backend_name() -> str:
    """"jit" or "im2col": the implementation the functions below use for float32."""
    return _load_backend().__name__.rsplit(".", 1)[-1]


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair,
                   bias: np.ndarray | None = None) -> np.ndarray:
    """y[n, o, oh, ow] = b[o] + Σ_c,i,j w[o, c, i, j] · x[n, c, oh·sh - ph + i, ow·sw - pw + j]
    (b = 0 when bias is None)."""
    return _for(x).conv2d_forward(x, w, stride, padding, bias)


def conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                      stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂x (N, C, H, W): the transposed convolution of grad_output with w."""
    return _for(grad_output).conv2d_grad_input(grad_output, w, tuple(input_shape), stride, padding)


def conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                       stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂w (O, C, kh, kw): the input correlated with grad_output."""
    return _for(x).conv2d_grad_weight(x, grad_output, tuple(weight_shape), stride,
                                              padding)


def conv2d_grad_bias(grad_output: np.ndarray) -> np.ndarray:
    """∂L/∂b (O,) = grad_output summed over batch, rows and columns.

    np.einsum rather than grad_output.sum(axis=(0, 2, 3)): the same float32 error against a
    float64 sum (1.4–3e-7 of the largest), 3–4× quicker (32×128×16²: 275 → 64 µs), as
    numpy's reduction steps through the three axes one value at a time."""
    return np.einsum("nohw->o", grad_output)


def max_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair,
                       padding: Pair) -> tuple[np.ndarray, np.ndarray]:
    """(values, indices): each window's maximum and its flat index h·W + w in the input plane."""
    return _for(x).max_pool2d_forward(x, kernel, stride, padding)


def max_pool2d_backward(grad_output: np.ndarray, indices: np.ndarray,
                        input_shape: tuple) -> np.ndarray:
    """grad_output scattered (added) onto each window's argmax; zero elsewhere."""
    return _for(grad_output).max_pool2d_backward(grad_output, indices, tuple(input_shape))


def avg_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair, padding: Pair) -> np.ndarray:
    """Each window's mean, padding counted as zeros (PyTorch's count_include_pad=True)."""
    return _for(x).avg_pool2d_forward(x, kernel, stride, padding)


def avg_pool2d_backward(grad_output: np.ndarray, input_shape: tuple, kernel: Pair,
                        stride: Pair, padding: Pair) -> np.ndarray:
    """grad_output / (kh·kw) added to every pixel of each window."""
    return _for(grad_output).avg_pool2d_backward(grad_output, tuple(input_shape), kernel, stride,
                                               padding)


def warm_up(dtypes: tuple = (np.float32,)) -> str:
    """Run every kernel once on tiny arrays (stride 1 and 2, with and without padding), so
    that numba compiles them now, or loads them from its disk cache, instead of mid-lesson.
    By default only float32, the dtype the fast path serves; the tests also warm float64.
    Returns the name of the float32 backend."""
    backend = _load_backend()
    for dtype in dtypes:
        x = np.ones((1, 2, 5, 5), dtype=dtype)
        w = np.ones((5, 2, 3, 3), dtype=dtype)
        # Both ways of packing windows: the table (stride 2; outputs narrower than 8) and
        # the shifted planes (stride 1 with padding 3: 9-wide outputs).
        for stride, padding in (((1, 1), (1, 1)), ((2, 2), (0, 0)), ((1, 1), (3, 3))):
            y = backend.conv2d_forward(x, w, stride, padding)
            backend.conv2d_grad_input(y, w, x.shape, stride, padding)
            backend.conv2d_grad_weight(x, y, w.shape, stride, padding)
        # 3×3 stride 1, 16 channels, 64·8·8 output pixels: Winograd's tiles (jit_winograd)
        x16, w16 = np.ones((64, 16, 8, 8), dtype=dtype), np.ones((16, 16, 3, 3), dtype=dtype)
        y = backend.conv2d_forward(x16, w16, (1, 1), (1, 1))
        backend.conv2d_grad_input(y, w16, x16.shape, (1, 1), (1, 1))
        backend.conv2d_grad_weight(x16, y, w16.shape, (1, 1), (1, 1))
        for kernel, padding in (((2, 2), (0, 0)), ((3, 3), (1, 1))):  # 2×2 has its own kernel
            values, indices = backend.max_pool2d_forward(x, kernel, (2, 2), padding)
            backend.max_pool2d_backward(values, indices, x.shape)
        for kernel, padding in (((2, 2), (0, 0)), ((3, 3), (1, 1))):  # 2×2: its own kernels
            y = backend.avg_pool2d_forward(x, kernel, (2, 2), padding)
            backend.avg_pool2d_backward(y, x.shape, kernel, (2, 2), padding)
    return backend_name()
