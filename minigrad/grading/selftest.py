"""``minigrad grade --self-test``: which sandbox mode this machine gives, and what holds in it.

It grades nothing. It picks the mode ``minigrad grade`` would use (:mod:`.sandbox.probe`), then
runs a submission of attacks in that mode, the way graded code runs: read the answer key (the
``--exercises`` sources, else the built-in ones) and a classmate's file, list their folders,
forge the results, signal the grader and the process that watches the child, read the grader's
``/proc`` files, start a process, open a socket, become root again; reach a second child
graded beside it, as in a class run with ``--jobs 2`` (lower its limits, signal it, pass it
data through a lock or a futex on a file both read); hold files without a name past its
folder's cap; leave a folder chain deeper than Python's recursion limit for the clean-up. Each
line says whether the protection holds; the exit status is 0 only if every one does (1 if one
fails, 3 if no mode works at all). The Gradescope ``setup.sh`` runs it, so an image where
graded code could not be confined fails to build instead of grading a class.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from minigrad.grading.sandbox.host import Sandbox
    from minigrad.exercises.authoring.source import ExerciseBank

#: The attacks, as graded code: each returns "refused (...)" or what it achieved.
ATTACKS = '''
import os, signal, socket

def _try(action):
    try:
        return "DONE: " + repr(action())[:80]
    except BaseException as error:
        return f"refused ({type(error).__name__})"

def read_file(path):
    return _try(lambda: open(path, "rb").read(64))

def list_folder(path):
    return _try(lambda: os.listdir(path))

def write_file(path):
    return _try(lambda: open(path, "w").write("score: 100"))

def signal_process(pid):
    return _try(lambda: os.kill(pid, 0))  # the permission check of a real signal, harmless

def signal_parent():
    if os.getppid() == 0:
        return "refused (its parent is outside its PID namespace)"
    return _try(lambda: os.kill(os.getppid(), 0))

def start_process():
    def fork():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        return pid
    return _try(fork)

def open_socket():
    return _try(lambda: socket.create_connection(("127.0.0.1", 9), timeout=1))

def become_root():
    return _try(lambda: os.setuid(0) or os.getuid())

import ctypes
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_long]
_NUMBERS = {"x86_64": {"prlimit64": 302, "futex": 202}, "aarch64": {"prlimit64": 261, "futex": 98}}
_held = []

def _syscall(name, *args):
    number = _NUMBERS[os.uname().machine][name]
    result = _libc.syscall(number, *args)
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result

def lower_limits(pid):
    low = (ctypes.c_ulong * 2)(8, 8)
    return _try(lambda: _syscall("prlimit64", pid, 7, low, None))  # RLIMIT_NOFILE

def open_files_limit():
    import resource
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]

def lock_file(path):
    import fcntl
    def lock():
        handle = open(path, "rb")
        _held.append(handle)
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return _try(lock)

def wake_shared(path):
    def wake():
        address = _libc.mmap(None, 4096, 1, 2, os.open(path, os.O_RDONLY), 0)
        return _syscall("futex", ctypes.c_void_p(address), 1, 1, 0, 0, 0)  # FUTEX_WAKE
    return _try(wake)

def hold_nameless_files():
    def hold():
        block = b"x" * 3_900_000
        for index in range(30):
            handle = open(f"held{index}", "wb")
            _held.append(handle)
            handle.write(block)
            handle.flush()
            os.unlink(f"held{index}")
        return "held 117 MB"
    return _try(hold)

def deep_chain(depth):
    def chain():
        for _ in range(depth):
            os.mkdir("d")
            os.chdir("d")
        return f"{depth} folders deep"
    return _try(chain)
'''


def _key_file(exercises: Optional[Path]) -> Path:
    """One answer-key file: of ``--exercises``, else of the built-in lessons."""
    from minigrad.exercises.authoring.source import ExerciseBank

    bank = ExerciseBank(exercises)
    files = sorted(Path(bank.folder).glob("lesson*.py"))
    return files[0] if files else Path(bank.folder)


def _attack(box: "Sandbox", function: str, args: tuple,
            timeout: Optional[float] = None) -> str:
    """One attack's outcome: its own "refused (...)" or "DONE: ...", or what stopped it."""
    from minigrad.grading.sandbox.host import ImportFailed

    try:
        outcome = box.run(function, [args], timeout=timeout)[0]
    except ImportFailed as error:
        return f"DONE? the attack could not run: {error.message}"
    if outcome.ok:
        return str(outcome.value)
    if outcome.kind == "disk":
        return f"refused (stopped: {outcome.message})"
    return f"DONE? it failed: {outcome.message}"


