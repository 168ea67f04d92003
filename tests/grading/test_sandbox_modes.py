"""The two sandbox modes, how the grader chooses, and ``minigrad grade --self-test``.

The unprivileged-user mode is what a default Docker container (Gradescope's) allows: there
``unshare`` is refused, but a root grader can run graded code as another user. Here it runs on
this machine as root, with ``nobody`` as the student user (:mod:`support.student_user`); each
attack a determined student would try is a test. The same mode inside a real container runtime
with Docker's seccomp profile: ``tests/grading/test_container_runc.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.grader_attacks import KEY_LINE, REFERENCE, SECRET, attack, only_01_1_lost
from support.grading_results import by_exercise, needs_sandbox
from support.student_user import needs_user_mode, user_mode_command, user_mode_env

from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import student_file_name
from minigrad.grading.sandbox import users
from minigrad.grading.selftest import run_self_test

FILE01 = student_file_name(find_lesson(1))


def minigrad(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """``minigrad ARGS`` as root in the unprivileged-user mode, in a process of its own."""
    stash = tmp_path / f"stash-{len(list(tmp_path.glob('stash-*')))}"
    stash.mkdir()
    command = user_mode_command([sys.executable, "-m", "minigrad.cli", *args], stash)
    return subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env=user_mode_env(**env))


# ---------------------------------------------------------------------------- choosing a mode
@needs_sandbox
def test_the_self_test_passes_in_the_namespace_mode(capsys) -> None:
    assert run_self_test() == 0
    text = capsys.readouterr().out
    assert text.startswith("sandbox mode: namespaces") and "FAILS" not in text
    assert "cannot read the answer key" in text and "All 23 protections hold" in text
    assert "cannot learn a hidden case's call or expected answer" in text


def test_no_mode_at_all_fails_the_self_test(monkeypatch, capsys) -> None:
    monkeypatch.setenv("MINIGRAD_SIMULATE_NO_SANDBOX", "nothing here (simulated)")
    assert run_self_test() == 3
    assert "no sandbox mode works here: nothing here (simulated)" in capsys.readouterr().out


def test_the_user_mode_needs_its_user(monkeypatch) -> None:
    from minigrad.grading.sandbox.probe import sandbox_mode

    monkeypatch.setenv("MINIGRAD_SANDBOX_MODE", "user")
    monkeypatch.setenv("MINIGRAD_STUDENT_USER", "no-such-user-here")
    mode, problem = sandbox_mode()
    assert mode is None and "unprivileged-user mode" in problem
    assert "useradd" in problem or "root" in problem


def test_root_is_never_the_student_user() -> None:
    assert users.student_ids("root") is None
    with pytest.raises(PermissionError):
        users.become(0, 0)


def test_file_modes_decide_what_the_student_user_reaches() -> None:
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="minigrad-test-modes-", dir="/tmp"))
    try:
        _check_modes(base)
    finally:
        shutil.rmtree(base)


def _check_modes(base: Path) -> None:
    base.chmod(0o755)
    folder = base / "keys"
    folder.mkdir()
    key = folder / "lesson01.py"
    key.write_text("secret")
    for mode, reachable in ((0o755, True), (0o711, True), (0o700, False)):
        folder.chmod(mode)
        assert users.reachable(str(folder), 4242, 4242) is reachable, oct(mode)
    folder.chmod(0o755)
    key.chmod(0o600)
    assert not users.reachable(str(key), 4242, 4242)
    assert users.reachable(str(key), os.stat(key).st_uid, 4242)
    # A results folder the grader has yet to write: as reachable as the folder it goes in.
    assert users.reachable(str(folder / "grades"), 4242, 4242)
    folder.chmod(0o700)
    assert not users.reachable(str(folder / "grades"), 4242, 4242)


# ---------------------------------------------------------------------------- the user mode
@needs_user_mode
def test_the_self_test_passes_in_the_user_mode(tmp_path: Path) -> None:
    done = minigrad(tmp_path, "grade", "--self-test")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("sandbox mode: user (graded code runs as uid 65534")
    assert "FAILS" not in done.stdout and "Landlock ABI" in done.stdout


@needs_user_mode
def test_without_landlock_readable_keys_are_refused(tmp_path: Path) -> None:
    """Without Landlock the file modes are the boundary: a checkout readable by all (as this
    one is) would hand the reference solutions over, so the grader refuses, and says why."""
    done = minigrad(tmp_path, "grade", "--self-test", MINIGRAD_SIMULATE_NO_LANDLOCK="1")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no Landlock" in done.stdout and "FAILS  graded code cannot read the answer key" \
        in done.stdout
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / FILE01).write_text(python_file_text(find_lesson(1), solutions=True))
    done = minigrad(tmp_path, "grade", str(tmp_path / "work"), MINIGRAD_SIMULATE_NO_LANDLOCK="1")
    assert done.returncode == 3 and "chmod -R go-rwx" in done.stderr, done.stderr
    assert "--no-sandbox" in done.stderr  # (the log: the instructor's, not the student's)


@needs_user_mode
@pytest.mark.parametrize("landlock", ["with Landlock", "without Landlock"])
def test_attacks_in_the_user_mode(tmp_path: Path, landlock: str) -> None:
    """Read a private key and a classmate's file, forge the results, kill the grader and the
    supervisor, become root: 0 for the exercise that tries, full marks for the rest."""
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o700)
    for name in ("lesson01.py", "lesson01_checks.py"):
        (keys / name).write_text(Path(REFERENCE).with_name(name).read_text())
    results = tmp_path / "out" / "results.json"
    results.parent.mkdir()
    body = f"""
    found.append(_try(lambda: open({str(keys / 'lesson01.py')!r}).read()))
    found.append(_try(lambda: os.listdir({str(keys)!r})))
    found.append(_try(lambda: open({str(results)!r}, "w").write("{{}}")))
    found.append(_try(lambda: os.kill(os.getppid(), 9)))
    found.append(_try(lambda: [os.kill(pid, 9) for pid in range(2, 4000) if pid != os.getpid()
                               and os.path.exists(f"/proc/{{pid}}")]))
    found.append(_try(lambda: os.setuid(0)))
    found.append(_try(lambda: open("/proc/1/environ").read()))
    found.append(str(os.getuid()))
    """
    path = attack(tmp_path / "submission", body)
    extra = {"MINIGRAD_SIMULATE_NO_LANDLOCK": "1"} if landlock == "without Landlock" else {}
    done = minigrad(tmp_path, "grade", str(path), "--lesson", "1", "--exercises", str(keys),
                    "--json", str(results), "--timeout", "5", **extra)
    if extra:  # this checkout is readable by all: without Landlock, that is refused (the
        # mode without Landlock grading a class, keys kept by file modes: test_container_runc)
        assert done.returncode == 3 and "chmod" in done.stderr, done.stderr
        return
    assert done.returncode == 0, done.stderr
    data = json.loads(results.read_text())
    assert data["extra_data"]["sandbox"].startswith("user (graded code runs as uid 65534")
    output = only_01_1_lost(data)
    assert "65534" in output and "PermissionError" in output, output
    assert SECRET not in output and KEY_LINE not in output
    assert "sandbox: user" in done.stderr  # the log names the mode too


@needs_user_mode
def test_a_child_that_fills_its_folder_is_stopped_in_the_user_mode(tmp_path: Path) -> None:
    """No tmpfs caps the user mode's folder: its supervisor measures it and stops the child
    past 64 MB: 3 MB files, each under the file-size limit, in a folder too deep for a path
    (counted through folder descriptors)."""
    body = """
    for depth in range(60):  # 12 000 characters deep, past PATH_MAX
        os.mkdir("d" * 200)
        os.chdir("d" * 200)
    block = b"x" * 3_000_000
    for index in range(80):
        with open(f"f{index}", "wb") as handle:
            handle.write(block)
    found.append("wrote everything")
    """
    results = tmp_path / "results.json"
    done = minigrad(tmp_path, "grade", str(attack(tmp_path / "submission", body)), "--json",
                    str(results), "--timeout", "20")
    assert done.returncode == 0, done.stderr
    output = only_01_1_lost(json.loads(results.read_text()))
    assert "wrote more than 64 MB of files" in output and "wrote everything" not in output, \
        output


@needs_user_mode
def test_the_capstone_is_graded_in_the_user_mode(tmp_path: Path) -> None:
    """08.5 runs in a child of its own against the stripped minigrad: in the user mode too
    (that copy must be readable by the student user), with held-out digits only root reads."""
    import shutil

    import numpy as np

    from minigrad.data import load_digits
    from minigrad.exercises.authoring.source import LESSON_SOURCES

    key = tmp_path / "key"
    key.mkdir(mode=0o700)
    for name in ("lesson08.py", "lesson08_checks.py"):
        shutil.copy(LESSON_SOURCES / name, key / name)
    images, labels = load_digits("test", as_numpy=True)
    np.savez(key / "capstone-digits.npz", images=images[:200], labels=labels[:200],
             pass_mark=np.float64(0.9))
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "lesson08.py").write_text(
        python_file_text(find_lesson(8), solutions=True))
    results = tmp_path / "results.json"
    done = minigrad(tmp_path, "grade", str(tmp_path / "work"), "--exercises", str(key),
                    "--json", str(results))
    assert done.returncode == 0, done.stderr
    table = by_exercise(json.loads(results.read_text()))
    assert table["08.5"][0] == table["08.5"][1] == 5, table["08.5"]
    assert "sandbox: user" in done.stderr


PROBE = """
import os, sys
from minigrad.grading.sandbox.host import Sandbox
code = ("import ctypes, os\\ndef probe():\\n    found = []\\n    for fd in range(1024):\\n"
        "        try:\\n            os.fstat(fd)\\n            found.append(fd)\\n"
        "        except OSError:\\n            pass\\n"
        "    return [found, os.getuid(), os.getgid(), os.getgroups(),\\n"
        "            ctypes.CDLL(None).prctl(39, 0, 0, 0, 0)]\\n")  # PR_GET_NO_NEW_PRIVS
