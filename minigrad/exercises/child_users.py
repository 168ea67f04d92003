"""Who a grading child runs as, and how everything it started is cleaned up.

A root grader (as in Gradescope) gives each child its own unused user id from
:data:`SANDBOX_UIDS`: a process of another user cannot signal the grader or write its files,
and when the sandbox stops, :func:`kill_user` removes every process of that id, even ones that
left the process group (``setsid``). A grader that is not root cannot switch users; it finds
the child's leftovers by a token in their environment instead (:func:`kill_by_token`).
"""

from __future__ import annotations

import os
import pwd
import signal
import sys
import sysconfig
import threading
import time
from pathlib import Path
from typing import Optional

import minigrad

PACKAGE_ROOT = str(Path(minigrad.__file__).resolve().parent.parent)

#: Unused user ids that children run as when the grader is root (one per live sandbox).
SANDBOX_UIDS = range(64100, 64600)
#: Processes (and threads) a child running under its own user id may have.
SANDBOX_PROCESSES = 64
#: "0": children keep the grader's user id even when it is root; "1": a root grader always
#: switches them to their own; unset: it switches where every user can read Python and numpy.
DROP_ENV = "MINIGRAD_SANDBOX_DROP"

_uid_lock = threading.Lock()
_uids_in_use: set[int] = set()


def acquire_uid() -> Optional[int]:
    """An unused user id for a new child when the grader is root and dropping works; else None."""
    if not can_drop_privileges():
        return None
    with _uid_lock:
        start = os.getpid() % len(SANDBOX_UIDS)  # two graders on one machine rarely collide
        busy = _uids_with_processes()
        for offset in range(len(SANDBOX_UIDS)):
            uid = SANDBOX_UIDS[(start + offset) % len(SANDBOX_UIDS)]
            if uid in _uids_in_use or uid in busy or _uid_has_account(uid):
                continue
            _uids_in_use.add(uid)
            return uid
    return None


def release_uid(uid: Optional[int]) -> None:
    if uid is not None:
        with _uid_lock:
            _uids_in_use.discard(uid)


def _uid_has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def _uids_with_processes() -> set[int]:
    return {uid for uid in map(_process_uid, _process_ids()) if uid is not None}


def _process_ids() -> list[str]:
    try:
        return [entry for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return []


_drop_decision: Optional[bool] = None


def can_drop_privileges() -> bool:
    """True when the grader is root and children should get their own user id.

    ``MINIGRAD_SANDBOX_DROP=0`` never switches, ``=1`` always does (as root); by default the
    switch happens only where every user can read Python's standard library, numpy and minigrad,
    so that student code can import what it could import as root. Otherwise a warning says why
    children stay root (then only the guard protects the grader).
    """
    global _drop_decision
    if _drop_decision is not None:
        return _drop_decision
    choice = os.environ.get(DROP_ENV, "")
    if not (hasattr(os, "geteuid") and os.geteuid() == 0 and hasattr(os, "setresuid")):
        _drop_decision = False
    elif choice in ("0", "1"):
        _drop_decision = choice == "1"
    else:
        import numpy

        folders = (sysconfig.get_path("stdlib"), str(Path(numpy.__file__).parent.parent),
                   PACKAGE_ROOT)
        hidden = [folder for folder in folders if not _world_readable(folder)]
        _drop_decision = not hidden
        if hidden:
            print(f"minigrad grade: warning: running as root, but other users cannot read "
                  f"{', '.join(hidden)}; student code runs as root (guarded, but not as safe "
                  f"as another user id). {DROP_ENV}=1 switches anyway (then only numpy, "
                  f"minigrad and common standard modules can be imported).", file=sys.stderr)
    return _drop_decision


def world_enterable(folder: str) -> bool:
    """True if every user may enter ``folder`` (and so every folder above it)."""
    path = Path(folder).resolve()
    try:
        return all(os.stat(item).st_mode & 0o001 for item in [path, *path.parents])
    except OSError:
        return False


def _world_readable(folder: str) -> bool:
    """True if every user may enter ``folder`` and its parents and list ``folder``."""
    path = Path(folder).resolve()
    try:
        if not os.stat(path).st_mode & 0o004:
            return False
        return all(os.stat(item).st_mode & 0o001 for item in [path, *path.parents])
    except OSError:
        return False


def kill_user(uid: int) -> None:
    """SIGKILL every process running as ``uid`` (found in ``/proc``) until none is left."""
    for _ in range(50):
        victims = [int(entry) for entry in _process_ids() if _process_uid(entry) == uid]
        if not victims:
            return
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)


def _process_uid(entry: str) -> Optional[int]:
    """The real user id of a live process (None for a zombie: it is dead already)."""
    try:
        with open(f"/proc/{entry}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"State:") and line.split()[1] in (b"Z", b"X"):
                    return None
                if line.startswith(b"Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def kill_by_token(token: str) -> None:
    """SIGKILL every process of ours whose environment holds ``token`` (the child's leftovers)."""
    needle = f"MINIGRAD_SANDBOX={token}".encode()
    me = os.getpid()
    for _ in range(3):
        found = False
        for entry in _process_ids():
            if int(entry) == me:
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if needle not in handle.read():
                        continue
                os.kill(int(entry), signal.SIGKILL)
                found = True
            except (OSError, ValueError):
                continue
        if not found:
            return
        time.sleep(0.05)
