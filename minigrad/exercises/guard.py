"""A Python audit hook that keeps graded code to computing: installed by the worker, once.

Graded code may read ordinary files and write files only inside its own temporary folder. It
may not read the reference solutions (``minigrad/exercises/lessons``, refused by inode, so
links and other spellings of the path do not help), open directories other than its own (whose
descriptors could reach files by relative name), start processes
(``fork``, ``subprocess``, ``os.system``, ``exec``), send signals to other processes, open
other processes' files in ``/proc`` (their memory, say), rename or link files, or call C
functions through ``ctypes``. A refused operation raises
``PermissionError`` with a message that says so.

This is a guard rail for honest and careless code, not a security boundary: a determined
attacker in the same process has ways around any in-process check. The boundary is the
separate process (and, when the grader is root, the separate user id) that the sandbox gives
every submission.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path, PosixPath, PurePosixPath

_PROCESS_EVENTS = frozenset({
    "os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "subprocess.Popen", "pty.spawn", "os.startfile",
})
_CTYPES_EVENTS = frozenset({
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.call_function",
    "ctypes.cdata", "ctypes.cdata/buffer", "ctypes.string_at", "ctypes.wstring_at",
    "ctypes.addressof",
})
_REFUSED_EVENTS = frozenset({"os.link", "os.symlink", "os.rename", "os.chown", "os.chroot",
                             "os.setxattr", "os.removexattr"})
# Events whose first argument is a path the code changes (remove, truncate, chmod...).
_WRITE_EVENTS = frozenset({"os.remove", "os.rmdir", "os.truncate", "os.chmod", "os.utime",
                           "os.mkdir", "shutil.rmtree", "shutil.copyfile", "shutil.copymode",
                           "shutil.copystat", "shutil.move", "shutil.copytree"})
# Builtin modules that would give back functions removed below.
_REFUSED_IMPORTS = frozenset({"posix", "_signal", "_posixsubprocess", "_ctypes", "ctypes",
                              "_testcapi", "_xxsubinterpreters"})
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _identity(path: str) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_dev, info.st_ino


def _device(path: str) -> int:
    try:
        return os.stat(path).st_dev
    except OSError:
        return -1


def protected_inodes(folder: Path) -> frozenset:
    """(device, inode) of ``folder``, its sub-folders and every file in them."""
    found = set()
    for root, directories, files in os.walk(folder):
        for name in [""] + directories + files:
            try:
                found.add(_identity(os.path.join(root, name)))
            except OSError:
                pass
    return frozenset(found)


def install(protected: frozenset, workdir: Path) -> None:
    """Install the hook: no file in ``protected`` (from :func:`protected_inodes`) may be read;
    writes only in ``workdir``."""
    for module, name in ((os, "pidfd_open"), (sys.modules.get("posix"), "pidfd_open"),
                         (sys.modules.get("signal"), "pidfd_send_signal"),
                         (sys.modules.get("_signal"), "pidfd_send_signal")):
        if module is not None and hasattr(module, name):
            delattr(module, name)  # a way to signal another process that is not audited

    # Everything the hook uses is bound as a default argument: graded code can patch module
    # globals and builtins, but not a function's defaults (changing them is an audited event,
    # refused below for this function).
    def guard(event, args, _ids=protected, _work=_identity(str(workdir)),
              _root=_identity("/"), _proc=_device("/proc"), _stat=os.stat,
              _S_ISDIR=stat.S_ISDIR, _getpid=os.getpid,
              _getpgrp=os.getpgrp, _isinstance=isinstance, _type=type, _str=str, _bytes=bytes,
              _int=int, _len=len, _range=range, _paths=(PosixPath, PurePosixPath, Path),
              _process=_PROCESS_EVENTS, _ctypes=_CTYPES_EVENTS, _refused=_REFUSED_EVENTS,
              _writes=_WRITE_EVENTS, _imports=_REFUSED_IMPORTS, _write_flags=_WRITE_FLAGS,
              _O_PATH=getattr(os, "O_PATH", 0), _Error=PermissionError, _me=None):
        def refuse(what):
            raise _Error(f"graded code may not {what}")

        def text(path):
            if _isinstance(path, _bytes):
                return _bytes.decode(path, "utf-8", "surrogateescape")
            if _isinstance(path, _str):
                return _str.__str__(path)
            if _type(path) in _paths:
                return _str(path)
            return None

        def inside_work(path):
            """True if ``path`` is the work folder or in it (the kernel resolves links)."""
            cut = path.rstrip("/").rpartition("/")
            folder = (cut[0] or "/") if cut[1] else "."
            try:
                info = _stat(path)
                if (info.st_dev, info.st_ino) == _work:
                    return True
            except OSError:
                pass
            for _ in _range(64):
                try:
                    info = _stat(folder)
                except OSError:
                    return False
                if (info.st_dev, info.st_ino) == _work:
                    return True
                if (info.st_dev, info.st_ino) == _root:
                    return False
                folder = folder + "/.."
            return False

        if event == "open":
            path, mode, flags = args
            if _type(path) is _int:
                return
            name = text(path)
            if name is None:
                refuse(f"open {_type(path).__name__} objects as files")
            if flags & _O_PATH:
                refuse("open files with O_PATH")
            try:
                info = _stat(name)
            except OSError:
                info = None
            if info is not None and (info.st_dev, info.st_ino) in _ids:
                refuse(f"read the reference solutions ({name})")
            if info is not None and info.st_dev == _proc and not (
                    not flags & _write_flags and ".." not in name and name.startswith("/proc/")
                    and (name.count("/") == 2 or (name.startswith("/proc/self/")
                                                  and name.count("/") == 3))):
                refuse(f"open {name} (only /proc/NAME and /proc/self/NAME, for reading)")
            if info is not None and _S_ISDIR(info.st_mode) and not inside_work(name):
                refuse(f"open a directory outside its own folder ({name})")
            writing = (flags & _write_flags) or (
                _isinstance(mode, _str) and ("w" in mode or "a" in mode or "x" in mode
                                             or "+" in mode))
            if writing and name != "/dev/null" and not inside_work(name):
                refuse(f"write outside its own folder ({name})")
        elif event in _process:
            refuse("start processes")
        elif event == "os.kill":
            if args[0] not in (0, _getpid(), -_getpgrp()):
                refuse("send signals to other processes")
        elif event == "os.killpg":
            if args[0] not in (0, _getpgrp()):
                refuse("send signals to other processes")
        elif event in _ctypes:
            refuse("call C functions through ctypes")
        elif event in _refused:
            refuse(f"use {event}")
        elif event in _writes:
            if _len(args) > 1 and _type(args[1]) is _int and event != "os.chmod":
                return  # relative to a folder it opened, and it may only open its own folders
            name = text(args[0]) if _len(args) else None
            if name is None or not inside_work(name):
                refuse(f"change files outside its own folder ({event})")
        elif event == "import" and args[0] in _imports:
            refuse(f"import {args[0]}")
        elif event == "object.__setattr__" and args[0] is _me:
            refuse("change the grader's guard")

    defaults = list(guard.__defaults__)
    defaults[-1] = guard
    guard.__defaults__ = tuple(defaults)
    sys.addaudithook(guard)
