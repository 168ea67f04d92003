"""Two children graded side by side (a class run with ``--jobs 2``) cannot reach each other.

In the unprivileged-user mode every child runs as the same user, so the kernel's
permission checks do not separate them: the seccomp allowlist must. It allowed ``prlimit64``
on any PID (one child lowered a neighbour's limits; the honest neighbour was killed while
importing), and in both modes ``flock`` and ``fcntl`` locks on the shared runtime copy, and
futexes keyed by a shared file's pages, passed data between children. Each route runs here
as two children of one grader, in each mode; each failed on the grader before (checked).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.grading_results import needs_sandbox
from support.student_user import needs_user_mode, user_mode_command, user_mode_env

EPERM, ENOLCK = 1, 37

#: The neighbour: honest code that also holds locks and waits on a futex, as a reader would.
VICTIM = '''
import ctypes, fcntl, os, resource, struct, threading, time
import minigrad
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
held = []

def _errno(how):
    try:
        how()
        return 0
    except OSError as error:
        return error.errno

def limits():
    return [resource.getrlimit(limit)[0] for limit in (resource.RLIMIT_NOFILE, resource.RLIMIT_AS)]

def hold(path):
    fd = os.open(path, os.O_RDONLY)
    held.append(fd)
    read_lock = struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 0, 1, 0)
    return [_errno(lambda: fcntl.flock(fd, fcntl.LOCK_EX)),
            _errno(lambda: fcntl.fcntl(fd, fcntl.F_SETLK, read_lock)),
            _errno(lambda: fcntl.fcntl(fd, 37, struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 8, 1, 0)))]

def wait_on(path):
    fd = os.open(path, os.O_RDONLY)
    address = libc.mmap(None, 4096, 1, 2, fd, 0)  # PROT_READ, MAP_PRIVATE
    value = ctypes.c_int.from_address(address).value
    timeout = struct.pack("qq", 20, 0)
    def wait():
        held.append(libc.syscall(202, ctypes.c_void_p(address), 0, value, timeout, 0, 0))
    threading.Thread(target=wait, daemon=True).start()
    time.sleep(0.5)
    return 0
'''

#: The attacker: each attempt returns (result, errno).
ATTACKER = '''
import ctypes, fcntl, os, signal, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]

def _call(how):
    ctypes.set_errno(0)
    try:
        return [int(how()), ctypes.get_errno()]
    except OSError as error:
        return [-1, error.errno]

def lower_limits(pid):
    low = (ctypes.c_ulong * 2)(8, 8)
    return [_call(lambda: libc.syscall(302, pid, 7, low, None)),   # prlimit64 RLIMIT_NOFILE
            _call(lambda: libc.syscall(302, pid, 9, low, None))]   # RLIMIT_AS

def signal_it(pid):
    return [_call(lambda: libc.syscall(62, pid, 0)),               # kill
            _call(lambda: libc.syscall(234, pid, pid, 0)),         # tgkill
            _call(lambda: libc.syscall(200, pid, 0))]              # tkill

def probe_locks(path):
    fd = os.open(path, os.O_RDONLY)
    write_lock = struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 1, 0)
    def get(command, start):
        answer = fcntl.fcntl(fd, command, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, start, 1, 0))
        return struct.unpack("hhqqi4x", answer)[0]                # F_UNLCK (2): no one holds it
    return [_call(lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB) or 0),
            _call(lambda: get(fcntl.F_GETLK, 0)), _call(lambda: get(36, 8))]  # F_OFD_GETLK

def shared_pages(path):
    fd = os.open(path, os.O_RDONLY)
    size = 4096
    address = libc.mmap(None, size, 1, 2, fd, 0)
    def advise(advice):
        return libc.madvise(ctypes.c_void_p(address), ctypes.c_size_t(size), advice)
    return [_call(lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED) or 0),
            _call(lambda: advise(21)), _call(lambda: advise(20)), _call(lambda: advise(12))]

def wake(path):
    fd = os.open(path, os.O_RDONLY)
    address = libc.mmap(None, 4096, 1, 2, fd, 0)
    return [_call(lambda: libc.syscall(202, ctypes.c_void_p(address), 1, 1, 0, 0, 0))]
'''

SCRIPT = """
import json, sys
from minigrad.grading.sandbox.host import Sandbox
from minigrad.grading.sandbox.runtime import runtime_copy
victim_code, attacker_code = json.loads(sys.argv[1])

def host_pid(box):
    with open(f"/proc/self/fdinfo/{box._pidfd}") as info:
        return int(next(line for line in info if line.startswith("Pid:")).split()[1])

def call(box, function, *args):
    outcome = box.run(function, [args])[0]
    assert outcome.ok, (function, outcome.kind, outcome.message)
    return outcome.value

