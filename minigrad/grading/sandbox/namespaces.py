"""Namespaces and mounts of a grading child: what it sees of the machine.

:func:`unshare_and_fork` gives the child new user, mount, PID, network, IPC, UTS and cgroup
namespaces (mapping only the caller's own uid and gid), then, in its private mount namespace:

* a size-capped ``tmpfs`` (``nosuid,nodev,noexec``) on its work folder;
* an empty read-only ``tmpfs`` over every hidden folder (the private exercise sources, the
  class folder, the results, the installed package): Landlock refuses to *open* them, this
  removes their *metadata* too (``stat``, ``readlink``, ``getxattr`` of a key or a
  classmate's file find nothing); a hidden file gets ``/dev/null`` bound over it;
* after the ``fork`` that makes it PID 1 of the new PID namespace (when it dies, the kernel
  kills everything it started), its own ``/proc``, which lists only its own processes.

The private IPC namespace means System V and POSIX IPC objects (which the seccomp filter
refuses anyway) could never reach the host's. Loaded by path, without the package.
"""

from __future__ import annotations

import ctypes
import os
import platform
import signal
import time
from typing import NoReturn, Optional

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = (0x08000000, 0x10000000,
                                                           0x20000000, 0x40000000)
NAMESPACES = (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC
              | CLONE_NEWUTS | CLONE_NEWCGROUP)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 1 << 14, 1 << 18
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]


def _check(result: int, what: str) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")
    return result


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def die_with_parent() -> None:
    _check(_libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")


def _mount(source: "str | None", target: str, kind: "str | None", flags: int,
           options: str = "") -> None:
    _check(_libc.mount(source.encode() if source else None, target.encode(),
                       kind.encode() if kind else None, flags, options.encode() or None),
           f"mount {kind or source} on {target}")


def hide(paths: list[str]) -> None:
    """Cover each existing path: an empty read-only tmpfs over a folder, /dev/null over a file
    (a link is left alone: what it names is covered if protected)."""
    for path in paths:
        try:
            if os.path.islink(path) or not os.path.exists(path):
                continue
            if os.path.isdir(path):
                _mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                       "size=4k,nr_inodes=1,mode=0555")
            else:
                _mount("/dev/null", path, None, MS_BIND)
                _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID
                       | MS_NODEV | MS_NOEXEC)
        except FileNotFoundError:
            continue  # replaced meanwhile (the grader rewrites its scores file): what Landlock
            # still refuses to open, only its metadata shows


def unshare_and_fork(work: str, tmpfs_bytes: int, hidden: list[str], report_fd: int = -1) -> int:
    """Returns 0 in the confined child (PID 1 of its namespace, its own /proc mounted); the
    first process supervises it (:func:`supervise`) and never returns."""
    uid, gid = os.getuid(), os.getgid()
    die_with_parent()  # the grader's death ends the first process, whose death ends the child
    _check(_libc.unshare(NAMESPACES), "unshare(user, mount, pid, net, ipc, uts, cgroup)")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    hide(hidden)
    _mount("tmpfs", work, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
           f"size={tmpfs_bytes},nr_inodes=2048,mode=0700")
    pid = os.fork()
    if pid == 0:
        if report_fd >= 0:
            os.close(report_fd)
        # Its own /proc: the processes of its PID namespace only (hidepid would change nothing:
        # they are all its own). Host PIDs, and their status files, are gone.
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        return 0
    supervise(pid, report_fd)  # the first process: outside the new PID namespace


def fork_supervised(report_fd: int = -1, watch: Optional[tuple[str, int]] = None) -> int:
    """Returns 0 in a child; the calling process becomes its supervisor (:func:`supervise`)
    and never returns. Used where there are no namespaces (the unprivileged-user mode), where
    the child's folder is not a size-capped tmpfs: ``watch`` = (that folder, its byte cap)."""
    pid = os.fork()
    if pid == 0:
        if report_fd >= 0:
            os.close(report_fd)
        return 0
    supervise(pid, report_fd, watch)


def no_core_dumps() -> None:
    """No core file, whatever the shell allowed (``ulimit -c unlimited``) or the machine's
    ``core_pattern`` pipes to: core limit 0 and not dumpable (which also keeps other
    processes of the same user from ptrace-attaching or reading its /proc files)."""
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl(PR_SET_DUMPABLE, 0)")


