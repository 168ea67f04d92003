"""What a grading child may read: the Python runtime and libraries, and a copy of minigrad
without its exercise sources.

The child imports ``minigrad`` (students use ``Value`` and ``Tensor``) from a private copy made
once per grader process: the whole package except ``minigrad/exercises``, of which only the
files the child needs are copied (the answer format and the exercise spec; the worker lives in
``minigrad/grading/sandbox``). The installed package
(or, with an editable install, the whole source tree with ``.git``) is never readable by the
child: :func:`readable_paths` grants folders that contain it entry by entry, leaving it out.

An exercise with a :class:`~minigrad.exercises.spec.Runtime` (the lesson 08 capstone) gets a
copy of that copy of its own, made once per grader process by :func:`runtime_copy`: its absent
modules deleted and cut out of the rest (:mod:`.strip`), and, when the runtime says so, the
digits' test split left out of the data file (the grader holds its labels).
"""

from __future__ import annotations

import atexit
import compileall
import os
import shutil
import sys
import sysconfig
import threading
from pathlib import Path
from typing import Iterable, Optional

import numpy as np

import minigrad
from minigrad.exercises.spec import Runtime
from minigrad.grading.sandbox import strip, tempdirs

PACKAGE = Path(minigrad.__file__).resolve().parent
#: The only files of minigrad/exercises a child gets (relative to that folder).
CHILD_FILES = ("__init__.py", "answer_limits.py", "codec.py", "spec.py")
#: System folders the dynamic loader reads shared libraries from.
LIBRARY_FOLDERS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib",
                   "/etc/ld.so.cache", "/dev/null", "/dev/zero", "/dev/urandom")
READ_FILE, READ_DIR = 4, 8

_lock = threading.Lock()
_copy: list[Path] = []
_locks: list[int] = []
_copies_without: dict[Runtime, Path] = {}
DIGITS = Path("minigrad/data/files/digits.npz")


def runtime_copy(runtime: Optional[Runtime] = None) -> Path:
    """A private folder holding ``minigrad/`` as the child sees it (made once, removed at exit);
    with ``runtime``, as that exercise's child sees it."""
    if runtime is not None and runtime != Runtime():
        return _copy_without(runtime)
    with _lock:
        if not _copy:
            root, lock = tempdirs.make("minigrad-runtime-")
            _locks.append(lock)  # held while this grader lives (see tempdirs)
            atexit.register(tempdirs.remove_tree, root)
            target = root / "minigrad"
            shutil.copytree(PACKAGE, target, symlinks=False,
                            ignore=lambda folder, names: ["exercises"]
                            if Path(folder).resolve() == PACKAGE else [])
            for name in CHILD_FILES:
                (target / "exercises" / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(PACKAGE / "exercises" / name, target / "exercises" / name)
            compileall.compile_dir(str(target), quiet=2)  # the child cannot write .pyc files
            _readable_by_all(root)  # (the installed package may be root's only: Gradescope)
            _copy.append(root)
        return _copy[0]


def _readable_by_all(root: Path) -> None:
    """Folders 0755, files 0644 (the lock file stays 0600): the copy holds no secret, and in
    the unprivileged-user mode graded code runs as another user than the grader."""
    for folder, names, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            if name != tempdirs.LOCK:
                os.chmod(os.path.join(folder, name), 0o644)


def _copy_without(runtime: Runtime) -> Path:
    """The runtime copy without ``runtime.absent`` (and the digits' test split, if asked)."""
    base = runtime_copy()
    with _lock:
        if runtime not in _copies_without:
            root, lock = tempdirs.make("minigrad-runtime-")
            _locks.append(lock)
            atexit.register(tempdirs.remove_tree, root)
            # (no __pycache__: a compiled absent module must not stay behind to be loaded)
            shutil.copytree(base / "minigrad", root / "minigrad", symlinks=False,
                            ignore=shutil.ignore_patterns("__pycache__"))
            strip.strip(root / "minigrad", runtime.absent)
            if not runtime.digits_test:
                _training_digits_only(root / DIGITS)
            compileall.compile_dir(str(root / "minigrad"), quiet=2)
            _readable_by_all(root)
            _copies_without[runtime] = root
        return _copies_without[runtime]


def _training_digits_only(path: Path) -> None:
    with np.load(path) as archive:
        pixels, labels, is_test = archive["pixels"], archive["labels"], archive["is_test"]
    path.unlink()
    with open(path, "wb") as handle:
        np.savez_compressed(handle, pixels=pixels[~is_test], labels=labels[~is_test],
                            is_test=np.zeros(int((~is_test).sum()), dtype=bool))


def child_sys_path(runtime: Optional[Runtime] = None) -> list[str]:
    """The child's ``sys.path``: the copy, then the standard library and site-packages only (no
    source tree, no current folder, no tests)."""
    kept = [entry for entry in sys.path if entry and os.path.exists(entry)
            and _holds(Path(entry).resolve(), _prefixes())
            and not _holds(Path(entry).resolve(), [PACKAGE])]
    return [str(runtime_copy(runtime))] + list(dict.fromkeys(kept))


def protected_paths(extra: Iterable[Path] = ()) -> list[Path]:
    """Paths a child must never read: the installed package (its exercise sources), the source
    tree around it when it is a checkout (``.git``, tests), and ``extra`` (private exercise
    sources, class folders)."""
    paths = [PACKAGE]
    # Another installed copy (say, in the base interpreter under a virtualenv) has them too.
    folders = list(sys.path)
    for prefix in {sys.prefix, sys.base_prefix}:
        found = sysconfig.get_paths(vars={"base": prefix, "platbase": prefix})
        folders += [found["purelib"], found["platlib"]]
    paths += [Path(folder) / "minigrad" for folder in folders
              if folder and (Path(folder) / "minigrad" / "exercises").is_dir()]
    checkout = PACKAGE.parent
    if (checkout / "pyproject.toml").exists() or (checkout / ".git").exists():
        paths.append(checkout)
    return [path.resolve() for path in [*paths, *map(Path, extra)]]


def _other_packages(runtime: Optional[Runtime]) -> list[Path]:
    """The installed packages a child with ``runtime`` may not read: every entry of every
    package folder on this machine (:func:`_package_folders`) but ``runtime.packages`` (with
    their ``.libs`` and metadata)."""
    if runtime is None or runtime.packages is None:
        return []
    allowed = tuple(runtime.packages)
    return [entry.resolve() for folder in sorted(_package_folders())
            for entry in sorted(folder.iterdir())
            if not any(entry.name == name or entry.name.startswith((f"{name}.", f"{name}-"))
                       for name in allowed)]


def _package_folders() -> set[Path]:
    """Every ``site-packages``/``dist-packages`` folder a child could put on its own
    ``sys.path``: the grader's, the base interpreter's under a virtualenv (pyenv keeps it
    inside the standard library's folder, which children read), and the system's Pythons'
    under the library folders children read (Debian's ``/usr/lib/python3/dist-packages``)."""
    found = {Path(entry) for entry in sys.path if entry and Path(entry).name.endswith("-packages")}
    for prefixes in ({}, {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}):
        paths = sysconfig.get_paths(vars=prefixes)
        found |= {Path(paths["purelib"]), Path(paths["platlib"])}
    for root in {sysconfig.get_config_var("LIBDIR") or "/usr/lib", *LIBRARY_FOLDERS,
                 str(Path(sysconfig.get_paths()["stdlib"]).parent)}:
        if Path(root).is_dir():
            found |= set(Path(root).glob("python3*/*-packages"))
    return {folder.resolve() for folder in found if folder.is_dir()}


def _prefixes() -> list[Path]:
    """Where the interpreter and its libraries live (a virtualenv may sit in a checkout)."""
    return list({Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                             sys.base_exec_prefix)})


