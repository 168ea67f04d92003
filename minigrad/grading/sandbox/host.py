"""The grader's side of the sandbox: one confined child process per submission file.

The child (:mod:`.worker`) is forked by the fork server (:mod:`.zygote`), or else started as
``python -I -S``, with an empty environment (but for numpy's OpenBLAS settings,
:mod:`.environment`), no shell and stdin closed; while single-threaded
it confines itself (:mod:`.confine`): a cgroup of its own when the grader can make one
(:mod:`.cgroups`), its own user, mount, PID, network and IPC namespaces with protected folders
covered, Landlock, a seccomp allowlist and rlimits. Requests and answers travel over two pipes
(:mod:`.channel`); stdout and stderr go to a file the grader keeps open. A call that runs past its
time limit gets the child killed (and with it, by the kernel, everything it started); the next
call starts a fresh child.

:func:`.probe.sandbox_problem` says why the confinement cannot work on this machine; the grader
then refuses to grade unless told ``--no-sandbox`` (``confine=False`` here: same child,
unconfined).
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional

from minigrad.exercises.answer_limits import AnswerLimits
from minigrad.exercises.codec import to_json
from minigrad.exercises.spec import Runtime
from minigrad.grading.sandbox import cgroups, cores, probe, runtime, tempdirs, users, zygote
from minigrad.grading.sandbox.channel import Channel, Oversize
from minigrad.grading.sandbox.environment import child_environment
from minigrad.grading.sandbox.verdicts import death, kind as _kind, output_tail
from minigrad.grading.sandbox.worker import BOOTSTRAP

DEFAULT_MEMORY_MB = 2048
OUTPUT_LIMIT_BYTES = 4_000_000
#: The largest submission (after a notebook's code cells are joined) sent to a child.
MAX_CODE_BYTES = 2_000_000
#: The child's private, size-capped temporary folder (a tmpfs of its own).
TMPFS_BYTES = 64 * 2**20
#: Processes and threads a child may have at once.
PROCESSES = 32
#: Set (to anything) to make a system call outside the seccomp allowlist kill the child with
#: SIGSYS instead of failing with EPERM: the tests grade honest solutions so, so that a library
#: that starts needing a new call fails them loudly.
STRICT_SECCOMP_ENV = "MINIGRAD_STRICT_SECCOMP"
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
    """Runs functions of one submission in a child process.

    >>> with Sandbox(code, timeout=5) as box:
    ...     outcomes = box.run("composite_derivative", [(1.0,), (2.0,)])
    """

    def __init__(self, code: str, timeout: float = 10.0, memory_mb: int = DEFAULT_MEMORY_MB,
                 confine: bool = True, protected: Iterable[Path] = (),
                 runtime: Optional[Runtime] = None) -> None:
        self.submission_text = code
        #: The minigrad the child imports: the runtime copy, or one made for an exercise
        #: whose library pieces must not exist (see runtime.runtime_copy).
        self.kit = runtime
        self.limits = AnswerLimits()  # of the current call's answers (see run)
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.confine = confine
        self.protected = list(protected)
        self.directory, self._lock = tempdirs.make("minigrad-grade-")
        self.process: Optional["subprocess.Popen | zygote.Forked"] = None
        self.import_error: Optional[ImportFailed] = None
        self._channel: Optional[Channel] = None
        self._output = -1  # the grader's own descriptor of the child's stdout/stderr file
        self._pidfd = -1  # the confined child (PID 1 of its namespace)
        self._starts = 0
        self._core = cores.take() if confine else None  # the one core its children run on
        self._cgroup: Optional[Path] = None  # the running child's cgroup, if it has one
        self.call_started = 0.0  # when the last call's time limit started to run
        #: How the child is confined (None: not at all); the grader refused before if no mode
        #: works, so a missing one here is only a direct use: the namespace mode then fails.
        self.mode: Optional[probe.Mode] = None
        self._user: Optional[tuple[int, int]] = None  # the user mode's user, for this child
        if confine:
            self.mode = probe.sandbox_mode()[0] or probe.Mode(probe.NAMESPACES, 0)
            if self.mode.name == probe.USER and self.mode.users:
                self._user = users.take(self.mode.users)
                self.mode = dataclasses.replace(self.mode, uid=self._user[0],
                                                gid=self._user[1])
        note = cgroups.fallback_note() if confine else ""
        if note:
            print(f"minigrad grade: {note}.", file=sys.stderr)

    # ------------------------------------------------------------------ life cycle
    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop()
        tempdirs.remove_tree(self.directory)  # (says on stderr what it could not remove)
        if self._lock >= 0:
            os.close(self._lock)
            self._lock = -1
        cores.give_back(self._core)
        self._core = None
        users.give_back(self._user)
        self._user = None

    def _config(self, work: Path, request_read: int, response_write: int,
                report_write: int) -> dict[str, Any]:
        readable = runtime.readable_paths(self.protected, self.kit) if self.confine else []
        hidden = runtime.hidden_paths(self.protected, [Path(path) for path, _ in readable]
                                      + [self.directory]) if self.confine else []
        return {"confine": self.confine, "work": str(work), "requests": request_read,
                "responses": response_write, "report": report_write,
                "readable": readable, "hidden": hidden,
                "cgroup": str(self._cgroup / "cgroup.procs") if self._cgroup else "",
                "strict_seccomp": bool(os.environ.get(STRICT_SECCOMP_ENV)),
                "path": runtime.child_sys_path(self.kit),
                "memory": self.memory_mb * 2**20, "file": OUTPUT_LIMIT_BYTES,
                "cpu": int(STARTUP_SECONDS + 30 * self.timeout), "tmpfs": TMPFS_BYTES,
                "open_files": 256, "processes": PROCESSES,
                "cores": [] if self._core is None else [self._core],
                **(self.mode.config() if self.mode else {})}

    def _start(self) -> None:
        # Everything is created afresh on each start, with names the child cannot foresee.
        self._starts += 1
        if len(self.submission_text.encode("utf-8", "replace")) > MAX_CODE_BYTES:
            raise ImportFailed("import", f"the code is longer than {MAX_CODE_BYTES // 10**6} MB")
        self.directory.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="work-", dir=self.directory))
        if self.mode is not None and self.mode.name == probe.USER:
            # The student user may pass through (not list) this folder to its own work folder;
            # the output files beside it stay the grader's (0600), reached through descriptors.
            self.directory.chmod(0o711)
            os.chown(work, self.mode.uid, self.mode.gid)
        self._output = os.open(self.directory / f"output-{self._starts}.txt",
                               os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                               0o600)
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        report_read, report_write = os.pipe()  # the confined child's PID, from its parent
        if self.confine:
            self._cgroup = cgroups.create(self.memory_mb * 2**20, PROCESSES)
        config = self._config(work, request_read, response_write, report_write)
        self._report = zygote.Report(report_read)
        try:
            self.process = self._spawn(config, work, [request_read, response_write,
                                                      report_write, self._output])
        except OSError as error:  # too many processes, no memory left...
            for fd in (request_write, response_read, self._output):
                os.close(fd)
            self._report.close()
            self._output = -1
            cgroups.remove(self._cgroup)
            self._cgroup = None
            raise ImportFailed("sandbox", f"the grading sandbox could not start a process "
                                          f"({error})") from None
        finally:
            for fd in (request_read, response_write, report_write):
                os.close(fd)
        self._pidfd = self._confined_child() if self.confine else -1
        self._channel = Channel(request_write, response_read)
        # The child's own start-up (Python, numpy, the worker) is not the student's time.
        message = self._channel.read_message(time.monotonic() + max(STARTUP_SECONDS, self.timeout))
        if message != {"ready": True}:
            kind, text = self._death("while starting Python and numpy", message)
            if kind == "timeout":
                text = f"it did not start within {max(STARTUP_SECONDS, self.timeout):g} s"
            raise ImportFailed("sandbox", f"the grading sandbox could not start ({text}); "
                                          f"is --memory ({self.memory_mb} MB) too small?")
        # Sending the code and importing it share the time limit.
        deadline = time.monotonic() + self.timeout
        code = json.dumps({"code": self.submission_text}).encode("ascii")  # (ensure_ascii)
        self._channel.new_call()
        if not self._channel.send(code + b"\n", deadline):
            raise ImportFailed(*self._death("while receiving the submission", "timeout"))
        message = self._channel.read_message(deadline)
        if message is None or not isinstance(message, dict) or "import" not in message:
            raise ImportFailed(*self._death("while importing the submission", message))
        if message["import"] is not True:
            self._stop()
            raise ImportFailed(_kind(message), str(message.get("message", ""))[:2000])

    def _spawn(self, config: dict[str, Any], work: Path,
               fds: list[int]) -> "subprocess.Popen | zygote.Forked":
        """Start the child: forked by the zygote when confined (numpy already loaded), else
        (or when the zygote cannot start) as a new Python process."""
        # (the zygote has the whole minigrad loaded: a child with its own minigrad starts anew)
        forker = zygote.client(runtime.child_sys_path()) if self.confine and self.kit is None \
            else None
        if forker is not None:
            try:
                return zygote.Forked(forker.spawn(config, fds), self._report)
            except (OSError, ValueError):
                pass  # a zygote that died mid-request: start the child directly
        confine_py = runtime.runtime_copy(self.kit) / "minigrad/grading/sandbox/confine.py"
        return subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", BOOTSTRAP, str(confine_py), json.dumps(config)],
            cwd=work, env=child_environment(), stdin=subprocess.DEVNULL, stdout=fds[3],
            stderr=subprocess.STDOUT, pass_fds=tuple(fds[:3]), start_new_session=True,
            close_fds=True)

    def child_pid(self) -> Optional[int]:
        """The running confined child's PID as the grader sees it (None when none runs)."""
        if self._pidfd < 0:
            return None
        try:
            with open(f"/proc/self/fdinfo/{self._pidfd}") as info:
                for line in info:
                    if line.startswith("Pid:"):
                        return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return None

    def _confined_child(self) -> int:
        """A pidfd of the confined child (PID 1 of its namespace), whose parent reports its
        PID; -1 if it does not within the start-up time (the child then fails to start)."""
        line = self._report.line(time.monotonic() + STARTUP_SECONDS)
        try:
            return os.pidfd_open(int(line))
        except (OSError, ValueError):
            return -1

    def _stop(self) -> None:
        """Kill the child and close the pipes. The confined child is PID 1 of its namespace:
        when it dies, the kernel kills everything it started. Its parent is killed too (and
        its death would kill the child as well: parent-death signal)."""
        if self.process is None:
            return
        if self._pidfd >= 0:
            try:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
                select.select([self._pidfd], [], [], 5.0)  # readable once it has exited
            except OSError:
                pass
            os.close(self._pidfd)
            self._pidfd = -1
        if isinstance(self.process, zygote.Forked):
            self.process.kill()
        else:
            for kill in (os.killpg, os.kill):
                try:
                    kill(self.process.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        self.process.wait()
        cgroups.remove(self._cgroup)
        self._cgroup = None
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        try:
            os.close(self._output)
        except OSError:
            pass
        self._report.close()
        self._output = -1
        self.process = None

    # ------------------------------------------------------------------ calls
    def run(self, function: str, cases: list[tuple], timeout: Optional[float] = None,
            limits: Optional[AnswerLimits] = None) -> list[Outcome]:
        """Call ``function(*args)`` for each argument tuple; one :class:`Outcome` per case.

        All cases of one call share one time limit: ``timeout`` seconds, or the sandbox's own;
        and their answers share ``limits`` (by default :class:`.AnswerLimits`'s): an answer
        over one is not parsed, and its case fails as ``"oversize"``, naming the limit.
        Raises :class:`ImportFailed` if the submission cannot be imported.
        """
        limit = self.timeout if timeout is None else timeout
        self.limits = limits or AnswerLimits()
        if self.import_error is not None:
            raise self.import_error
        if self.process is not None and self._channel.has_stale_answers():
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
        self.call_started = time.monotonic()  # (after any start: the limit is the call's)
        deadline = self.call_started + limit
        outcomes: list[Outcome] = []
        self._channel.new_call(self.limits)
        if not self._channel.send(request.encode() + b"\n", deadline):
            kind, text = self._death(f"while sending the cases of {function}", "timeout", limit)
            return [Outcome(False, kind=kind, message=text)] * len(cases)
        while len(outcomes) < len(cases):
            message = self._channel.read_message(deadline)
            if isinstance(message, Oversize):  # (the line is read: the next is the next case)
                outcomes.append(Outcome(False, kind="oversize", message=f"{message}"))
                continue
            if not isinstance(message, dict) or message.get("case") != len(outcomes):
                kind, text = self._death(f"while running {function} on case {len(outcomes) + 1}",
                                         message, limit)
                outcomes += [Outcome(False, kind=kind, message=text)] * (len(cases) - len(outcomes))
                self._stop()
                return outcomes
            if message.get("ok") is True:
                outcomes.append(Outcome(True, value=message.get("value")))
            else:
                outcomes.append(Outcome(False, kind=_kind(message),
                                        message=str(message.get("message", ""))[:2000]))
        done = self._channel.read_message(deadline)
        if done != {"done": True}:
            self._stop()
        return outcomes

    def _death(self, during: str, message: Any,
               limit: Optional[float] = None) -> tuple[str, str]:
        """(kind, message) for a child that did not answer properly (``limit``: the time it
        had, if not the sandbox's own)."""
        if message == "timeout":
            self._stop()
            limit = self.timeout if limit is None else limit
            return "timeout", f"took longer than {limit:g} s {during} (stopped)"
        if message == "too-long":
            self._stop()
            return "oversize", (f"sent back more than {self.limits.bytes / 10**6:g} MB "
                                f"{during}, the most the grader reads for this exercise")
        if message not in ("eof",):
            self._stop()
            return "garbage", f"the answer channel was corrupted {during}"
        assert self.process is not None
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self._stop()
            return "garbage", f"closed the answer channel {during}"
        if self.confine and isinstance(self.process, subprocess.Popen):
            # Its first process exits 128 + the signal: the child's own status is reported.
            line = self._report.line(time.monotonic() + 2, prefix=b"status ")
            try:
                code = os.waitstatus_to_exitcode(int(line.split()[1]))
            except (ValueError, IndexError):
                pass
        tail = output_tail(self._output)
        out_of_memory = cgroups.out_of_memory(self._cgroup)
        self._stop()
        if self._report.disk_full:
            return "disk", (f"wrote more than {TMPFS_BYTES // 2**20} MB of files {during} "
                            f"(stopped)")
        return death(code, during, tail, self.memory_mb, OUTPUT_LIMIT_BYTES, out_of_memory)
