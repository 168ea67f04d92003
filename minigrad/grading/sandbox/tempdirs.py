"""The grader's temporary folders, and the removal of those a killed grader left behind.

A grader removes its folders when it ends (`Sandbox.close`, an `atexit` for the runtime copy),
but a grader killed outright (SIGKILL, a machine that lost power) cannot, and each run leaves
a few MB in the temporary folder. So every folder holds a lock file that its grader keeps
locked (`flock`) while it lives: the kernel drops the lock when the process dies, however it
dies. :func:`sweep` removes the folders whose lock nobody holds any more.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

PREFIXES = ("minigrad-grade-", "minigrad-runtime-")
LOCK = ".owner"
#: A folder without a lock file (made by an older minigrad) is removed only after this long.
UNLOCKED_AGE = 24 * 3600


def make(prefix: str) -> tuple[Path, int]:
    """A new temporary folder and the descriptor that holds its lock (close it to release)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    descriptor = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    fcntl.flock(descriptor, fcntl.LOCK_EX)
    return folder, descriptor


def sweep(root: str | None = None) -> list[Path]:
    """Remove this user's minigrad folders in ``root`` (the temporary folder) that no living
    grader holds; returns them. Never follows a link, never touches another user's folder."""
    root = root or tempfile.gettempdir()
    removed = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(PREFIXES):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                continue
            if _abandoned(Path(entry.path), info.st_mtime):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def _abandoned(folder: Path, modified: float) -> bool:
    try:
        descriptor = os.open(folder / LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return time.time() - modified > UNLOCKED_AGE
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False  # its grader is alive
    finally:
        os.close(descriptor)
    return True
