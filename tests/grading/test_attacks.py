"""Hostile submissions against the kernel sandbox: each route a determined student would try.

Every attack lives in lesson 01's first exercise of an otherwise correct submission. Each must
earn 0 for that exercise (and full marks for the others), leave the grader, its files and other
students' files intact, and leave no process behind. Skipped, with the reason, where the kernel
lacks what the sandbox needs; the refusal itself is tested by simulating that.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from support.grader_attacks import (CHECKOUT, FILE01, KEY_LINE, LESSON01, REFERENCE, attack, grade,
                                     only_01_1_lost)
from support.grading_results import by_exercise, needs_sandbox

from minigrad.cli import main as cli_main
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.grading.grader import SandboxUnavailable, grade_submission
from minigrad.grading.sandbox.probe import SIMULATE_ENV
from minigrad.course.catalog import find_lesson

def processes_named(marker: str) -> list[int]:
    """Live processes (not zombies waiting to be reaped) named ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/status") as handle:
                status = dict(line.split(":\t", 1) for line in handle.read().splitlines()
                              if ":\t" in line)
            if status["Name"].strip() == marker and status["State"][:1] not in "ZX":
                found.append(int(entry))
        except (OSError, ValueError, KeyError):
            pass
    return found


# ---------------------------------------------------------------------------- answer keys
@needs_sandbox
def test_reading_the_answer_keys_fails_every_way(tmp_path: Path) -> None:
    folder = os.path.dirname(REFERENCE)
    output = only_01_1_lost(grade(attack(tmp_path / "work", f"""
        found.append(_try(lambda: open({REFERENCE!r}).read()))
        root = os.open("/", os.O_PATH)  # O_PATH opens are not checked; what is opened from it is
        found.append(_try(lambda: os.open({REFERENCE[1:]!r}, os.O_RDONLY, dir_fd=root)))
        os.chdir("/")
        found.append(_try(lambda: open({REFERENCE[1:]!r}).read()))
        found.append(_try(lambda: os.listdir("/proc")))
        found.append(_try(lambda: open("/proc/self/root" + {REFERENCE!r}).read()))
        found.append(_try(lambda: [open(f"/proc/{{n}}/cmdline").read() for n in range(1, 999)]))
        found.append(_try(lambda: open({str(CHECKOUT / ".git" / "HEAD")!r}).read()))
        found.append(_try(lambda: open({str(CHECKOUT / "tests" / "exercise_cases.py")!r}).read()))
        found.append(_try(lambda: os.listdir({folder!r})))
        found.append(_try(lambda: __import__("minigrad.exercises.lessons.lesson01")))
        found.append(_try(lambda: __import__("minigrad.exercises.authoring.source")))
        found.append(_try(lambda: ctypes.CDLL(None).open({REFERENCE.encode()!r}, 0)))
        found.append(_try(lambda: os.symlink({REFERENCE!r}, "/tmp/x")))
        """), tmp_path))
    # Refused (Landlock), or not there at all: the child's mount namespace covers the package
    # and the checkout with an empty tmpfs, so even their metadata is gone.
    assert output.count("PermissionError") + output.count("FileNotFoundError") >= 5, output
    assert output.split("ValueError: ", 1)[1].startswith("FileNotFoundError[2]"), output
    assert "middle = math.sin(inner)" not in output


