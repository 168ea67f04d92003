"""Reading a student's files without following a link anywhere, and without a race.

Checking a path and then opening it is two steps: between them a student who can write their
folder while it is graded (grading in place on a shared JupyterHub) can swap a folder in the
middle of the path for a link to the answer keys or a classmate's work, with
``renameat2(RENAME_EXCHANGE)``, thousands of times a second. So nothing here opens a path by
name from the top. The submission folder is opened once, and every file under it is opened
*relative to that descriptor* with no link followed at any component:

* ``openat2(folder, "a/b/lesson01.py", RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`` where the
  kernel has it (Linux >= 5.6): the kernel refuses a link, a ``..`` or an absolute path at any
  step of the walk, atomically;
* elsewhere a walk of our own, one component at a time, each folder opened with
  ``O_NOFOLLOW | O_DIRECTORY`` relative to the one before.

The file itself is opened with ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO swapped in opens at once
instead of hanging the grader), checked with ``fstat`` on that same descriptor (a regular
file, within the size limit), and read from that descriptor, never reopened. Listing goes
through descriptors too (``os.scandir`` of a folder descriptor).

Whatever a student swaps, the grader reads a regular file that was beneath their folder at
the moment it was opened: their own, or nothing.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

#: openat2's number in the generic system call table (x86-64 and arm64 share it).
OPENAT2 = {"x86_64": 437, "aarch64": 437, "arm64": 437}.get(platform.machine())
RESOLVE_NO_MAGICLINKS, RESOLVE_NO_SYMLINKS, RESOLVE_BENEATH = 0x02, 0x04, 0x08
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)


class Refused(ValueError):
    """A file the grader will not read; the message says why, for the student's notes."""


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64),
                ("resolve", ctypes.c_uint64)]


_libc: Optional[ctypes.CDLL] = None
#: False once openat2 turned out not to be available: the walk is used from then on.
use_openat2 = OPENAT2 is not None