def _neighbour_attacks(protected: list[Path]) -> list[tuple[str, str]]:
    """A second child graded beside the first, as in a class run with ``--jobs 2``."""
    from minigrad.grading.sandbox.host import Sandbox
    from minigrad.grading.sandbox.runtime import runtime_copy

    shared = str(runtime_copy() / "minigrad" / "__init__.py")  # every child reads it
    checks = []
    with Sandbox(ATTACKS, timeout=20, protected=protected) as neighbour, \
            Sandbox(ATTACKS, timeout=20, protected=protected) as box:
        before = _attack(neighbour, "open_files_limit", ())
        pid = neighbour.child_pid() or 0
        neighbour_lock = _attack(neighbour, "lock_file", (shared,))
        checks += [("lower the limits of a child graded beside it",
                    _attack(box, "lower_limits", (pid,))),
                   ("signal a child graded beside it", _attack(box, "signal_process", (pid,))),
                   ("lock a file a child graded beside it reads (pass it data)",
                    _attack(box, "lock_file", (shared,)) if neighbour_lock.startswith("refused")
                    else f"DONE: the neighbour took a lock ({neighbour_lock})"),
                   ("wake a futex of a file a child graded beside it reads (pass it data)",
                    _attack(box, "wake_shared", (shared,)))]
        after = _attack(neighbour, "open_files_limit", ())
        checks.append(("change a neighbour's limits (checked afterwards)",
                       f"refused (unchanged: {after})" if after == before
                       else f"DONE: {before} became {after}"))
    return checks


def _leftover_attacks(protected: list[Path]) -> list[tuple[str, str]]:
    """What a child leaves behind: files it holds without a name, a folder chain deeper than
    Python's recursion limit (the clean-up must remove it, and say nothing to the student)."""
    import contextlib
    import io

    from minigrad.grading.sandbox.host import Sandbox

    checks = []
    log = io.StringIO()
    with contextlib.redirect_stderr(log):
        with Sandbox(ATTACKS, timeout=20, protected=protected) as box:
            checks.append(("hold 117 MB of files without a name (the cap is 64 MB)",
                           _attack(box, "hold_nameless_files", ())))
            made = _attack(box, "deep_chain", (1500,), timeout=120)
            folder = box.directory
    removed = not folder.exists() and "could not remove" not in log.getvalue()
    checks.append(("leave a folder chain the clean-up cannot remove",
                   "refused (removed)" if removed else
                   f"DONE: {made}; left {folder} ({log.getvalue().strip()[:200]})"))
    return checks


def _grader_attacks(bank: "ExerciseBank", classroom: Path) -> list[tuple[str, str]]:
    """What a submission can learn from its own results, or cost the grader: a file of the
    bank's first lesson whose every function answers 0 (every hidden case then fails as wrong
    values), except the last, which answers a list of 2 million empty lists (about 6 MB)."""
    import json

    from minigrad.grading.grader import Options, SandboxUnavailable, answer_key, grade_submission
    from minigrad.grading.reports import gradescope_results

    lesson = bank.lessons()[0]
    functions = [exercise.function for exercise in bank.exercises(lesson)]
    code = "".join(f"def {name}(*args, **kwargs):\n    return 0\n\n" for name in functions)
    code += f"def {functions[-1]}(*args, **kwargs):\n    return [[]] * 2_000_000\n"
    submission = classroom / "mallory.py"
    submission.write_text(code)
    seed = 12345
    options = Options(seed, bank=bank, private=(classroom,))
    try:
        result = grade_submission(submission, lesson, options=options)
    except SandboxUnavailable as error:  # (the checks above say why)
        return [("grade a submission here", f"DONE? the grader refuses: {str(error)[:120]}")]
    results = json.dumps(gradescope_results(result))
    hidden = [case for cases in answer_key(bank, lesson, seed).values() for case in cases
              if not case.visible]
    leaked = [case.call for case in hidden if case.call in results]
    last = [case for case in result.exercises[-1].cases]
    # On a loaded machine the child can run out of time while it builds the answer: then
    # nothing was read either (the grader stopped waiting), which is as good a refusal.
    bounded = last and all(case.kind in ("oversize", "timeout") for case in last)
    return [("learn a hidden case's call or expected answer from its results",
             "refused (only the case's number and the kind of failure)" if hidden and not leaked
             else f"DONE: {leaked[:2]} in the results" if leaked else
             "DONE? the lesson has no hidden case to try"),
            ("make the grader decode a 6 MB answer",
             "refused (not read past its limit)" if bounded and last[0].kind == "oversize" else
             "refused (timed out before it was read)" if bounded else
             f"DONE: {[(case.kind, case.message[:80]) for case in last[:2]]}")]


