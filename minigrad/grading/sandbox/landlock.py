"""Landlock for a grading child: read-only access to the runtime's paths, read and write to
its work folder, nothing else (no execute anywhere, no TCP bind or connect, no signals and no
abstract UNIX sockets outside the child's own domain). Needs ABI >= 6 (Linux 6.12+).

Landlock governs opening, listing, creating and removing files, not their metadata (``stat``,
``readlink``, ``getxattr``): the child's mount namespace hides protected folders for that
(:mod:`.namespaces`). Loaded by path, without the package (see :mod:`.confine`).
"""

from __future__ import annotations

import ctypes
import os
import struct

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
PR_SET_NO_NEW_PRIVS = 38

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _check(result: int, what: str) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")
    return result


def abi() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is missing or disabled."""
    version = _libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                            ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(int(version), 0)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


def handled(version: int) -> tuple[int, int, int]:
    """(file-system rights, network rights, scopes) that Landlock ABI ``version`` knows: the
    namespace mode needs 6 (all of them); the unprivileged-user mode takes what there is."""
    fs = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1}.get(
        version, FS_ALL)
    return fs, NET_ALL if version >= 4 else 0, SCOPE_ALL if version >= 6 else 0


def restrict(readable: list, writable: list[str], version: int = MIN_ABI) -> None:
    """After this, the thread (and every process it starts) reaches only these paths.

    ``readable`` holds paths or ``[path, rights]`` pairs (rights within :data:`READ`);
    ``version``: the kernel's ABI (an older one governs fewer rights)."""
    fs, net, scopes = handled(version)
    attr = _RulesetAttr(fs, net, scopes)
    ruleset = _check(_libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr),
                                   ctypes.c_size_t(ctypes.sizeof(attr)), ctypes.c_uint32(0)),
                     "landlock_create_ruleset")
    try:
        for item in readable:
            path, rights = (item, READ) if isinstance(item, str) else item
            _allow(ruleset, path, rights & READ & fs)
        for path in writable:
            _allow(ruleset, path, WRITE & fs)
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
