"""numba, configured before its first import: the kernels import `njit` from here.

Importing this module chooses numba's cache folder first (see `minigrad.kernels.cache`), so
every `@njit(cache=True)` kernel can store its machine code even when the package folder is
read-only. It raises ImportError when numba is missing; `minigrad.kernels` then falls back
to the numpy im2col path.

On CPUs with AVX-512 it also lets LLVM use the 512-bit registers (`wide_vectors`).
"""

from __future__ import annotations

import os

from minigrad.kernels.cache import choose_cache_dir

_CACHE_DIR = choose_cache_dir()  # before numba reads its configuration

import numba  # noqa: E402
from numba import njit  # noqa: E402, F401

if _CACHE_DIR is not None:  # numba may have been imported, and configured, before us
    numba.config.CACHE_DIR = _CACHE_DIR


def wide_vectors() -> bool:
    """Compile for 512-bit vectors where the CPU has them (AVX-512); True if so.

    LLVM's tuning for Intel server CPUs prefers 256-bit vectors even with AVX-512 (older
    chips lowered their clock for 512-bit code), so the conv loops would fill half of each
    register. We ask for the host's own features without that preference. numba reads the
    setting when it creates its compiler, at the first `@njit` call; a user's
    NUMBA_CPU_FEATURES, or numba compiling something before us (its compiler then exists and
    keeps its features), wins.
    """
    from numba.core.registry import cpu_target

    compiler_exists = "_toplevel_target_context" in vars(cpu_target)  # a cached property
    if os.environ.get("NUMBA_CPU_FEATURES") or numba.config.CPU_FEATURES or compiler_exists:
        return False
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features()
    if not features.get("avx512f"):
        return False
    numba.config.CPU_FEATURES = features.flatten() + ",-prefer-256-bit"
    return True


WIDE_VECTORS = wide_vectors()
