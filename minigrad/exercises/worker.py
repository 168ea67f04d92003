"""The student side of the sandbox: runs in its own process, imports one submission, calls it.

Started by :mod:`minigrad.exercises.sandbox` as ``python -I -c <bootstrap> REQUEST_FD
RESPONSE_FD MEMORY_BYTES OUTPUT_BYTES PROCESSES UID SUBMISSION``. It limits its own memory,
output and (with a UID) number of processes; loads numpy and the common standard modules;
installs the guard (:mod:`minigrad.exercises.guard`); switches to user id UID unless it is 0
(started by a root grader); says ``{"ready": true}``; imports SUBMISSION, a file in the current
folder (``{"import": true}`` or why not); then answers requests read from REQUEST_FD — one line
of JSON each, ``{"function": name, "cases": [encoded argument tuples]}`` — with one line of JSON
per case on RESPONSE_FD, ``{"case": i, "ok": true, "value": encoded result}`` or
``{"case": i, "ok": false, "kind": ..., "message": ...}``, then ``{"done": true}``.

Nothing here is trusted by the grader: whatever comes back is decoded, checked and compared
in the grader's own process. The pipe, not stdout, carries the answers, so a student's
``print`` cannot corrupt them; stdout and stderr go to a size-limited file.
"""

from __future__ import annotations

import errno
import importlib.abc
import importlib
import json
import os
import resource
import sys
import traceback
import types
from pathlib import Path

# Reference solutions and the grader stay out of reach of a plain import in student code.
_BLOCKED = ("minigrad.exercises.lessons", "minigrad.exercises.grader",
            "minigrad.exercises.classroom")


class _BlockReferenceImports(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):  # type: ignore[no-untyped-def]
        if any(fullname == name or fullname.startswith(name + ".") for name in _BLOCKED):
            raise ImportError(f"{fullname} is not available to graded code")
        return None


# Standard modules a submission may well import, loaded before the worker gives up root.
_PRELOADED = ("math", "cmath", "random", "statistics", "fractions", "decimal", "itertools",
              "functools", "collections", "collections.abc", "operator", "heapq", "bisect",
              "copy", "typing", "dataclasses", "re", "string", "time", "numbers", "warnings",
              "enum", "contextlib", "textwrap", "pprint", "array", "struct", "linecache",
              "tokenize", "traceback", "threading", "queue", "io", "unicodedata", "hashlib",
              "datetime", "inspect", "types", "weakref", "abc", "signal", "errno", "tempfile",
              "subprocess", "shutil", "pathlib", "json", "csv", "glob", "fnmatch", "secrets",
              "base64", "binascii", "zlib", "gc", "platform", "sys", "os", "logging")


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when the grader dies (say, killed by a time limit), so
    no child is left running; elsewhere the grader's own clean-up has to do."""
    try:
        import ctypes

        parent = os.getppid()
        ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
        if os.getppid() != parent:
            os._exit(1)  # the grader died before the request took effect
    except (OSError, AttributeError):
        pass


def _limit_resources(memory_bytes: int, output_bytes: int, processes: int) -> None:
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (output_bytes, output_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if processes > 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))


def _describe_failure(error: BaseException, depth: int = 6) -> tuple[str, str]:
    """(kind, message) for an exception raised by student code, with the student's frames."""
    if isinstance(error, NotImplementedError):
        return "not_implemented", "not attempted yet (raises NotImplementedError)"
    if isinstance(error, SystemExit):
        return "exit", f"called sys.exit({error.code!r})"
    if isinstance(error, MemoryError):
        return "memory", "ran out of memory (MemoryError)"
    if isinstance(error, OSError) and error.errno == errno.EFBIG:
        return "flood", "printed too much output (the output limit was reached)"
    if isinstance(error, RecursionError):
        return "exception", "RecursionError: maximum recursion depth exceeded"
    frames = traceback.extract_tb(error.__traceback__)
    student = [frame for frame in frames if frame.filename.endswith("submission.py")]
    where = "".join(f"\n  line {frame.lineno}, in {frame.name}: {frame.line}"
                    for frame in student[-depth:])
    text = f"{type(error).__name__}: {error}"
    return "exception", (text[:500] + where)


