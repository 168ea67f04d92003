"""The grader's side of the sandbox: one child process per submission, restarted after a crash.

The child (:mod:`minigrad.exercises.worker`) runs ``python -I`` (no user site, no
``PYTHON*`` variables, no current directory on ``sys.path``) in a fresh temporary directory, in
its own process group, with no shell. It limits its own address space (``RLIMIT_AS``) and the
size of what it prints (``RLIMIT_FSIZE``). Requests and answers travel over two dedicated
pipes; stdout and stderr go to a file the grader keeps open. A call that runs past its time
limit gets the whole process group killed, and the next call starts a fresh child.

When the grader runs as root (as in Gradescope), each child switches, once Python and numpy are
loaded and before any student code runs, to its own unused user id, so it cannot signal the
grader or another student's child, nor write the grader's files; when the sandbox stops, every
process it left behind is killed (:mod:`minigrad.exercises.child_users`).
"""

from __future__ import annotations

import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from minigrad.exercises.child_users import (PACKAGE_ROOT, SANDBOX_PROCESSES, acquire_uid,
                                            kill_by_token, kill_user, release_uid,
                                            world_enterable)
from minigrad.exercises.codec import MAX_TEXT, to_json


_BOOTSTRAP = (
    "import sys; sys.path.insert(0, sys.argv[1]); del sys.argv[1]\n"
    "from minigrad.exercises.worker import main; main(sys.argv[1:])\n"
)

DEFAULT_MEMORY_MB = 2048
OUTPUT_LIMIT_BYTES = 4_000_000
#: How long the child may take to start Python, numpy and the worker (not the student's time).
STARTUP_SECONDS = 60.0


@dataclass
class Outcome:
    """What happened to one case: ``ok`` with an encoded ``value``, or a ``kind`` and message."""

    ok: bool
    value: Any = None  # JSON data from the child (not yet decoded)
    kind: str = ""
    message: str = ""


