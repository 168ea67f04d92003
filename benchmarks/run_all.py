"""Run every benchmark in this folder (``bench_*.py``), one after another.

    python benchmarks/run_all.py              # all of them
    python benchmarks/run_all.py value mlp    # only bench_value.py and bench_mlp.py

Each benchmark times minigrad against a baseline (micrograd, PyTorch, plain numpy) in the same
process and prints the ratio. A benchmark whose optional baseline is not installed is skipped
with a message, not counted as a failure: either it exits with code 3 (``SKIPPED``) after
printing why, or it dies on ``import micrograd`` / ``import torch``. Exits 1 if any benchmark
failed.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OPTIONAL_BASELINES = ("micrograd", "torch")
SKIPPED = 3  # the exit code of a benchmark that skipped itself (baseline not installed)
MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")


def missing_baseline(stderr: str) -> str | None:
    """The optional baseline a failed benchmark could not import, if that is why it failed."""
    for match in MISSING_MODULE.finditer(stderr):
        if match.group(1).split(".")[0] in OPTIONAL_BASELINES:
            return match.group(1).split(".")[0]
    return None


def main(argv: list[str]) -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if argv:
        wanted = {name.removeprefix("bench_").removesuffix(".py") for name in argv}
        scripts = [s for s in scripts if s.stem.removeprefix("bench_") in wanted]
        unknown = wanted - {s.stem.removeprefix("bench_") for s in scripts}
        if unknown:
            print(f"no benchmark named {', '.join(sorted(unknown))}; "
                  f"see {', '.join(p.name for p in sorted(HERE.glob('bench_*.py')))}")
            return 1
    failed, skipped = [], []
    for script in scripts:
        print(f"== {script.name}", flush=True)
        start = time.perf_counter()
        result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
        sys.stdout.write(result.stdout)
        baseline = missing_baseline(result.stderr) if result.returncode else None
        if result.returncode == SKIPPED:
            skipped.append(script.name)
        elif baseline:
            print(f"   skipped: the baseline '{baseline}' is not installed "
                  f"(pip install -e '.[bench]' or '.[oracle]')")
            skipped.append(script.name)
        elif result.returncode:
            sys.stdout.write(result.stderr)
            print(f"   FAILED (exit code {result.returncode})")
            failed.append(script.name)
        else:
            print(f"   ({time.perf_counter() - start:.1f} s)")
        print(flush=True)
    ran = len(scripts) - len(failed) - len(skipped)
    print(f"{ran} ran, {len(skipped)} skipped, {len(failed)} failed"
          + (f": {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
