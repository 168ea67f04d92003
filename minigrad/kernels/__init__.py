"""Convolution and pooling kernels: plain numpy arrays in and out, no autograd.

Every convolution algorithm is a module with the same four functions, same arguments:

    applies(x_shape, weight_shape, stride, padding)            its shape class (True/False)
    conv2d_forward(x, w, stride, padding, bias=None, packed=None)
    conv2d_grad_input(grad_output, w, input_shape, stride, padding)
    conv2d_grad_weight(x, grad_output, weight_shape, stride, padding, packed=None)

(`packed`: a dict that one layer's forward and weight-gradient calls share, so that an
algorithm that packs the input's windows can do it once; the others ignore it)

and every pooling algorithm has the four pooling functions below. The algorithms:

reference     plain Python loops, the definitions (slow; read these first): the tests'
              yardstick, never dispatched to
im2col        windows unfolded into a matrix, one matrix product (numpy + BLAS)
jit_winograd  Winograd's F(2×2, 3×3): 16 BLAS products on transformed tiles (numba)
pointwise     1×1 kernels: one BLAS product per image on the NCHW planes
jit_gemm      numba packing (`jit_pack`) around one BLAS product per chunk of images
jit_pool      max and average pooling as numba loops

with their helpers `thread_pool` (the threads the numba kernels share), `blas` (numpy's
OpenBLAS as they call it), `cache` (where numba stores compiled kernels) and `compiler`
(numba, imported after that choice).

The dispatch table, from (dtype, shape class) to algorithm (`conv_algorithm`,
`pool_algorithm`); the first row that matches runs:

    dtype     shape class                                           convolution    pooling
    float32   3×3, stride 1, ≥ 16 channels in and out, enough
              output pixels (`jit_winograd.applies`)                jit_winograd
    float32   1×1, no padding (`pointwise.applies`)                 pointwise
    float32   any                                                   jit_gemm       jit_pool
    other     any                                                   im2col         im2col

float32 is what training uses; float64 (gradient checks, worked examples) goes to `im2col`,
whose BLAS products are fast in double precision too, so numba compiles each kernel for
float32 only. The float32 rows need numba: without it float32 also goes to `im2col`, with a
one-line warning, and ``MINIGRAD_DISABLE_JIT=1`` chooses that without a warning (to compare,
or where compiling is unwelcome). The table is filled on the first call, so
`import minigrad` never imports numba. Called directly, the numba algorithms accept float64
too (the tests run them in both).

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
    "backend_name", "conv_algorithm", "pool_algorithm", "conv2d_forward", "conv2d_grad_input",
    "conv2d_grad_weight", "conv2d_grad_bias", "max_pool2d_forward", "max_pool2d_backward",
    "avg_pool2d_forward", "avg_pool2d_backward", "output_size", "warm_up", "im2col",
    "reference",
]

_FLOAT32 = np.dtype(np.float32)
_conv_rows: dict[np.dtype, tuple[types.ModuleType, ...]] | None = None
_pool_rows: dict[np.dtype, types.ModuleType] = {}


def jit_disabled() -> bool:
    return os.environ.get("MINIGRAD_DISABLE_JIT", "").strip().lower() not in ("", "0", "false", "no")


def _fill_table() -> dict[np.dtype, tuple[types.ModuleType, ...]]:
    """The float32 rows of the table (numba's, or none); other dtypes fall to `im2col`."""
    global _conv_rows
    _conv_rows = {}
    if jit_disabled():
        return _conv_rows
    try:
        from minigrad.kernels import jit_gemm, jit_pool, jit_winograd, pointwise
    except ImportError as error:  # numba missing or broken: numpy still works
        warnings.warn(f"minigrad: numba unavailable ({error}); conv/pool use the slower "
                      "numpy im2col kernels", RuntimeWarning, stacklevel=4)
        return _conv_rows
    _conv_rows[_FLOAT32] = (jit_winograd, pointwise, jit_gemm)
    _pool_rows[_FLOAT32] = jit_pool
    return _conv_rows


_ANY = (im2col,)


def conv_algorithm(dtype: np.dtype | type, x_shape: tuple, weight_shape: tuple, stride: Pair,
                   padding: Pair) -> types.ModuleType:
    """The table's convolution algorithm for this dtype (`np.float32` or `array.dtype`) and
    shape."""
    rows = _conv_rows if _conv_rows is not None else _fill_table()
    for algorithm in rows.get(np.dtype(dtype), _ANY):
        if algorithm.applies(x_shape, weight_shape, stride, padding):
            return algorithm
    return im2col


def pool_algorithm(dtype: np.dtype | type) -> types.ModuleType:
    """The table's pooling algorithm for this dtype (`np.float32` or `array.dtype`)."""
    if _conv_rows is None:
        _fill_table()
    return _pool_rows.get(np.dtype(dtype), im2col)


def backend_name() -> str:
    """"jit" or "im2col": whether float32 runs the numba rows of the table."""
    return "jit" if pool_algorithm(_FLOAT32) is not im2col else "im2col"


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: Pair, padding: Pair,
                   bias: np.ndarray | None = None, packed: dict | None = None) -> np.ndarray:
    """y[n, o, oh, ow] = b[o] + Σ_c,i,j w[o, c, i, j] · x[n, c, oh·sh - ph + i, ow·sw - pw + j]
    (b = 0 when bias is None). Give the same `packed` dict to the weight gradient's call."""
    algorithm = conv_algorithm(x.dtype, x.shape, w.shape, stride, padding)
    return algorithm.conv2d_forward(x, w, stride, padding, bias, packed)


