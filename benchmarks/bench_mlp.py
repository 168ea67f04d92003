"""One MLP training step through the minigrad engine vs the same maths written by hand in numpy.

    python benchmarks/bench_mlp.py [--repeats 100] [--batch 128]

Network 784-256-128-10 (float32), ReLU, log-softmax + negative log-likelihood, SGD update,
in two formulations:

- "(in, out)": weights stored (in, out), `x @ W + b`, update under `no_grad()`;
- "PyTorch-style": weights stored (out, in) as `nn.Linear` does, `x @ W.T + b`,
  `log_softmax`, `log_probs[rows, y]`, `.mean()`, update through `p.data -= lr * p.grad`.

Each side runs the same operations on the same arrays in the same process (same BLAS),
interleaved (rotating which goes first); we print the median and best time of each and the
ratio minigrad / numpy: the engine's overhead (graph recording, Tensor wrappers, the
backward traversal).

A third comparison runs the step as a user writes it with layers: `nn.Sequential` of
`nn.Linear` and `nn.ReLU`, `nn.CrossEntropyLoss`, `optim.SGD` (zero_grad, backward, step),
against the PyTorch-style numpy step.

With PyTorch installed, a fourth runs that layer step in minigrad and in PyTorch, each engine
in its own fresh process at its own defaults (`engine_process.py`), alternating processes
over `--rounds`; the ratio of the medians is the MLP target (<= 1.0). `--threads 1` puts
every pool of both engines on one thread (use it with `--clock cpu`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import time
from typing import Callable

import numpy as np

from engine_process import (alternating, engine_settings, median_and_range, print_settings,
                            run_worker)

# minigrad is imported inside the functions that use it: the PyTorch worker process must
# not import it (its import defaults thread variables; see engine_process.py).

SIZES = (784, 256, 128, 10)
LEARNING_RATE = 0.01


def make_data(batch: int, seed: int = 0) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        params.append((rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32))
        params.append(np.zeros(fan_out, dtype=np.float32))
    x = rng.standard_normal((batch, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], batch)
    return params, x, y


# ---- the same step, by hand in numpy ---------------------------------------------------------
def numpy_step(params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    w1, b1, w2, b2, w3, b3 = params
    batch = x.shape[0]
    rows = np.arange(batch)
    # forward
    z1 = x @ w1 + b1
    h1 = np.maximum(z1, 0)
    z2 = h1 @ w2 + b2
    h2 = np.maximum(z2, 0)
    logits = h2 @ w3 + b3
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -log_probs[rows, y].mean()
    # backward
    grad_log_probs = np.zeros_like(log_probs)
    grad_log_probs[rows, y] = -1.0 / batch
    grad_logits = grad_log_probs - np.exp(log_probs) * grad_log_probs.sum(axis=1, keepdims=True)
    grad_w3, grad_b3 = h2.T @ grad_logits, grad_logits.sum(axis=0)
    grad_z2 = (grad_logits @ w3.T) * (z2 > 0)
    grad_w2, grad_b2 = h1.T @ grad_z2, grad_z2.sum(axis=0)
    grad_z1 = (grad_z2 @ w2.T) * (z1 > 0)
    grad_w1, grad_b1 = x.T @ grad_z1, grad_z1.sum(axis=0)
    # SGD update
    for param, grad in zip(params, (grad_w1, grad_b1, grad_w2, grad_b2, grad_w3, grad_b3)):
        param -= LEARNING_RATE * grad
    return float(loss)


# ---- the same step through the engine --------------------------------------------------------
def minigrad_step(params: list, x: object, y: object, rows: object) -> float:
    import minigrad as mg

    w1, b1, w2, b2, w3, b3 = params
    h1 = (x @ w1 + b1).relu()
    h2 = (h1 @ w2 + b2).relu()
    log_probs = (h2 @ w3 + b3).log_softmax(dim=1)
    loss = -log_probs[rows, y].mean()
    loss.backward()
    with mg.no_grad():
        for param in params:
            param -= LEARNING_RATE * param.grad
            param.grad = None
    return loss.item()


# ---- PyTorch-style: weights (out, in), x @ W.T + b, update through p.data ------------------
def numpy_step_out_in(params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    w1, b1, w2, b2, w3, b3 = params
    batch = x.shape[0]
    rows = np.arange(batch)
    z1 = x @ w1.T + b1
    h1 = np.maximum(z1, 0)
    z2 = h1 @ w2.T + b2
    h2 = np.maximum(z2, 0)
    logits = h2 @ w3.T + b3
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -log_probs[rows, y].mean()
    grad_log_probs = np.zeros_like(log_probs)
    grad_log_probs[rows, y] = -1.0 / batch
    grad_logits = grad_log_probs - np.exp(log_probs) * grad_log_probs.sum(axis=1, keepdims=True)
    grad_w3, grad_b3 = grad_logits.T @ h2, grad_logits.sum(axis=0)
    grad_z2 = (grad_logits @ w3) * (z2 > 0)
    grad_w2, grad_b2 = grad_z2.T @ h1, grad_z2.sum(axis=0)
    grad_z1 = (grad_z2 @ w2) * (z1 > 0)
    grad_w1, grad_b1 = grad_z1.T @ x, grad_z1.sum(axis=0)
    for param, grad in zip(params, (grad_w1, grad_b1, grad_w2, grad_b2, grad_w3, grad_b3)):
        param -= LEARNING_RATE * grad
    return float(loss)


def torch_style_step(params: list, x: object, y: object, rows: object) -> float:
    """Written once for minigrad and PyTorch alike (`nn.Linear`'s layout)."""
    w1, b1, w2, b2, w3, b3 = params
    h1 = (x @ w1.T + b1).relu()
    h2 = (h1 @ w2.T + b2).relu()
    log_probs = (h2 @ w3.T + b3).log_softmax(dim=1)
    loss = -log_probs[rows, y].mean()
    loss.backward()
    for param in params:
        param.data -= LEARNING_RATE * param.grad
        param.grad = None
    return loss.item()


# ---- the same step with layers and an optimizer ---------------------------------------------
def make_model(weights_out_in: list[np.ndarray], nn: object = None) -> object:
    """The MLP as layers of `nn` (minigrad's by default, or `torch.nn`) holding the given
    (out, in) weights and biases."""
    if nn is None:
        import minigrad.nn as nn
    layers: list = []
    for index, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(nn.Linear(fan_in, fan_out))
        if index < len(SIZES) - 2:
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers)
    linears = [name for name, layer in model.named_children() if isinstance(layer, nn.Linear)]
    state = {}
    for k, name in enumerate(linears):
        state[f"{name}.weight"] = weights_out_in[2 * k].copy()
        state[f"{name}.bias"] = weights_out_in[2 * k + 1].copy()
    if nn.__name__ == "torch.nn":
        import torch

        state = {name: torch.from_numpy(value) for name, value in state.items()}
    model.load_state_dict(state)
    return model


