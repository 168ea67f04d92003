"""One MLP training step through the minigrad engine vs the same maths written by hand in numpy.

    python benchmarks/bench_mlp.py [--repeats 50] [--batch 128]

Network 784-256-128-10 (float32), ReLU, log-softmax + negative log-likelihood, SGD update.
Both sides run the same operations on the same arrays in the same process (same BLAS,
including any OPENBLAS_CORETYPE setting), interleaved (alternating which goes first); we
print the median and best time of
each and the ratio minigrad / numpy. The ratio is the engine's overhead: graph recording,
Tensor wrappers, the backward traversal. Target: <= 1.3.

A third side runs the same step as a user writes it with layers: `nn.Sequential` of
`nn.Linear` and `nn.ReLU`, `nn.CrossEntropyLoss`, `optim.SGD` (zero_grad, backward, step).
Its ratio to numpy measures the layers and the optimizer on top of the engine. Target: <= 1.2.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

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
def minigrad_step(params: list[mg.Tensor], x: mg.Tensor, y: mg.Tensor, rows: mg.Tensor) -> float:
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


# ---- the same step with layers and an optimizer ---------------------------------------------
def make_model(arrays: list[np.ndarray]) -> nn.Sequential:
    """The MLP as nn layers, holding the same numbers (nn.Linear keeps W as (out, in))."""
    layers: list[nn.Module] = []
    for index, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(nn.Linear(fan_in, fan_out))
        if index < len(SIZES) - 2:
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers)
    linears = [layer for layer in model if isinstance(layer, nn.Linear)]
    state = {}
    for position, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            k = linears.index(layer)
            state[f"{position}.weight"] = np.ascontiguousarray(arrays[2 * k].T)
            state[f"{position}.bias"] = arrays[2 * k + 1]
    model.load_state_dict(state)
    return model


def nn_step(model: nn.Module, optimizer: optim.Optimizer, loss_fn: nn.Module,
            x: mg.Tensor, y: mg.Tensor) -> float:
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


def timed(step: Callable[[], float]) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()

    arrays, x_array, y_array = make_data(args.batch)
    numpy_params = [a.copy() for a in arrays]
    engine_params = [mg.tensor(a, requires_grad=True) for a in arrays]
    x, y, rows = mg.tensor(x_array), mg.tensor(y_array), mg.arange(args.batch)
    model = make_model(arrays)
    optimizer = optim.SGD(model.parameters(), lr=LEARNING_RATE)
    loss_fn = nn.CrossEntropyLoss()

    # Same numbers first: three steps on each side, then compare the parameters.
    for _ in range(3):
        expected = numpy_step(numpy_params, x_array, y_array)
        got = minigrad_step(engine_params, x, y, rows)
        with_layers = nn_step(model, optimizer, loss_fn, x, y)
        for value in (got, with_layers):
            assert abs(expected - value) < 1e-4 * max(1.0, abs(expected)), (expected, value)
    layer_params = [p.numpy().T if p.ndim == 2 else p.numpy() for p in model.parameters()]
    for ours, layered, reference in zip(engine_params, layer_params, numpy_params):
        assert ours.dtype == reference.dtype == np.float32, (ours.dtype, reference.dtype)
        np.testing.assert_allclose(ours.numpy(), reference, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(layered, reference, rtol=1e-4, atol=1e-5)

    sides: dict[str, Callable[[], float]] = {
        "numpy by hand": lambda: numpy_step(numpy_params, x_array, y_array),
        "minigrad": lambda: minigrad_step(engine_params, x, y, rows),
        "nn + optim": lambda: nn_step(model, optimizer, loss_fn, x, y),
    }
    times: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for index in range(args.warmup + args.repeats):
        # Rotate which side runs first, so none always inherits the others' caches.
        order = names[index % 3:] + names[:index % 3]
        measured = {name: timed(sides[name]) for name in order}
        if index >= args.warmup:
            for name, seconds in measured.items():
                times[name].append(seconds)

    print(f"MLP {'-'.join(map(str, SIZES))}, batch {args.batch}, float32, one SGD step "
          f"({args.repeats} repeats after {args.warmup} warm-up)")
    for label, measured in times.items():
        print(f"  {label:14s}: median {statistics.median(measured) * 1e3:7.3f} ms   "
              f"best {min(measured) * 1e3:7.3f} ms")
    numpy_times = times["numpy by hand"]
    for label in ("minigrad", "nn + optim"):
        print(f"  ratio {label} / numpy: "
              f"{statistics.median(times[label]) / statistics.median(numpy_times):.2f}x (median), "
              f"{min(times[label]) / min(numpy_times):.2f}x (best)")


if __name__ == "__main__":
    main()