@needs_sandbox
def test_private_exercise_sources_grade_and_stay_private(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir()
    for suffix in ("", "_checks"):
        text = Path(REFERENCE.replace(".py", f"{suffix}.py")).read_text()
        (private / f"lesson01{suffix}.py").write_text(
            text.replace(KEY_LINE, "3.5 * " + KEY_LINE))
    assert "3.5 * outer" in (private / "lesson01.py").read_text()
    steal = attack(tmp_path / "work", f"""
        found.append(_try(lambda: open({str(private / 'lesson01.py')!r}).read()))
        found.append(_try(lambda: os.listdir({str(private)!r})))
        """)
    output = only_01_1_lost(grade(steal, tmp_path, "--exercises", str(private)))
    # The file is not there at all (an empty tmpfs covers the folder), and listing the empty
    # folder is refused (Landlock)
    assert "3.5 * outer" not in output and "FileNotFoundError[2] | PermissionError[13]" in output
    honest = tmp_path / "honest" / FILE01
    honest.parent.mkdir()
    honest.write_text(python_file_text(LESSON01, solutions=True).replace(
        KEY_LINE, "3.5 * " + KEY_LINE))
    table = by_exercise(grade(honest, tmp_path, "--exercises", str(private)))
    assert table["01.1"][0] == 2  # graded against the private key, not the built-in one
    assert by_exercise(grade(honest, tmp_path))["01.1"][0] < 2


# ---------------------------------------------------------------------------- native code
@needs_sandbox
def test_native_code_gains_nothing(tmp_path: Path) -> None:
    output = only_01_1_lost(grade(attack(tmp_path / "work", """
        import _imp, importlib.machinery, numpy, cffi
        spec = importlib.machinery.ModuleSpec("_posixsubprocess", None)
        fork_exec = getattr(_imp.create_builtin(spec), "fork_exec", None)  # a fresh copy
        fork_exec = fork_exec or __import__("_posixsubprocess").fork_exec
        found.append(_try(lambda: fork_exec(["/bin/sh"], [b"/bin/sh"], True, (), None, None,
                                            -1, -1, -1, -1, -1, -1, -1, -1, False, False,
                                            None, None, None, -1, None, False)))
        found.append(_try(lambda: os.execv("/bin/sh", ["sh", "-c", "id"])))
        found.append(_try(lambda: subprocess.run(["/bin/true"])))
        found.append(_try(lambda: os.system("id")))
        libc = ctypes.CDLL(None, use_errno=True)
        found.append(_try(lambda: (libc.unshare(0x10000000), ctypes.get_errno())))
        found.append(_try(lambda: (libc.syscall(446, -1, 0), ctypes.get_errno())))
        found.append(_try(lambda: socket.create_connection(("1.1.1.1", 80), timeout=1)))
        found.append(_try(lambda: socket.socket(socket.AF_UNIX).connect("/run/docker.sock")))
        ffi = cffi.FFI(); ffi.cdef("int kill(int, int);")
        found.append(_try(lambda: ffi.dlopen(None).kill(-1, 9)))
        raw = numpy.frombuffer((ctypes.c_char * 64).from_address(id(fork_exec)), numpy.uint8)
        found.append(_try(lambda: int(raw.sum()) > 0))
        found.append(_try(lambda: open("/proc/sys/kernel/pid_max", "w").write("400")))
        found.append(_try(lambda: os.memfd_create("payload")))     # to execveat() it
        found.append(_try(lambda: open("run.sh", "w").write("#!/bin/sh\\n")))
        found.append(_try(lambda: (os.chmod("run.sh", 0o755), os.execv("run.sh", ["run.sh"]))))
        found.append(_try(lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)))
        found.append(_try(lambda: libc.ptrace(16, 1, 0, 0)))       # PTRACE_ATTACH
        found.append(_try(lambda: __import__("resource").setrlimit(
            __import__("resource").RLIMIT_AS, (-1, -1))))
        """), tmp_path))
    assert output.count("PermissionError") >= 4, output
    assert "uid=" not in output and "| -1 | -1 | ValueError" in output, output


# ---------------------------------------------------------------------------- processes
@needs_sandbox
def test_forked_and_hopping_processes_die_with_the_child(tmp_path: Path) -> None:
    marker = f"mg{os.getpid() % 10**6}"
    output = only_01_1_lost(grade(attack(tmp_path / "work", f"""
        def hop(depth):
            ctypes.CDLL(None).prctl(15, {marker.encode()!r}, 0, 0, 0)  # PR_SET_NAME
            for _ in range(depth):
                if os.fork():
                    os._exit(0)      # the parent leaves; the child hops on
                os.setsid()
            time.sleep(600)
        for _ in range(3):
            if os.fork() == 0:
                hop(3)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        def bomb():
            for count in range(1000):
                if os.fork() == 0:
                    time.sleep(600)
                    os._exit(0)
        found.append(_try(bomb))
        """), tmp_path))
    assert "PermissionError" in output, output  # seccomp: no new processes at all
    assert processes_named(marker) == []


@needs_sandbox
def test_graded_code_starts_threads_but_no_processes_or_namespaces(tmp_path: Path) -> None:
    """Each process would get its own address-space limit (and RLIMIT_NPROC does not bind a
    root grader): four forked children mapping 1.8 GB each took 7 GB of the machine. Threads
    (numpy's, numba's, Python's) still work."""
    output = only_01_1_lost(grade(attack(tmp_path / "work", """
        import threading
        results = []
        worker = threading.Thread(target=lambda: results.append(sum(range(1000))))
        worker.start(); worker.join()
        found.append(repr(results))
        found.append(_try(os.fork))
        found.append(_try(lambda: subprocess.run(["/bin/true"])))
        found.append(_try(lambda: os.posix_spawn("/bin/true", ["true"], {})))
        libc = ctypes.CDLL(None, use_errno=True)
        found.append(_try(lambda: (libc.syscall(435, 0, 0), ctypes.get_errno())))  # clone3
        found.append(_try(lambda: (libc.unshare(0x40000000), ctypes.get_errno())))  # net ns
        """), tmp_path))
    parts = [part.strip() for part in output.split("|")]
    assert "[499500]" in parts[0], output
    assert parts[1].startswith("PermissionError"), output
    assert parts[2].startswith("PermissionError"), output
    assert parts[3].startswith("PermissionError"), output
    assert "(-1, 38)" in parts[4] and "(-1, 1)" in parts[5], output  # ENOSYS, EPERM


@needs_sandbox
def test_a_child_that_leaves_its_session_and_parent_still_dies(tmp_path: Path) -> None:
    marker = f"mh{os.getpid() % 10**6}"
    output = only_01_1_lost(grade(attack(tmp_path / "work", f"""
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, {marker.encode()!r}, 0, 0, 0)               # PR_SET_NAME
        found.append(_try(lambda: (libc.prctl(1, 0, 0, 0, 0), ctypes.get_errno())))
        found.append(_try(lambda: os.setsid()))                     # out of the group
        found.append(_try(lambda: (libc.syscall(250, 0, -3), ctypes.get_errno())))  # keyctl
        found.append(_try(lambda: (libc.syscall(321, 0, 0, 0), ctypes.get_errno())))  # bpf
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if x == 0.0:                                                # hidden cases: hang
            time.sleep(600)
        """), tmp_path, "--timeout", "2"))
    assert "(-1, 1)" in output and "(-1, 13) | (-1, 13)" in output, output  # EPERM, EACCES
    assert processes_named(marker) == []


@needs_sandbox
def test_a_child_stays_on_its_one_core_and_cannot_touch_the_grader_s_files(tmp_path: Path) -> None:
    """Spinning threads or processes only slow their own child: it is pinned to one core and
    cannot widen that. The output file the grader opened for it cannot be made setuid,
    inotify instances (limited per user on the whole machine) cannot be used up, and no file
    can be leased (a lease on a module's file stalled every process importing it)."""
    output = only_01_1_lost(grade(attack(tmp_path / "work", """
        found.append(_try(lambda: len(os.sched_getaffinity(0))))
        found.append(_try(lambda: os.sched_setaffinity(0, range(os.cpu_count() or 1))))
        found.append(_try(lambda: os.fchmod(1, 0o4777)))
        found.append(_try(lambda: os.chmod("/proc/self/fd/1", 0o4777)))
        libc = ctypes.CDLL(None, use_errno=True)
        found.append(_try(lambda: (libc.inotify_init1(0), ctypes.get_errno())))
        import fcntl
        module = open(os.__file__, "rb")  # readable, and opened by every Python that starts
        found.append(_try(lambda: fcntl.fcntl(module, 1024, fcntl.F_RDLCK)))  # F_SETLEASE
        found.append(_try(lambda: fcntl.fcntl(os.open(".", os.O_RDONLY), 1026, 0)))  # F_NOTIFY
        found.append(_try(lambda: fcntl.fcntl(module, fcntl.F_GETFL) & 3))  # others still work
        """), tmp_path))
    attempts = output.splitlines()[0].split("ValueError: ", 1)[1].split(" | ")
    assert attempts == (["1"] + ["PermissionError[1]"] * 3 + ["(-1, 1)"]
                        + ["PermissionError[1]"] * 2 + ["0"]), output  # one core


@needs_sandbox
def test_no_file_metadata_no_hidden_disk_space_no_aio(tmp_path: Path) -> None:
    """Landlock governs opening files, not a file's metadata: a child could otherwise give a
    classmate's file (or the instructor's, or a key) an ACL that lets anyone read it, give a
    copied binary file capabilities, or backdate a file's time; reserve disk space that the
    file-size limit does not count (fallocate with KEEP_SIZE on its output file); or use up
    the machine's AIO contexts. All refused (EPERM), and the classmate's file is unchanged."""
    classmate = tmp_path / "class" / "bob" / FILE01
    classmate.parent.mkdir(parents=True)
    classmate.write_text("bob's work")
    classmate.chmod(0o600)
    before = classmate.stat()
    # A POSIX ACL (version 2) granting "other" read: user::rw-, group::---, other::r--.
    acl = struct.pack("<I" + "HHI" * 3, 2, 1, 6, 0xFFFFFFFF, 4, 0, 0xFFFFFFFF, 32, 4, 0xFFFFFFFF)
    output = only_01_1_lost(grade(attack(tmp_path / "class" / "mallory", f"""
        target = {str(classmate)!r}
        found.append(_try(lambda: os.setxattr(target, "system.posix_acl_access", {acl!r})))
        found.append(_try(lambda: os.setxattr(target, "user.mark", b"1")))
        found.append(_try(lambda: os.setxattr(target, "security.capability", b"x" * 20)))
        found.append(_try(lambda: os.removexattr(target, "user.mark")))
        found.append(_try(lambda: os.utime(target, (0, 0))))
        found.append(_try(lambda: os.utime(target)))
        libc = ctypes.CDLL(None, use_errno=True)
        found.append(_try(lambda: (libc.fallocate(1, 1, ctypes.c_long(0),
                                                  ctypes.c_long(100 << 20)), ctypes.get_errno())))
        context = ctypes.c_ulong(0)
        found.append(_try(lambda: (libc.syscall(206 if os.uname().machine == "x86_64" else 0,
                                                65536, ctypes.byref(context)),
                                   ctypes.get_errno())))
        """), tmp_path))
    attempts = output.splitlines()[0].split("ValueError: ", 1)[1].split(" | ")
    assert attempts == ["PermissionError[1]"] * 6 + ["(-1, 1)"] * 2, output
    after = classmate.stat()
    assert (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)
    assert os.listxattr(classmate) == [] and classmate.read_text() == "bob's work"


def test_concurrent_children_get_different_cores_while_there_are_free_ones() -> None:
    from minigrad.grading.sandbox import cores

    available = sorted(os.sched_getaffinity(0))
    taken = [cores.take() for _ in range(len(available) + 1)]
    try:
        assert sorted(taken[:-1]) == available and taken[-1] in available
    finally:
        for core in taken:
            cores.give_back(core)
    assert cores.take() == available[0]
    cores.give_back(available[0])


@needs_sandbox
def test_signals_never_reach_the_grader(tmp_path: Path) -> None:
    output = only_01_1_lost(grade(attack(tmp_path / "work", """
        found.append(_try(lambda: os.getppid()))
        found.append(_try(lambda: os.kill(os.getppid(), 9)))
        found.append(_try(lambda: os.kill(-1, 9)))
        found.append(_try(lambda: os.killpg(0, 9)))
        for pid in range(2, 400):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        found.append(_try(lambda: signal.pidfd_send_signal(os.pidfd_open(1), 9)))
        """), tmp_path))
    assert "ValueError: 0 |" in output, output  # its parent is not in its world


# ---------------------------------------------------------------------------- files
@needs_sandbox
def test_results_and_class_files_cannot_be_touched(tmp_path: Path) -> None:
    classmate = tmp_path / "class" / "bob" / FILE01
    classmate.parent.mkdir(parents=True)
    classmate.write_text("bob's work")
    results = tmp_path / "results.json"
    results.write_text("{}")
    output = only_01_1_lost(grade(attack(tmp_path / "class" / "mallory", f"""
        found.append(_try(lambda: open("mine.txt", "w").write("its own folder is fine")))
        found.append(_try(lambda: open({str(classmate)!r}).read()))
        found.append(_try(lambda: os.remove({str(classmate)!r})))
        found.append(_try(lambda: os.rename({str(classmate)!r}, "stolen")))
        found.append(_try(lambda: open({str(results)!r}, "w").write("forged")))
        found.append(_try(lambda: os.remove({str(results)!r})))
        found.append(_try(lambda: open(__file__).read()))
        found.append(_try(lambda: os.listdir({str(tmp_path)!r})))
        found.append(_try(lambda: open("big", "wb").write(b"x" * (70 << 20))))
        """), tmp_path))
    assert "ValueError: 22 |" in output, output
    assert output.count("PermissionError") >= 3 and "OSError[27]" in output, output  # EFBIG
    assert classmate.read_text() == "bob's work"


# ---------------------------------------------------------------------------- sizes
@needs_sandbox
def test_huge_answers_and_code(tmp_path: Path) -> None:
    big = attack(tmp_path / "work", """
        return [1.0] * 300_000
        """)
    output = only_01_1_lost(grade(big, tmp_path))
    assert "more than 1 MB" in output, output
    huge = tmp_path / "huge" / FILE01
    huge.parent.mkdir()
    huge.write_text(python_file_text(LESSON01, solutions=True) + "#" * 3_000_000 + "\n")
    results = grade(huge.parent, tmp_path)
    assert results["score"] == 0 and "MB a .py file may have" in results["output"]


# ---------------------------------------------------------------------------- a class
def remove_chain(top: Path) -> None:
    """Remove a folder nested 1 100 deep without recursion (shutil.rmtree, and so pytest's
    clean-up of old temporary folders, would hit Python's recursion limit)."""
    chain = [top]
    while True:
        entries = list(chain[-1].iterdir())
        for entry in entries:
            if entry.is_symlink() or not entry.is_dir():
                entry.unlink()
        folders = [entry for entry in entries if entry.is_dir() and not entry.is_symlink()]
        if not folders:
            break
        chain += folders[:1]
    for folder in reversed(chain):
        folder.rmdir()


def hostile_class(root: Path) -> tuple[Path, dict[str, float]]:
    """30 students: honest ones with known scores, and every hostile kind."""
    klass = root / "class"
    expected: dict[str, float] = {}
    solution = python_file_text(LESSON01, solutions=True)
    for number in range(18):
        name = f"student{number:02d}"
        (klass / name).mkdir(parents=True)
        text = solution if number % 3 else solution.replace(KEY_LINE, "float('nan')")
        (klass / name / FILE01).write_text(text)
        expected[name] = 15.0 if number % 3 else 13.0
    hostile = {
        "=HYPERLINK(\"evil\")": solution,
        "\x1b[31mred\x1b]0;title\x07": solution,
        "l" * 230: solution,
        "+cmd": solution,
        "deep": None,
        "blocker": solution,
        "killer": solution + "\nimport os\nfor pid in (os.getppid(), -1, *range(2, 300)):\n"
                             "    try:\n        os.kill(pid, 9)\n    except OSError:\n"
                             "        pass\n",
        "forker": solution + "\nimport os, time\nwhile True:\n    try:\n"
                             "        if os.fork() == 0:\n            time.sleep(60)\n"
                             "            os._exit(0)\n    except OSError:\n        break\n",
        "reader": solution + f"\ntry:\n    open({REFERENCE!r}).read()\nexcept OSError:\n"
                             f"    pass\n",
        "hog": solution + "\nx = [0] * (10 ** 10)\n",
        "many": None,
        "twins": None,
    }
    for name, text in hostile.items():
        folder = klass / name
        folder.mkdir()
        if text is not None:
            (folder / FILE01).write_text(text)
            expected[name] = 0.0 if name in ("hog",) else 15.0
    deep = klass / "deep"
    for _ in range(1100):
        deep = deep / "d"
        deep.mkdir()
    (deep / FILE01).write_text(solution)
    expected["deep"] = 0.0  # too deep to look at; graded as missing, with a note
    for number in range(40):
        (klass / "many" / f"lesson01_{number}.py").write_text(solution)
    expected["many"] = 15.0
    (klass / "twins" / FILE01).write_text(solution)
    (klass / "twins" / "lesson01_copy.py").write_text(solution)
    expected["twins"] = 15.0
    assert len(expected) == 30
    return klass, expected


@needs_sandbox
def test_a_hostile_class_of_30() -> None:
    # Outside pytest's own temporary folders: should this test die before its clean-up, a
    # later pytest run's clean-up of old folders would hit the 1 100-deep one and crash.
    root = Path(tempfile.mkdtemp(prefix="minigrad-hostile-class-"))
    try:
        grade_hostile_class(root)
    finally:
        if (root / "class" / "deep").exists():
            remove_chain(root / "class" / "deep")
        shutil.rmtree(root, ignore_errors=True)


def grade_hostile_class(tmp_path: Path) -> None:
    klass, expected = hostile_class(tmp_path)
    out = tmp_path / "grades"
    (out / "blocker.json").mkdir(parents=True)  # a folder where a results file goes
    scores = tmp_path / "scores.csv"
    done = subprocess.run([sys.executable, "-m", "minigrad.cli", "grade", str(klass), "--lesson",
                           "1", "--jobs", "4", "--timeout", "5", "--out", str(out), "--csv",
                           str(scores)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "\x1b" not in done.stdout and "\x1b[31m" not in done.stderr
    rows = list(csv.DictReader(scores.open(encoding="utf-8")))
    assert len(rows) == 30
    for row in rows:
        assert row["student_id"][:1] not in "=+-@", row["student_id"]
    by_name = {row["student_id"]: float(row["total"]) for row in rows}
    # (each is its student id: the formula's first character escaped, never a formula)
    assert by_name["\\u{3d}HYPERLINK(\"evil\")"] == 15 and by_name["\\u{2b}cmd"] == 15
    for name, score in expected.items():
        if name.isalnum():
            assert by_name[name] == score, (name, by_name[name])
    files = [item for item in out.iterdir() if item.is_file() and item.suffix == ".json"]
    assert len(files) == 30, sorted(item.name for item in out.iterdir())
    assert all(json.loads(item.read_text())["tests"] is not None for item in files)


# ---------------------------------------------------------------------------- fail closed
def test_without_the_sandbox_grading_is_refused(tmp_path: Path, capsys, monkeypatch) -> None:
    path = tmp_path / FILE01
    path.write_text(python_file_text(LESSON01, solutions=True))
    monkeypatch.setenv(SIMULATE_ENV, "no Landlock here (simulated)")
    assert cli_main(["grade", str(path)]) == 3
    message = capsys.readouterr().err
    assert "no Landlock here (simulated)" in message
    assert "--container IMAGE" in message and "--no-sandbox" in message
    with pytest.raises(SandboxUnavailable, match="simulated"):
        grade_submission(path)
    # Trusted code, by choice: graded without the sandbox.
    assert cli_main(["grade", str(path), "--no-sandbox", "--json", str(tmp_path / "r.json")]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["score"] == 15


# ---------------------------------------------------------------------------- what a child reads
def test_a_folder_holding_the_package_is_granted_around_it(tmp_path: Path) -> None:
    from minigrad.grading.sandbox import runtime

    site = tmp_path / "site-packages"
    for name in ("minigrad/exercises/lessons", "numpy/core"):
        (site / name).mkdir(parents=True)
    (site / "six.py").write_text("")
    grants: list[list] = []
    runtime._grant(site, [(site / "minigrad").resolve()], grants, depth=0)
    granted = {Path(path).name: rights for path, rights in grants}
    assert granted == {"site-packages": runtime.READ_DIR,  # names only: imports list folders
                       "numpy": runtime.READ_FILE | runtime.READ_DIR,
                       "six.py": runtime.READ_FILE | runtime.READ_DIR}


def test_the_child_reads_no_exercise_sources() -> None:
    from minigrad.grading.sandbox import runtime

    copy = runtime.runtime_copy() / "minigrad" / "exercises"
    files = {str(path.relative_to(copy)) for path in copy.rglob("*.py")}
    assert files == set(runtime.CHILD_FILES)
    readable = [Path(path) for path, _ in runtime.readable_paths()]
    for path in readable:
        assert not runtime.PACKAGE.is_relative_to(path) or path == Path("/"), path


# ---------------------------------------------------------------------------- names and cells
def test_csv_cells_names_and_terminal_text_are_defused() -> None:
    from minigrad.grading.classroom import results_name
    from minigrad.grading.gradebook import csv_cell
    from minigrad.grading.names import printable

    assert [csv_cell(text) for text in ("=1+1", "+1", "-1", "@A1", "\tx", "alice")] == [
        "'=1+1", "'+1", "'-1", "'@A1", "'\tx", "alice"]
    assert printable("a\x1b[31mb\x07c\u202ed\n") == "a\\u{1b}[31mb\\u{7}c\\u{202e}d\n"
    assert results_name("alice") == "alice.json" and results_name("alice.py") == "alice.py.json"
    hashed = [results_name(name) for name in ("l" * 230, "../x", "=cmd", "\x1b[2J", "a/b")]
    assert all(len(name) < 80 and "/" not in name and "\x1b" not in name for name in hashed)
    assert len(set(hashed)) == len(hashed)
    assert results_name("=cmd")[0] not in "=+-@"


@needs_sandbox
def test_one_python_file_and_one_notebook_per_lesson(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    solution = python_file_text(LESSON01, solutions=True)
    for number in range(5):
        (folder / f"lesson01_try{number}.py").write_text(solution if number == 3 else
                                                         python_file_text(LESSON01))
    result = grade_submission(folder, find_lesson(1), seed=1)
    assert result.files == ["lesson01_try3.py"] and result.score == 15
    assert sum("one .py and one notebook per lesson" in note for note in result.notes) == 4


@needs_sandbox
def test_hostile_notebooks_cost_little_and_stop_nothing(tmp_path: Path) -> None:
    from minigrad.grading.submission import find_sources

    folder = tmp_path / "work"
    folder.mkdir()
    bad = {"a": {"cells": 5}, "b": {"cells": [7, {"cell_type": "code", "source": [1, 2]}]},
           "c": {"cells": [{"cell_type": "code", "source": "x = 1", "metadata": []}]},
           "d": [0] * 1_500_000}  # a 4.5 MB notebook of numbers: read in the helper
    for name, content in bad.items():
        (folder / f"01-{name}.ipynb").write_text(json.dumps(content))
    (folder / FILE01).write_text(python_file_text(LESSON01, solutions=True))
    sources, notes = find_sources(folder, find_lesson(1))
    assert sorted(source.path.name for source in sources) == ["01-c.ipynb", FILE01]
    assert sum("not a readable notebook" in note for note in notes) == 3, notes


@needs_sandbox
def test_the_child_holds_only_its_own_descriptors() -> None:
    from minigrad.grading.sandbox.host import Sandbox

    code = ("import os\ndef probe():\n    found = []\n    for fd in range(1024):\n"
            "        try:\n            os.fstat(fd)\n            found.append(fd)\n"
            "        except OSError:\n            pass\n    return found\n")
    for _ in range(2):  # the fork server's second child too
        with Sandbox(code, timeout=10) as box:
            outcome = box.run("probe", [()])[0]
            assert outcome.ok and outcome.value == [0, 1, 2, 3, 4]  # stdio, its two pipes
