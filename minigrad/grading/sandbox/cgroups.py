"""A cgroup v2 per grading child, when the grader can make one; the grader's side.

rlimits count per process and only some memory: ``RLIMIT_AS`` does not count System V shared
memory once detached, message queues or other kernel memory, and ``RLIMIT_NPROC`` does not
bind root. A cgroup counts everything the child and its threads charge: ``memory.max`` is
``--memory``, ``memory.swap.max`` is 0 (no escape to swap), ``pids.max`` caps its threads
and ``cpu.weight`` gives it a smaller share of a busy machine than the grader's. When the
child is gone the cgroup is emptied (``cgroup.kill``) and removed.

Where: ``$MINIGRAD_CGROUP`` (a cgroup v2 folder delegated to the grader, with the memory,
pids and cpu controllers enabled for its children), else a ``minigrad`` folder at the root
of the cgroup v2 hierarchy, which a grader running as root can make. Where neither works (no
cgroup v2, its controllers bound to a v1 hierarchy, no permission), :func:`fallback_note`
says once what limits the child instead. Folders are named ``g<grader pid>-<n>``; those of
graders that died are removed by the next grader.
"""

from __future__ import annotations

import errno
import itertools
import os
import threading
import time
from pathlib import Path
from typing import Optional

ENVIRONMENT = "MINIGRAD_CGROUP"
CONTROLLERS = ("memory", "pids", "cpu")
NEEDED = ("memory", "pids")  # (without cpu, the child just has no smaller CPU share)
#: The child's share of a busy CPU against the default 100 of everything else.
CPU_WEIGHT = 50
FALLBACK = ("cgroup v2 {why}: each grading child's memory is limited per process by "
            "RLIMIT_AS (--memory), its process count by its PID namespace (pid_max, Linux 6.14+) "
            "and RLIMIT_NPROC; shared memory and message queues are refused by seccomp")

_lock = threading.Lock()
_counter = itertools.count()
_state: dict = {}


def _mount_point() -> Optional[Path]:
    try:
        with open("/proc/self/mounts") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) > 2 and fields[2] == "cgroup2":
                    return Path(fields[1])
    except OSError:
        pass
    return None


def _enable(folder: Path) -> None:
    """Enable the controllers for ``folder``'s children; if that fails, one by one: the cpu
    controller may be refused (real-time threads elsewhere) without the others being lost."""
    try:
        (folder / "cgroup.subtree_control").write_text(" ".join(f"+{n}" for n in CONTROLLERS))
        return
    except OSError:
        pass
    for name in CONTROLLERS:
        try:
            (folder / "cgroup.subtree_control").write_text(f"+{name}")
        except OSError:
            if name in NEEDED:
                raise


def _prepare(base: Path, parent: Optional[Path]) -> str:
    """Make ``base`` ready for children; "" or why it cannot be."""
    try:
        if parent is not None:
            available = (parent / "cgroup.controllers").read_text().split()
            missing = [name for name in CONTROLLERS if name not in available]
            if missing:
                return (f"has no {', '.join(missing)} controller{'s' * (len(missing) > 1)} here "
                        f"(bound to a cgroup v1 hierarchy, or not delegated)")
            _enable(parent)
            base.mkdir(exist_ok=True)
        _enable(base)
        enabled = [name.lstrip("+") for name in
                   (base / "cgroup.subtree_control").read_text().split()]
    except OSError as error:
        return f"cannot be used here ({error.strerror or error})"
    missing = [name for name in NEEDED if name not in enabled]
    return f"does not enable {', '.join(missing)} in {base}" if missing else ""


def base() -> tuple[Optional[Path], str]:
    """(the folder children's cgroups go in, "") or (None, why not); worked out once."""
    with _lock:
        if "base" not in _state:
            chosen, why = None, ""
            if os.environ.get(ENVIRONMENT):
                chosen, parent = Path(os.environ[ENVIRONMENT]), None
            else:
                root = _mount_point()
                chosen, parent = (root / "minigrad", root) if root else (None, None)
                why = "" if root else "is not mounted"
            if chosen is not None:
                why = _prepare(chosen, parent)
            _state["base"] = (None if why else chosen, why)
            if not why:
                _sweep(chosen)
        return _state["base"]


def say_fallback(wanted: bool) -> None:
    """Whether :func:`fallback_note` speaks in this process: ``minigrad grade`` asks for it in
    a class run and with ``--verbose``, where the limits it names matter to the instructor;
    not when a student grades their own work, where it changes nothing they can do."""
    _state["quiet"] = not wanted


def fallback_note() -> str:
    """Once per grader process: which limits stand in for the cgroup ("" if there is one, the
    note was given, or it is not wanted: :func:`say_fallback`)."""
    if _state.get("quiet"):
        return ""
    folder, why = base()
    with _lock:
        if folder is not None or _state.get("noted"):
            return ""
        _state["noted"] = True
    return FALLBACK.format(why=why)


def create(memory_bytes: int, processes: int) -> Optional[Path]:
    """A new cgroup for one child, its limits written; None where there can be none."""
    folder, _ = base()
    if folder is None:
        return None
    path = folder / f"g{os.getpid()}-{next(_counter)}"
    try:
        path.mkdir()
        for name, value in (("memory.max", memory_bytes), ("memory.swap.max", 0),
                            ("memory.oom.group", 1), ("pids.max", processes),
                            ("cpu.weight", CPU_WEIGHT)):
            try:
                (path / name).write_text(str(value))
            except FileNotFoundError:
                # no swap accounting: nothing to escape to; no cpu controller: no weight;
                # (oom.group: an out-of-memory kill takes every process of the child at once)
                if name not in ("memory.swap.max", "cpu.weight", "memory.oom.group"):
                    raise
    except OSError:
        remove(path)
        return None
    return path


def out_of_memory(path: Optional[Path]) -> bool:
    """True if the kernel killed something in the cgroup for exceeding memory.max."""
    if path is None:
        return False
    try:
        events = dict(line.split() for line in (path / "memory.events").read_text().splitlines())
    except (OSError, ValueError):
        return False
    return int(events.get("oom_kill", 0)) > 0


def remove(path: Optional[Path]) -> None:
    """Kill whatever is left in the cgroup and remove it (retrying while the kernel finishes
    tearing the processes down)."""
    if path is None:
        return
    try:  # (no O_CREAT: only a cgroup has this file)
        descriptor = os.open(path / "cgroup.kill", os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(descriptor, b"1")
        finally:
            os.close(descriptor)
    except OSError:
        pass
    for attempt in range(50):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError as error:
            if error.errno == errno.ENOTEMPTY and not (path / "cgroup.controllers").exists():
                return  # not a cgroup (a test's stand-in folder): leave it
            time.sleep(0.02)


def _sweep(folder: Path) -> None:
    """Remove the cgroups of graders that are no longer running."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not (name.startswith("g") and "-" in name and name[1:].split("-")[0].isdigit()):
            continue
        pid = int(name[1:].split("-")[0])
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            remove(entry)
        except PermissionError:
            pass
