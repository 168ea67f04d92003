"""``minigrad grade --self-test``: which sandbox mode this machine gives, and what holds in it.

It grades nothing. It picks the mode ``minigrad grade`` would use (:mod:`.sandbox.probe`), then
runs a submission of attacks in that mode, the way graded code runs: read the answer key (the
``--exercises`` sources, else the built-in ones) and a classmate's file, list their folders,
forge the results, signal the grader and the process that watches the child, read the grader's
``/proc`` files, start a process, open a socket, become root again. Each line says whether the
protection holds; the exit status is 0 only if every one does (1 if one fails, 3 if no mode
works at all). The Gradescope ``setup.sh`` runs it, so an image where graded code could not be
confined fails to build instead of grading a class.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Optional

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
'''


def _key_file(exercises: Optional[Path]) -> Path:
    """One answer-key file: of ``--exercises``, else of the built-in lessons."""
    from minigrad.exercises.authoring.source import ExerciseBank

    bank = ExerciseBank(exercises)
    files = sorted(Path(bank.folder).glob("lesson*.py"))
    return files[0] if files else Path(bank.folder)


def run_self_test(exercises: Optional[Path] = None, out=None) -> int:  # type: ignore[no-untyped-def]
    from minigrad.exercises.authoring.source import ExerciseBank
    from minigrad.grading.grader import Options, confinement_problem
    from minigrad.grading.sandbox.host import ImportFailed, Sandbox
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
                try:
                    outcome = box.run(function, [args])[0]
                except ImportFailed as error:
                    checks.append((what, f"DONE? the attack could not run: {error.message}"))
                    continue
                text = outcome.value if outcome.ok else f"DONE? it failed: {outcome.message}"
                checks.append((what, str(text)))
        untouched = results.read_text() == '{"score": 0}' and not (
            classroom / "forged.json").exists()
        checks.append(("change the results (checked afterwards)",
                       "refused (unchanged)" if untouched else "DONE: the results changed"))
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
