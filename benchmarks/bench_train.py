"""End-to-end CNN training speed: minigrad against PyTorch CPU, same weights, same batches.

    python benchmarks/bench_train.py                 # both networks, 7 alternating rounds
    python benchmarks/bench_train.py --nets digits --rounds 9
    python benchmarks/bench_train.py --threads 1     # one thread each, CPU time

Networks (float32):
  digits  lesson 07's CNN: conv 1→16 and 16→32 (3×3, padding 1), ReLU, max-pool 2 after each,
          Linear 128→10; one pass over the 1 437 training images of `load_digits`, batch 32,
          Adam (lr 3e-3).
  lenet   LeNet-5's shape: conv 1→20 5×5 on 28×28, pool 2, conv 20→50 5×5, pool 2,
          Linear 800→500→10 (ReLU between); 1 024 synthetic 28×28 images, batch 64,
          SGD (lr 0.01, momentum 0.9).

Each engine runs in its own fresh process at its own defaults (`engine_process.py`: PyTorch
never sees the variables importing minigrad defaults), and the engines take turns: round 1
starts a minigrad process then a PyTorch one, round 2 the other way, ... A process builds
the network from the same initial weights (drawn with numpy as PyTorch draws its defaults:
uniform in ±1/sqrt(fan_in)), runs one warm-up epoch (kernels compiled or loaded, caches
filled) whose per-step losses the driver compares between the engines, then times one epoch
from the initial weights again. The printed time is the median over rounds. `--threads 1`
runs every pool (numba, OpenBLAS, PyTorch's OpenMP and MKL) on one thread and compares CPU
time, which another program on the machine disturbs much less than wall-clock time.

Exits 3 when PyTorch is not installed (the benchmark needs it as the baseline).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time

from engine_process import (alternating, engine_settings, median_and_range, print_settings,
                            run_worker)

NETS = ("digits", "lenet")
ENGINES = ("minigrad", "torch")


# ----------------------------------------------------------------------------- networks
def _model(nn, net: str):
    """The network built from ``nn``: ``torch.nn`` or ``minigrad.nn``, whose layers have the
    same names and arguments, so one definition serves both engines."""
    if net == "digits":
        return nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(32 * 2 * 2, 10))
    return nn.Sequential(
        nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(20, 50, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(800, 500), nn.ReLU(), nn.Linear(500, 10))


def _initial_weights(shapes: list[tuple[int, ...]]) -> list:
    """PyTorch's default initialisation, drawn with numpy: every weight and the bias after it
    uniform in ±1/sqrt(fan_in), fan_in = the weight's size over its first axis."""
    import numpy as np

    rng = np.random.default_rng(1)
    values, bound = [], 1.0
    for shape in shapes:
        if len(shape) > 1:
            bound = 1.0 / np.sqrt(np.prod(shape[1:]))
        values.append(rng.uniform(-bound, bound, shape).astype(np.float32))
    return values


def _digits_train():
    """`minigrad.data.load_digits("train", as_numpy=True)`, read without importing minigrad
    (whose import would set its thread defaults in PyTorch's process)."""
    import numpy as np

    package = importlib.util.find_spec("minigrad").submodule_search_locations[0]
    with np.load(os.path.join(package, "data", "files", "digits.npz")) as archive:
        pixels, labels, is_test = archive["pixels"], archive["labels"], archive["is_test"]
    images = (pixels[~is_test].astype(np.float32) / np.float32(16.0)).reshape(-1, 1, 8, 8)
    return images, labels[~is_test].astype(np.int64)


def _data(net: str):
    """(images float32 (N, 1, H, W), labels int64, batches as index arrays)."""
    import numpy as np

    rng = np.random.default_rng(0)
    if net == "digits":
        images, labels = _digits_train()
        batch = 32
    else:
        # Synthetic digits-like data: ten class templates plus noise, so the loss falls.
        templates = rng.standard_normal((10, 1, 28, 28)).astype(np.float32)
        labels = rng.integers(0, 10, 1024).astype(np.int64)
        images = (templates[labels] + rng.standard_normal((1024, 1, 28, 28))).astype(np.float32)
        batch = 64
    order = rng.permutation(len(labels))
    return images, labels, [order[start:start + batch] for start in range(0, len(order), batch)]


