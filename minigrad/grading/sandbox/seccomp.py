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

These allowed calls have their arguments checked:

* ``clone`` only with exactly the flags glibc's (or musl's) ``pthread_create`` passes: a
  thread, never a process, and never a thread that also asks for new namespaces;
* ``fcntl`` without ``F_SETLEASE`` or ``F_NOTIFY`` (a lease on a readable file, such as a
  module's ``.pyc``, blocks every other process that opens it for up to 45 s),
  ``F_SETPIPE_SZ`` (1 MB pipe buffers: kernel memory no rlimit counts) or ``F_SETOWN``,
  ``F_SETOWN_EX``, ``F_SETSIG`` (signals sent elsewhere), and without record or OFD locks
  (``ENOLCK``, as ``flock``): two children locking and testing a lock on a file both read, such
  as the runtime copy, passed data between them;
* ``ioctl`` with the commands in :data:`IOCTL_ALLOWED` only (a terminal's attributes and size,
  non-blocking and close-on-exec flags, bytes waiting): not ``FS_IOC_SETFLAGS`` and the other
  file-system ioctls, which work on a file opened read-only and which Landlock does not
  govern outside device files;
* ``prctl`` with the options in :data:`PRCTL_ALLOWED` only (thread names, reading state; not
  ``PR_SET_PDEATHSIG``, which keeps the child dying with its parent, nor ``PR_SET_MM``...);
* ``kill`` on the child's own PID or process group only (0: itself and its supervisor, alone
  in a session of their own), ``tgkill`` on its own PID, ``prlimit64`` on itself only (0 or
  its PID; ``tkill`` is refused): in the unprivileged-user mode every child of a class run may be
  one user, whom the kernel's permission checks do not keep apart (``prlimit64`` lowered a
  neighbour's limits);
* ``futex``: private operations, and shared waits (glibc's ``pthread_join`` waits so for the
  kernel's wake at a thread's exit); a shared wake or requeue is refused, since the kernel keys
  a futex on a page of a file by the file, so that a child could wake one of another child's;
* ``madvise`` without ``MADV_MERGEABLE``, ``MADV_COLD`` or ``MADV_PAGEOUT``, ``fadvise64``
  without ``POSIX_FADV_DONTNEED`` (pages other processes share);