with Sandbox(victim_code, timeout=20) as victim, Sandbox(attacker_code, timeout=20) as attacker:
    before = call(victim, "limits")
    pid = host_pid(victim)
    found = {"before": before}
    runtime_file = str(runtime_copy() / "minigrad/__init__.py")  # both children read it
    found["hold"] = call(victim, "hold", runtime_file)
    found["wait"] = call(victim, "wait_on", runtime_file)
    found["lower"] = call(attacker, "lower_limits", pid)
    found["signal"] = call(attacker, "signal_it", pid)
    found["locks"] = call(attacker, "probe_locks", runtime_file)
    found["wake"] = call(attacker, "wake", runtime_file)
    found["pages"] = call(attacker, "shared_pages", runtime_file)
    found["after"] = call(victim, "limits")
print(json.dumps(found))
"""


def run_pair(tmp_path: Path, mode: str) -> dict:
    argv = [sys.executable, "-c", SCRIPT, json.dumps([VICTIM, ATTACKER])]
    if mode == "user":
        stash = tmp_path / "stash"
        stash.mkdir()
        command, env = user_mode_command(argv, stash), user_mode_env()
    else:
        command, env = argv, dict(os.environ, MINIGRAD_SANDBOX_MODE="namespaces")
    env.pop("MINIGRAD_STRICT_SECCOMP", None)
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode", [
    pytest.param("namespaces", marks=needs_sandbox),
    pytest.param("user", marks=needs_user_mode)])
def test_a_child_cannot_reach_its_neighbour(tmp_path: Path, mode: str) -> None:
    found = run_pair(tmp_path, mode)
    # The neighbour's limits are its own (prlimit64 lowered them in the user mode).
    assert found["after"] == found["before"], found
    assert found["lower"] == [[-1, EPERM]] * 2, found
    # No signal, not even the permission check of one (tkill names no process of its own).
    assert found["signal"] == [[-1, EPERM]] * 3, found
    # No lock of any kind on a shared file: taking one and asking about one both fail, so
    # nothing can be passed through them (before, the attacker saw the neighbour's locks).
    assert found["hold"] == [ENOLCK] * 3, found
    assert found["locks"] == [[-1, ENOLCK]] * 3, found
    # A futex keyed by a shared file's page cannot be woken from another child.
    assert found["wake"] == [[-1, EPERM]], found
    # Nor drop, page out, cool or merge the pages of a file other children read.
    assert found["pages"] == [[-1, EPERM]] * 4, found


THREADS = '''
import os, threading, time
held = []

def start(count):
    started = 0
    for _ in range(count):
        try:
            thread = threading.Thread(target=time.sleep, args=(30,), daemon=True)
            thread.start()
        except RuntimeError:
            break
        held.append(thread)
        started += 1
    return [started, os.getuid()]
'''

NEIGHBOURS = """
import json, sys
from minigrad.grading.sandbox.host import Sandbox
with Sandbox(sys.argv[1], timeout=20) as first, Sandbox(sys.argv[1], timeout=20) as second:
    hog = first.run("start", [(40,)])[0]
    honest = second.run("start", [(8,)])[0]
    print(json.dumps([hog.value, honest.value]))
"""


@needs_user_mode
def test_each_child_of_a_class_run_has_a_user_of_its_own(tmp_path: Path) -> None:
    """Threads count against their user's RLIMIT_NPROC (32): with one user for every child, one
    child's 31 sleeping threads left its neighbour none (numpy's and the student's own failed
    to start). With a user per child (``MINIGRAD_STUDENT_USER=nobody,daemon``: the class run's
    ``--jobs`` is at most the number of users) each has its own 32."""
    stash = tmp_path / "stash"
    stash.mkdir()
    command = user_mode_command([sys.executable, "-c", NEIGHBOURS, THREADS], stash)
    done = subprocess.run(command, capture_output=True, text=True, timeout=300,
                          env=user_mode_env(MINIGRAD_STUDENT_USER="nobody,daemon"))
    assert done.returncode == 0, done.stdout + done.stderr
    (hog, hog_uid), (honest, honest_uid) = json.loads(done.stdout.strip().splitlines()[-1])
    assert {hog_uid, honest_uid} == {65534, 1}, done.stdout
    assert hog < 32 and honest == 8, done.stdout


@needs_user_mode
def test_a_class_run_grades_no_more_at_once_than_there_are_users(tmp_path: Path) -> None:
    from support.grader_attacks import FILE01, LESSON01
    from support.student_user import grade_in_user_mode

    from minigrad.exercises.authoring.generate import python_file_text

    klass = tmp_path / "class"
    for name in ("alice", "bob"):
        (klass / name).mkdir(parents=True)
        (klass / name / FILE01).write_text(python_file_text(LESSON01, solutions=True))
    for users, said in (("nobody", True), ("nobody,daemon", False)):
        out = tmp_path / f"out-{said}"
        done = grade_in_user_mode(tmp_path, "grade", str(klass), "--lesson", "1", "--jobs", "2",
                                  "--out", str(out), "--csv", str(tmp_path / f"{said}.csv"),
                                  MINIGRAD_STUDENT_USER=users)
        assert done.returncode == 0, done.stderr
        assert ("--jobs 1: graded code runs as 1 student user here" in done.stderr) is said, \
            done.stderr
        rows = (tmp_path / f"{said}.csv").read_text().splitlines()
        assert len(rows) == 3 and all("15" in row for row in rows[1:]), rows
