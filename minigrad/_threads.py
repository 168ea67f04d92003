"""Thread-pool settings, made before numpy or numba start their thread pools.

minigrad's conv and pool kernels are serial numba functions that release the GIL; a small
Python thread pool (``kernels/thread_pool.py``) shares them out. numpy's matrix products run in
OpenBLAS's own (pthreads) pool. Before either library is imported, we set how their threads
wait:

* ``OPENBLAS_THREAD_TIMEOUT=20``: an OpenBLAS thread that has finished its share of a product
  keeps polling for the next one for 2**20 clock ticks (about 0.4 ms at 2.6 GHz; OpenBLAS
  takes 4 … 30 here, and polls for 2**28 ticks, about 0.1 s, by default) before it sleeps.
  A training step calls BLAS every few hundred microseconds, and waking a sleeping thread
  costs tens of microseconds on a virtual machine, so the MLP step is quicker than with
  threads that sleep at once, and the CNNs train no slower (benchmarks/README.md has the
  numbers). Polling much longer would keep a core busy after the last product, while the
  numba kernels need it;
* ``NUMBA_THREADING_LAYER=workqueue``: see ``_LAYER`` below.

Each variable is only *defaulted* (``os.environ.setdefault``): a value the user exported
always wins. The settings only work if this module runs before numpy and numba are first
imported, which is why ``minigrad/__init__.py`` imports it on its first line; if numpy was
imported earlier (``import numpy; import minigrad``), OpenBLAS already read its settings and
the defaults here change nothing for it (set the variables in the shell instead).

OpenMP's ``OMP_WAIT_POLICY`` is deliberately left alone. minigrad loads no OpenMP runtime
(numpy's OpenBLAS uses pthreads, numba's parallel layer is never started), so the variable
changes nothing for it (lesson 07's CNN and LeNet-5 train as fast with PASSIVE as with
ACTIVE). But a PyTorch imported later in the same process reads it, and with PASSIVE its
threads sleep between its many small ops, which slows its training severalfold. Neither variable set
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
    "OPENBLAS_THREAD_TIMEOUT": "20",
    "NUMBA_THREADING_LAYER": _LAYER,
}


def apply_defaults(environ: "os._Environ[str] | dict[str, str]" = os.environ) -> dict[str, str]:
    """Default the thread-pool variables in ``environ``; returns the values now in effect."""
    for name, value in DEFAULTS.items():
        environ.setdefault(name, value)
    return {name: environ[name] for name in DEFAULTS}


apply_defaults()