def conv2d_grad_input(grad_output: np.ndarray, w: np.ndarray, input_shape: tuple,
                      stride: Pair, padding: Pair) -> np.ndarray:
    """∂L/∂x (N, C, H, W): the transposed convolution of grad_output with w."""
    input_shape = tuple(input_shape)
    algorithm = conv_algorithm(grad_output.dtype, input_shape, w.shape, stride, padding)
    return algorithm.conv2d_grad_input(grad_output, w, input_shape, stride, padding)


def conv2d_grad_weight(x: np.ndarray, grad_output: np.ndarray, weight_shape: tuple,
                       stride: Pair, padding: Pair, packed: dict | None = None) -> np.ndarray:
    """∂L/∂w (O, C, kh, kw): the input correlated with grad_output (`packed`: what the
    forward call of the same x left there)."""
    weight_shape = tuple(weight_shape)
    algorithm = conv_algorithm(x.dtype, x.shape, weight_shape, stride, padding)
    return algorithm.conv2d_grad_weight(x, grad_output, weight_shape, stride, padding, packed)


def conv2d_grad_bias(grad_output: np.ndarray) -> np.ndarray:
    """∂L/∂b (O,) = grad_output summed over batch, rows and columns.

    np.einsum rather than grad_output.sum(axis=(0, 2, 3)): the same float32 error against a
    float64 sum, and quicker, as numpy's reduction steps through the three axes one value at
    a time (benchmarks/README.md)."""
    return np.einsum("nohw->o", grad_output)


def max_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair,
                       padding: Pair) -> tuple[np.ndarray, np.ndarray]:
    """(values, indices): each window's maximum and its flat index h·W + w in the input plane."""
    return pool_algorithm(x.dtype).max_pool2d_forward(x, kernel, stride, padding)


def max_pool2d_backward(grad_output: np.ndarray, indices: np.ndarray,
                        input_shape: tuple) -> np.ndarray:
    """grad_output scattered (added) onto each window's argmax; zero elsewhere."""
    algorithm = pool_algorithm(grad_output.dtype)
    return algorithm.max_pool2d_backward(grad_output, indices, tuple(input_shape))


def avg_pool2d_forward(x: np.ndarray, kernel: Pair, stride: Pair, padding: Pair) -> np.ndarray:
    """Each window's mean, padding counted as zeros (PyTorch's count_include_pad=True)."""
    return pool_algorithm(x.dtype).avg_pool2d_forward(x, kernel, stride, padding)


def avg_pool2d_backward(grad_output: np.ndarray, input_shape: tuple, kernel: Pair,
                        stride: Pair, padding: Pair) -> np.ndarray:
    """grad_output / (kh·kw) added to every pixel of each window."""
    algorithm = pool_algorithm(grad_output.dtype)
    return algorithm.avg_pool2d_backward(grad_output, tuple(input_shape), kernel, stride,
                                         padding)


def warm_up(dtypes: tuple = (np.float32,)) -> str:
    """Run every float32 kernel once on tiny arrays (stride 1 and 2, with and without
    padding), so that numba compiles them now, or loads them from its disk cache, instead of
    mid-lesson. In each dtype given it runs the algorithms the table gives float32 (the tests
    also warm float64). Returns `backend_name()`."""
    pool = pool_algorithm(_FLOAT32)
    for dtype in dtypes:
        x = np.ones((1, 2, 5, 5), dtype=dtype)
        w = np.ones((5, 2, 3, 3), dtype=dtype)
        # Both ways of packing windows: the table (stride 2; outputs narrower than 8) and
        # the shifted planes (stride 1 with padding 3: 9-wide outputs); then 3×3 stride 1,
        # 16 channels, 64·8·8 output pixels: Winograd's tiles (jit_winograd).
        layers = [(x, w, stride, padding)
                  for stride, padding in (((1, 1), (1, 1)), ((2, 2), (0, 0)), ((1, 1), (3, 3)))]
        layers.append((np.ones((64, 16, 8, 8), dtype=dtype),
                       np.ones((16, 16, 3, 3), dtype=dtype), (1, 1), (1, 1)))
        for images, weight, stride, padding in layers:
            algorithm = conv_algorithm(_FLOAT32, images.shape, weight.shape, stride, padding)
            y = algorithm.conv2d_forward(images, weight, stride, padding)
            algorithm.conv2d_grad_input(y, weight, images.shape, stride, padding)
            algorithm.conv2d_grad_weight(images, y, weight.shape, stride, padding)
        for kernel, padding in (((2, 2), (0, 0)), ((3, 3), (1, 1))):  # 2×2 has its own kernels
            values, indices = pool.max_pool2d_forward(x, kernel, (2, 2), padding)
            pool.max_pool2d_backward(values, indices, x.shape)
            y = pool.avg_pool2d_forward(x, kernel, (2, 2), padding)
            pool.avg_pool2d_backward(y, x.shape, kernel, (2, 2), padding)
    return backend_name()
