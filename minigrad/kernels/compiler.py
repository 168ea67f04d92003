"""numba, configured before its first import: the kernels import `njit` and `prange` from here.

Importing this module chooses numba's cache folder first (see `minigrad.kernels.cache`), so
every `@njit(cache=True)` kernel can store its machine code even when the package folder is
read-only. It raises ImportError when numba is missing; `minigrad.kernels` then falls back
to the numpy im2col path.
"""

from __future__ import annotations

from minigrad.kernels.cache import choose_cache_dir

_CACHE_DIR = choose_cache_dir()  # before numba reads its configuration

import numba  # noqa: E402
from numba import njit, prange  # noqa: E402, F401

if _CACHE_DIR is not None:  # numba may have been imported, and configured, before us
    numba.config.CACHE_DIR = _CACHE_DIR