def _openat2(folder: int, relative: str, flags: int) -> int:
    """``openat2`` with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS; raises OSError, or
    NotImplementedError when the call is not available here."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    how = _OpenHow(flags, 0, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
    for _ in range(8):  # EAGAIN: a rename raced the lookup; the kernel asks for a retry
        fd = _libc.syscall(ctypes.c_long(OPENAT2), ctypes.c_int(folder),
                           ctypes.c_char_p(os.fsencode(relative)), ctypes.byref(how),
                           ctypes.c_size_t(ctypes.sizeof(how)))
        if fd >= 0:
            return fd
        number = ctypes.get_errno()
        # No such call (before Linux 5.6), or a container's seccomp profile that refuses calls
        # it does not know (ENOSYS, or EPERM in older Docker profiles): the walk is as safe.
        if number in (errno.ENOSYS, errno.EPERM, errno.E2BIG):
            raise NotImplementedError("openat2")
        if number not in (errno.EAGAIN, errno.EINTR):
            raise OSError(number, os.strerror(number), relative)
    raise OSError(errno.EAGAIN, "the folder kept changing while it was read", relative)


def _walk_open(folder: int, parts: tuple[str, ...], flags: int) -> int:
    """Open ``parts`` beneath ``folder`` one component at a time, following no link."""
    current = folder
    try:
        for name in parts[:-1]:
            below = os.open(name, _DIRECTORY, dir_fd=current)
            if current != folder:
                os.close(current)
            current = below
        return os.open(parts[-1], flags, dir_fd=current)
    finally:
        if current != folder:
            os.close(current)


def open_beneath(folder: int, parts: tuple[str, ...], flags: int = _FILE) -> int:
    """A descriptor of ``folder/parts[0]/.../parts[-1]``, no link followed at any component.

    Raises OSError: ELOOP (or ENOTDIR) when a component is a link, ENOENT when it vanished.
    """
    global use_openat2
    if not parts or any(part in ("", ".", "..") or "/" in part or "\0" in part
                        for part in parts):
        raise OSError(errno.EINVAL, "not a plain relative path", "/".join(parts))
    if use_openat2:
        try:
            return _openat2(folder, "/".join(parts), flags)
        except NotImplementedError:
            use_openat2 = False
    return _walk_open(folder, parts, flags)


def read_regular(fd: int, limit: int, suffix: str, owner: Optional[int] = None) -> bytes:
    """The bytes of the regular file open as ``fd`` (from its start, whatever its offset), at
    most ``limit`` (checked with fstat before reading, and again while reading: a file may
    grow).

    With ``owner``, a file with more than one name (a hard link) is refused unless ``owner``
    owns it: a student may hard-link a file they cannot write into their folder when the
    kernel allows it (``fs.protected_hardlinks`` = 0), while honest copies that share names
    (``cp -al``, ``rsync --link-dest`` snapshots) keep their owner.
    """
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise Refused("not a regular file (a FIFO, device, socket or folder)")
    if owner is not None and info.st_nlink > 1 and info.st_uid != owner:
        raise Refused("a hard link to a file its folder's owner does not own (submit the "
                      "file itself)")
    too_big = Refused(f"{info.st_size / 1e6:.1f} MB is more than the {limit / 1e6:g} MB a "
                      f"{suffix} file may have")
    if info.st_size > limit:
        raise too_big
    chunks, total = [], 0
    while True:
        chunk = os.pread(fd, min(1 << 20, limit + 1 - total), total)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise Refused(f"more than the {limit / 1e6:g} MB a {suffix} file may have")


@dataclass
class Listing:
    """What :meth:`SubmissionFolder.files` found: relative paths, and notes on what it left."""

    files: list[tuple[str, ...]]
    notes: list[str]


class SubmissionFolder:
    """A student's folder (or single file), held open by descriptor while it is read.

    >>> with SubmissionFolder(path) as folder:
    ...     for parts in folder.listing(...).files:
    ...         data = folder.read(parts, limit=2_000_000)

    ``path`` itself is the instructor's choice and may be a link (unless ``follow`` is False);
    nothing below it is followed.
    """

    def __init__(self, path: Path, follow: bool = True) -> None:
        self.path = Path(path)
        # O_NONBLOCK: a FIFO given as the submission opens at once (and is then refused).
        flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW)
        try:
            fd = os.open(self.path, flags)
        except OSError as error:
            if error.errno == errno.ELOOP and not follow:
                raise Refused(f"{self.path.name} was replaced by a symbolic link") from None
            raise
        try:
            info = os.fstat(fd)
        except OSError:
            os.close(fd)
            raise
        self.fd = fd
        self.is_folder = stat.S_ISDIR(info.st_mode)
        self.owner = info.st_uid

    def __enter__(self) -> "SubmissionFolder":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def read(self, parts: tuple[str, ...], limit: int) -> bytes:
        """The bytes of the file at ``parts`` below the folder (``()``: the file given itself).

        Raises :class:`Refused` for a link, a file that is not a regular one, or one over
        ``limit`` bytes; OSError when it cannot be opened (gone, no permission).
        """
        suffix = Path(parts[-1]).suffix if parts else self.path.suffix
        if not parts:
            return read_regular(self.fd, limit, suffix)
        try:
            fd = open_beneath(self.fd, parts)
        except OSError as error:
            if error.errno in (errno.ELOOP, errno.ENOTDIR):  # a link at some component
                raise Refused("a symbolic link (submit the file itself)") from None
            raise
        try:
            return read_regular(fd, limit, suffix, self.owner)
        finally:
            os.close(fd)

    def listing(self, wanted: tuple[str, ...], skipped: set[str], max_depth: int,
                max_entries: int) -> Listing:
        """Names ending in ``wanted`` below the folder, depth first in name order: at most
        ``max_depth`` folders deep and ``max_entries`` entries seen; hidden names and
        ``skipped`` folders left out; links listed (so that :meth:`read` can say it skips
        them) but never entered; unreadable folders passed over."""
        listing = Listing([], [])
        if not self.is_folder:
            listing.files.append(())
            return listing
        seen = 0

        def entries(fd: int) -> Iterator[os.DirEntry]:
            try:
                with os.scandir(fd) as found:
                    return iter(sorted(found, key=lambda entry: entry.name))
            except OSError:
                return iter(())

        def visit(fd: int, here: tuple[str, ...]) -> bool:
            """List one folder and descend; False once the entry cap is reached."""
            nonlocal seen
            folders = []
            for entry in entries(fd):
                name = entry.name
                try:
                    is_folder = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_folder:
                    if name not in skipped and not name.startswith("."):
                        folders.append(name)
                    continue
                seen += 1
                if name.endswith(wanted) and not name.startswith("."):
                    listing.files.append(here + (name,))
            if folders and len(here) >= max_depth:
                note = f"skipped folders more than {max_depth} levels deep"
                if note not in listing.notes:
                    listing.notes.append(note)
                folders = []
            seen += len(folders)
            if seen > max_entries:
                listing.notes.append(f"stopped looking after {max_entries} files and folders")
                return False
            for name in folders:
                try:
                    below = os.open(name, _DIRECTORY, dir_fd=fd)
                except OSError:  # swapped for a link, removed, or not ours to read
                    continue
                try:
                    if not visit(below, here + (name,)):
                        return False
                finally:
                    os.close(below)
            return True

        visit(self.fd, ())
        return listing