def nn_step(model: object, optimizer: object, loss_fn: object, x: object, y: object) -> float:
    """One layer step, written once for minigrad and PyTorch alike."""
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


CLOCK = time.perf_counter  # --clock cpu: time.process_time (this process only; see --help)


def timed(step: Callable[[], float]) -> float:
    start = CLOCK()
    step()
    return CLOCK() - start


def compare(label: str, steps: dict[str, Callable[[], float]], warmup: int, repeats: int) -> None:
    """Time every step in `steps`, rotating their order each round; print medians and ratios."""
    names = list(steps)
    times: dict[str, list[float]] = {name: [] for name in names}
    for index in range(warmup + repeats):
        order = names[index % len(names):] + names[:index % len(names)]
        for name in order:
            elapsed = timed(steps[name])
            if index >= warmup:
                times[name].append(elapsed)
    print(label)
    for name in names:
        print(f"  {name:14s}: median {statistics.median(times[name]) * 1e3:7.3f} ms   "
              f"best {min(times[name]) * 1e3:7.3f} ms")
    numpy_median = statistics.median(times["numpy by hand"])
    for name in names:
        if name != "numpy by hand":
            print(f"  ratio {name} / numpy: {statistics.median(times[name]) / numpy_median:.2f}x "
                  f"(median), {min(times[name]) / min(times['numpy by hand']):.2f}x (best)")


def check_same_numbers(numpy_step_fn: Callable, engine_step: Callable, numpy_params: list,
                       engine_params: list) -> None:
    """Three steps on each side, then the parameters must agree."""
    for _ in range(3):
        expected, got = numpy_step_fn(), engine_step()
        assert abs(expected - got) < 1e-4 * max(1.0, abs(expected)), (expected, got)
    for ours, reference in zip(engine_params, numpy_params):
        assert ours.dtype == reference.dtype == np.float32, (ours.dtype, reference.dtype)
        np.testing.assert_allclose(ours.numpy(), reference, rtol=1e-4, atol=1e-5)


def worker(engine: str, batch: int, warmup: int, repeats: int) -> None:
    """Time the layer step (nn + optim) of one engine in this process; print JSON."""
    if engine == "torch":
        import torch
        import torch.nn as nn_module
        import torch.optim as optim_module

        to_tensor = torch.from_numpy
    else:
        import minigrad as mg
        import minigrad.nn as nn_module
        import minigrad.optim as optim_module

        to_tensor = mg.tensor
    arrays, x_array, y_array = make_data(batch)
    weights = [a.T.copy() if a.ndim == 2 else a.copy() for a in arrays]
    model = make_model(weights, nn_module)
    optimizer = optim_module.SGD(model.parameters(), lr=LEARNING_RATE)
    loss_fn = nn_module.CrossEntropyLoss()
    x, y = to_tensor(x_array), to_tensor(y_array.astype(np.int64))
    losses = [nn_step(model, optimizer, loss_fn, x, y) for _ in range(3)]
    times = []
    for index in range(warmup + repeats):
        elapsed = timed(lambda: nn_step(model, optimizer, loss_fn, x, y))
        if index >= warmup:
            times.append(elapsed)
    print(json.dumps({"median": statistics.median(times), "best": min(times),
                      "losses": losses, "settings": engine_settings(engine)}))


