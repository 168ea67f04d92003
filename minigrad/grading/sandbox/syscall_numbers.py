"""System-call numbers of the calls the grading child's seccomp filter names (:mod:`.seccomp`).

Taken from the kernel's uapi headers (``asm/unistd_64.h`` for x86-64, ``asm-generic/unistd.h``
for aarch64). Only the calls the filter allows or refuses with a particular errno are listed:
every other call, however new, is refused by the filter's default. A name missing from an
architecture's table does not exist there (aarch64 has ``openat`` but no ``open``).
"""

X86_64 = {
    "read": 0, "write": 1, "futex": 202, "mmap": 9, "munmap": 11, "mprotect": 10, "madvise": 28,
    "brk": 12, "lseek": 8, "openat": 257, "open": 2, "close": 3, "newfstatat": 262, "fstat": 5,
    "stat": 4, "lstat": 6, "statx": 332, "getdents64": 217, "getdents": 78, "ioctl": 16,
    "fcntl": 72, "pread64": 17, "pwrite64": 18, "readv": 19, "writev": 20, "preadv": 295,
    "pwritev": 296, "preadv2": 327, "pwritev2": 328, "close_range": 436, "dup": 32, "dup2": 33,
    "dup3": 292, "statfs": 137, "fstatfs": 138, "access": 21, "faccessat": 269, "faccessat2":
    439, "readlink": 89, "readlinkat": 267, "getcwd": 79, "chdir": 80, "fchdir": 81, "mkdir":
    83, "mkdirat": 258, "rmdir": 84, "unlink": 87, "unlinkat": 263, "rename": 82, "renameat":
    264, "renameat2": 316, "link": 86, "linkat": 265, "symlink": 88, "symlinkat": 266,
    "ftruncate": 77, "truncate": 76, "fsync": 74, "fdatasync": 75, "flock": 73, "pipe": 22,
    "pipe2": 293, "poll": 7, "ppoll": 271, "select": 23, "pselect6": 270, "epoll_create": 213,
    "epoll_create1": 291, "epoll_ctl": 233, "epoll_wait": 232, "epoll_pwait": 281, "eventfd":
    284, "eventfd2": 290, "umask": 95, "getxattr": 191, "lgetxattr": 192, "fgetxattr": 193,
    "listxattr": 194, "llistxattr": 195, "flistxattr": 196, "sendfile": 40, "copy_file_range":
    326, "fadvise64": 221, "mremap": 25, "mbind": 237, "get_mempolicy": 239, "set_mempolicy":
    238, "mincore": 27, "msync": 26, "clone": 56, "set_robust_list": 273, "rseq": 334,
    "set_tid_address": 218, "exit": 60, "exit_group": 231, "gettid": 186, "getpid": 39,
    "getppid": 110, "sched_yield": 24, "sched_getaffinity": 204, "sched_getparam": 143,
    "sched_getscheduler": 145, "sched_get_priority_max": 146, "sched_get_priority_min": 147,
    "nanosleep": 35, "clock_nanosleep": 230, "clock_gettime": 228, "clock_getres": 229,
    "gettimeofday": 96, "time": 201, "getrusage": 98, "times": 100, "rt_sigaction": 13,
    "rt_sigprocmask": 14, "rt_sigreturn": 15, "sigaltstack": 131, "rt_sigpending": 127,
    "rt_sigtimedwait": 128, "rt_sigsuspend": 130, "kill": 62, "tgkill": 234, "tkill": 200,
    "pause": 34, "alarm": 37, "setitimer": 38, "getitimer": 36, "timer_create": 222,
    "timer_settime": 223, "timer_gettime": 224, "timer_getoverrun": 225, "timer_delete": 226,
    "getuid": 102, "geteuid": 107, "getgid": 104, "getegid": 108, "getgroups": 115, "getresuid":
    118, "getresgid": 120, "getpgrp": 111, "getpgid": 121, "getsid": 124, "uname": 63,
    "getrandom": 318, "prlimit64": 302, "getrlimit": 97, "setrlimit": 160, "sysinfo": 99,
    "arch_prctl": 158, "prctl": 157, "getcpu": 309, "wait4": 61, "waitid": 247,
    "restart_syscall": 219, "socket": 41, "socketpair": 53, "io_uring_setup": 425,
    "memfd_create": 319, "execveat": 322, "add_key": 248, "request_key": 249, "keyctl": 250,
    "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "clone3": 435
}