def run_self_test(exercises: Optional[Path] = None, out=None) -> int:  # type: ignore[no-untyped-def]
    from minigrad.exercises.authoring.source import ExerciseBank
    from minigrad.grading.grader import Options, confinement_problem
    from minigrad.grading.sandbox.host import Sandbox
    from minigrad.grading.sandbox.probe import sandbox_mode

    out = out or sys.stdout
    say = lambda text: print(text, file=out, flush=True)  # noqa: E731
    mode, problem = sandbox_mode()
    if mode is None:
        say(f"minigrad grade --self-test: no sandbox mode works here: {problem}")
        say("Graded code cannot be confined on this machine: do not grade students here "
            "(see SECURITY.md in minigrad/grading).")
        return 3
    say(f"sandbox mode: {mode.label()}")
    if exercises is not None and not exercises.is_dir():
        say(f"--exercises {exercises} is not a folder")
        return 2
    bank = ExerciseBank(exercises)
    checks: list[tuple[str, str]] = []  # (what, outcome)
    classroom = Path(tempfile.mkdtemp(prefix="minigrad-selftest-"))  # as mkdtemp makes: 0700
    try:
        classmate = classroom / "bob" / "lesson01_derivatives.py"
        classmate.parent.mkdir()
        classmate.write_text("# a classmate's work\n")
        results = classroom / "results.json"
        results.write_text('{"score": 0}')
        options = Options(0, bank=bank, private=(classroom,))
        problem = confinement_problem(options)
        checks.append(("reach the keys, the class folder or the results by their file modes",
                       f"DONE: {problem}" if problem else
                       "refused (Landlock covers them, or only their owner can read them)"))
        key = _key_file(exercises)
        protected = [classroom, *([] if bank.builtin else [Path(bank.folder)])]
        attacks = [("read the answer key", "read_file", (str(key),)),
                   ("list the answer keys' folder", "list_folder", (str(key.parent),)),
                   ("read a classmate's file", "read_file", (str(classmate),)),
                   ("list the class folder", "list_folder", (str(classroom),)),
                   ("forge the results (overwrite results.json)", "write_file", (str(results),)),
                   ("write a file beside the results", "write_file",
                    (str(classroom / "forged.json"),)),
                   ("signal the grader", "signal_process", (os.getpid(),)),
                   ("signal the process watching it", "signal_parent", ()),
                   ("read the grader's /proc environ", "read_file",
                    (f"/proc/{os.getpid()}/environ",)),
                   ("start a process", "start_process", ()),
                   ("open a network connection", "open_socket", ()),
                   ("become root again", "become_root", ())]
        with Sandbox(ATTACKS, timeout=20, protected=protected) as box:
            for what, function, args in attacks:
                checks.append((what, _attack(box, function, args)))
        untouched = results.read_text() == '{"score": 0}' and not (
            classroom / "forged.json").exists()
        checks.append(("change the results (checked afterwards)",
                       "refused (unchanged)" if untouched else "DONE: the results changed"))
        checks += _neighbour_attacks(protected)
        checks += _leftover_attacks(protected)
        checks += _grader_attacks(bank, classroom)
    finally:
        shutil.rmtree(classroom, ignore_errors=True)
    failed = 0
    for what, outcome in checks:
        holds = outcome.startswith("refused")
        failed += not holds
        say(f"  {'holds' if holds else 'FAILS'}  graded code cannot {what}: {outcome}")
    if failed:
        say(f"{failed} of {len(checks)} protections FAIL: do not grade students here.")
        return 1
    say(f"All {len(checks)} protections hold: graded code can be confined here "
        f"({mode.name} mode).")
    return 0
