"""The grader's temporary folders, and the removal of those a killed grader left behind.

A grader removes its folders when it ends (`Sandbox.close`, an `atexit` for the runtime copy),
but a grader killed outright (SIGKILL, a machine that lost power) cannot, and each run leaves
a few MB in the temporary folder. So every folder holds a lock file that its grader keeps
locked (`flock`) while it lives: the kernel drops the lock when the process dies, however it
dies. :func:`sweep` removes the folders whose lock nobody holds any more.

What a submission leaves in its folder (in the unprivileged-user mode the child's folder is a
real one) may be a folder chain thousands of levels deep, far past ``PATH_MAX`` and Python's
recursion limit. :func:`remove_tree` walks it with one folder descriptor at a time, down into
each subfolder and back up through ``..`` (checked to be the folder it came from), never
following a link, and reports on stderr, never raises, what it cannot remove: a clean-up
failure is the grader's to log, never a student's score.
"""

from __future__ import annotations

import fcntl
import os
import stat
import sys
import tempfile
import time
from pathlib import Path

PREFIXES = ("minigrad-grade-", "minigrad-runtime-")
LOCK = ".owner"
#: A folder without a lock file (made by an older minigrad) is removed only after this long.
UNLOCKED_AGE = 24 * 3600


def make(prefix: str) -> tuple[Path, int]:
    """A new temporary folder and the descriptor that holds its lock (close it to release).

    The lock file gets its name only once it is locked: a grader sweeping at that moment
    finds either no lock file (a young folder, left alone) or a held one, never a lock file
    that nobody holds yet."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    unnamed = folder / f"{LOCK}.new"
    descriptor = os.open(unnamed, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    fcntl.flock(descriptor, fcntl.LOCK_EX)
    os.rename(unnamed, folder / LOCK)
    return folder, descriptor


def sweep(root: str | None = None) -> list[Path]:
    """Remove this user's minigrad folders in ``root`` (the temporary folder) that no living
    grader holds; returns them. Never follows a link, never touches another user's folder."""
    root = root or tempfile.gettempdir()
    removed = []
    try:
        entries = list(os.scandir(root))
    except Exception:  # noqa: BLE001
        return removed
    for entry in entries:
        if not entry.name.startswith(PREFIXES):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                continue
            if _abandoned(Path(entry.path), info.st_mtime) and remove_tree(entry.path):
                removed.append(Path(entry.path))
        except Exception:  # noqa: BLE001 — one folder left behind must not stop the others
            continue
    return removed


def remove_tree(path: "str | os.PathLike[str]") -> bool:
    """Remove ``path`` and everything below it, without recursion and without following
    links (a link is removed, not what it names). True once nothing is left; False, with
    the reason on stderr, when something could not be removed. Never raises."""
    path = os.path.abspath(os.fspath(path))
    try:
        parent = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    except Exception as error:  # noqa: BLE001 — logged, never a student's score
        return _cannot(path, error)
    try:
        _remove_below(parent, os.path.basename(path))
        return True
    except FileNotFoundError as error:
        return not os.path.lexists(path) or _cannot(path, error)
    except Exception as error:  # noqa: BLE001
        return _cannot(path, error)
    finally:
        os.close(parent)


def _cannot(path: str, error: BaseException) -> bool:
    print(f"minigrad grade: could not remove {path}: {type(error).__name__}: {error}",
          file=sys.stderr)
    return False


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


def _remove_below(top: int, name: str) -> None:
    """Remove ``name`` in the folder ``top``: its files first, then each subfolder the same
    way, holding one folder descriptor (and a list of names still to visit per level)."""
    if not stat.S_ISDIR(os.stat(name, dir_fd=top, follow_symlinks=False).st_mode):
        os.unlink(name, dir_fd=top)
        return
    names = [name]  # from ``top`` down to the current folder
    identities = [_identity(os.fstat(top))]
    current = _open_folder(name, top)
    identities.append(_identity(os.fstat(current)))
    waiting = [_remove_files(current)]  # each level's subfolders still to remove
    try:
        while True:
            if waiting[-1]:
                sub = waiting[-1].pop()
                try:
                    inner = _open_folder(sub, current)
                except FileNotFoundError:
                    continue
                os.close(current)
                current = inner
                names.append(sub)
                identities.append(_identity(os.fstat(current)))
                waiting.append(_remove_files(current))
                continue
            if len(names) == 1:
                break
            parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=current)
            os.close(current)
            current = parent
            if _identity(os.fstat(current)) != identities[-2]:
                raise OSError(f"{names[-1]!r} was moved while it was being removed")
            os.rmdir(names.pop(), dir_fd=current)
            identities.pop()
            waiting.pop()
    finally:
        os.close(current)
    os.rmdir(name, dir_fd=top)


def _open_folder(name: str, parent: int) -> int:
    """A descriptor of the folder ``name`` in ``parent``; one its owner made unreadable
    (mode 000: not a problem for root) is given its owner's rights back first."""
    try:
        return os.open(name, _FOLDER, dir_fd=parent)
    except PermissionError:
        os.chmod(name, 0o700, dir_fd=parent, follow_symlinks=False)
        return os.open(name, _FOLDER, dir_fd=parent)


def _remove_files(folder: int) -> list[str]:
    """Unlink every entry of ``folder`` but its subfolders (links included); their names."""
    with os.scandir(folder) as entries:
        listed = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
    for name, is_folder in listed:
        if not is_folder:
            try:
                os.unlink(name, dir_fd=folder)
            except FileNotFoundError:
                pass
    return [name for name, is_folder in listed if is_folder]


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