* in the unprivileged-user mode, where the child's folder is not a size-capped tmpfs and its
  supervisor counts the files that have a name there: no ``unlink`` or ``unlinkat`` of a file
  (``AT_REMOVEDIR`` stays), no ``rename`` or ``renameat`` (``renameat2`` with
  ``RENAME_NOREPLACE`` or ``RENAME_EXCHANGE`` stays), no ``O_TMPFILE``: nothing the child
  holds open loses its name.

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
    "linkat", "symlink", "symlinkat", "ftruncate", "truncate", "fsync", "fdatasync",
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
    "rt_sigtimedwait", "rt_sigsuspend", "kill", "tgkill", "pause", "alarm",
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
    # a lock on a file every child reads (the runtime copy) would pass data between them
    "flock": 37,  # ENOLCK
}
CLONE_THREAD = 0x00010000
#: The flags of glibc's pthread_create (CLONE_VM | FS | FILES | SIGHAND | THREAD | SYSVSEM |
#: SETTLS | PARENT_SETTID | CHILD_CLEARTID), and musl's (the same | CLONE_DETACHED).
THREAD_FLAGS = (0x003D0F00, 0x007D0F00)
#: fcntl: F_SETLEASE, F_NOTIFY, F_SETPIPE_SZ, F_SETOWN, F_SETOWN_EX, F_SETSIG
FCNTL_REFUSED = (1024, 1026, 1031, 8, 15, 10)
#: fcntl: F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW (-> ENOLCK)
FCNTL_LOCKS = (5, 6, 7, 36, 37, 38)
#: ioctl: TCGETS, TIOCGWINSZ, FIONBIO, FIOCLEX, FIONCLEX, FIONREAD (what CPython and numpy ask)
IOCTL_ALLOWED = (0x5401, 0x5413, 0x5421, 0x5451, 0x5450, 0x541B)
#: PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE, PR_GET_PDEATHSIG, PR_GET_SECCOMP,
#: PR_CAPBSET_READ, PR_GET_NO_NEW_PRIVS, PR_GET_TIMERSLACK, PR_SET_VMA (naming its own mappings)
PRCTL_ALLOWED = (15, 16, 3, 2, 21, 23, 39, 30, 0x53564D41)
#: futex operations that need no private flag: FUTEX_WAIT, FUTEX_WAIT_BITSET (a shared wait
#: is how glibc's pthread_join waits for the kernel's wake at a thread's exit)
FUTEX_SHARED_WAITS = (0, 9)
FUTEX_PRIVATE, FUTEX_COMMAND = 128, 127
#: madvise: MADV_MERGEABLE, MADV_COLD, MADV_PAGEOUT (pages shared with other processes)
MADVISE_REFUSED = (12, 20, 21)
#: fadvise64: POSIX_FADV_DONTNEED (drops a shared file's pages from the page cache)
FADVISE_REFUSED = (4,)
#: In the unprivileged-user mode: calls that take a file's last name away while the child may
#: hold it open (its folder's size cap counts what has a name); ``unlinkat`` stays for folders
#: (AT_REMOVEDIR), ``renameat2`` for RENAME_NOREPLACE and RENAME_EXCHANGE, and ``open`` and
#: ``openat`` lose O_TMPFILE.
USER_MODE_REFUSED = ("unlink", "rename", "renameat")
AT_REMOVEDIR, RENAME_KEEPS_NAMES, O_TMPFILE_BIT = 0x200, (1, 2), 0x400000
ENOLCK = 37

LOAD, JEQ, JGE, JSET, AND, RET = 0x20, 0x15, 0x35, 0x45, 0x54, 0x06
RET_ALLOW, RET_KILL_PROCESS, RET_TRAP, RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00030000, 0x00050000
NR, ARCH = 0, 4  # offsets in struct seccomp_data
ARG0_LOW, ARG1_LOW, ARG2_LOW, ARG3_LOW, ARG4_LOW = 16, 24, 32, 40, 48


