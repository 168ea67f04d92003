"""Process defaults made on import: thread pools (before numpy or numba start them), and
malloc's thresholds (see `keep_freed_memory` at the end).

minigrad's conv and pool kernels are serial numba functions that release the GIL; a small
Python thread pool (``kernels/jit_pool.py``) shares them out. numpy's matrix products run in
OpenBLAS's own (pthreads) pool. On a machine with few cores a pool that has just finished
keeps its threads *spinning* (busy-waiting for more work) for a while, stealing the cores
the next one needs. So, before either library is imported, we ask for polite pools:

* ``OPENBLAS_THREAD_TIMEOUT=1``: idle OpenBLAS threads go to sleep after 2**(1+4) = 32 clock
  cycles (the shortest timeout it allows) instead of the default 2**28;
* ``NUMBA_THREADING_LAYER=workqueue``: see ``_LAYER`` below.

Each variable is only *defaulted* (``os.environ.setdefault``): a value the user exported
always wins. The settings only work if this module runs before numpy and numba are first
imported, which is why ``minigrad/__init__.py`` imports it on its first line; if numpy was
imported earlier (``import numpy; import minigrad``), OpenBLAS already read its settings and
the defaults here change nothing for it (set the variables in the shell instead).

OpenMP's ``OMP_WAIT_POLICY`` is deliberately left alone. minigrad loads no OpenMP runtime
(numpy's OpenBLAS uses pthreads, numba's parallel layer is never started), so the variable
changed nothing for it (one epoch of lesson 07's CNN: 83 ms with PASSIVE, 94 ms with ACTIVE,
medians of 6 alternating processes on a loaded machine; LeNet-5 695 and 576 ms: noise). But a
PyTorch imported later in the same process reads it, and with PASSIVE its threads sleep
between its many small ops (its digits epoch took 183 ms instead of 70). Neither variable set
here is read by PyTorch (its BLAS is MKL, its pool OpenMP).
"""

from __future__ import annotations

import os

# numba's "workqueue" layer ships with every numba wheel, needs no OpenMP runtime, its idle
# workers sleep instead of spinning, so they never compete with OpenBLAS for the cores, and
# it survives fork() (GNU OpenMP does not: a forked child that runs a kernel can hang). Its
# one limit: two Python threads must not run numba-parallel kernels at the same moment.
# Whoever needs that sets NUMBA_THREADING_LAYER=omp (or tbb) themselves.
_LAYER = "workqueue"

DEFAULTS: dict[str, str] = {
    "OPENBLAS_THREAD_TIMEOUT": "1",
    "NUMBA_THREADING_LAYER": _LAYER,
}


def apply_defaults(environ: "os._Environ[str] | dict[str, str]" = os.environ) -> dict[str, str]:
    """Default the thread-pool variables in ``environ``; returns the values now in effect."""
    for name, value in DEFAULTS.items():
        environ.setdefault(name, value)
    return {name: environ[name] for name in DEFAULTS}


apply_defaults()


# ---- memory ---------------------------------------------------------------------------------
# glibc's malloc, left to itself, hands each freed block above its mmap threshold back to the
# kernel, and trims its heap whenever 128 KB are free at the top. A training step frees and
# reallocates the same large arrays every step (activations, their gradients), so each
# step's arrays came from fresh pages that the kernel zeroes first: 15 % of a LeNet-5 epoch
# was spent in page faults (perf, one thread). Keeping freed blocks of up to 32 MB in the
# heap, and up to 64 MB of free memory at its top, took the epoch from 256 to 221 ms
# (bench_train's LeNet, one thread, CPU time); the digits CNN, whose arrays are below
# 128 KB, did not change. The cost: up to 64 MB of freed memory stays with the process.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 64 << 20
MALLOC_VARIABLES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")


def keep_freed_memory(environ: "os._Environ[str] | dict[str, str]" = os.environ) -> bool:
    """Set glibc malloc's mmap and trim thresholds (see above), unless the user set
    malloc's own variables or the C library is not glibc; True if they were set."""
    if any(name in environ for name in MALLOC_VARIABLES):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # glibc only (musl's mallopt does nothing)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


KEEPS_FREED_MEMORY = keep_freed_memory()