AARCH64 = {
    "read": 63, "write": 64, "futex": 98, "mmap": 222, "munmap": 215, "mprotect": 226,
    "madvise": 233, "brk": 214, "lseek": 62, "openat": 56, "close": 57, "newfstatat": 79,
    "fstat": 80, "statx": 291, "getdents64": 61, "ioctl": 29, "fcntl": 25, "pread64": 67,
    "pwrite64": 68, "readv": 65, "writev": 66, "preadv": 69, "pwritev": 70, "preadv2": 286,
    "pwritev2": 287, "close_range": 436, "dup": 23, "dup3": 24, "statfs": 43, "fstatfs": 44,
    "faccessat": 48, "faccessat2": 439, "readlinkat": 78, "getcwd": 17, "chdir": 49, "fchdir":
    50, "mkdirat": 34, "unlinkat": 35, "renameat": 38, "renameat2": 276, "linkat": 37,
    "symlinkat": 36, "ftruncate": 46, "truncate": 45, "fsync": 82, "fdatasync": 83, "flock": 32,
    "pipe2": 59, "ppoll": 73, "pselect6": 72, "epoll_create1": 20, "epoll_ctl": 21,
    "epoll_pwait": 22, "eventfd2": 19, "umask": 166, "getxattr": 8, "lgetxattr": 9, "fgetxattr":
    10, "listxattr": 11, "llistxattr": 12, "flistxattr": 13, "sendfile": 71, "copy_file_range":
    285, "fadvise64": 223, "mremap": 216, "mbind": 235, "get_mempolicy": 236, "set_mempolicy":
    237, "mincore": 232, "msync": 227, "clone": 220, "set_robust_list": 99, "rseq": 293,
    "set_tid_address": 96, "exit": 93, "exit_group": 94, "gettid": 178, "getpid": 172,
    "getppid": 173, "sched_yield": 124, "sched_getaffinity": 123, "sched_getparam": 121,
    "sched_getscheduler": 120, "sched_get_priority_max": 125, "sched_get_priority_min": 126,
    "nanosleep": 101, "clock_nanosleep": 115, "clock_gettime": 113, "clock_getres": 114,
    "gettimeofday": 169, "getrusage": 165, "times": 153, "rt_sigaction": 134, "rt_sigprocmask":
    135, "rt_sigreturn": 139, "sigaltstack": 132, "rt_sigpending": 136, "rt_sigtimedwait": 137,
    "rt_sigsuspend": 133, "kill": 129, "tgkill": 131, "tkill": 130, "setitimer": 103,
    "getitimer": 102, "timer_create": 107, "timer_settime": 110, "timer_gettime": 108,
    "timer_getoverrun": 109, "timer_delete": 111, "getuid": 174, "geteuid": 175, "getgid": 176,
    "getegid": 177, "getgroups": 158, "getresuid": 148, "getresgid": 150, "getpgid": 155,
    "getsid": 156, "uname": 160, "getrandom": 278, "prlimit64": 261, "getrlimit": 163,
    "setrlimit": 164, "sysinfo": 179, "prctl": 167, "getcpu": 168, "wait4": 260, "waitid": 95,
    "restart_syscall": 128, "socket": 198, "socketpair": 199, "io_uring_setup": 425,
    "memfd_create": 279, "execveat": 281, "add_key": 217, "request_key": 218, "keyctl": 219,
    "bpf": 280, "perf_event_open": 241, "userfaultfd": 282, "clone3": 435
}

#: architecture (``platform.machine()``) -> (AUDIT_ARCH_* value, numbers)
ARCHITECTURES = {"x86_64": (0xC000003E, X86_64), "aarch64": (0xC00000B7, AARCH64)}
