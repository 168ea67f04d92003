"""The student side of the sandbox: confines itself, imports one submission, calls it.

Started by :mod:`.host` as ``python -I -S -c BOOTSTRAP CONFINE_PY CONFIG`` with an empty
environment. The bootstrap loads :mod:`.confine` on its own and calls :func:`start`, which
confines the process (namespaces, Landlock, seccomp, rlimits: see that module) before any
library is imported, then sets ``sys.path`` to the standard library, site-packages and the
grader's copy of minigrad (no exercise sources), and runs :func:`main`.

Protocol, one line of JSON per message: the child says ``{"ready": true}``; the grader sends
``{"code": SOURCE}`` (the submission travels through the pipe, never as a path); the child
answers ``{"import": true}`` or why not; then each request ``{"function": name, "cases":
[encoded argument tuples]}`` gets one line per case, ``{"case": i, "ok": true, "value": ...}``
or ``{"case": i, "ok": false, "kind": ..., "message": ...}``, then ``{"done": true}``.

Nothing here is trusted by the grader: whatever comes back is decoded, checked and compared
in the grader's own process. stdout and stderr go to a size-limited file.
"""

from __future__ import annotations

import errno
import json
import linecache
import os
import sys
import traceback
import types
from typing import Any

SUBMISSION = "submission.py"
#: What a case of a function that raised NotImplementedError (the student's stub) says.
NOT_ATTEMPTED = "not attempted yet (raises NotImplementedError)"
#: Every ``kind`` of failure this side reports; the grader takes any other as "exception".
KINDS = frozenset({"not_implemented", "exit", "memory", "flood", "exception", "syntax",
                   "missing", "mutated", "garbage"})

BOOTSTRAP = (
    "import sys, importlib.util as u\n"
    "s = u.spec_from_file_location('minigrad_confine', sys.argv[1])\n"
    "m = u.module_from_spec(s); s.loader.exec_module(m)\n"
    "import json; c = json.loads(sys.argv[2]); sys.argv[:] = ['']\n"
    "if c['confine']: m.enter(c)\n"
    "sys.path[:] = c['path']\n"
    "from minigrad.grading.sandbox.worker import main; main(c)\n"
)


def _describe_failure(error: BaseException, depth: int = 6) -> tuple[str, str]:
    """(kind, message) for an exception raised by student code, with the student's frames."""
    if isinstance(error, NotImplementedError):
        return "not_implemented", NOT_ATTEMPTED
    if isinstance(error, SystemExit):
        return "exit", f"called sys.exit({error.code!r})"
    if isinstance(error, MemoryError):
        return "memory", "ran out of memory (MemoryError; the limit per process is --memory)"
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


def main(config: dict[str, Any]) -> None:
    """Serve the grader (protocol in the module docstring); runs already confined."""
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # also unconfined (--no-sandbox)
    # Set here, not inherited: the grader's environment reaches the child only for OpenBLAS's
    # processor settings (sandbox/environment.py).
    os.environ.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
                      NUMBA_NUM_THREADS="1", MPLBACKEND="Agg", HOME=os.getcwd(), TMPDIR=".",
                      MPLCONFIGDIR=os.getcwd(), NUMBA_CACHE_DIR=os.getcwd())
    # Python's own recursion limit (1000) stays, as in the student's kernel and check():
    # a recursive answer that check() rejects must not pass here.
    import numpy  # noqa: F401  (loaded before student code, like a student's kernel would)

    # check() needs the reference solutions, which the child cannot read: here it does nothing.
    import minigrad.exercises as exercises_package
    from minigrad.exercises.codec import CodecError, changed_argument, from_json, to_json
    from minigrad.exercises.spec import mutation_message

    exercises_package.check = _check_skipped
    dumps, loads = json.dumps, json.loads
    requests = os.fdopen(config["requests"], "rb", buffering=0)
    responses = os.fdopen(config["responses"], "wb", buffering=0)

    def send(message: dict) -> None:
        responses.write(dumps(message, allow_nan=False).encode() + b"\n")

    send({"ready": True})
    reader = _lines(requests)
    first = loads(next(reader, "{}"))
    source = first.get("code") if isinstance(first, dict) else None
    if not isinstance(source, str):
        return
    linecache.cache[SUBMISSION] = (len(source), None, source.splitlines(True), SUBMISSION)
    module = None
    try:
        code = compile(source, SUBMISSION, "exec")
        module = types.ModuleType("submission")
        module.__file__ = SUBMISSION
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
                changed = changed_argument(encoded, args)
                if changed is not None:
                    send({"case": index, "ok": False, "kind": "mutated",
                          "message": mutation_message(function, changed)})
                    continue
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