# ----------------------------------------------------------------------------- one engine
def _torch_trainer(net: str):
    """fresh() -> a function that runs one epoch from the initial weights, returning losses."""
    import torch

    images, labels, batches = _data(net)
    x, y = torch.from_numpy(images), torch.from_numpy(labels)
    shapes = [tuple(p.shape) for p in _model(torch.nn, net).parameters()]
    initial = _initial_weights(shapes)

    def epoch() -> list[float]:
        model = _model(torch.nn, net)
        with torch.no_grad():
            for p, value in zip(model.parameters(), initial):
                p.copy_(torch.from_numpy(value))
        optimizer = (torch.optim.Adam(model.parameters(), lr=3e-3) if net == "digits" else
                     torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
        loss_fn, losses = torch.nn.CrossEntropyLoss(), []
        for rows in batches:
            index = torch.from_numpy(rows)
            optimizer.zero_grad()
            loss = loss_fn(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses

    return epoch


def _minigrad_trainer(net: str):
    import minigrad as mg
    from minigrad import kernels, nn, optim

    kernels.warm_up()
    images, labels, batches = _data(net)
    x, y = mg.tensor(images), mg.tensor(labels)
    shapes = [tuple(p.shape) for p in _model(nn, net).parameters()]
    initial = _initial_weights(shapes)

    def epoch() -> list[float]:
        model = _model(nn, net)
        for p, value in zip(model.parameters(), initial):
            p.data = mg.tensor(value.copy())
        optimizer = (optim.Adam(model.parameters(), lr=3e-3) if net == "digits" else
                     optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
        loss_fn, losses = nn.CrossEntropyLoss(), []
        for rows in batches:
            index = mg.tensor(rows)
            optimizer.zero_grad()
            loss = loss_fn(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses

    return epoch


def worker(engine: str, net: str) -> None:
    """Warm-up epoch (its losses reported), then one timed epoch from the same start."""
    epoch = (_torch_trainer if engine == "torch" else _minigrad_trainer)(net)
    losses = epoch()
    start, cpu_start = time.perf_counter(), time.process_time()
    epoch()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(json.dumps({"losses": losses, "wall": wall, "cpu": cpu,
                      "settings": engine_settings(engine)}))


# ----------------------------------------------------------------------------- driver
def compare(net: str, rounds: int, threads: int | None) -> dict:
    runs: dict[str, list[dict]] = {engine: [] for engine in ENGINES}
    for _, engine in alternating(ENGINES, rounds):
        runs[engine].append(run_worker(__file__, engine, ["--nets", net], threads))
    m_losses, t_losses = runs["minigrad"][0]["losses"], runs["torch"][0]["losses"]
    worst = max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(m_losses, t_losses))
    if worst > 1e-2:
        raise RuntimeError(f"{net}: losses disagree by {worst:.3g} (relative); minigrad "
                           f"{m_losses[:3]}…{m_losses[-1]}, torch {t_losses[:3]}…{t_losses[-1]}")
    result = {"net": net, "worst": worst, "steps": len(m_losses),
              "settings": {engine: runs[engine][0]["settings"] for engine in ENGINES}}
    for kind in ("wall", "cpu"):
        result[kind] = {engine: median_and_range([r[kind] for r in runs[engine]])
                        for engine in ENGINES}
        result[kind + "_ratio"] = result[kind]["minigrad"][0] / result[kind]["torch"][0]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nets", nargs="*", default=list(NETS), choices=NETS)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for every pool (default: each engine's own default)")
    parser.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.nets[0])
        return
    if importlib.util.find_spec("torch") is None:
        print("skipped: PyTorch is not installed (pip install -e '.[oracle]')")
        sys.exit(3)
    threads = f"{args.threads} thread(s) per pool" if args.threads else "each engine's defaults"
    print(f"{os.cpu_count()} CPUs, {threads}; each engine in its own process, medians "
          f"[min–max] of {args.rounds} alternating rounds, one epoch each.")
    print(f"{'network':<8}{'steps':>6}{'minigrad ms':>22}{'torch ms':>22}{'ratio':>7}   "
          f"{'CPU minigrad':>12}{'CPU torch':>10}{'ratio':>7}   loss diff")
    settings = {}
    for net in args.nets:
        r = compare(net, args.rounds, args.threads)
        settings = r["settings"]
        wall, cpu = r["wall"], r["cpu"]
        spans = ["{:.1f} [{:.0f}–{:.0f}]".format(*(t * 1e3 for t in wall[e])) for e in ENGINES]
        print(f"{net:<8}{r['steps']:>6}{spans[0]:>22}{spans[1]:>22}{r['wall_ratio']:>6.2f}×   "
              f"{cpu['minigrad'][0] * 1e3:>12.1f}{cpu['torch'][0] * 1e3:>10.1f}"
              f"{r['cpu_ratio']:>6.2f}×   {r['worst']:.1e}", flush=True)
    print("settings each engine ran with:")
    print_settings(settings)


if __name__ == "__main__":
    main()
