"""Which processor each grading child may run on: one each, the least used first.

Limits per process (memory, CPU seconds, process count) do not stop one child from keeping
every core busy with threads or processes, which slows down the students graded beside it in
a class run until their honest code times out. So each child is pinned to one core before it
is confined, and seccomp refuses ``sched_setaffinity``: whatever a child starts shares that
core. With ``--jobs`` at most the number of cores, no two children share one.
"""

from __future__ import annotations

import os
import threading
from collections import Counter

_lock = threading.Lock()
_in_use: Counter = Counter()


def take() -> int | None:
    """A core for a new child (the one fewest children use now); None where processes cannot
    be pinned (not Linux)."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    with _lock:
        core = min(sorted(os.sched_getaffinity(0)), key=lambda number: _in_use[number])
        _in_use[core] += 1
        return core


def give_back(core: int | None) -> None:
    """The child that had ``core`` is gone."""
    if core is None:
        return
    with _lock:
        _in_use[core] -= 1
        if _in_use[core] <= 0:
            del _in_use[core]
