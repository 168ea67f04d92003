"""numpy's own OpenBLAS, as the numba kernels use it: its per-thread thread count, the kernel
set it chose for this CPU, and products cut to the size of its small-matrix kernels.

numpy's wheels bundle OpenBLAS (in `numpy.libs`); through ctypes we reach two functions
numpy does not expose. Where numpy uses another BLAS, or an OpenBLAS without them, each
answer below is "not known" and the kernels fall back to plain `np.dot`.
"""

from __future__ import annotations

import ctypes
from functools import lru_cache
from pathlib import Path

import numpy as np


@lru_cache(maxsize=1)
def _library() -> ctypes.CDLL | None:
    folder = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for path in sorted(folder.glob("libscipy_openblas*.so*")):
        try:
            return ctypes.CDLL(str(path))
        except OSError:
            continue
    return None


def _function(*names: str):
    library = _library()
    for name in names:
        function = getattr(library, name, None) if library is not None else None
        if function is not None:
            return function
    return None


def _find_set_threads_local():
    """`openblas_set_num_threads_local(n)`: this thread's BLAS thread count, returning the
    previous one; or None."""
    function = _function("openblas_set_num_threads_local")
    if function is not None:
        function.argtypes, function.restype = [ctypes.c_int], ctypes.c_int
    return function


set_threads_local = _find_set_threads_local()


def core_name() -> str:
    """The kernel set OpenBLAS chose for this CPU ("SkylakeX", "Haswell", ...; the variable
    OPENBLAS_CORETYPE overrides its choice), or "unknown"."""
    function = _function("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                         "openblas_get_corename")
    if function is None:
        return "unknown"
    function.restype = ctypes.c_char_p
    return function().decode()


# OpenBLAS's AVX-512 kernel sets compute a product of at most 100³ multiply-adds with
# "small-matrix" kernels that skip copying the operands into packed panels (its
# `gemm_small_kernel_permit` for SkylakeX, which Cooperlake and SapphireRapids reuse). On
# the thin products of a convolution (16–64 rows) they ran 1.2–1.4× the packed path's speed
# (AMD EPYC Zen 4, float32, one thread, benchmarks/README.md), so there a larger product is
# computed in column slabs of that size. With the AVX2 kernels (Haswell, Zen) slabs only
# add calls: one product.
SMALL_MATRIX_KERNELS = ("skylakex", "cooperlake", "sapphirerapids")
SMALL_PRODUCT = 100 ** 3 if core_name().lower() in SMALL_MATRIX_KERNELS else 0
MIN_SLAB_COLUMNS = 32


def product(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
    """out = a @ b (out C-contiguous), in column slabs of at most SMALL_PRODUCT multiply-adds
    where the small-matrix kernels make that quicker."""
    rows, inner = a.shape
    columns = b.shape[1]
    work = rows * inner
    if not SMALL_PRODUCT or work * columns <= SMALL_PRODUCT:
        return np.dot(a, b, out=out)
    if SMALL_PRODUCT // work < MIN_SLAB_COLUMNS:  # too few columns a slab: one product
        return np.dot(a, b, out=out)
    step = max(16, SMALL_PRODUCT // work // 16 * 16)  # whole vectors of 16 float32 values
    slabs, whole = columns // step, columns // step * step
    if slabs:  # one stacked matmul: numpy calls BLAS once per slab, from C
        np.matmul(a, b[:, :whole].reshape(inner, slabs, step).transpose(1, 0, 2),
                  out=out[:, :whole].reshape(rows, slabs, step).transpose(1, 0, 2))
    if whole < columns:
        np.matmul(a, b[:, whole:], out=out[:, whole:])
    return out
