"""The second sandbox mode, for where namespaces are refused (a default Docker container, as on
Gradescope): graded code runs as an unprivileged user of its own.

Docker's default seccomp profile refuses ``unshare``, ``mount`` and ``clone`` with namespace
flags to a container without ``CAP_SYS_ADMIN``; it allows ``setuid``, ``prctl``, ``seccomp`` and
Landlock. So a grader running as root there forks a supervisor (which stays root and runs no
student code, as in the namespace mode) and a child that gives up root for good before any
student code runs: :func:`become` drops every supplementary group, sets the real, effective
and saved group and user ids to the student user's (``minigrad-student``, made by the
Gradescope ``setup.sh``), and checks that root cannot be had back. After that the kernel's
ordinary permission checks apply to it: it cannot read root's 0600/0700 files (the private
exercise sources, the grader's folders, the results), signal or trace root's processes (the
grader, the supervisor) or write anything root owns. :mod:`.confine` then adds the
parent-death signal, rlimits (the process count now binds: it is not root), ``no_new_privs``,
Landlock where the kernel has it and the seccomp allowlist, as in the namespace mode.

Children graded at once (a class run's ``--jobs``) must not share a user: the kernel counts
a user's threads against one ``RLIMIT_NPROC`` (one child's 31 sleeping threads left its
neighbour none), and its permission checks do not separate processes of one user. So each
child runs as a user of its own from :func:`student_pool` (``minigrad-student``,
``minigrad-student-2``, ... as far as they exist, or the users ``MINIGRAD_STUDENT_USER``
names, separated by commas), and a class run grades at most that many students at once.

Loaded by path, without the package (see :mod:`.confine`).
"""

from __future__ import annotations

import os
import threading

_taking = threading.Lock()

#: The user graded code runs as in this mode (``MINIGRAD_STUDENT_USER`` names another).
DEFAULT_USER = "minigrad-student"
USER_ENV = "MINIGRAD_STUDENT_USER"


def student_ids(name: str | None = None) -> tuple[int, int] | None:
    """(uid, gid) of the student user, or None if there is no such user (or it is root)."""
    import pwd

    try:
        entry = pwd.getpwnam(name or (os.environ.get(USER_ENV) or DEFAULT_USER).split(",")[0])
    except KeyError:
        return None
    if entry.pw_uid == 0 or entry.pw_gid == 0:
        return None
    return entry.pw_uid, entry.pw_gid


def student_pool(names: str | None = None) -> list[tuple[int, int]]:
    """(uid, gid) of each student user, in order, without root or a uid given twice: the users
    ``names`` (or ``MINIGRAD_STUDENT_USER``) lists, separated by commas; else
    ``minigrad-student``, then ``minigrad-student-2``, ``-3``... up to the first missing one."""
    listed = names or os.environ.get(USER_ENV)
    if listed:
        candidates = [name.strip() for name in listed.split(",") if name.strip()]
    else:
        candidates = [DEFAULT_USER] + [f"{DEFAULT_USER}-{number}" for number in range(2, 257)]
    pool: list[tuple[int, int]] = []
    for name in candidates:
        ids = student_ids(name)
        if ids is None:
            if listed:
                continue
            break
        if ids[0] not in {uid for uid, _ in pool}:
            pool.append(ids)
    return pool


_taken: dict[tuple[int, int], int] = {}


def take(pool: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """The user of ``pool`` (not empty) that the fewest living children run as now: with no
    more children at once than users (a class run sees to it), one nobody else has."""
    with _taking:
        ids = min(pool, key=lambda item: _taken.get(item, 0))
        _taken[ids] = _taken.get(ids, 0) + 1
        return ids


def give_back(ids: tuple[int, int] | None) -> None:
    """The child that ran as ``ids`` is gone."""
    if ids is None:
        return
    with _taking:
        _taken[ids] = _taken.get(ids, 1) - 1
        if _taken[ids] <= 0:
            del _taken[ids]


def become(uid: int, gid: int) -> None:
    """Give up root for good: no supplementary groups, then the group, then the user."""
    if uid == 0 or gid == 0:
        raise PermissionError("the student user must not be root")
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (gid, gid, gid) or os.getgroups():
        raise PermissionError("could not give up root")
    try:
        os.setuid(0)
    except PermissionError:
        return
    raise PermissionError("root could be had back after giving it up")


def _allows(info: os.stat_result, uid: int, gid: int, bit: int) -> bool:
    """Do the modes of ``info`` give ``bit`` (4 read, 1 search) to user ``uid`` of group
    ``gid`` (and no other group)?"""
    if info.st_uid == uid:
        return bool(info.st_mode & (bit << 6))
    if info.st_gid == gid:
        return bool(info.st_mode & (bit << 3))
    return bool(info.st_mode & bit)


def _searchable(folder: str, uid: int, gid: int) -> bool:
    """Can the user walk down to ``folder`` and through it (search on it and above it)?"""
    parts = folder.rstrip(os.sep).split(os.sep)
    for end in range(1, len(parts) + 1):
        try:
            if not _allows(os.stat(os.sep.join(parts[:end]) or os.sep), uid, gid, 1):
                return False
        except OSError:
            return False
    return True


def reachable(path: str, uid: int, gid: int) -> bool:
    """Could user ``uid`` (group ``gid``, no other group) reach into ``path`` by the file
    modes alone: every folder above it searchable and ``path`` itself readable or, for a
    folder, searchable? A path not there yet (a results file or folder the grader will write,
    0644 or 0755) is reachable if the folder it goes in is. (Landlock, where there is one,
    refuses it anyway; this is what stands without it.)"""
    import stat

    real = os.path.realpath(path)
    parent = os.path.dirname(real)
    if not _searchable(parent, uid, gid):
        return False
    try:
        info = os.stat(real)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if stat.S_ISDIR(info.st_mode):
        return _allows(info, uid, gid, 4) or _allows(info, uid, gid, 1)
    return _allows(info, uid, gid, 4)
