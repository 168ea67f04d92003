"""Conv and pool speed: minigrad (numba kernels) against PyTorch CPU, or against minigrad's own
numpy im2col path when PyTorch is not installed.

    python benchmarks/bench_conv.py                  # every case, 7 rounds
    python benchmarks/bench_conv.py --cases conv --rounds 9
    python benchmarks/bench_conv.py --startup        # also: cold compile and warm start times
    python benchmarks/bench_conv.py --threads 1      # one thread each: the kernels' own speed
    ONEDNN_MAX_CPU_ISA=AVX2 python benchmarks/bench_conv.py   # PyTorch without AVX-512

Cases (float32, through the autograd ops, as a training step would run them):
  conv          conv2d forward + backward, x 32×16×28×28, w 32×16×3×3, padding 1
  conv-forward  the same forward alone (no graph)
  maxpool       max_pool2d 2×2 forward + backward on 32×32×28×28

Every engine runs in its own process (so thread pools and caches never interfere), and the
engines take turns: round 1 runs A then B, round 2 B then A, ... Each process times `--repeats`
calls after one warm-up call and reports their median; the printed time is the median over
rounds. Before timing, each process prints a checksum of its outputs and gradients; the
driver checks the engines agree.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CASES = ("conv", "conv-forward", "maxpool")
THREAD_DEFAULTS = {"OMP_WAIT_POLICY": "PASSIVE", "OPENBLAS_THREAD_TIMEOUT": "1"}  # minigrad._threads
ENGINES = ("minigrad", "im2col", "torch")


# ----------------------------------------------------------------------------- worker
def _data(case: str):
    import numpy as np

    rng = np.random.default_rng(0)
    if case.startswith("conv"):
        x = rng.standard_normal((32, 16, 28, 28)).astype(np.float32)
        w = (rng.standard_normal((32, 16, 3, 3)) * 0.1).astype(np.float32)
        g = rng.standard_normal((32, 32, 28, 28)).astype(np.float32)
        return x, w, g
    x = rng.standard_normal((32, 32, 28, 28)).astype(np.float32)
    g = rng.standard_normal((32, 32, 14, 14)).astype(np.float32)
    return x, None, g


def _step_minigrad(case: str):
    import minigrad as mg
    from minigrad.ops.conv import conv2d
    from minigrad.ops.pool import max_pool2d

    x_data, w_data, g_data = _data(case)
    x = mg.tensor(x_data, requires_grad=True)
    w = mg.tensor(w_data, requires_grad=True) if w_data is not None else None
    g = mg.tensor(g_data)

    def step():
        x.grad = None
        if case == "conv-forward":
            with mg.no_grad():
                return [conv2d(x, w, padding=1)]
        if case == "conv":
            w.grad = None
            y = conv2d(x, w, padding=1)
            y.backward(g)
            return [y, x.grad, w.grad]
        y = max_pool2d(x, 2)
        y.backward(g)
        return [y, x.grad]

    return step, lambda outputs: [float(t.numpy().astype("float64").sum()) for t in outputs]


def _step_torch(case: str):
    import torch

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1))
    x_data, w_data, g_data = _data(case)
    x = torch.tensor(x_data, requires_grad=True)
    w = torch.tensor(w_data, requires_grad=True) if w_data is not None else None
    g = torch.tensor(g_data)
    F = torch.nn.functional

    def step():
        x.grad = None
        if case == "conv-forward":
            with torch.no_grad():
                return [F.conv2d(x, w, padding=1)]
        if case == "conv":
            w.grad = None
            y = F.conv2d(x, w, padding=1)
            y.backward(g)
            return [y, x.grad, w.grad]
        y = F.max_pool2d(x, 2)
        y.backward(g)
        return [y, x.grad]

    return step, lambda outputs: [float(t.detach().double().sum()) for t in outputs]


def worker(engine: str, case: str, repeats: int) -> None:
    step, checksum = (_step_torch if engine == "torch" else _step_minigrad)(case)
    outputs = step()  # warm-up (and, for numba, the cache load)
    times, cpu_times = [], []
    for _ in range(repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        step()
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    print(json.dumps({"median": statistics.median(times), "best": min(times),
                      "cpu": statistics.median(cpu_times), "checksum": checksum(outputs)}))


# ----------------------------------------------------------------------------- driver
def _run_worker(engine: str, case: str, repeats: int, threads: int | None = None) -> dict:
    env = dict(os.environ)
    if threads:  # numba's pool, OpenMP's (PyTorch) and OpenBLAS's, all the same size
        for name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            env[name] = str(threads)
    # Every engine gets minigrad's thread-pool defaults (passive OpenMP waiting): PyTorch's
    # OpenMP threads otherwise spin, which on a busy 2-core machine makes it several times
    # slower and the comparison meaningless. A value exported by the user still wins.
    for name, value in THREAD_DEFAULTS.items():
        env.setdefault(name, value)
    if engine == "im2col":
        env["MINIGRAD_DISABLE_JIT"] = "1"
    else:
        env.pop("MINIGRAD_DISABLE_JIT", None)
    result = subprocess.run([sys.executable, __file__, "--worker", engine, "--case", case,
                             "--repeats", str(repeats)], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise RuntimeError(f"{engine} worker failed on {case}:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _agree(a: list[float], b: list[float]) -> bool:
    return all(abs(x - y) <= 1e-3 * max(1.0, abs(x), abs(y)) for x, y in zip(a, b))


def compare(case: str, engines: tuple[str, str], rounds: int, repeats: int,
            threads: int | None = None) -> dict:
    times: dict[str, list[float]] = {engine: [] for engine in engines}
    cpu_times: dict[str, list[float]] = {engine: [] for engine in engines}
    checksums: dict[str, list[float]] = {}
    for round_index in range(rounds):
        order = engines if round_index % 2 == 0 else engines[::-1]
        for engine in order:
            report = _run_worker(engine, case, repeats, threads)
            times[engine].append(report["median"])
            cpu_times[engine].append(report["cpu"])
            checksums[engine] = report["checksum"]
    if not _agree(checksums[engines[0]], checksums[engines[1]]):
        raise RuntimeError(f"{case}: engines disagree: {checksums}")
    medians = {engine: statistics.median(values) for engine, values in times.items()}
    cpu = {engine: statistics.median(values) for engine, values in cpu_times.items()}
    return {"case": case, "medians": medians, "ratio": medians[engines[0]] / medians[engines[1]],
            "cpu": cpu, "cpu_ratio": cpu[engines[0]] / cpu[engines[1]]}


def startup_times() -> dict:
    """Cold: compile every kernel (both dtypes) into an empty cache folder. Warm: the same
    with the cache filled. Both minus a plain `import minigrad` (which never loads numba).
    Wall-clock and CPU seconds (compiling is single-threaded; CPU time is what a quiet
    machine's wall clock would show)."""
    import resource

    def timed(code: str, cache_dir: str) -> tuple[float, float]:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
        env.pop("MINIGRAD_DISABLE_JIT", None)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    def median_of(code: str, cache_dir: str, runs: int = 5) -> tuple[float, float]:
        results = [timed(code, cache_dir) for _ in range(runs)]
        return (statistics.median(r[0] for r in results), statistics.median(r[1] for r in results))

    warm_up = "import minigrad; from minigrad import kernels; kernels.warm_up()"
    with tempfile.TemporaryDirectory() as cache_dir:
        cold = timed(warm_up, cache_dir)
        warm = median_of(warm_up, cache_dir)
        plain = median_of("import minigrad", cache_dir)
    return {"cold_wall": cold[0] - plain[0], "cold_cpu": cold[1] - plain[1],
            "warm_wall": warm[0] - plain[0], "warm_cpu": warm[1] - plain[1],
            "import_wall": plain[0], "import_cpu": plain[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--startup", action="store_true", help="also time compiling/loading")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads per engine (default: every CPU); 1 compares the kernels "
                             "themselves, without their parallel scaling")
    parser.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    parser.add_argument("--case", choices=CASES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.case, args.repeats)
        return
    try:
        import torch  # noqa: F401

        baseline = "torch"
    except ImportError:
        baseline = "im2col"
        print("PyTorch not installed: comparing with minigrad's numpy im2col path instead.")
    threads = f"{args.threads} thread(s) per engine" if args.threads else "all CPUs per engine"
    print(f"{os.cpu_count()} CPUs, {threads}; medians of {args.rounds} alternating rounds × "
          f"{args.repeats} calls, each engine in its own process. Other processes on the "
          "machine add noise: rerun on a quiet machine for numbers to quote.")
    print("wall: median wall-clock time per call; CPU: processor time of all the process's "
          "threads per call (less sensitive to other load, but blind to idle waiting)")
    print(f"{'case':<14}{'minigrad':>12}{baseline:>12}{'ratio':>9}   "
          f"{'CPU minigrad':>12}{'CPU ' + baseline:>12}{'ratio':>9}")
    for case in args.cases:
        result = compare(case, ("minigrad", baseline), args.rounds, args.repeats, args.threads)
        medians = result["medians"]
        cpu = result["cpu"]
        print(f"{case:<14}{medians['minigrad'] * 1e3:>10.2f}ms{medians[baseline] * 1e3:>10.2f}ms"
              f"{result['ratio']:>8.2f}×   {cpu['minigrad'] * 1e3:>10.2f}ms"
              f"{cpu[baseline] * 1e3:>10.2f}ms{result['cpu_ratio']:>8.2f}×", flush=True)
    if args.startup:
        t = startup_times()
        print(f"import minigrad (no numba): {t['import_wall']:.2f} s wall, {t['import_cpu']:.2f} s CPU")
        print(f"compile every kernel, cold cache: +{t['cold_wall']:.1f} s wall, "
              f"+{t['cold_cpu']:.1f} s CPU")
        print(f"warm start (import numba, load every cached kernel): +{t['warm_wall']:.2f} s "
              f"wall, +{t['warm_cpu']:.2f} s CPU")


if __name__ == "__main__":
    main()
