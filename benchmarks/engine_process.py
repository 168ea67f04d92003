"""Run one engine in its own fresh process, at its own defaults, and collect what it timed.

A benchmark that compares minigrad with PyTorch must not let one engine's settings reach the
other. Importing minigrad defaults a few thread-pool variables in ``os.environ`` (see
``minigrad/_threads.py``); a PyTorch started in that process, or in a child given that
environment, would run with them. So every benchmark here times each engine in a process of
its own, started from the environment the *user* gave the benchmark (captured when this
module is imported, before anything imports minigrad): a variable the user exported reaches
both engines, one that minigrad defaults reaches only minigrad.

The benchmark script is its own worker: ``python bench_x.py --worker ENGINE ...`` times one
engine and prints one line of JSON, which ``run_worker`` returns as a dict. Each worker also
reports ``engine_settings()``, which the driver prints, so a run says what each engine used.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from typing import Iterator, Sequence

USER_ENVIRONMENT = dict(os.environ)  # before minigrad (or anything) can default a variable

# Pool sizes set together by `--threads N`: numba's, OpenMP's (PyTorch), OpenBLAS's (numpy),
# MKL's (PyTorch's BLAS).
THREAD_COUNT_VARIABLES = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                          "MKL_NUM_THREADS")
# The variables a run's settings line shows, whether set or not.
SHOWN_VARIABLES = ("OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT", "OPENBLAS_CORETYPE",
                   "NUMBA_THREADING_LAYER",
                   "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                   "NUMBA_NUM_THREADS", "ONEDNN_MAX_CPU_ISA", "MINIGRAD_DISABLE_JIT")


def environment(threads: int | None = None, extra: dict[str, str] | None = None
                ) -> dict[str, str]:
    """The user's environment (never this process's, which minigrad may have changed), with
    every pool at `threads` threads if given, and `extra` on top."""
    env = dict(USER_ENVIRONMENT)
    if threads:
        env.update({name: str(threads) for name in THREAD_COUNT_VARIABLES})
    env.update(extra or {})
    return env


def run_worker(script: str, engine: str, arguments: Sequence[str] = (),
               threads: int | None = None, extra: dict[str, str] | None = None,
               python: str = sys.executable) -> dict:
    """Run ``python script --worker engine *arguments`` in a fresh process with
    `environment(threads, extra)`; the JSON object on its last line of output. `python` is
    this interpreter unless another checkout's is given (`bench_versions.py`)."""
    result = subprocess.run([python, script, "--worker", engine, *arguments],
                            capture_output=True, text=True, env=environment(threads, extra))
    if result.returncode != 0:
        raise RuntimeError(f"{engine} worker failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def alternating(engines: Sequence[str], rounds: int) -> Iterator[tuple[int, str]]:
    """(round, engine) pairs, the engines' order reversed every other round, so that a change
    in the machine's load falls on both alike."""
    for round_index in range(rounds):
        for engine in (engines if round_index % 2 == 0 else engines[::-1]):
            yield round_index, engine


def median_and_range(values: Sequence[float]) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def engine_settings(engine: str) -> dict[str, str]:
    """What this worker process runs with: its thread pools and the variables that set them.
    Call it after the engine is imported (minigrad defaults some variables on import)."""
    settings = {name: os.environ.get(name, "unset") for name in SHOWN_VARIABLES}
    if engine == "torch":
        import torch

        settings["torch"] = f"{torch.__version__}, {torch.get_num_threads()} threads"
    else:
        import numpy

        from minigrad import kernels
        from minigrad.kernels import blas, thread_pool

        settings["minigrad"] = (f"numpy {numpy.__version__} (OpenBLAS kernels: "
                                f"{blas.core_name()}), conv backend {kernels.backend_name()}, "
                                f"{thread_pool.THREADS} pool threads")
    return settings


def print_settings(settings: dict[str, dict[str, str]]) -> None:
    """One line per engine: its version and pools, then the variables that differ from the
    other engine's or are set (an unset variable means the library's own default)."""
    for engine, values in settings.items():
        own = values.get(engine, "")
        shown = ", ".join(f"{name}={value}" for name, value in values.items()
                          if name != engine and name in SHOWN_VARIABLES and value != "unset")
        print(f"  {engine}: {own}; {shown or 'no thread variables set'}")
