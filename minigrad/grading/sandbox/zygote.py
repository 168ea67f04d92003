"""A fork server for grading children: Python, numpy and minigrad loaded once, not per child.

Starting Python and importing numpy costs about half a second; a class run starts a child per
student and the tests hundreds. The zygote is started once per grader process (``python -I -S``,
empty environment but for :mod:`.environment`'s, one thread: numpy is told to start none), with the child's ``sys.path``
(no exercise sources). It never runs graded code and never sees an answer key. For each child
the grader sends the configuration and four descriptors (requests, responses, report, output)
over a UNIX socket pair; the zygote forks, and the fork confines itself exactly as a freshly
started child does (:func:`.confine.enter`: it is single-threaded, so ``unshare`` and Landlock
work), then serves the grader (:func:`.worker.main`). The zygote answers with the fork's PID.
The grader learns the confined child's PID and exit status from the report pipe. When the
zygote cannot start, the grader starts each child directly.
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from typing import Optional

from minigrad.grading.sandbox.environment import child_environment

BOOT = (
    "import os, sys, json\n"
    "os.environ.update(OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1',\n"
    "                  NUMBA_NUM_THREADS='1')\n"
    "c = json.loads(sys.argv[1]); sys.path[:] = c['path']\n"
    "from minigrad.grading.sandbox.zygote import serve; serve(c['socket'])\n"
)


def serve(fd: int) -> None:
    """The zygote's loop: one forked, confined child per request, until the socket closes."""
    import numpy  # noqa: F401  (the point: loaded once)

    import minigrad  # noqa: F401
    from minigrad.grading.sandbox import confine, worker

    confine.preload()
    confine.die_with_parent()
    confine.no_core_dumps()  # its forks inherit the core limit 0
    channel = socket.socket(fileno=fd)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # forks are reaped by the kernel
    threads = len(os.listdir("/proc/self/task"))
    channel.sendall(b"ready\n" if threads == 1 else b"threads\n")
    if threads != 1:
        return
    while True:
        message, fds, _, _ = socket.recv_fds(channel, 1 << 20, 4)
        if not message or len(fds) != 4:
            return
        pid = os.fork()
        if pid == 0:
            channel.close()
            config = json.loads(message)
            del message  # graded code can read this frame: only the config, emptied, stays
            _child(config, fds, confine, worker)
        for descriptor in fds:
            os.close(descriptor)
        channel.sendall(f"{pid}\n".encode())


def _child(config: dict, fds: list[int], confine, worker) -> None:  # type: ignore[no-untyped-def]
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        # Dumpable again (the core limit stays 0): a non-root grader's fork must be able to
        # write its own /proc/self/uid_map, which the kernel gives to root when not dumpable.
        ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE
        requests, responses, report, output = fds
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.close(output)
        os.setsid()
        config.update(requests=requests, responses=responses, report=report)
        confine.enter(config)
        worker.main(config)
        code = 0
    except SystemExit as error:
        code = error.code if isinstance(error.code, int) else 1
    except BaseException:  # noqa: BLE001 — said on the output file, which the grader reads
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


# ---------------------------------------------------------------------------- grader side
class Forked:
    """A child the zygote forked, as the grader sees it: killed through a pidfd; its exit
    status read from the report pipe (``status N``, written by the child's first process)."""

    def __init__(self, pid: int, report: "Report") -> None:
        self.pid = pid
        self.report = report
        self.returncode: Optional[int] = None
        try:
            self.pidfd = os.pidfd_open(pid)
        except OSError:
            self.pidfd = -1

    def kill(self) -> None:
        if self.pidfd >= 0:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except OSError:
                pass

    def wait(self, timeout: Optional[float] = None) -> int:
        """Like :meth:`subprocess.Popen.wait`: the exit code, or minus the signal's number."""
        if self.returncode is None:
            deadline = None if timeout is None else time.monotonic() + timeout
            line = self.report.line(deadline, prefix=b"status ")
            if line == b"timeout":
                raise subprocess.TimeoutExpired("grading child", timeout or 0)
            try:
                self.returncode = os.waitstatus_to_exitcode(int(line.split()[1]))
            except (ValueError, IndexError):
                self.returncode = -signal.SIGKILL  # killed before it could say
            if self.pidfd >= 0:
                os.close(self.pidfd)
                self.pidfd = -1
        return self.returncode


class Report:
    """Lines from a child's report pipe: its confined process's PID, then ``status N``; before
    that, ``disk`` if its supervisor killed it for filling its folder (``disk_full``)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.disk_full = False

    def line(self, deadline: Optional[float], prefix: bytes = b"") -> bytes:
        """The next line starting with ``prefix``; ``b"timeout"``; ``b""`` at the end."""
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                self.disk_full = self.disk_full or line == b"disk"
                if line.startswith(prefix):
                    return line
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                return b"timeout"
            chunk = os.read(self.fd, 256)
            if not chunk or len(self.buffer) > 4096:
                return b""
            self.buffer += chunk

    def close(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass


class Client:
    """The grader's handle on its zygote (one per grader process, shared by its threads)."""

    def __init__(self, path: list[str]) -> None:
        self.lock = threading.Lock()
        self.channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        config = json.dumps({"path": path, "socket": theirs.fileno()})
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", BOOT, config], env=child_environment(),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),), start_new_session=True, close_fds=True)
        theirs.close()
        self.channel.settimeout(60)
        try:
            ready = self.channel.recv(64)
        except OSError:
            ready = b""
        if ready != b"ready\n":
            self.close()
            raise OSError(f"the zygote did not start ({ready!r})")

    def alive(self) -> bool:
        return self.process.poll() is None

    def spawn(self, config: dict, fds: list[int]) -> int:
        """Fork a child that confines itself with ``config``; its PID."""
        with self.lock:
            socket.send_fds(self.channel, [json.dumps(config).encode()], fds)
            return int(self.channel.recv(64))

    def close(self) -> None:
        self.channel.close()
        self.process.kill()
        self.process.wait()


_clients: list = []
_client_lock = threading.Lock()


def close_all() -> None:
    """Stop this grader process's zygote (at exit: its socket and process end with ours)."""
    with _client_lock:
        while _clients:
            _clients.pop().close()


atexit.register(close_all)


def client(path: list[str]) -> Optional["Client"]:
    """The live zygote of this grader process, started if needed; None if it cannot start."""
    with _client_lock:
        if _clients and not _clients[0].alive():
            _clients.pop().close()
        if not _clients:
            try:
                _clients.append(Client(path))
            except (OSError, ValueError):
                return None
        return _clients[0]