def program(audit_arch: int, numbers: dict[str, int], strict: bool = False, pid: int = 0,
            user_mode: bool = False) -> list[tuple]:
    """The classic-BPF program, as (code, jt, jf, k) instructions. ``pid``: the child's own
    PID (the only one it may signal or set limits of); ``user_mode``: the child's folder is
    not a tmpfs (see :data:`USER_MODE_REFUSED`)."""
    allow = (RET, 0, 0, RET_ALLOW)
    refuse = (RET, 0, 0, RET_TRAP) if strict else (RET, 0, 0, RET_ERRNO | EPERM)
    no_locks = (RET, 0, 0, RET_ERRNO | ENOLCK)
    code = [(LOAD, 0, 0, ARCH), (JEQ, 1, 0, audit_arch), (RET, 0, 0, RET_KILL_PROCESS),
            (LOAD, 0, 0, NR), (JGE, 0, 1, 0x40000000), (RET, 0, 0, RET_KILL_PROCESS)]  # x32

    def rule(name: str, body: list[tuple]) -> None:
        """If the call is ``name``, ``body`` decides (each of its paths ends in a return);
        then A is the call's number again for what follows."""
        if name not in numbers:
            return
        code.append((JEQ, 0, len(body), numbers[name]))
        code.extend(body)
        code.append((LOAD, 0, 0, NR))  # (only reached when the call was not ``name``)

    def choose(offset: int, outcomes: list[tuple[tuple[int, ...], tuple]],
               otherwise: tuple) -> list[tuple]:
        """Load the argument at ``offset``: for each (values, outcome), ``outcome`` when it is
        one of ``values``; else ``otherwise``."""
        pairs = [(value, outcome) for values, outcome in outcomes for value in values]
        body = [(LOAD, 0, 0, offset)]
        body += [(JEQ, len(pairs), 0, value) for value, _ in pairs]  # -> its outcome
        return body + [otherwise] + [outcome for _, outcome in pairs]

    def argument(offset: int, values: tuple[int, ...], match: tuple,
                 otherwise: tuple) -> list[tuple]:
        return choose(offset, [(values, match)], otherwise)

    # futex first: graded code's most frequent call. A private futex, or a wait: allowed; a
    # shared wake or requeue is refused, so that no child can wake another one waiting on a
    # page of a file both read (the kernel keys such a futex by the file, not the process).
    rule("futex", [(LOAD, 0, 0, ARG1_LOW), (JSET, 4, 0, FUTEX_PRIVATE),
                   (AND, 0, 0, FUTEX_COMMAND), (JEQ, 2, 0, FUTEX_SHARED_WAITS[0]),
                   (JEQ, 1, 0, FUTEX_SHARED_WAITS[1]), refuse, allow])
    rule("clone", argument(ARG0_LOW, THREAD_FLAGS, allow, refuse))
    rule("fcntl", choose(ARG1_LOW, [(FCNTL_REFUSED, refuse), (FCNTL_LOCKS, no_locks)], allow))
    rule("prctl", argument(ARG0_LOW, PRCTL_ALLOWED, allow, refuse))
    rule("ioctl", argument(ARG1_LOW, IOCTL_ALLOWED, allow, refuse))
    # Calls that name a process: its own only (another child of a class run runs as the same
    # user in the unprivileged-user mode, where permission checks would not keep them apart).
    # (kill 0: its own process group, which holds only itself and its supervisor: every child
    # starts a session of its own)
    rule("kill", argument(ARG0_LOW, (pid, 0), allow, refuse))
    rule("tgkill", argument(ARG0_LOW, (pid,), allow, refuse))
    rule("prlimit64", argument(ARG0_LOW, (0, pid), allow, refuse))
    rule("madvise", argument(ARG2_LOW, MADVISE_REFUSED, refuse, allow))
    rule("fadvise64", argument(ARG3_LOW, FADVISE_REFUSED, refuse, allow))
    if user_mode:
        rule("unlinkat", argument(ARG2_LOW, (AT_REMOVEDIR,), allow, refuse))
        rule("renameat2", argument(ARG4_LOW, RENAME_KEEPS_NAMES, allow, refuse))
        rule("open", [(LOAD, 0, 0, ARG1_LOW), (JSET, 0, 1, O_TMPFILE_BIT), refuse, allow])
        rule("openat", [(LOAD, 0, 0, ARG2_LOW), (JSET, 0, 1, O_TMPFILE_BIT), refuse, allow])
    for name in ALLOWED:
        if name in numbers and not (user_mode and name in USER_MODE_REFUSED):
            code += [(JEQ, 0, 1, numbers[name]), allow]
    for name, errno in REFUSED.items():
        if name in numbers:
            code += [(JEQ, 0, 1, numbers[name]), (RET, 0, 0, RET_ERRNO | errno)]
    code.append(refuse)
    return code


def install(audit_arch: int, numbers: dict[str, int], strict: bool = False,
            user_mode: bool = False) -> None:
    """Load the filter on the calling thread (no_new_privs must be set; later threads and
    processes inherit it), for the calling process's own PID."""
    import os

    instructions = program(audit_arch, numbers, strict, os.getpid(), user_mode)
    assert len(instructions) < 4096
    filters = b"".join(struct.pack("=HBBI", *instruction) for instruction in instructions)
    buffer = ctypes.create_string_buffer(filters, len(filters))
    fprog = struct.pack("=HxxxxxxQ", len(instructions), ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                  ctypes.create_string_buffer(fprog, len(fprog)), 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"seccomp: {os.strerror(number)}")