for _ in range(2):  # the fork server's second child too
    with Sandbox(code, timeout=10) as box:
        outcome = box.run("probe", [()])[0]
        print(outcome.value if outcome.ok else outcome.message)
"""


@needs_user_mode
def test_the_user_mode_child_holds_no_root_and_only_its_own_descriptors(tmp_path: Path) -> None:
    stash = tmp_path / "stash"
    stash.mkdir()
    done = subprocess.run(user_mode_command([sys.executable, "-c", PROBE], stash),
                          capture_output=True, text=True, timeout=300, env=user_mode_env())
    lines = done.stdout.strip().splitlines()
    assert lines == ["[[0, 1, 2, 3, 4], 65534, 65534, [], 1]"] * 2, done.stdout + done.stderr


@pytest.mark.parametrize("kind, outcome", [("oversize", "refused (not read past its limit)"),
                                           ("timeout", "refused (timed out before it was read)"),
                                           ("wrong", "DONE")])
def test_the_6_mb_answer_counts_as_refused_when_it_was_not_read(monkeypatch, tmp_path, kind,
                                                                 outcome) -> None:
    """A loaded machine can time the attacking child out before its 6 MB answer is ready:
    nothing was decoded then either, so the self-test must not report the attack as done."""
    from types import SimpleNamespace

    from minigrad.exercises.authoring.source import ExerciseBank
    from minigrad.grading import grader, reports, selftest

    case = SimpleNamespace(kind=kind, message="", visible=True, call="")
    result = SimpleNamespace(exercises=[SimpleNamespace(cases=[case, case])])
    monkeypatch.setattr(grader, "grade_submission", lambda *args, **kwargs: result)
    monkeypatch.setattr(grader, "answer_key", lambda *args: {})
    monkeypatch.setattr(reports, "gradescope_results", lambda result: {})
    checks = dict(selftest._grader_attacks(ExerciseBank(None), tmp_path))
    assert checks["make the grader decode a 6 MB answer"].startswith(outcome)
