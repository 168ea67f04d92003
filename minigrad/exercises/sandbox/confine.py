"""Kernel confinement of a grading child: namespaces, Landlock, seccomp and rlimits, via ctypes.

This file is loaded on its own (no package import, no numpy) by the child's first process, which
is still single-threaded: ``unshare(CLONE_NEWUSER)`` and ``landlock_restrict_self`` act on the
calling thread, so they must happen before any library starts a thread.

What :func:`enter` does, in order (every step fails closed: an error stops the child):

0. Pin the process to the cores it is given (:mod:`.cores`), which every thread and process
   it starts inherits.
1. ``unshare`` new user, mount, PID, network, IPC, UTS and cgroup namespaces; map the caller's
   own uid/gid (the only mapping an unprivileged process may write).
2. Mount a size-capped ``tmpfs`` (``nosuid,nodev,noexec``) on the work folder, visible only in
   the child's mount namespace, and ``fork``: the child becomes PID 1 of the new PID namespace,
   so when it dies the kernel kills every process it started. The first process stays outside,
   waits, and exits as the child did.
3. In the child: parent-death signal, rlimits (address space, CPU, file size, open files,
   processes, no core files), ``PR_SET_NO_NEW_PRIVS``.
4. Landlock (ABI >= 6): read-only access to the paths in ``readable`` (files or folders), read
   and write access to the work folder, nothing else: no execute anywhere, no TCP bind or
   connect, no signals and no abstract UNIX sockets outside the child's own domain.
5. seccomp (the table ``REFUSED`` below, each with its reason): new processes (threads
   only) and namespaces, sockets, ``io_uring``,
   memory files, keyrings, ``bpf``, ``perf_event_open``, ``userfaultfd``; changing its cores;
   changing any file's mode, owner, extended attributes (ACLs, file capabilities) or times,
   which Landlock does not govern; ``fallocate`` (disk space the file-size limit does not
   count); inotify, fanotify and AIO contexts (limited per user or per machine); ``prctl``'s
   ``PR_SET_PDEATHSIG`` and ``fcntl``'s ``F_SETLEASE`` and ``F_NOTIFY`` (a lease on a readable
   file, such as a module's ``.pyc``, blocks every other process that opens it for up to
   45 s); another system-call ABI (x32, i386) kills the process.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x00020000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = (0x08000000, 0x10000000,
                                                           0x20000000, 0x40000000)
NAMESPACES = (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC
              | CLONE_NEWUTS | CLONE_NEWCGROUP)
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 1, 38, 22, 2
F_SETLEASE, F_NOTIFY = 1024, 1026

# Landlock (include/uapi/linux/landlock.h); the three system calls have the same number on
# every architecture.
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION, RULE_PATH_BENEATH = 1, 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_ALL = (1 << 16) - 1  # every file-system right of ABI 5..7 (execute ... ioctl_dev)
FS_FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | (1 << 14) | (1 << 15)
NET_ALL = 1 | 2  # bind_tcp, connect_tcp
SCOPE_ALL = 1 | 2  # abstract_unix_socket, signal
MIN_ABI = 6
READ = FS_READ_FILE | FS_READ_DIR
# In the work folder: everything but execute, device nodes (make_char, make_block), ioctl_dev.
WRITE = FS_ALL & ~(FS_EXECUTE | (1 << 6) | (1 << 11) | (1 << 15))

# seccomp: the system calls refused, by name, with the errno they fail with.
EACCES, EPERM, ENOSYS = 13, 1, 38
REFUSED = {
    # a pathname UNIX socket is not a Landlock right before ABI 8; io_uring would bypass this
    # filter; executing a memory file (memfd_create, execveat) is not a Landlock path
    "socket": EACCES, "socketpair": EACCES, "io_uring_setup": ENOSYS,
    "memfd_create": EACCES, "execveat": EACCES,
    # the grader's keyrings; kernel attack surface graded code has no use for
    "add_key": EACCES, "request_key": EACCES, "keyctl": EACCES, "bpf": EACCES,
    "perf_event_open": EACCES, "userfaultfd": EACCES,
    # leaving the one core it is pinned to
    "sched_setaffinity": EPERM,
    # a file's metadata is outside Landlock's rights: its mode and owner (the output file the
    # grader opened could be made setuid), extended attributes (ACLs, file capabilities) and
    # times, of any file the child can name
    "chmod": EPERM, "fchmod": EPERM, "fchmodat": EPERM, "fchmodat2": EPERM,
    "chown": EPERM, "fchown": EPERM, "lchown": EPERM, "fchownat": EPERM,
    "setxattr": EPERM, "lsetxattr": EPERM, "fsetxattr": EPERM, "setxattrat": EPERM,
    "removexattr": EPERM, "lremovexattr": EPERM, "fremovexattr": EPERM,
    "removexattrat": EPERM,
    "utime": EPERM, "utimes": EPERM, "futimesat": EPERM, "utimensat": EPERM,
    # disk space RLIMIT_FSIZE does not count (fallocate with KEEP_SIZE on the output file)
    "fallocate": EPERM,
    # per-user or machine-wide kernel objects: inotify and fanotify instances, AIO contexts
    "inotify_init": EPERM, "inotify_init1": EPERM, "fanotify_init": EPERM, "io_setup": EPERM,
    # new processes: each would get its own address-space limit, so memory would be bounded
    # by the process count, not the limit (and RLIMIT_NPROC does not bind root); threads are
    # clone with CLONE_THREAD, checked below, and glibc falls back from clone3 to clone
    "fork": EPERM, "vfork": EPERM, "clone3": ENOSYS,
    # new namespaces (graded code is root in its own): kernel attack surface, lock contention
    "unshare": EPERM, "setns": EPERM,
}
CLONE_THREAD = 0x00010000
# architecture -> (AUDIT_ARCH, numbers of the system calls above (a name missing here does not
# exist there), prctl, fcntl, clone). prctl's PR_SET_PDEATHSIG is refused (the parent-death
# signal must stay); fcntl's F_SETLEASE and F_NOTIFY are refused; clone only makes threads.
SYSCALLS = {
    "x86_64": (0xC000003E, {
        "socket": 41, "socketpair": 53, "io_uring_setup": 425, "memfd_create": 319,
        "execveat": 322, "add_key": 248, "request_key": 249, "keyctl": 250, "bpf": 321,
        "perf_event_open": 298, "userfaultfd": 323, "sched_setaffinity": 203,
        "chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452, "chown": 92,
        "fchown": 93, "lchown": 94, "fchownat": 260, "setxattr": 188, "lsetxattr": 189,
        "fsetxattr": 190, "setxattrat": 463, "removexattr": 197, "lremovexattr": 198,
        "fremovexattr": 199, "removexattrat": 466, "utime": 132, "utimes": 235,
        "futimesat": 261, "utimensat": 280, "fallocate": 285, "inotify_init": 253,
        "inotify_init1": 294, "fanotify_init": 300, "io_setup": 206, "fork": 57, "vfork": 58,
        "clone3": 435, "unshare": 272, "setns": 308}, 157, 72, 56),
    "aarch64": (0xC00000B7, {
        "socket": 198, "socketpair": 199, "io_uring_setup": 425, "memfd_create": 279,
        "execveat": 281, "add_key": 217, "request_key": 218, "keyctl": 219, "bpf": 280,
        "perf_event_open": 241, "userfaultfd": 282, "sched_setaffinity": 122,
        "fchmod": 52, "fchmodat": 53, "fchmodat2": 452, "fchown": 55, "fchownat": 54,
        "setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "setxattrat": 463, "removexattr": 14,
        "lremovexattr": 15, "fremovexattr": 16, "removexattrat": 466, "utimensat": 88,
        "fallocate": 47, "inotify_init1": 26, "fanotify_init": 262, "io_setup": 0,
        "clone3": 435, "unshare": 97, "setns": 268}, 167, 25, 220),
}

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]


class ConfinementError(OSError):
    """A step of the confinement failed; the message says which and why."""


def _check(result: int, what: str) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise ConfinementError(number, f"{what}: {os.strerror(number)}")
    return result


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is missing or disabled."""
    version = _libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                            ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(int(version), 0)