class ImportFailed(Exception):
    """The submission could not be imported; ``kind`` says why."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class Sandbox:
    """Runs functions of one submission file in a child process.

    >>> with Sandbox(code, timeout=5) as box:
    ...     outcomes = box.run("composite_derivative", [(1.0,), (2.0,)])
    """

    def __init__(self, code: str, timeout: float = 10.0,
                 memory_mb: int = DEFAULT_MEMORY_MB) -> None:
        self.submission_text = code
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.uid = acquire_uid()
        # A child under another user id must be able to reach its folder by its full path.
        base = None
        if self.uid is not None and not world_enterable(tempfile.gettempdir()):
            base = next((folder for folder in ("/tmp", "/var/tmp", "/dev/shm")
                         if world_enterable(folder)), None)
        self.directory = Path(tempfile.mkdtemp(prefix="minigrad-grade-", dir=base))
        self.process: Optional[subprocess.Popen] = None
        self.import_error: Optional[ImportFailed] = None
        self._buffer = bytearray()
        self._output = -1  # the grader's own descriptor of the child's stdout/stderr file
        self._starts = 0
        self._token = secrets.token_hex(16)

    # ------------------------------------------------------------------ life cycle
    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop()
        release_uid(self.uid)
        self.uid = None
        shutil.rmtree(self.directory, ignore_errors=True)

    def _start(self) -> None:
        # Everything is created afresh on each start, with names the child cannot foresee and
        # without following links, so nothing a previous child left behind is trusted.
        self._starts += 1
        self.directory.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="work-", dir=self.directory))
        submission = work / "submission.py"
        with open(submission, "x", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(self.submission_text)
        if self.uid is not None:
            os.chmod(self.directory, 0o711)  # the child may enter, not list or change it
            for item in (work, submission):
                os.chown(item, self.uid, self.uid)
        self._output = os.open(self.directory / f"output-{self._starts}.txt",
                               os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                               0o600)
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        env = {"PATH": os.defpath, "HOME": str(work), "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
               "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "NUMBA_NUM_THREADS": "1", "NUMBA_CACHE_DIR": str(work),
               "MPLCONFIGDIR": str(work),
               "TMPDIR": ".",  # relative: the full path may be out of the child's reach
               "MINIGRAD_SANDBOX": self._token}
        processes = 0 if self.uid is None else SANDBOX_PROCESSES
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-c", _BOOTSTRAP, PACKAGE_ROOT, str(request_read),
                 str(response_write), str(self.memory_mb * 2**20), str(OUTPUT_LIMIT_BYTES),
                 str(processes), str(self.uid or 0), submission.name],  # relative to cwd
                cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=self._output,
                stderr=subprocess.STDOUT, pass_fds=(request_read, response_write),
                start_new_session=True, close_fds=True,
            )
        except OSError as error:  # too many processes, no memory left...
            for fd in (request_write, response_read, self._output):
                os.close(fd)
            self._output = -1
            raise ImportFailed("sandbox", f"the grading sandbox could not start a process "
                                          f"({error})") from None
        finally:
            os.close(request_read)
            os.close(response_write)
        self._requests = request_write
        self._responses = response_read
        self._buffer = bytearray()
        # The child's own start-up (Python, numpy, the worker) is not the student's time.
        message = self._read_message(time.monotonic() + max(STARTUP_SECONDS, self.timeout))
        if message != {"ready": True}:
            kind, text = self._death("while starting Python and numpy", message)
            if kind == "timeout":
                text = f"it did not start within {max(STARTUP_SECONDS, self.timeout):g} s"
            raise ImportFailed("sandbox", f"the grading sandbox could not start ({text}); "
                                          f"is --memory ({self.memory_mb} MB) too small?")
        deadline = time.monotonic() + self.timeout
        message = self._read_message(deadline)
        if message is None or not isinstance(message, dict) or "import" not in message:
            raise ImportFailed(*self._death("while importing the submission", message))
        if message["import"] is not True:
            self._stop()
            raise ImportFailed(str(message.get("kind", "exception")),
                               str(message.get("message", ""))[:2000])

    def _stop(self) -> None:
        """Kill the child, its process group and anything it left running; close the pipes."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()
        if self.uid is not None:
            kill_user(self.uid)
        else:
            kill_by_token(self._token)
        for fd in (self._requests, self._responses, self._output):
            try:
                os.close(fd)
            except OSError:
                pass
        self._output = -1
        self.process = None

    # ------------------------------------------------------------------ calls
    def run(self, function: str, cases: list[tuple]) -> list[Outcome]:
        """Call ``function(*args)`` for each argument tuple; one :class:`Outcome` per case.

        All cases of one call share one time limit. Raises :class:`ImportFailed` if the
        submission cannot be imported.
        """
        if self.import_error is not None:
            raise self.import_error
        if self.process is not None and self._has_stale_answers():
            self._stop()  # something the child left running wrote on the answer pipe
        if self.process is None:
            try:
                self._start()
            except ImportFailed as error:
                self._stop()
                self.import_error = error
                raise
        request = json.dumps({"function": function, "cases": [to_json(tuple(args))
                                                              for args in cases]})
        deadline = time.monotonic() + self.timeout
        outcomes: list[Outcome] = []
        if not self._send(request.encode() + b"\n", deadline):
            kind, text = self._death(f"while sending the cases of {function}", "timeout")
            return [Outcome(False, kind=kind, message=text)] * len(cases)
        while len(outcomes) < len(cases):
            message = self._read_message(deadline)
            if not isinstance(message, dict) or message.get("case") != len(outcomes):
                kind, text = self._death(f"while running {function} on case {len(outcomes) + 1}",
                                         message)
                outcomes += [Outcome(False, kind=kind, message=text)] * (len(cases) - len(outcomes))
                self._stop()
                return outcomes
            if message.get("ok") is True:
                outcomes.append(Outcome(True, value=message.get("value")))
            else:
                outcomes.append(Outcome(False, kind=str(message.get("kind", "exception")),
                                        message=str(message.get("message", ""))[:2000]))
        done = self._read_message(deadline)
        if done != {"done": True}:
            self._stop()
        return outcomes

    # ------------------------------------------------------------------ plumbing
    def _has_stale_answers(self) -> bool:
        if self._buffer:
            return True
        try:
            ready, _, _ = select.select([self._responses], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(ready)

    def _send(self, data: bytes, deadline: float) -> bool:
        """Write ``data`` to the child without ever blocking past ``deadline``."""
        os.set_blocking(self._requests, False)
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            _, writable, _ = select.select([], [self._requests], [], remaining)
            if not writable:
                return False
            try:
                written = os.write(self._requests, view)
            except BlockingIOError:
                continue
            except OSError:
                return True  # the child is gone; reading its answer says how
            view = view[written:]
        return True

    def _read_message(self, deadline: float) -> Any:
        """The next line of JSON from the child; ``"timeout"``, ``"eof"`` or ``"garbage"``."""
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            ready, _, _ = select.select([self._responses], [], [], remaining)
            if not ready:
                return "timeout"
            try:
                chunk = os.read(self._responses, 1 << 20)
            except OSError:
                return "eof"
            if not chunk:
                return "eof"
            self._buffer += chunk
            if len(self._buffer) > MAX_TEXT + 1000:
                return "too-long"
        end = self._buffer.index(b"\n")
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 1]
        try:
            return json.loads(line.decode())
        except (ValueError, RecursionError, UnicodeDecodeError):
            return "garbage"

    def _death(self, during: str, message: Any) -> tuple[str, str]:
        """(kind, message) for a child that did not answer properly."""
        if message == "timeout":
            self._stop()
            return "timeout", f"took longer than {self.timeout:g} s {during} (stopped)"
        if message == "too-long":
            self._stop()
            return "garbage", f"sent back more than {MAX_TEXT} characters {during}"
        if message not in ("eof",):
            self._stop()
            return "garbage", f"the answer channel was corrupted {during}"
        assert self.process is not None
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self._stop()
            return "garbage", f"closed the answer channel {during}"
        tail = self._output_tail()
        self._stop()
        if code is not None and code < 0:
            number = -code
            if number == signal.SIGXFSZ:
                return "flood", (f"printed more than {OUTPUT_LIMIT_BYTES // 1_000_000} MB of "
                                 f"output {during} (stopped)")
            name = signal.Signals(number).name if number in signal.valid_signals() else number
            return "crash", f"the process was killed by signal {name} {during}{tail}"
        return "exit", f"the process exited with code {code} (sys.exit/os._exit?) {during}{tail}"

    def _output_tail(self, limit: int = 300) -> str:
        try:
            size = os.fstat(self._output).st_size
            data = os.pread(self._output, limit, max(0, size - limit))
        except OSError:
            return ""
        text = data.decode(errors="replace").strip()
        return f"; last output: …{text}" if text else ""
