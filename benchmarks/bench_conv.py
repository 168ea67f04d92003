"""Conv and pool speed on a table of shapes: minigrad (numba kernels) against PyTorch CPU, or
against minigrad's own numpy im2col path when PyTorch is not installed.

    python benchmarks/bench_conv.py                  # the whole table, 3 rounds (a few minutes)
    python benchmarks/bench_conv.py --rows lenet2 k1 --rounds 5
    python benchmarks/bench_conv.py --startup        # also: cold compile and warm start times
    python benchmarks/bench_conv.py --threads 1      # one thread each: the kernels' own speed
    ONEDNN_MAX_CPU_ISA=AVX2 python benchmarks/bench_conv.py   # PyTorch without AVX-512

Rows (float32, through the autograd ops, as a training step runs them): conv2d forward +
backward (input and weight gradients; bias included) on the course's networks' layers and on
common small-CNN shapes (kernels 1, 3, 5, 7; stride 1 and 2; padding 0 and "same"; 1, 3 and
16–128 input channels; 4×4 to 32×32 images; batch 1, 32, 64), then max and average pooling
2×2 forward + backward on the networks' pooling shapes. For each conv row the table also
names how minigrad computes it (wino: Winograd's F(2×2, 3×3), for 3×3 stride-1 layers with
16 or more channels; 1x1: unpadded 1×1 kernels, products on the NCHW planes; otherwise how it packs the windows before its BLAS product: shift,
stride 1, long rows copied from shifted planes; table, a gather through a table of window
indices, for other strides, outputs narrower than 8 and 1×1 kernels) and its peak
scratch memory (the packing workspace; `minigrad.kernels.jit_gemm.peak_workspace_bytes`).

Every engine runs in its own fresh process at its own defaults (`engine_process.py`: PyTorch
never sees the variables importing minigrad defaults, and thread pools and caches never
interfere), and the engines take turns: round 1 runs A then B, round 2 B then A, ... The
settings each engine ran with are printed at the end. Each process times every
row (one warm-up call, then calls for about 0.2 s, their median); the printed time is the
median over rounds. Each process also prints a checksum of each row's outputs and
gradients; the driver checks that the engines agree.
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

from engine_process import alternating, engine_settings, environment, print_settings, run_worker

# name: (N, C, H=W, O, k, stride, padding); "pool-" rows: (N, C, H=W) with a 2×2 window.
CONV_ROWS = {
    "digits1": (32, 1, 8, 16, 3, 1, 1),     # lesson 07's CNN, first layer
    "digits2": (32, 16, 4, 32, 3, 1, 1),    # ... second layer
    "lenet1": (64, 1, 28, 20, 5, 1, 0),     # LeNet-5 shape, first layer
    "lenet2": (64, 20, 12, 50, 5, 1, 0),    # ... second layer
    "k3-28": (32, 16, 28, 32, 3, 1, 1),     # the earlier benchmark's one shape
    "k3-b1": (1, 16, 32, 32, 3, 1, 1),      # batch 1
    "k3-s2": (64, 32, 16, 64, 3, 2, 1),     # downsampling 3×3
    "k3-128": (32, 128, 8, 128, 3, 1, 1),   # 128 channels
    "k1": (32, 64, 16, 128, 1, 1, 0),       # 1×1 (channel mixing)
    "k1-s2": (32, 64, 16, 128, 1, 2, 0),    # 1×1 stride 2 (a residual shortcut)
    "k5-same": (1, 3, 32, 16, 5, 1, 2),     # 3 channels, batch 1, "same"
    "k5-s2": (64, 3, 32, 32, 5, 2, 0),      # 3 channels, stride 2, no padding
    "k7-s2": (32, 3, 32, 32, 7, 2, 3),      # a ResNet-like stem
    "k7-same": (32, 16, 16, 16, 7, 1, 3),   # 7×7 "same"
}
POOL_ROWS = {
    "max-digits1": ("max", 32, 16, 8), "max-digits2": ("max", 32, 32, 4),
    "max-lenet1": ("max", 64, 20, 24), "max-lenet2": ("max", 64, 50, 8),
    "avg-digits1": ("avg", 32, 16, 8), "avg-lenet1": ("avg", 64, 20, 24),
    "avg-lenet2": ("avg", 64, 50, 8), "max-32x28": ("max", 32, 32, 28),
}
ROWS = tuple(CONV_ROWS) + tuple(POOL_ROWS)
ENGINES = ("minigrad", "im2col", "torch")


# ----------------------------------------------------------------------------- worker
def _data(row: str) -> dict:
    import numpy as np

    rng = np.random.default_rng(0)
    if row in CONV_ROWS:
        n, c, size, o, k, stride, padding = CONV_ROWS[row]
        out = (size + 2 * padding - k) // stride + 1
        return {"x": rng.standard_normal((n, c, size, size)).astype(np.float32),
                "w": (rng.standard_normal((o, c, k, k)) / (c * k * k) ** 0.5).astype(np.float32),
                "b": rng.standard_normal(o).astype(np.float32),
                "g": rng.standard_normal((n, o, out, out)).astype(np.float32),
                "stride": stride, "padding": padding}
    kind, n, c, size = POOL_ROWS[row]
    return {"x": rng.standard_normal((n, c, size, size)).astype(np.float32),
            "g": rng.standard_normal((n, c, size // 2, size // 2)).astype(np.float32),
            "kind": kind}


def _step_minigrad(row: str):
    import minigrad as mg
    from minigrad.ops.conv import conv2d
    from minigrad.ops.pool import avg_pool2d, max_pool2d

    d = _data(row)
    x = mg.tensor(d["x"], requires_grad=True)
    g = mg.tensor(d["g"])
    if row in CONV_ROWS:
        w, b = mg.tensor(d["w"], requires_grad=True), mg.tensor(d["b"], requires_grad=True)

        def step():
            x.grad = w.grad = b.grad = None
            y = conv2d(x, w, b, stride=d["stride"], padding=d["padding"])
            y.backward(g)
            return [y, x.grad, w.grad, b.grad]
    else:
        pool = max_pool2d if d["kind"] == "max" else avg_pool2d

        def step():
            x.grad = None
            y = pool(x, 2)
            y.backward(g)
            return [y, x.grad]

    return step, lambda outputs: [float(t.numpy().astype("float64").sum()) for t in outputs]


def _step_torch(row: str):
    import torch

    F = torch.nn.functional
    d = _data(row)
    x = torch.tensor(d["x"], requires_grad=True)
    g = torch.tensor(d["g"])
    if row in CONV_ROWS:
        w = torch.tensor(d["w"], requires_grad=True)
        b = torch.tensor(d["b"], requires_grad=True)

        def step():
            x.grad = w.grad = b.grad = None
            y = F.conv2d(x, w, b, stride=d["stride"], padding=d["padding"])
            y.backward(g)
            return [y, x.grad, w.grad, b.grad]
    else:
        pool = F.max_pool2d if d["kind"] == "max" else F.avg_pool2d

        def step():
            x.grad = None
            y = pool(x, 2)
            y.backward(g)
            return [y, x.grad]

    return step, lambda outputs: [float(t.detach().double().sum()) for t in outputs]


def _time(step, budget: float = 0.2) -> tuple[float, float]:
    """Median wall and CPU seconds of one call, over calls filling about `budget` seconds."""
    start = time.perf_counter()
    step()
    repeats = max(3, min(50, int(budget / max(time.perf_counter() - start, 1e-6))))
    times, cpu_times = [], []
    for _ in range(repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        step()
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    return statistics.median(times), statistics.median(cpu_times)


def _path(row: str) -> tuple[str, int]:
    """How minigrad packs this row's windows ("shift": long rows from shifted planes, or
    "table": the window table's gather) and the peak workspace in bytes."""
    from minigrad import kernels

    if row not in CONV_ROWS or kernels.backend_name() != "jit":
        return (kernels.backend_name() if row in CONV_ROWS else "pool"), 0
    from minigrad.kernels import jit_gemm, jit_winograd, pointwise

    n, c, size, o, k, stride, padding = CONV_ROWS[row]
    shapes = ((n, c, size, size), (o, c, k, k), (stride, stride), (padding, padding))
    if jit_winograd.applies(*shapes):
        out = size + 2 * padding - 2
        per_image = jit_winograd._per_image(((out + 1) // 2) ** 2, c, o)
        chunk, threads = jit_gemm._plan(n, per_image, 4)
        return "wino", threads * chunk * per_image * 4
    if pointwise.applies(*shapes):
        return "1x1", 0
    windows = jit_gemm._forward_columns(*shapes)
    return ("shift" if windows.shifts() else "table"), jit_gemm.peak_workspace_bytes(*shapes)


def worker(engine: str, rows: list[str]) -> None:
    report = {}
    for row in rows:
        step, checksum = (_step_torch if engine == "torch" else _step_minigrad)(row)
        outputs = step()  # warm-up (and, for numba, the cache load)
        wall, cpu = _time(step)
        path, workspace = _path(row) if engine != "torch" else ("", 0)
        report[row] = {"wall": wall, "cpu": cpu, "checksum": checksum(outputs), "path": path,
                       "workspace": workspace}
    report["settings"] = engine_settings("torch" if engine == "torch" else "minigrad")
    print(json.dumps(report))


# ----------------------------------------------------------------------------- driver
def _run_worker(engine: str, rows: list[str], threads: int | None = None) -> dict:
    # "im2col" is minigrad with its numba kernels switched off
    extra = {"MINIGRAD_DISABLE_JIT": "1"} if engine == "im2col" else {}
    report = run_worker(__file__, engine, ["--rows", *rows], threads, extra)
    return report


def _agree(a: list[float], b: list[float]) -> bool:
    return all(abs(x - y) <= 1e-3 * max(1.0, abs(x), abs(y)) for x, y in zip(a, b))


def compare(rows: list[str], engines: tuple[str, str], rounds: int,
            threads: int | None = None) -> dict:
    """{row: {"wall": {engine: median}, "cpu": {...}, "path": ..., "workspace": ...}}."""
    reports: dict[str, list[dict]] = {engine: [] for engine in engines}
    for _, engine in alternating(engines, rounds):
        reports[engine].append(_run_worker(engine, rows, threads))
    table = {"settings": {engine: reports[engine][0]["settings"] for engine in engines}}
    for row in rows:
        last = {engine: reports[engine][-1][row] for engine in engines}
        if not _agree(last[engines[0]]["checksum"], last[engines[1]]["checksum"]):
            raise RuntimeError(f"{row}: engines disagree: {last}")
        table[row] = {
            kind: {engine: statistics.median(r[row][kind] for r in reports[engine])
                   for engine in engines} for kind in ("wall", "cpu")}
        table[row]["path"] = last[engines[0]]["path"]
        table[row]["workspace"] = last[engines[0]]["workspace"]
    return table


def _timed_run(code: str, cache_dir: str) -> tuple[float, float]:
    """Wall-clock and CPU seconds of `python -c code` with numba's cache in cache_dir."""
    import resource

    env = environment(extra={"NUMBA_CACHE_DIR": cache_dir})
    env.pop("MINIGRAD_DISABLE_JIT", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _median_run(code: str, cache_dir: str, runs: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of `runs` runs of `_timed_run`."""
    results = [_timed_run(code, cache_dir) for _ in range(runs)]
    return (statistics.median(r[0] for r in results), statistics.median(r[1] for r in results))


def startup_times() -> dict:
    """Cold: compile every kernel (both dtypes) into an empty cache folder. Warm: the same
    with the cache filled. Both minus a plain `import minigrad` (which never loads numba).
    Wall-clock and CPU seconds (compiling is single-threaded; CPU time is what a quiet
    machine's wall clock would show)."""
    warm_up = "import minigrad; from minigrad import kernels; kernels.warm_up()"
    with tempfile.TemporaryDirectory() as cache_dir:
        cold = _timed_run(warm_up, cache_dir)
        warm = _median_run(warm_up, cache_dir, 5)
        plain = _median_run("import minigrad", cache_dir, 5)
    return {"cold_wall": cold[0] - plain[0], "cold_cpu": cold[1] - plain[1],
            "warm_wall": warm[0] - plain[0], "warm_cpu": warm[1] - plain[1],
            "import_wall": plain[0], "import_cpu": plain[1]}


def first_conv_times() -> dict:
    """A session's first conv2d forward + backward (lesson 07's first layer), beyond a plain
    `import minigrad`: with an empty numba cache (cold: compiling what that call needs) and
    with the cache filled (warm: loading it)."""
    code = ("import minigrad as mg; from minigrad import nn; x = mg.randn(32, 1, 8, 8, "
            "requires_grad=True); nn.Conv2d(1, 16, 3, padding=1)(x).sum().backward()")
    with tempfile.TemporaryDirectory() as cache_dir:
        cold = _timed_run(code, cache_dir)
        warm = _median_run(code, cache_dir, 3)
        plain = _median_run("import minigrad", cache_dir, 3)
    return {"cold_wall": cold[0] - plain[0], "cold_cpu": cold[1] - plain[1],
            "warm_wall": warm[0] - plain[0], "warm_cpu": warm[1] - plain[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="*", default=list(ROWS), choices=ROWS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--startup", action="store_true", help="also time compiling/loading")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads per engine (default: every CPU); 1 compares the kernels "
                             "themselves, without their parallel scaling")
    parser.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.rows)
        return
    try:
        import torch  # noqa: F401

        baseline = "torch"
    except ImportError:
        baseline = "im2col"
        print("PyTorch not installed: comparing with minigrad's numpy im2col path instead.")
    threads = f"{args.threads} thread(s) per engine" if args.threads else "all CPUs per engine"
    print(f"{os.cpu_count()} CPUs, {threads}; medians of {args.rounds} alternating rounds, each "
          "engine in its own process. Other processes on the machine add noise: rerun on a "
          "quiet machine for numbers to quote.")
    print("wall: median wall-clock ms per call; CPU: processor time of all the process's "
          "threads per call (less sensitive to other load, but blind to idle waiting)")
    print(f"{'row':<12}{'shape':<30}{'pack':<6}{'workspace':>10}{'minigrad':>10}{baseline:>9}"
          f"{'ratio':>7}  {'CPU mg':>8}{'CPU ' + baseline[:5]:>10}{'ratio':>7}")
    table = compare(args.rows, ("minigrad", baseline), args.rounds, args.threads)
    settings = table.pop("settings")
    for row, result in table.items():
        if row in CONV_ROWS:
            n, c, size, o, k, stride, padding = CONV_ROWS[row]
            shape = f"{n}x{c}x{size}² → {o}, {k}x{k} s{stride} p{padding}"
        else:
            kind, n, c, size = POOL_ROWS[row]
            shape = f"{kind}-pool 2 on {n}x{c}x{size}²"
        wall, cpu = result["wall"], result["cpu"]
        workspace = f"{result['workspace'] / 2**20:.1f} MB" if result["workspace"] else "-"
        print(f"{row:<12}{shape:<30}{result['path']:<6}{workspace:>10}"
              f"{wall['minigrad'] * 1e3:>10.3f}{wall[baseline] * 1e3:>9.3f}"
              f"{wall['minigrad'] / wall[baseline]:>6.2f}×  {cpu['minigrad'] * 1e3:>8.3f}"
              f"{cpu[baseline] * 1e3:>10.3f}{cpu['minigrad'] / cpu[baseline]:>6.2f}×", flush=True)
    print("settings each engine ran with:")
    print_settings(settings)
    if args.startup:
        t = startup_times()
        print(f"import minigrad (no numba): {t['import_wall']:.2f} s wall, {t['import_cpu']:.2f} s CPU")
        print(f"compile every kernel, cold cache: +{t['cold_wall']:.1f} s wall, "
              f"+{t['cold_cpu']:.1f} s CPU")
        print(f"warm start (import numba, load every cached kernel): +{t['warm_wall']:.2f} s "
              f"wall, +{t['warm_cpu']:.2f} s CPU")
        f = first_conv_times()
        print(f"first conv of a session: cold cache {f['cold_wall']:.1f} s wall "
              f"({f['cold_cpu']:.1f} s CPU), warm {f['warm_wall']:.2f} s wall "
              f"({f['warm_cpu']:.2f} s CPU)")


if __name__ == "__main__":
    main()