def problem() -> str:
    """Why :func:`enter` cannot work here, or "" when it should."""
    if platform.system() != "Linux":
        return f"the grading sandbox needs Linux (this is {platform.system()})"
    if platform.machine() not in SYSCALLS:
        return f"the grading sandbox does not know this processor ({platform.machine()})"
    abi = landlock_abi()
    if abi < MIN_ABI:
        return (f"this kernel's Landlock ABI is {abi or 'absent'}; the grading sandbox needs "
                f"{MIN_ABI} or later (Linux 6.12+, with 'landlock' in the lsm= boot list)")
    return ""


# ---------------------------------------------------------------------------- namespaces
def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def unshare_and_fork(work: str, tmpfs_bytes: int, report_fd: int = -1) -> int:
    """Steps 1 and 2. Returns 0 in the confined child (PID 1 of its namespace); in the first
    process it never returns: it writes the child's PID (as the grader sees it) on
    ``report_fd``, so that the grader can kill it directly, waits for the child, writes
    ``status N`` (its wait status) there too and exits the way the child did."""
    uid, gid = os.getuid(), os.getgid()
    die_with_parent()  # the grader's death ends the first process, whose death ends the child
    _check(_libc.unshare(NAMESPACES), "unshare(user, mount, pid, net, ipc, uts, cgroup)")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    options = f"size={tmpfs_bytes},nr_inodes=2048,mode=0700".encode()
    _check(_libc.mount(b"tmpfs", work.encode(), b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                       options), "mount tmpfs on the work folder")
    pid = os.fork()
    if pid == 0:
        if report_fd >= 0:
            os.close(report_fd)
        return 0
    # The first process: outside the new PID namespace, runs no student code.
    if report_fd >= 0:
        os.write(report_fd, f"{pid}\n".encode())
        os.closerange(3, report_fd)
    os.closerange(max(3, report_fd + 1), 1 << 20)
    _, status = os.waitpid(pid, 0)
    if report_fd >= 0:
        os.write(report_fd, f"status {status}\n".encode())  # the grader may not be the parent
    if os.WIFSIGNALED(status):
        import signal
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def die_with_parent() -> None:
    _check(_libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")


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
    """Step 3's rlimits (soft = hard, so graded code cannot raise them again)."""
    import resource

    for limit, value in ((resource.RLIMIT_AS, memory_bytes), (resource.RLIMIT_CPU, cpu_seconds),
                         (resource.RLIMIT_FSIZE, file_bytes),
                         (resource.RLIMIT_NOFILE, open_files),
                         (resource.RLIMIT_NPROC, processes), (resource.RLIMIT_CORE, 0),
                         (resource.RLIMIT_MEMLOCK, 0)):
        if value >= 0:
            resource.setrlimit(limit, (value, value))


def cap_process_count(count: int) -> None:
    """Cap the PID namespace's process count through its own ``pid_max`` (namespaced since
    Linux 6.14). RLIMIT_NPROC does not bind a grader running as root (the kernel exempts uid 0),
    so this is what stops a fork bomb there. Older kernels: skipped (the file is global)."""
    release = tuple(int(part) for part in
                    platform.release().split("-")[0].split(".")[:2] if part.isdigit())
    if release >= (6, 14):
        _write("/proc/sys/kernel/pid_max", str(max(count + 1, 301)))  # the kernel minimum


# ---------------------------------------------------------------------------- landlock
class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


def landlock(readable: list, writable: list[str]) -> None:
    """Step 4: after this, the thread (and every process it starts) reaches only these paths.

    ``readable`` holds paths or ``[path, rights]`` pairs (rights within :data:`READ`)."""
    attr = _RulesetAttr(FS_ALL, NET_ALL, SCOPE_ALL)
    ruleset = _check(_libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr),
                                   ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0)),
                     "landlock_create_ruleset")
    try:
        for item in readable:
            path, rights = (item, READ) if isinstance(item, str) else item
            _allow(ruleset, path, rights & READ)
        for path in writable:
            _allow(ruleset, path, WRITE)
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(_libc.syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)),
               "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _allow(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return  # e.g. /lib64 on a distribution without it
    try:
        if not os.path.isdir(path):
            rights &= FS_FILE_RIGHTS
        # struct landlock_path_beneath_attr is packed: u64 allowed_access, s32 parent_fd.
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        _check(_libc.syscall(SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH),
                             rule, ctypes.c_uint32(0)), f"landlock_add_rule({path})")
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------- seccomp
def seccomp_no_sockets() -> None:
    """Step 5: a classic-BPF filter (no_new_privs is already set)."""
    arch, numbers, prctl, fcntl, clone = SYSCALLS[platform.machine()]
    refused = {number: REFUSED[name] for name, number in numbers.items()}
    load, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, kill, error = 0x7FFF0000, 0x80000000, 0x00050000
    program = [(load, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, kill),  # another ABI: kill
               (load, 0, 0, 0), (jge, 0, 1, 0x40000000), (ret, 0, 0, kill)]  # x32: kill
    for number, errno in refused.items():
        program += [(jeq, 0, 1, number), (ret, 0, 0, error | errno)]
    program += [(jeq, 0, 4, fcntl), (load, 0, 0, 24),  # A = low half of args[1], the command
                (jeq, 1, 0, F_SETLEASE), (jeq, 0, 1, F_NOTIFY), (ret, 0, 0, error | 1),  # EPERM
                (load, 0, 0, 0)]  # A = the system call number again
    program += [(jeq, 0, 4, clone), (load, 0, 0, 16),  # A = low half of args[0], the flags
                (jset, 1, 0, CLONE_THREAD), (ret, 0, 0, error | EPERM),  # a process: refused
                (load, 0, 0, 0)]  # a thread: A = the system call number again
    program += [(jeq, 0, 3, prctl), (load, 0, 0, 16),  # A = low half of args[0]
                (jeq, 0, 1, PR_SET_PDEATHSIG), (ret, 0, 0, error | 1)]  # EPERM
    program.append((ret, 0, 0, allow))
    filters = b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(filters, len(filters))
    fprog = struct.pack("=HxxxxxxQ", len(program), ctypes.addressof(buffer))
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                       ctypes.create_string_buffer(fprog, len(fprog)), 0, 0), "seccomp")


def enter(work: str, readable: list[str], memory_bytes: int, cpu_seconds: int, file_bytes: int,
          tmpfs_bytes: int, open_files: int = 256, processes: int = 32,
          report_fd: int = -1, cores: list[int] | None = None) -> None:
    """Steps 0–5. Returns in the confined child, whose working folder is then ``work``."""
    if cores:
        os.sched_setaffinity(0, cores)  # step 0; every thread and process started inherits it
    unshare_and_fork(work, tmpfs_bytes, report_fd)
    die_with_parent()
    cap_process_count(processes)
    os.chdir(work)
    _prefer_for_oom_killer()
    set_limits(memory_bytes, cpu_seconds, file_bytes, open_files, processes)
    landlock(readable, [work])
    seccomp_no_sockets()
