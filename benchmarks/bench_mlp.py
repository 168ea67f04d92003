"""One MLP training step through the minigrad engine vs the same maths written by hand in numpy.

    python benchmarks/bench_mlp.py [--repeats 50] [--batch 128]

Network 784-256-128-10 (float32), ReLU, log-softmax + negative log-likelihood, SGD update.
Both sides run the same operations on the same arrays in the same process (same BLAS,
including any OPENBLAS_CORETYPE setting), interleaved (alternating which goes first); we
print the median and best time of
each and the ratio minigrad / numpy. The ratio is the engine's overhead: graph recording,
Tensor wrappers, the backward traversal. Target: <= 1.3.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np

import minigrad as mg

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

    # Same numbers first: three steps on each side, then compare the parameters.
    for _ in range(3):
        expected = numpy_step(numpy_params, x_array, y_array)
        got = minigrad_step(engine_params, x, y, rows)
        assert abs(expected - got) < 1e-4 * max(1.0, abs(expected)), (expected, got)
    for ours, reference in zip(engine_params, numpy_params):
        assert ours.dtype == reference.dtype == np.float32, (ours.dtype, reference.dtype)
        np.testing.assert_allclose(ours.numpy(), reference, rtol=1e-4, atol=1e-5)

    engine_times, numpy_times = [], []
    for index in range(args.warmup + args.repeats):
        # Alternate which side runs first, so neither always inherits the other's caches.
        if index % 2 == 0:
            engine = timed(lambda: minigrad_step(engine_params, x, y, rows))
            baseline = timed(lambda: numpy_step(numpy_params, x_array, y_array))
        else:
            baseline = timed(lambda: numpy_step(numpy_params, x_array, y_array))
            engine = timed(lambda: minigrad_step(engine_params, x, y, rows))
        if index >= args.warmup:
            engine_times.append(engine)
            numpy_times.append(baseline)

    engine_median, numpy_median = statistics.median(engine_times), statistics.median(numpy_times)
    print(f"MLP {'-'.join(map(str, SIZES))}, batch {args.batch}, float32, one SGD step "
          f"({args.repeats} repeats after {args.warmup} warm-up)")
    for label, times in (("numpy by hand", numpy_times), ("minigrad", engine_times)):
        print(f"  {label:14s}: median {statistics.median(times) * 1e3:7.3f} ms   "
              f"best {min(times) * 1e3:7.3f} ms")
    print(f"  ratio minigrad / numpy: {engine_median / numpy_median:.2f}x (median), "
          f"{min(engine_times) / min(numpy_times):.2f}x (best)")


if __name__ == "__main__":
    main()
