"""Scalar engine speed: minigrad.Value against micrograd's Value on the same graph.

The graph: 20 000 leaf inputs combined pairwise, level by level, into one output (a balanced
binary tree, 15 levels). Every pair (a, b) becomes ``relu((a*b)**2 + a + b) * 0.25`` — only
``+ * ** relu``, the operations micrograd 0.1.0 has. One timed run = build the graph (forward)
+ ``backward()``. Both engines run the same graph in the same process, several times each; the
script checks that they agree on the output and the input gradients, then prints the best and
median times and the ratio minigrad / micrograd (below 1.0 means minigrad is faster).

    python benchmarks/bench_value.py [--inputs 20000] [--repeats 7]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from typing import Callable

from minigrad import Value as MinigradValue

try:
    from micrograd.engine import Value as MicrogradValue
except ImportError:  # the baseline is optional: `pip install micrograd==0.1.0`
    MicrogradValue = None

SKIPPED = 3  # exit code understood by run_all.py: the baseline is missing, nothing was timed


def build_and_backward(value_class: Callable, numbers: list[float]) -> tuple[object, list]:
    """Forward (build the tree over ``numbers``) and backward; returns (output, leaves)."""
    leaves = [value_class(x) for x in numbers]
    level = leaves
    while len(level) > 1:
        next_level = [
            ((a * b) ** 2 + a + b).relu() * 0.25 for a, b in zip(level[0::2], level[1::2])
        ]
        if len(level) % 2:  # an odd node out moves up unchanged
            next_level.append(level[-1])
        level = next_level
    output = level[0]
    output.backward()
    return output, leaves


def time_engine(value_class: Callable, numbers: list[float], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        build_and_backward(value_class, numbers)
        times.append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=20_000, help="number of leaf inputs")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per engine")
    args = parser.parse_args(argv)
    if MicrogradValue is None:
        print("bench_value: skipped, micrograd is not installed (pip install micrograd==0.1.0)")
        return SKIPPED

    rng = random.Random(0)
    numbers = [rng.uniform(0.5, 1.5) for _ in range(args.inputs)]

    # Same graph, same numbers: the two engines must agree before we compare their speed.
    mine, my_leaves = build_and_backward(MinigradValue, numbers)
    theirs, their_leaves = build_and_backward(MicrogradValue, numbers)
    worst = max(abs(p.grad - q.grad) for p, q in zip(my_leaves, their_leaves))
    if abs(mine.data - theirs.data) > 1e-9 * max(1.0, abs(theirs.data)) or worst > 1e-9:
        print(f"bench_value: engines disagree (output {mine.data} vs {theirs.data}, "
              f"worst input-gradient difference {worst:g})")
        return 1
    del mine, my_leaves, theirs, their_leaves

    # Interleave the two engines' runs so that drifts in machine load hit both alike.
    mine_times, theirs_times = [], []
    for _ in range(args.repeats):
        mine_times += time_engine(MinigradValue, numbers, 1)
        theirs_times += time_engine(MicrogradValue, numbers, 1)

    print(f"scalar engine, {args.inputs} inputs, forward + backward, {args.repeats} runs each")
    for name, times in (("minigrad.Value ", mine_times), ("micrograd Value", theirs_times)):
        print(f"  {name}  best {min(times) * 1e3:8.1f} ms   median "
              f"{statistics.median(times) * 1e3:8.1f} ms")
    print(f"  ratio minigrad / micrograd: best {min(mine_times) / min(theirs_times):.2f}x, "
          f"median {statistics.median(mine_times) / statistics.median(theirs_times):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
