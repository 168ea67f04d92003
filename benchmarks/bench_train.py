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

Both engines live in one process and take turns (round 1: minigrad then torch, round 2 the
other way, ...); each round starts both models from the same weights (PyTorch's
initialisation, copied into minigrad) and feeds them the same shuffled batches. Before
timing, one pass checks that the two engines' losses agree step by step. The printed time
is the median over rounds of one pass (one epoch). `--threads 1` runs everything on one
thread (numba, OpenBLAS and PyTorch) and compares CPU time, which another program on the
machine disturbs much less than wall-clock time.

Exits 3 when PyTorch is not installed (the benchmark needs it as the baseline).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

NETS = ("digits", "lenet")


def _threads_first(threads: int | None) -> None:
    """Thread-pool sizes must be set before numpy, numba or torch start their pools."""
    if threads:
        for name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                     "MKL_NUM_THREADS"):
            os.environ[name] = str(threads)
    # minigrad's polite thread pools (minigrad._threads), for torch's OpenMP pool as well.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "1")


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


def _torch_model(net: str):
    import torch.nn

    return _model(torch.nn, net)


def _minigrad_model(net: str):
    from minigrad import nn

    return _model(nn, net)


def _data(net: str):
    """(images float32 (N, 1, H, W), labels int64, batch size, batches as index arrays)."""
    import numpy as np

    rng = np.random.default_rng(0)
    if net == "digits":
        from minigrad.data import load_digits

        images, labels = load_digits("train", as_numpy=True)
        batch = 32
    else:
        # Synthetic digits-like data: ten class templates plus noise, so the loss falls.
        templates = rng.standard_normal((10, 1, 28, 28)).astype(np.float32)
        labels = rng.integers(0, 10, 1024).astype(np.int64)
        images = (templates[labels] + rng.standard_normal((1024, 1, 28, 28))).astype(np.float32)
        batch = 64
    order = rng.permutation(len(labels))
    batches = [order[start:start + batch] for start in range(0, len(order), batch)]
    return images, labels, batches


class Pair:
    """A minigrad model and a torch model with the same weights, and their optimisers."""

    def __init__(self, net: str) -> None:
        import torch

        import minigrad as mg
        from minigrad import nn, optim

        self.net = net
        torch.manual_seed(0)
        self.initial = [p.detach().numpy().copy() for p in _torch_model(net).parameters()]
        self.images, self.labels, self.batches = _data(net)
        self.t_x, self.t_y = torch.from_numpy(self.images), torch.from_numpy(self.labels)
        self.m_x, self.m_y = mg.tensor(self.images), mg.tensor(self.labels)
        self.torch, self.mg, self.nn, self.optim = torch, mg, nn, optim

    def fresh(self):
        """Both models at the initial weights, each with a new optimiser."""
        torch, mg = self.torch, self.mg
        t_model, m_model = _torch_model(self.net), _minigrad_model(self.net)
        with torch.no_grad():
            for p, value in zip(t_model.parameters(), self.initial):
                p.copy_(torch.from_numpy(value))
        for p, value in zip(m_model.parameters(), self.initial):
            p.data = mg.tensor(value.copy())
        if self.net == "digits":
            t_opt = torch.optim.Adam(t_model.parameters(), lr=3e-3)
            m_opt = self.optim.Adam(m_model.parameters(), lr=3e-3)
        else:
            t_opt = torch.optim.SGD(t_model.parameters(), lr=0.01, momentum=0.9)
            m_opt = self.optim.SGD(m_model.parameters(), lr=0.01, momentum=0.9)
        return (t_model, t_opt), (m_model, m_opt)

    def epoch_torch(self, model, optimizer) -> list[float]:
        loss_fn = self.torch.nn.CrossEntropyLoss()
        losses = []
        for rows in self.batches:
            index = self.torch.from_numpy(rows)
            optimizer.zero_grad()
            loss = loss_fn(model(self.t_x[index]), self.t_y[index])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses

    def epoch_minigrad(self, model, optimizer) -> list[float]:
        loss_fn = self.nn.CrossEntropyLoss()
        losses = []
        for rows in self.batches:
            index = self.mg.tensor(rows)
            optimizer.zero_grad()
            loss = loss_fn(model(self.m_x[index]), self.m_y[index])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses


def check_losses(pair: Pair) -> float:
    """One pass of each from the same start; the largest relative loss difference."""
    (t_model, t_opt), (m_model, m_opt) = pair.fresh()
    t_losses = pair.epoch_torch(t_model, t_opt)
    m_losses = pair.epoch_minigrad(m_model, m_opt)
    worst = max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(m_losses, t_losses))
    if worst > 1e-2:
        raise RuntimeError(f"{pair.net}: losses disagree by {worst:.3g} (relative); minigrad "
                           f"{m_losses[:3]}…{m_losses[-1]}, torch {t_losses[:3]}…{t_losses[-1]}")
    return worst


def compare(net: str, rounds: int) -> dict:
    pair = Pair(net)
    worst = check_losses(pair)  # also the warm-up: kernels compiled or loaded, caches filled
    wall = {"minigrad": [], "torch": []}
    cpu = {"minigrad": [], "torch": []}
    for round_index in range(rounds):
        (t_model, t_opt), (m_model, m_opt) = pair.fresh()
        runs = [("minigrad", pair.epoch_minigrad, m_model, m_opt),
                ("torch", pair.epoch_torch, t_model, t_opt)]
        for engine, epoch, model, optimizer in (runs if round_index % 2 == 0 else runs[::-1]):
            start, cpu_start = time.perf_counter(), time.process_time()
            epoch(model, optimizer)
            wall[engine].append(time.perf_counter() - start)
            cpu[engine].append(time.process_time() - cpu_start)
    medians = {engine: statistics.median(values) for engine, values in wall.items()}
    cpu_medians = {engine: statistics.median(values) for engine, values in cpu.items()}
    return {"net": net, "wall": medians, "cpu": cpu_medians, "worst": worst,
            "steps": len(pair.batches),
            "ratio": medians["minigrad"] / medians["torch"],
            "cpu_ratio": cpu_medians["minigrad"] / cpu_medians["torch"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nets", nargs="*", default=list(NETS), choices=NETS)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for every pool (default: every CPU)")
    args = parser.parse_args()
    _threads_first(args.threads)
    try:
        import torch
    except ImportError:
        print("skipped: PyTorch is not installed (pip install -e '.[oracle]')")
        sys.exit(3)
    if args.threads:
        torch.set_num_threads(args.threads)
    import minigrad as mg
    from minigrad import kernels

    kernels.warm_up()
    threads = f"{args.threads} thread(s)" if args.threads else "default threads"
    print(f"{os.cpu_count()} CPUs, {threads}, torch {torch.__version__} "
          f"({torch.get_num_threads()} threads), minigrad conv backend: {kernels.backend_name()}; "
          f"medians of {args.rounds} alternating rounds, one epoch each.")
    print(f"{'network':<8}{'steps':>6}{'minigrad':>11}{'torch':>11}{'ratio':>8}   "
          f"{'CPU minigrad':>12}{'CPU torch':>11}{'ratio':>8}   loss diff")
    for net in args.nets:
        r = compare(net, args.rounds)
        print(f"{net:<8}{r['steps']:>6}{r['wall']['minigrad'] * 1e3:>9.1f}ms"
              f"{r['wall']['torch'] * 1e3:>9.1f}ms{r['ratio']:>7.2f}×   "
              f"{r['cpu']['minigrad'] * 1e3:>10.1f}ms{r['cpu']['torch'] * 1e3:>9.1f}ms"
              f"{r['cpu_ratio']:>7.2f}×   {r['worst']:.1e}", flush=True)
    del mg


if __name__ == "__main__":
    main()