def _within(path: Path, root: Path) -> bool:
    """``path`` is ``root`` or inside it, both resolved: ``Path.is_relative_to`` by their text
    (pathlib parses both paths at every call, and a child that may read numpy alone has a
    protected path for every other installed package)."""
    text, folder = str(path), str(root)
    return text == folder or text.startswith(folder if folder.endswith(os.sep)
                                             else folder + os.sep)


def _holds(path: Path, protected: list[Path]) -> bool:
    return any(_within(path, item) for item in protected)


def readable_paths(extra_protected: Iterable[Path] = (),
                   runtime: Optional[Runtime] = None) -> list[list]:
    """``[path, landlock rights]`` for every path a child may read (the runtime copy for
    ``runtime``, never another)."""
    protected = protected_paths(extra_protected) + _other_packages(runtime)
    wanted = child_sys_path(runtime) + [
        sysconfig.get_config_var("LIBDIR") or "/usr/lib", *LIBRARY_FOLDERS]
    grants: list[list] = []
    for item in dict.fromkeys(wanted):
        _grant(Path(item), protected, grants, depth=0)
    return grants


def _protected(path: Path, protected: list[Path]) -> bool:
    """True if ``path`` is (in) a protected path. The exception: the interpreter's own folder
    (a virtualenv) strictly inside a protected checkout stays readable; the package never."""
    around = {str(path), *map(str, path.parents)}  # what ``path`` can be inside of
    for item in protected:
        if str(item) not in around:
            continue
        if item != PACKAGE and any(prefix != item and _within(prefix, item)
                                   and _within(path, prefix) for prefix in _prefixes()):
            continue
        return True
    return False


def _grant(path: Path, protected: list[Path], grants: list[list], depth: int) -> None:
    """Grant ``path``; a folder that contains something protected is granted entry by entry."""
    try:
        real = path.resolve()
    except OSError:
        return
    if not real.exists() or _protected(real, protected):
        return
    if any(item == str(real) for item, _ in grants):
        return
    inside = [item for item in protected if _within(item, real)]
    if not inside:
        grants.append([str(real), READ_FILE | READ_DIR])
        return
    if depth > 20 or not real.is_dir():
        return
    grants.append([str(real), READ_DIR])  # names may be listed (imports need that), not read
    for entry in sorted(real.iterdir()):
        _grant(entry, protected, grants, depth + 1)


def hidden_paths(extra_protected: Iterable[Path], keep: Iterable[Path]) -> list[str]:
    """Protected paths the child's mount namespace covers with an empty tmpfs, so that even
    their metadata is gone: each protected path, or, when it holds something the child needs
    (``keep``: the runtime, the interpreter, the child's own folder), its entries around that."""
    kept = [Path(path).resolve() for path in keep]
    hidden: list[str] = []
    for path in dict.fromkeys(protected_paths(extra_protected)):
        _hide(path, kept, hidden, depth=0)
    # (a path inside another hidden one needs no mount of its own)
    return [path for path in hidden if not any(
        other != path and Path(path).is_relative_to(other) for other in hidden)]


def _hide(path: Path, kept: list[Path], hidden: list[str], depth: int) -> None:
    if not path.exists() or path.is_symlink():
        return
    if not any(item == path or item.is_relative_to(path) for item in kept):
        hidden.append(str(path))
    elif path.is_dir() and depth < 4 and path not in kept:
        for entry in sorted(path.iterdir()):
            _hide(entry, kept, hidden, depth + 1)
