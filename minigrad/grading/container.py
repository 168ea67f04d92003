"""``minigrad grade ... --container IMAGE``: the same command, run inside a container.

For machines where the kernel sandbox cannot work (macOS, Windows, old kernels): docker or
podman runs ``minigrad grade --no-sandbox`` in IMAGE with no network, no capabilities, no new
privileges, a process and memory cap, a read-only root and the submission mounted read-only.
The container is then the boundary: graded code cannot reach this machine, but it can read
what is inside the container (the image's minigrad, and the ``--exercises`` folder, mounted
read-only), as in Gradescope.

The only folder the container may write is a fresh, empty one made for this run
(:func:`run_in_container`), never a folder of this machine's (the parent of ``--csv`` once
was, and graded code rewrote a classmate's submission there). When the container is done,
the results are copied out of it: regular files only, never through a link, each within a size
limit, to the destinations given on this machine's command line.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

#: Inside the container: where the fresh output folder is mounted, and what is written there.
OUT = "/grading/out"
JSON, CSV, GRADES = "results.json", "scores.csv", "grades"
#: The largest results file copied out of the container (a class of 300 is far below).
MAX_RESULT_BYTES = 64 * 2**20


def _is_class_run(args: argparse.Namespace) -> bool:
    from minigrad.grading.class_folder import run_kind
    from minigrad.grading.commands import asked_kind

    return run_kind(Path(args.path), asked_kind(args)) == "class"


def container_command(args: argparse.Namespace, engine: str, staging: Path) -> list[str]:
    """The docker/podman command line that grades ``args.path`` inside ``args.container``,
    writing only into ``staging`` (a fresh, empty folder)."""
    mounts: list[str] = []
    inner: list[str] = ["minigrad", "grade"]

    def mount(host: Path, inside: str, writable: bool) -> str:
        mounts.extend(["-v", f"{host.resolve()}:{inside}:{'rw' if writable else 'ro'}"])
        return inside

    source = Path(args.path)
    inner.append(mount(source, f"/grading/in/{source.resolve().name}", False))
    mount(staging, OUT, True)
    if args.json is not None:
        inner += ["--json", f"{OUT}/{JSON}"]
    if args.csv is not None or _is_class_run(args):
        inner += ["--csv", f"{OUT}/{CSV}"]
    if _is_class_run(args):
        inner += ["--out", f"{OUT}/{GRADES}"]  # never beside the read-only submissions
    if args.exercises is not None:
        inner += ["--exercises", mount(Path(args.exercises), "/grading/exercises", False)]
    for flag, given in (("one", args.one), ("class", getattr(args, "whole_class", False)),
                        ("verbose", getattr(args, "verbose", False)),
                        ("show-hidden", getattr(args, "show_hidden", False))):
        if given:
            inner.append(f"--{flag}")
    lms = getattr(args, "lms", "minigrad")
    for option, value in (("--lesson", args.lesson), ("--timeout", args.timeout),
                          ("--seed", same_cases_seed(args) or args.seed),
                          ("--memory", args.memory),
                          ("--jobs", args.jobs), ("--regrade", getattr(args, "regrade", None)),
                          ("--lms", None if lms == "minigrad" else lms),
                          ("--visibility", getattr(args, "visibility", None)),
                          ("--lang", getattr(args, "lang", None))):
        if value is not None:
            inner += [option, str(value)]
    memory = (args.memory + 512) * max(args.jobs, 1) + 512
    return [engine, "run", "--rm", "--network", "none", "--cap-drop", "ALL",
            "--security-opt", "no-new-privileges", "--pids-limit", "512",
            "--memory", f"{memory}m", "--read-only", "--tmpfs", "/tmp:size=512m",
            *mounts, args.container, *inner, "--no-sandbox"]


def same_cases_seed(args: argparse.Namespace) -> Optional[int]:
    """For ``--regrade STUDENT --same-cases``: the seed recorded in the student's results on
    this machine (the container's results folder starts empty), given to it as ``--seed``;
    None otherwise. ValueError when none is recorded."""
    if not (getattr(args, "same_cases", False) and getattr(args, "regrade", None)):
        return None
    from minigrad.grading.class_commands import class_member_named, recorded_class_seed

    resolved = Path(args.path).resolve()
    out = Path(args.out) if args.out else resolved.parent / f"{resolved.name}-grades"
    student, problem = class_member_named(Path(args.path), args.regrade)
    if student is None:
        raise ValueError(problem)
    seed, problem = recorded_class_seed(student, out)
    if problem:
        raise ValueError(problem)
    return seed


def _read_regular(path: Path) -> bytes | None:
    """The bytes of ``path`` if it is a regular file (not a link, FIFO or device) within the
    size limit; else None. Graded code may have written anything into the staging folder."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_RESULT_BYTES:
            return None
        with os.fdopen(os.dup(descriptor), "rb") as handle:
            return handle.read(MAX_RESULT_BYTES + 1)[:MAX_RESULT_BYTES]
    finally:
        os.close(descriptor)


def copy_results(staging: Path, args: argparse.Namespace) -> list[str]:
    """Copy what the container wrote to the destinations of this machine's command line
    (atomically, as ``minigrad grade`` writes them); returns what was missing."""
    from minigrad.grading.classroom import write_text_atomic

    missing: list[str] = []
    class_run = _is_class_run(args)
    out = None
    if class_run:
        resolved = Path(args.path).resolve()
        out = Path(args.out) if args.out else resolved.parent / f"{resolved.name}-grades"
    wanted = [(JSON, args.json),
              (CSV, args.csv if args.csv is not None else (out / CSV if out else None))]
    for name, target in wanted:
        if target is None:
            continue
        data = _read_regular(staging / name)
        if data is None:
            missing.append(str(target))
            continue
        write_text_atomic(Path(target), data.decode("utf-8", "surrogateescape"))
    if out is not None:
        try:
            entries = sorted(os.scandir(staging / GRADES), key=lambda entry: entry.name)
        except OSError:
            entries = []
        for entry in entries:
            data = _read_regular(Path(entry.path))
            if data is not None and entry.name.endswith(".json") and "/" not in entry.name:
                write_text_atomic(out / entry.name, data.decode("utf-8", "surrogateescape"))
    return missing


def run_in_container(args: argparse.Namespace) -> int:
    engine = shutil.which("podman") or shutil.which("docker")
    if engine is None:
        print("minigrad grade: --container needs docker or podman on the PATH", file=sys.stderr)
        return 2
    try:
        same_cases_seed(args)
    except ValueError as error:
        print(f"minigrad grade: {error}", file=sys.stderr)
        return 2
    staging = Path(tempfile.mkdtemp(prefix="minigrad-container-"))
    staging.chmod(0o777)  # the container's user may not be this one (podman maps users)
    try:
        command = container_command(args, Path(engine).name, staging)
        print("minigrad grade: running " + " ".join(command), file=sys.stderr)
        status = subprocess.run(command).returncode
        missing = copy_results(staging, args)
        if status == 0 and missing:
            print(f"minigrad grade: the container wrote no results for {', '.join(missing)}",
                  file=sys.stderr)
            return 1
        return status
    finally:
        shutil.rmtree(staging, ignore_errors=True)
