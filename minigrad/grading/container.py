"""``minigrad grade ... --container IMAGE``: the same command, run inside a container.

For machines where the kernel sandbox cannot work (macOS, Windows, old kernels): docker or
podman runs ``minigrad grade --no-sandbox`` in IMAGE with no network, no capabilities, no new
privileges, a process and memory cap, a read-only root, the submission mounted read-only and
only the output folders writable. The container is then the boundary: graded code cannot reach
this machine, but it can read what is inside the container (the image's minigrad, and the
``--exercises`` folder, mounted read-only), as in Gradescope.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path


def container_command(args: argparse.Namespace, engine: str) -> list[str]:
    """The docker/podman command line that grades ``args.path`` inside ``args.container``."""
    mounts: list[str] = []
    inner: list[str] = ["minigrad", "grade"]

    def mount(host: Path, inside: str, writable: bool) -> str:
        mounts.extend(["-v", f"{host.resolve()}:{inside}:{'rw' if writable else 'ro'}"])
        return inside

    source = Path(args.path)
    inner.append(mount(source, f"/grading/in/{source.resolve().name}", False))
    for number, (option, value) in enumerate((("--json", args.json), ("--csv", args.csv))):
        if value is not None:
            value = Path(value)
            value.resolve().parent.mkdir(parents=True, exist_ok=True)
            inner += [option, mount(value.resolve().parent, f"/grading/out{number}", True)
                      + "/" + value.name]
    if args.out is not None:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        inner += ["--out", mount(Path(args.out), "/grading/out", True)]
    if args.exercises is not None:
        inner += ["--exercises", mount(Path(args.exercises), "/grading/exercises", False)]
    for flag in ("one", "verbose"):
        if getattr(args, flag, False):
            inner.append(f"--{flag}")
    lms = getattr(args, "lms", "minigrad")
    for option, value in (("--lesson", args.lesson), ("--timeout", args.timeout),
                          ("--seed", args.seed), ("--memory", args.memory),
                          ("--jobs", args.jobs), ("--regrade", getattr(args, "regrade", None)),
                          ("--lms", None if lms == "minigrad" else lms)):
        if value is not None:
            inner += [option, str(value)]
    memory = (args.memory + 512) * max(args.jobs, 1) + 512
    return [engine, "run", "--rm", "--network", "none", "--cap-drop", "ALL",
            "--security-opt", "no-new-privileges", "--pids-limit", "512",
            "--memory", f"{memory}m", "--read-only", "--tmpfs", "/tmp:size=512m",
            *mounts, args.container, *inner, "--no-sandbox"]


def run_in_container(args: argparse.Namespace) -> int:
    engine = shutil.which("podman") or shutil.which("docker")
    if engine is None:
        print("minigrad grade: --container needs docker or podman on the PATH", file=sys.stderr)
        return 2
    command = container_command(args, Path(engine).name)
    print("minigrad grade: running " + " ".join(command), file=sys.stderr)
    return subprocess.run(command).returncode
