"""Kernel confinement of a grading child, in order; each step in a module of its own.

This file and its siblings are loaded on their own (no package import, no numpy) by a child
started directly, which is still single-threaded: ``unshare(CLONE_NEWUSER)`` and
``landlock_restrict_self`` act on the calling thread, so they must happen before any library
starts a thread. (The zygote imports them as package modules; :func:`_sibling` serves both.)

What :func:`enter` does (every step fails closed: an error stops the child):

0. Join the child's cgroup, when the grader made one (:mod:`.cgroups`: memory, swap, process
   count and CPU weight of everything the child starts), and pin the process to the cores it
   is given (:mod:`.cores`), which every thread it starts inherits.
1. In the namespace mode (:mod:`.namespaces`): new user, mount, PID, network, IPC, UTS and
   cgroup namespaces; a tmpfs work folder; empty read-only tmpfs over the hidden folders;
   ``fork`` into PID 1 of the new PID namespace, with its own ``/proc``. In the
   unprivileged-user mode (where namespaces are refused, as in a default Docker container):
   ``fork``, and the child gives up root for the student user (:mod:`.users`). Either way
   the first process stays outside, runs no student code and reports the child's end.
2. Parent-death signal, rlimits (address space, CPU, file size, open files, processes, no core
   files, no locked memory), the PID namespace's ``pid_max``, ``PR_SET_NO_NEW_PRIVS``.
3. Landlock (:mod:`.landlock`): read-only access to the runtime, read and write to the work
   folder, nothing else (ABI 6+ in the namespace mode; any ABI, or none, in the user mode).
4. seccomp (:mod:`.seccomp`): an allowlist of system calls, for this process's own PID (the
   only one it may signal or set limits of) and, in the user mode, without the calls that
   take a file's last name away (its folder's size cap counts named files).
"""

from __future__ import annotations

import os
import platform
import sys

MIN_LANDLOCK_ABI = 6
#: The two ways of confining graded code (:mod:`.probe` chooses).
NAMESPACES, USER = "namespaces", "user"


def _sibling(name: str):  # type: ignore[no-untyped-def]
    """The module ``name`` of this folder: imported from the package when this module was,
    else loaded from its file (a child started directly has no package path yet)."""
    if __package__:
        import importlib
        return importlib.import_module(f"{__package__}.{name}")
    key = f"minigrad_sandbox_{name}"
    if key not in sys.modules:
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            key, os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


def preload() -> tuple:
    """The modules :func:`enter` uses, loaded now: once Landlock is on, this folder may not be
    readable (and the zygote loads them once, not in every child)."""
    return tuple(_sibling(name) for name in ("namespaces", "landlock", "seccomp",
                                              "syscall_numbers", "users"))[:4]


def landlock_abi() -> int:
    return _sibling("landlock").abi()


def problem(mode: str = NAMESPACES) -> str:
    """Why :func:`enter` cannot work here in ``mode``, or "" when it should."""
    if platform.system() != "Linux":
        return f"the grading sandbox needs Linux (this is {platform.system()})"
    if platform.machine() not in _sibling("syscall_numbers").ARCHITECTURES:
        return f"the grading sandbox does not know this processor ({platform.machine()})"
    if mode == USER:
        return ""  # Landlock where there is one
    abi = _sibling("landlock").abi()
    if abi < MIN_LANDLOCK_ABI:
        return (f"this kernel's Landlock ABI is {abi or 'absent'}; the grading sandbox needs "
                f"{MIN_LANDLOCK_ABI} or later (Linux 6.12+, with 'landlock' in the lsm= boot "
                f"list)")
    return ""


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _prefer_for_oom_killer() -> None:
    """If the machine runs out of memory anyway, the kernel kills graded code first, not the
    grader or anything else (any process may raise its own score; defence in depth, so a
    kernel that refuses is not an error)."""
    try:
        _write("/proc/self/oom_score_adj", "1000")
    except OSError:
        pass


def set_limits(memory_bytes: int, cpu_seconds: int, file_bytes: int, open_files: int,
               processes: int) -> None:
    """Step 2's rlimits (soft = hard, so graded code cannot raise them again)."""
    import resource

    for limit, value in ((resource.RLIMIT_AS, memory_bytes), (resource.RLIMIT_CPU, cpu_seconds),
                         (resource.RLIMIT_FSIZE, file_bytes),
                         (resource.RLIMIT_NOFILE, open_files),
                         (resource.RLIMIT_NPROC, processes), (resource.RLIMIT_CORE, 0),
                         (resource.RLIMIT_MEMLOCK, 0)):
        if value >= 0:
            resource.setrlimit(limit, (value, value))


def no_new_privileges() -> None:
    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")


def die_with_parent() -> None:
    _sibling("namespaces").die_with_parent()


def no_core_dumps() -> None:
    """For a process that runs no student code but could crash beside it (the zygote)."""
    _sibling("namespaces").no_core_dumps()


def enter(config: dict) -> None:
    """Steps 0-4, from the child's configuration (see :meth:`.host.Sandbox._config`).
    Returns in the confined child, whose working folder is then ``config["work"]``."""
    namespaces, landlock, seccomp, numbers = preload()
    if config.get("cgroup"):
        _write(config["cgroup"], "0")  # cgroup.procs: this process, and all it will start
    if config.get("cores"):
        os.sched_setaffinity(0, config["cores"])
    if config.get("mode", NAMESPACES) == NAMESPACES:
        namespaces.unshare_and_fork(config["work"], config["tmpfs"], config.get("hidden", []),
                                    config.get("report", -1))
        namespaces.die_with_parent()
        namespaces.cap_process_count(config.get("processes", 32))
    else:  # USER: no namespaces; a supervisor that stays root, a child that gives it up
        namespaces.fork_supervised(config.get("report", -1), (config["work"], config["tmpfs"]))
        _sibling("users").become(config["uid"], config["gid"])
        namespaces.die_with_parent()  # (a change of user clears it: set again after)
    os.chdir(config["work"])
    _prefer_for_oom_killer()
    set_limits(config["memory"], config["cpu"], config["file"], config.get("open_files", 256),
               config.get("processes", 32))
    version = landlock.abi() if config.get("landlock", True) else 0
    if version >= MIN_LANDLOCK_ABI or (version and config.get("mode") == USER):
        landlock.restrict(config["readable"], [config["work"]], version)
    elif config.get("mode", NAMESPACES) == NAMESPACES:
        raise OSError(f"Landlock ABI {version} is too old for the namespace mode")
    else:
        no_new_privileges()  # (Landlock's restrict sets it otherwise)
    arch, table = numbers.ARCHITECTURES[platform.machine()]
    seccomp.install(arch, table, bool(config.get("strict_seccomp")),
                    user_mode=config.get("mode") == USER)
    # Graded code can walk up to the worker's frame: it need not learn the protected paths.
    for key in ("readable", "hidden", "cgroup", "uid", "gid"):
        config.pop(key, None)
