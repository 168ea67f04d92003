"""minigrad against another checkout of minigrad: the same workloads, old and new side by side.

    python benchmarks/bench_versions.py --baseline-checkout ../old            # everything
    python benchmarks/bench_versions.py --baseline-checkout ../old --threads 1 --rounds 5
    python benchmarks/bench_versions.py --baseline-checkout ../old --only train mlp
    python benchmarks/bench_versions.py --baseline-checkout ../old --checkout ../new

The baseline is a second git worktree of minigrad (for example `git worktree add --detach
../old <commit>`) with its own virtual environment (`make .venv/.installed` there; numba's
cache is per checkout). Each version times itself: every round starts
`checkout/.venv/bin/python checkout/benchmarks/bench_X.py --worker minigrad ...` for the new
checkout and for the baseline, alternating which goes first (`engine_process.py`), so each
version runs its own benchmark workers on its own code at its own defaults. The new checkout
is this one unless `--checkout` names another (a work tree being edited measures its edits).
Workloads: the training epochs of `bench_train.py` (digits CNN, LeNet-5), the MLP layer step
of `bench_mlp.py`, and the conv and pool rows of `bench_conv.py`. The driver checks that
both versions compute the same losses and checksums.

`--threads 1` puts every pool on one thread and reports CPU time, the robust column on a busy
machine; without it each version uses its defaults and the table reports wall-clock time.
Times are medians over rounds; "change" is new / baseline - 1 of the medians (positive: the
new code is slower), "of min" the same of the fastest rounds, which another program's load
inflates least. Exits 3 when no baseline checkout is given.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from engine_process import alternating, median_and_range, run_worker

HERE = Path(__file__).resolve().parent
WORKLOADS = ("train", "mlp", "conv")
NETS = ("digits", "lenet")


def _interpreter(checkout: Path) -> str:
    python = checkout / ".venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"{checkout} has no .venv/bin/python: run `make .venv/.installed` "
                         "in that checkout first")
    return str(python)


def _commit(checkout: Path) -> str:
    result = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True)
    return result.stdout.strip() or "?"


def _rounds(checkouts: dict[str, Path], script: str, arguments: list[str], rounds: int,
            threads: int | None) -> dict[str, list[dict]]:
    """Each version's worker reports, `rounds` of them, the versions taking turns."""
    reports: dict[str, list[dict]] = {version: [] for version in checkouts}
    for _, version in alternating(tuple(checkouts), rounds):
        checkout = checkouts[version]
        reports[version].append(run_worker(str(checkout / "benchmarks" / script), "minigrad",
                                           arguments, threads,
                                           python=_interpreter(checkout)))
    return reports


def _same(a: list[float], b: list[float], tolerance: float) -> bool:
    return all(abs(x - y) <= tolerance * max(1.0, abs(x), abs(y)) for x, y in zip(a, b))


def _print_row(name: str, times: dict[str, list[float]], unit: float = 1e3) -> None:
    """One table row: each version's median [min–max] in ms, and the change."""
    medians = {version: median_and_range(values) for version, values in times.items()}
    cells = "".join(f"{m * unit:>10.3f} [{lo * unit:.3f}–{hi * unit:.3f}]".ljust(34)
                    for m, lo, hi in medians.values())
    change = (medians["new"][0] / medians["baseline"][0] - 1) * 100
    fastest = (medians["new"][1] / medians["baseline"][1] - 1) * 100
    print(f"{name:<14}{cells}{change:>+7.1f} %{fastest:>+9.1f} %", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-checkout", type=Path,
                        help="a minigrad checkout with its own .venv, the version to compare "
                             "against")
    parser.add_argument("--checkout", type=Path, default=HERE.parent,
                        help="the new version's checkout (default: this one)")
    parser.add_argument("--only", nargs="*", default=list(WORKLOADS), choices=WORKLOADS)
    parser.add_argument("--rows", nargs="*", default=None,
                        help="conv/pool rows (bench_conv.py's names; default: all)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for every pool (default: each version's own defaults)")
    args = parser.parse_args()
    if args.baseline_checkout is None:
        print("skipped: no baseline checkout given (--baseline-checkout PATH)")
        sys.exit(3)
    checkouts = {"baseline": args.baseline_checkout.resolve(), "new": args.checkout.resolve()}
    kind = "cpu" if args.threads == 1 else "wall"
    threads = f"{args.threads} thread(s) per pool" if args.threads else "each version's defaults"
    print(f"{os.cpu_count()} CPUs, {threads}, {kind} time; medians [min–max] of {args.rounds} "
          f"alternating rounds, each version in its own processes; load average "
          f"{' '.join(f'{v:.1f}' for v in os.getloadavg())} at the start.")
    print(f"baseline {_commit(checkouts['baseline'])} ({checkouts['baseline']}), "
          f"new {_commit(checkouts['new'])} ({checkouts['new']})")
    print(f"{'row':<14}{'baseline ms':<34}{'new ms':<34}{'change':>8}{'of min':>11}")
    if "train" in args.only:
        for net in NETS:
            reports = _rounds(checkouts, "bench_train.py", ["--nets", net], args.rounds,
                              args.threads)
            if not _same(reports["baseline"][0]["losses"], reports["new"][0]["losses"], 1e-4):
                raise RuntimeError(f"{net}: the two versions' losses differ")
            _print_row(f"train-{net}", {v: [r[kind] for r in reports[v]] for v in reports})
    if "mlp" in args.only:
        arguments = ["--clock", kind, "--warmup", "10", "--repeats", "100"]
        reports = _rounds(checkouts, "bench_mlp.py", arguments, args.rounds, args.threads)
        if not _same(reports["baseline"][0]["losses"], reports["new"][0]["losses"], 1e-5):
            raise RuntimeError("mlp: the two versions' losses differ")
        _print_row("mlp-step", {v: [r["median"] for r in reports[v]] for v in reports})
    if "conv" in args.only:
        arguments = ["--rows", *args.rows] if args.rows else []
        reports = _rounds(checkouts, "bench_conv.py", arguments, args.rounds, args.threads)
        for row in reports["new"][0]:
            if row == "settings":
                continue
            if not _same(reports["baseline"][-1][row]["checksum"],
                         reports["new"][-1][row]["checksum"], 1e-3):
                raise RuntimeError(f"{row}: the two versions' outputs differ")
            _print_row(row, {v: [r[row][kind] for r in reports[v]] for v in reports})


if __name__ == "__main__":
    main()