def _check_skipped(*args: object, **kwargs: object) -> None:
    """Stands in for ``check`` while grading."""


def _ignore(*args: object, **kwargs: object) -> None:
    """Stands in for IPython's ``display`` while grading."""


class _NoShell:
    """Stands in for ``get_ipython()`` while grading: every method does nothing."""

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return _ignore


def main(argv: list[str]) -> None:
    request_fd, response_fd, memory_bytes, output_bytes, processes, uid = (
        int(item) for item in argv[:6])
    submission = argv[6]
    _limit_resources(memory_bytes, output_bytes, processes)
    sys.meta_path.insert(0, _BlockReferenceImports())
    sys.setrecursionlimit(5000)

    import numpy  # noqa: F401  (loaded before student code, like a student's kernel would)

    from minigrad.exercises import guard
    from minigrad.exercises.codec import CodecError, from_json, to_json

    dumps, loads = json.dumps, json.loads
    requests = os.fdopen(request_fd, "rb", buffering=0)
    responses = os.fdopen(response_fd, "wb", buffering=0)

    def send(message: dict) -> None:
        responses.write(dumps(message, allow_nan=False).encode() + b"\n")

    # check() compares with the reference solutions, which graded code may not import; a
    # submission that calls it at top level must still import, so it does nothing here.
    import minigrad.exercises as exercises_package

    exercises_package.check = _check_skipped
    # Loaded now: once the worker switches user, the standard library may be out of reach.
    for name in _PRELOADED:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    # Its fork_exec starts processes without an audit event: keep it out of graded code's reach
    # (the guard refuses to import it again).
    sys.modules.pop("_posixsubprocess", None)
    subprocess_module = sys.modules.get("subprocess")
    if subprocess_module is not None and hasattr(subprocess_module, "_posixsubprocess"):
        delattr(subprocess_module, "_posixsubprocess")
    # The solutions' inodes are noted while they can still be seen (root, before the switch).
    protected = guard.protected_inodes(
        Path(exercises_package.__file__).resolve().parent / "lessons")
    if uid:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    _die_with_parent()  # after the switch, which would clear it
    guard.install(protected, Path("."))  # the work folder: "." (its full path may be unreachable)
    send({"ready": True})

    module = None
    try:
        # Read by its name in the current folder: the absolute path may lie in a folder the
        # child (another user) cannot enter, such as a root-only TMPDIR.
        with open(submission, "rb") as handle:
            code = compile(handle.read(), submission, "exec")
        module = types.ModuleType("submission")
        module.__file__ = submission
        # Notebook code may call IPython's display() or get_ipython() at top level.
        module.__dict__.update(display=_ignore, get_ipython=lambda: _NoShell())
        sys.modules["submission"] = module
        exec(code, module.__dict__)
    except SyntaxError as error:
        send({"import": False, "kind": "syntax",
              "message": f"line {error.lineno}: {error.msg}: {(error.text or '').strip()[:120]}"})
        return
    except BaseException as error:  # noqa: BLE001 — student code may raise anything
        kind, message = _describe_failure(error)
        send({"import": False, "kind": kind, "message": message})
        return
    send({"import": True})

    reader = _lines(requests)
    for line in reader:
        request = loads(line)
        if request.get("quit"):
            return
        function = getattr(module, request["function"], None)
        for index, encoded in enumerate(request["cases"]):
            if not callable(function):
                send({"case": index, "ok": False, "kind": "missing",
                      "message": f"no function named {request['function']} in the submission"})
                continue
            try:
                args = from_json(encoded)
                result = function(*args)
                value = to_json(result)
                send({"case": index, "ok": True, "value": value})
            except CodecError as error:
                send({"case": index, "ok": False, "kind": "garbage",
                      "message": f"returned something that cannot be graded: {error}"})
            except BaseException as error:  # noqa: BLE001
                kind, message = _describe_failure(error)
                send({"case": index, "ok": False, "kind": kind, "message": message})
        send({"done": True})


def _lines(stream):  # type: ignore[no-untyped-def]
    buffer = b""
    while True:
        chunk = stream.read(65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield line.decode()
