"""The grading child's seccomp filter: an allowlist of the system calls honest graded code makes.

CPython, numpy, numba's compiled kernels and the worker's protocol need a few dozen system
calls: files (within what Landlock lets them open), memory, threads, time, signals to
themselves. Those are :data:`ALLOWED`; every other call fails with ``EPERM`` (new calls in
future kernels included), a few with the errno listed in :data:`REFUSED` (``ENOSYS`` where
glibc falls back to an older call only on that errno: ``clone3`` -> ``clone``). So no new
process, namespace, System V or POSIX IPC object (``shmget``, ``msgget``, ``semget``,
``mq_open``: memory no rlimit counts), socket, ``io_uring``, ``ptrace``, ``keyctl``, ``bpf``,
``perf_event_open``, ``userfaultfd``, mount (old or new API), ``chroot``, ``open_by_handle_at``,
``memfd_secret``, ``personality``, nor a change of a file's mode, owner, extended attributes or
times (which Landlock does not govern), ``fallocate``, inotify, fanotify, AIO.

Four allowed calls have their arguments checked:

* ``clone`` only with exactly the flags glibc's (or musl's) ``pthread_create`` passes: a
  thread, never a process, and never a thread that also asks for new namespaces;
* ``fcntl`` without ``F_SETLEASE`` or ``F_NOTIFY`` (a lease on a readable file, such as a
  module's ``.pyc``, blocks every other process that opens it for up to 45 s),
  ``F_SETPIPE_SZ`` (1 MB pipe buffers: kernel memory no rlimit counts) or ``F_SETOWN``,
  ``F_SETOWN_EX``, ``F_SETSIG`` (signals sent elsewhere);
* ``ioctl`` with the commands in :data:`IOCTL_ALLOWED` only (a terminal's attributes and size,
  non-blocking and close-on-exec flags, bytes waiting): not ``FS_IOC_SETFLAGS`` and the other
  file-system ioctls, which work on a file opened read-only and which Landlock does not
  govern outside device files;
* ``prctl`` with the options in :data:`PRCTL_ALLOWED` only (thread names, reading state; not
  ``PR_SET_PDEATHSIG``, which keeps the child dying with its parent, nor ``PR_SET_MM``...).

``timer_create`` is left out: each POSIX timer is kernel memory, and nothing limits their
number. Another system-call ABI (x32, i386) kills the process. With ``strict`` (tests only), a
call outside the allowlist, or with arguments outside the checks above, kills the child with
SIGSYS instead of failing, so that a numpy that starts needing a new call fails the
honest-solution tests loudly instead of grading silently worse.
"""

from __future__ import annotations

import ctypes
import struct

EPERM, EACCES, ENOSYS = 1, 13, 38
#: Allowed, in rough order of how often graded code makes them (the filter tries them in turn).
ALLOWED = (
    "read", "write", "futex", "mmap", "munmap", "mprotect", "madvise", "brk", "lseek", "openat",
    "open", "close", "newfstatat", "fstat", "stat", "lstat", "statx", "getdents64", "getdents",
    "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev", "preadv2",
    "pwritev2", "close_range", "dup", "dup2", "dup3", "statfs", "fstatfs", "access",
    "faccessat", "faccessat2", "readlink", "readlinkat", "getcwd", "chdir", "fchdir", "mkdir",
    "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link",
    "linkat", "symlink", "symlinkat", "ftruncate", "truncate", "fsync", "fdatasync", "flock",
    "pipe", "pipe2", "poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1",
    "epoll_ctl", "epoll_wait", "epoll_pwait", "eventfd", "eventfd2", "umask", "getxattr",
    "lgetxattr", "fgetxattr", "listxattr", "llistxattr", "flistxattr", "sendfile",
    "copy_file_range", "fadvise64", "mremap", "mbind", "get_mempolicy", "set_mempolicy",
    "mincore", "msync",
    # threads, time, signals to itself (Landlock scopes signals to the child's own domain)
    "set_robust_list", "rseq", "set_tid_address", "exit", "exit_group", "gettid", "getpid",
    "getppid", "sched_yield", "sched_getaffinity", "sched_getparam", "sched_getscheduler",
    "sched_get_priority_max", "sched_get_priority_min", "nanosleep", "clock_nanosleep",
    "clock_gettime", "clock_getres", "gettimeofday", "time", "getrusage", "times",
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "rt_sigpending",
    "rt_sigtimedwait", "rt_sigsuspend", "kill", "tgkill", "tkill", "pause", "alarm",
    "setitimer", "getitimer", "wait4", "waitid", "restart_syscall",
    # identity and limits (rlimits can only be lowered: raising needs the host's capability)
    "getuid", "geteuid", "getgid", "getegid", "getgroups", "getresuid", "getresgid", "getpgrp",
    "getpgid", "getsid", "uname", "getrandom", "prlimit64", "getrlimit", "setrlimit", "sysinfo",
    "arch_prctl", "getcpu",
)
#: Refused with another errno than EPERM (each also in the tests' expectations).
REFUSED = {
    # honest imports probe for sockets; the errno they expect when a sandbox forbids them
    "socket": EACCES, "socketpair": EACCES,
    # glibc falls back from clone3 to clone (checked below) only on ENOSYS; io_uring likewise
    "clone3": ENOSYS, "io_uring_setup": ENOSYS,
    "memfd_create": EACCES, "execveat": EACCES, "add_key": EACCES, "request_key": EACCES,
    "keyctl": EACCES, "bpf": EACCES, "perf_event_open": EACCES, "userfaultfd": EACCES,
}
CLONE_THREAD = 0x00010000
#: The flags of glibc's pthread_create (CLONE_VM | FS | FILES | SIGHAND | THREAD | SYSVSEM |
#: SETTLS | PARENT_SETTID | CHILD_CLEARTID), and musl's (the same | CLONE_DETACHED).
THREAD_FLAGS = (0x003D0F00, 0x007D0F00)
#: fcntl: F_SETLEASE, F_NOTIFY, F_SETPIPE_SZ, F_SETOWN, F_SETOWN_EX, F_SETSIG
FCNTL_REFUSED = (1024, 1026, 1031, 8, 15, 10)
#: ioctl: TCGETS, TIOCGWINSZ, FIONBIO, FIOCLEX, FIONCLEX, FIONREAD (what CPython and numpy ask)
IOCTL_ALLOWED = (0x5401, 0x5413, 0x5421, 0x5451, 0x5450, 0x541B)
#: PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE, PR_GET_PDEATHSIG, PR_GET_SECCOMP,
#: PR_CAPBSET_READ, PR_GET_NO_NEW_PRIVS, PR_GET_TIMERSLACK, PR_SET_VMA (naming its own mappings)
PRCTL_ALLOWED = (15, 16, 3, 2, 21, 23, 39, 30, 0x53564D41)

