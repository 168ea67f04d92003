"""The small Python thread pool that shares the numba kernels' work between cores.

Every numba kernel here is compiled with `nogil=True` and works on a range of tasks
start … stop-1 (image planes, or (image, channel) pairs), so plain Python threads run them
at the same time. For these short, memory-bound loops that gives the speed of numba's
`parallel=True` without its cost (its parallel compiler triples each kernel's compile time).

* `in_parallel(kernel, tasks, elements, *args)` splits the tasks 0 … tasks-1 into one range
  per thread and runs kernel(*args, start, stop) on each; small inputs stay on one thread.
* `inline` has the same signature and runs everything on the calling thread: the stand-in
  for code that already runs on one of the pool's threads.
* `run_in_pool(jobs)` runs a list of callables on the pool and returns their results.

THREADS is numba's own thread count (every CPU unless NUMBA_NUM_THREADS says otherwise, at
most 8), so one setting sizes numba and this pool. Used by `jit_pool` (pooling) and by the
chunks of `jit_gemm`, `jit_winograd` and `pointwise` (`jit_gemm.over_chunks`).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Callable

import numpy as np

from minigrad.kernels.compiler import numba

THREADS = max(1, min(numba.config.NUMBA_NUM_THREADS, 8))
MIN_ELEMENTS_PER_THREAD = 1 << 18  # below this, one thread: handing work to another costs more
_pool: ThreadPoolExecutor | None = None


def _forget_pool() -> None:
    """A forked child has none of its parent's threads: start a fresh pool when needed."""
    global _pool
    _pool = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def in_parallel(kernel: Callable, tasks: int, elements: int, *args: object) -> None:
    """kernel(*args, start, stop) over task ranges that cover 0 … tasks, on up to THREADS
    threads: fewer when `elements` (the values the kernel touches) is small."""
    threads = max(1, min(THREADS, tasks, elements // MIN_ELEMENTS_PER_THREAD))
    if threads == 1:
        kernel(*args, 0, tasks)
        return
    bounds = np.linspace(0, tasks, threads + 1).astype(int)
    run_in_pool([partial(kernel, *args, int(start), int(stop))
                 for start, stop in zip(bounds[:-1], bounds[1:])])


def inline(kernel: Callable, tasks: int, elements: int, *args: object) -> None:
    """kernel(*args, 0, tasks) on the calling thread (`in_parallel`'s signature)."""
    kernel(*args, 0, tasks)


def run_in_pool(jobs: list[Callable[[], object]]) -> list:
    """Runs the jobs on the pool's threads (the first on the calling thread, which would
    otherwise only wait) and returns their results in order; a job's error is raised here."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="minigrad-pool")
    futures = [_pool.submit(job) for job in jobs[1:]]
    results = [jobs[0]()] if jobs else []
    return results + [future.result() for future in futures]