def against_torch(args: argparse.Namespace) -> None:
    """The layer step, minigrad against PyTorch, each engine in its own process."""
    engines = ("minigrad", "torch")
    arguments = ["--batch", str(args.batch), "--warmup", str(args.warmup),
                 "--repeats", str(args.repeats), "--clock", args.clock]
    runs: dict[str, list[dict]] = {engine: [] for engine in engines}
    for _, engine in alternating(engines, args.rounds):
        runs[engine].append(run_worker(__file__, engine, arguments, args.threads))
    ours, theirs = runs["minigrad"][0]["losses"], runs["torch"][0]["losses"]
    assert all(abs(a - b) < 1e-4 * max(1.0, abs(b)) for a, b in zip(ours, theirs)), (ours, theirs)
    print(f"nn + optim step, minigrad against PyTorch, each in its own process "
          f"({args.rounds} alternating rounds of {args.repeats} steps; {args.clock} clock; "
          f"median of the rounds' medians [min–max])")
    medians = {}
    for engine in engines:
        medians[engine], low, high = median_and_range([r["median"] for r in runs[engine]])
        print(f"  {engine:9s}: {medians[engine] * 1e3:7.3f} ms [{low * 1e3:.3f}–{high * 1e3:.3f}]")
    print(f"  ratio minigrad / torch: {medians['minigrad'] / medians['torch']:.2f}x (target <= 1.0)")
    print("settings each engine ran with:")
    print_settings({engine: runs[engine][0]["settings"] for engine in engines})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: count only this process's CPU time, which other programs "
                             "on a busy machine do not inflate (use with one BLAS thread, "
                             "OPENBLAS_NUM_THREADS=1 or --threads 1, or threads add up)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="alternating processes per engine for the PyTorch comparison")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for every pool of both engines in the PyTorch "
                             "comparison (default: each engine's own default)")
    parser.add_argument("--worker", choices=("minigrad", "torch"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.worker:
        worker(args.worker, args.batch, args.warmup, args.repeats)
        return
    import minigrad as mg
    import minigrad.nn as nn
    import minigrad.optim as optim

    arrays, x_array, y_array = make_data(args.batch)
    x, y, rows = mg.tensor(x_array), mg.tensor(y_array), mg.arange(args.batch)
    title = f"MLP {'-'.join(map(str, SIZES))}, batch {args.batch}, float32, one SGD step " \
            f"({args.repeats} repeats after {args.warmup} warm-up)"

    # (in, out) weights, x @ W + b
    numpy_params = [a.copy() for a in arrays]
    engine_params = [mg.tensor(a, requires_grad=True) for a in arrays]
    steps = {
        "numpy by hand": lambda: numpy_step(numpy_params, x_array, y_array),
        "minigrad": lambda: minigrad_step(engine_params, x, y, rows),
    }
    check_same_numbers(steps["numpy by hand"], steps["minigrad"], numpy_params, engine_params)
    compare(f"{title}\n(in, out) weights, x @ W + b, update under no_grad()", steps,
            args.warmup, args.repeats)

    # (out, in) weights as nn.Linear stores them, x @ W.T + b, update through p.data
    transposed = [a.T.copy() if a.ndim == 2 else a.copy() for a in arrays]
    numpy_params_t = [a.copy() for a in transposed]
    engine_params_t = [mg.tensor(a, requires_grad=True) for a in transposed]
    steps = {
        "numpy by hand": lambda: numpy_step_out_in(numpy_params_t, x_array, y_array),
        "minigrad": lambda: torch_style_step(engine_params_t, x, y, rows),
    }
    check_same_numbers(steps["numpy by hand"], steps["minigrad"], numpy_params_t, engine_params_t)
    compare("(out, in) weights as nn.Linear, x @ W.T + b, log_softmax, y indexing, mean, "
            "p.data -= lr * p.grad", steps, args.warmup, args.repeats)

    # The same step through nn.Linear + nn.CrossEntropyLoss + optim.SGD
    numpy_params_nn = [a.copy() for a in transposed]
    model = make_model(transposed)
    optimizer = optim.SGD(model.parameters(), lr=LEARNING_RATE)
    loss_fn = nn.CrossEntropyLoss()
    steps = {
        "numpy by hand": lambda: numpy_step_out_in(numpy_params_nn, x_array, y_array),
        "nn + optim": lambda: nn_step(model, optimizer, loss_fn, x, y),
    }
    check_same_numbers(steps["numpy by hand"], steps["nn + optim"], numpy_params_nn,
                       list(model.parameters()))
    compare("nn.Linear + nn.ReLU + nn.CrossEntropyLoss + optim.SGD", steps, args.warmup,
            args.repeats)

    if importlib.util.find_spec("torch") is None:
        print("(PyTorch is not installed: the comparison with it is skipped)")
    else:
        against_torch(args)


if __name__ == "__main__":
    main()