LOAD, JEQ, JGE, RET = 0x20, 0x15, 0x35, 0x06
RET_ALLOW, RET_KILL_PROCESS, RET_TRAP, RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00030000, 0x00050000
NR, ARCH, ARG0_LOW, ARG1_LOW = 0, 4, 16, 24  # offsets in struct seccomp_data


def program(audit_arch: int, numbers: dict[str, int], strict: bool = False) -> list[tuple]:
    """The classic-BPF program, as (code, jt, jf, k) instructions."""
    allow = (RET, 0, 0, RET_ALLOW)
    refuse = (RET, 0, 0, RET_TRAP) if strict else (RET, 0, 0, RET_ERRNO | EPERM)
    code = [(LOAD, 0, 0, ARCH), (JEQ, 1, 0, audit_arch), (RET, 0, 0, RET_KILL_PROCESS),
            (LOAD, 0, 0, NR), (JGE, 0, 1, 0x40000000), (RET, 0, 0, RET_KILL_PROCESS)]  # x32

    def checked(name: str, offset: int, values: tuple[int, ...], match: tuple) -> None:
        """If the call is ``name``: ``match`` when the argument is one of ``values``, else
        the other of allow/refuse; then A is the call's number again for what follows."""
        if name not in numbers:
            return
        other = refuse if match == allow else allow
        body = [(LOAD, 0, 0, offset)]
        for index, value in enumerate(values):
            body.append((JEQ, len(values) - index, 0, value))  # -> match
        body += [other, match]
        code.append((JEQ, 0, len(body), numbers[name]))
        code.extend(body)
        code.append((LOAD, 0, 0, NR))  # (only reached when the call was not ``name``)

    checked("clone", ARG0_LOW, THREAD_FLAGS, allow)
    checked("fcntl", ARG1_LOW, FCNTL_REFUSED, refuse)
    checked("prctl", ARG0_LOW, PRCTL_ALLOWED, allow)
    checked("ioctl", ARG1_LOW, IOCTL_ALLOWED, allow)
    for name in ALLOWED:
        if name in numbers:
            code += [(JEQ, 0, 1, numbers[name]), allow]
    for name, errno in REFUSED.items():
        if name in numbers:
            code += [(JEQ, 0, 1, numbers[name]), (RET, 0, 0, RET_ERRNO | errno)]
    code.append(refuse)
    return code


def install(audit_arch: int, numbers: dict[str, int], strict: bool = False) -> None:
    """Load the filter on the calling thread (no_new_privs must be set; later threads and
    processes inherit it)."""
    instructions = program(audit_arch, numbers, strict)
    assert len(instructions) < 4096
    filters = b"".join(struct.pack("=HBBI", *instruction) for instruction in instructions)
    buffer = ctypes.create_string_buffer(filters, len(filters))
    fprog = struct.pack("=HxxxxxxQ", len(instructions), ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                  ctypes.create_string_buffer(fprog, len(fprog)), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"seccomp: {__import__('os').strerror(number)}")