def supervise(pid: int, report_fd: int, watch: Optional[tuple[str, int]] = None) -> NoReturn:
    """The first process, which runs no student code: writes the child's PID (as the grader
    sees it) on ``report_fd``, so that the grader can kill it directly, waits for the child,
    writes ``status N`` (its wait status) there too and exits with its code, or 128 + the
    signal that killed it (never re-raising that signal on itself: it would dump core).

    With ``watch`` = (folder, cap), it looks at the folder's size every 50 ms while it waits,
    and kills the child, saying ``disk`` first, once its files hold more than ``cap`` bytes."""
    no_core_dumps()
    if watch is not None:
        _most_descriptors()
    if report_fd >= 0:
        os.write(report_fd, f"{pid}\n".encode())
        os.closerange(3, report_fd)
    os.closerange(max(3, report_fd + 1), 1 << 20)
    status = _wait_watching(pid, report_fd, *watch) if watch is not None else None
    if status is None:
        _, status = os.waitpid(pid, 0)
    if report_fd >= 0:
        os.write(report_fd, f"status {status}\n".encode())  # the grader may not be the parent
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _most_descriptors() -> None:
    """Raise this process's open-file limit to its hard limit: :func:`bytes_below` holds one
    descriptor per level of the folder it walks."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (OSError, ValueError):
        pass


def _wait_watching(pid: int, report_fd: int, folder: str, cap: int) -> Optional[int]:
    """The child's wait status once it ends; None once its folder holds more than ``cap``
    bytes (it is then killed, ``disk`` said on ``report_fd``, and not yet waited for).

    It looks every 50 ms, or, when a count takes longer (a folder of many entries), after
    three times as long as the count took: the count shares the child's core, and takes at
    most a quarter of it."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        started = time.monotonic()
        if bytes_below(folder, cap) > cap:
            if report_fd >= 0:
                os.write(report_fd, b"disk\n")
            os.kill(pid, signal.SIGKILL)
            return None
        time.sleep(max(0.05, 3 * (time.monotonic() - started)))


def bytes_below(folder: str, cap: int) -> int:
    """The bytes the files below ``folder`` hold on disk (their allocated blocks, so sparse
    files count as what they use, and 4 KB for each entry), counted until the total passes
    ``cap``. Walked depth first through folder descriptors, without recursion: no path is too
    long and no chain too deep to be counted. A chain deeper than the descriptors this process
    may hold counts as past the cap (each level holds at least 4 KB: 16 000 levels pass 64 MB
    anyway)."""
    import errno
    import stat

    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        top = os.open(folder, flags)
        stack = [(top, os.listdir(top))]  # (a folder, the names in it not yet counted)
    except OSError:
        return 0
    total = 0
    try:
        while stack and total <= cap:
            descriptor, names = stack[-1]
            if not names:
                os.close(stack.pop()[0])
                continue
            name = names.pop()
            try:
                info = os.stat(name, dir_fd=descriptor, follow_symlinks=False)
            except OSError:
                continue
            total += info.st_blocks * 512 + 4096
            if not stat.S_ISDIR(info.st_mode) or total > cap:
                continue
            try:
                inner = os.open(name, flags, dir_fd=descriptor)
            except OSError as error:
                if error.errno in (errno.EMFILE, errno.ENFILE):
                    total = cap + 1
                continue
            try:
                stack.append((inner, os.listdir(inner)))
            except OSError:
                os.close(inner)
    finally:
        for descriptor, _ in stack:
            os.close(descriptor)
    return total


def cap_process_count(count: int) -> None:
    """Cap the PID namespace's process count through its own ``pid_max`` (namespaced since
    Linux 6.14). RLIMIT_NPROC does not bind a grader running as root (the kernel exempts uid 0),
    so this (or a cgroup's pids.max) is what stops a fork bomb there. Older kernels: skipped
    (the file is global)."""
    release = tuple(int(part) for part in
                    platform.release().split("-")[0].split(".")[:2] if part.isdigit())
    if release >= (6, 14):
        _write("/proc/sys/kernel/pid_max", str(max(count + 1, 301)))  # the kernel minimum
