"""The grader against clever, careless or hostile submissions, and against a busy instructor.

Every case: the grader keeps running, the submission gets 0 for what failed with a message that
says what happened, and a results file is written all the same. Tests that could kill the test
process if the sandbox failed run the grader in a subprocess.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from support.grading_results import by_exercise, needs_sandbox

from minigrad.cli import main as cli_main
from minigrad.grading.sandbox import host as sandbox_module
from minigrad.exercises.authoring.generate import python_file_text, write_exercises
from minigrad.grading.grader import grade_submission
from minigrad.exercises.authoring.source import source_path, student_file_name
from minigrad.course.catalog import find_lesson

LESSON01 = find_lesson(1)
LESSON02 = find_lesson(2)
FILE01 = student_file_name(LESSON01)
OTHERS = ("01.2", "01.3", "01.4", "01.5")

pytestmark = needs_sandbox  # every test here grades real code


def solution_with(folder: Path, extra: str, name: str = FILE01) -> Path:
    """Lesson 01's reference file with ``extra`` appended (a later ``def`` replaces one)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(python_file_text(LESSON01, solutions=True) + "\n\n"
                    + textwrap.dedent(extra), encoding="utf-8")
    return path


def grade_cli(path: Path, tmp_path: Path, *options: str) -> dict:
    """`minigrad grade` in this process; the Gradescope JSON it wrote."""
    results = tmp_path / "results.json"
    assert cli_main(["grade", str(path), "--json", str(results), "--timeout", "3",
                     *options]) == 0
    return json.loads(results.read_text())


def run_cli(*args: str, env: dict | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess:
    """`minigrad ...` in a separate process (safe even if a submission could kill its grader)."""
    return subprocess.run([sys.executable, "-m", "minigrad.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


def grade_subprocess(path: Path, tmp_path: Path, *options: str) -> dict:
    results = tmp_path / "results.json"
    done = run_cli("grade", str(path), "--json", str(results), "--timeout", "3", *options)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(results.read_text())


def assert_only_01_1_lost(results: dict, *phrases: str) -> str:
    table = by_exercise(results)
    score, max_score, output = table["01.1"]
    assert score == 0 and max_score == 2, output
    for phrase in phrases:
        assert phrase in output, output
    for exercise_id in OTHERS:
        assert table[exercise_id][0] == table[exercise_id][1] > 0, (exercise_id, table)
    assert results["score"] == pytest.approx(13.0)
    return output














def test_a_private_temporary_folder_still_works(tmp_path: Path, monkeypatch) -> None:
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    path = solution_with(tmp_path / "work", """
        import tempfile
        def composite_derivative(x):
            handle, name = tempfile.mkstemp()       # in its own folder
            return 2 * x * math.cos(x * x) * math.exp(math.sin(x * x))
        """)
    assert grade_submission(path, timeout=5).score == 15





def test_closing_or_redirecting_the_answer_pipe(tmp_path: Path) -> None:
    path = solution_with(tmp_path / "work", """
        import os
        def composite_derivative(x):
            for fd in range(3, 64):
                try:
                    os.dup2(1, fd)
                except OSError:
                    pass
            return 0.0
        """)
    # The request pipe now reads the output file: the child sees no more work and exits.
    assert_only_01_1_lost(grade_cli(path, tmp_path), "the process exited")


def test_stale_data_on_the_answer_pipe_restarts_the_child() -> None:
    with sandbox_module.Sandbox(python_file_text(LESSON01, solutions=True), timeout=5) as box:
        assert box.run("composite_derivative", [(1.0,)])[0].ok
        first = box.process.pid
        box._channel.buffer += b'{"case": 0, "ok": true, "value": 24.0}\n'  # left by a stray thread
        outcome = box.run("composite_derivative", [(0.0,)])[0]
        assert outcome.ok and outcome.value == 0.0 and box.process.pid != first


def test_blocking_sigterm_and_hanging(tmp_path: Path) -> None:
    path = solution_with(tmp_path / "work", """
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        def composite_derivative(x):
            while True:
                pass
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path, "--timeout", "1"), "longer than 1 s")


# ---------------------------------------------------------------------------- answers
@pytest.mark.parametrize("body, phrase", [
    ("return 'x' * 2_000_000", "more than 1 MB"),
    # each answer under 1 MB, all more: decoding ~1 MB answers of every case cost the grader 16 s
    ("return [0] * 300_000", "more than 1 MB"),
    ("return __import__('functools').reduce(lambda a, _: [a], range(5000), [])",
     "nested more than 100 levels"),
    ("return {str(i): i for i in range(50_000)}", "expected a number"),
    ("return float('nan')", "got nan"),
    ("return float('inf')", "got inf"),
    ("return object()", "cannot be graded"),
    ("return composite_derivative(x)", "RecursionError"),
    ("return input('x? ')", "EOFError"),
])
def test_strange_answers(tmp_path: Path, body: str, phrase: str) -> None:
    path = solution_with(tmp_path / "work", f"""
        def composite_derivative(x):
            {body}
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path), phrase)


def test_a_stack_overflow_crash_is_contained(tmp_path: Path) -> None:
    path = solution_with(tmp_path / "work", """
        import sys
        sys.setrecursionlimit(10**7)
        def composite_derivative(x):
            return sorted([x], key=composite_derivative)[0] + 1   # C frames: the C stack fills
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path), "killed by signal")


def test_numpy_scalars_are_plain_answers(tmp_path: Path) -> None:
    path = solution_with(tmp_path / "work", """
        import numpy as np
        _reference = composite_derivative
        def composite_derivative(x):
            return np.float32(_reference(x)) if abs(x) < 0 else np.float64(_reference(x))
        """)
    assert grade_cli(path, tmp_path)["score"] == 15


def test_malicious_eq_does_not_cross_the_boundary(tmp_path: Path) -> None:
    path = solution_with(tmp_path / "work", """
        import numpy as np
        class Liar(float):
            def __eq__(self, other): return True
            def __ne__(self, other): return False
            def __sub__(self, other): return 0.0
            def __rsub__(self, other): return 0.0
            def __abs__(self): return 0.0
            def __repr__(self): return "24.0"
        class LiarArray(np.ndarray):
            def __eq__(self, other): return np.ones(np.shape(other), bool)
            def tolist(self): return [24.0]
        def composite_derivative(x):
            return Liar(-1.0)
        def several_paths(a, b, c):
            return np.zeros(3).view(LiarArray)
        """)
    table = by_exercise(grade_cli(path, tmp_path))
    assert table["01.1"][0] == 0 and "expected" in table["01.1"][2]
    assert table["01.2"][0] == 0
    assert table["01.3"][0] == table["01.3"][1]


def test_unicode_everywhere(tmp_path: Path) -> None:
    path = solution_with(tmp_path / "work", """
        print("héllo ✓ 😀 \\u2028")
        def composite_derivative(x):
            print("ünïcødé ✓")
            raise ValueError("ünïcødé ✓ 😀 \\udcff")
        def several_paths(a, b, c):
            return {"d\\udcffa": 1.0}
        """)
    env = dict(os.environ, PYTHONIOENCODING="ascii", LC_ALL="C")
    results = tmp_path / "results.json"
    done = run_cli("grade", str(path), "--json", str(results), env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ValueError" in done.stdout
    loaded = json.loads(results.read_text())
    json.dumps(loaded, ensure_ascii=False).encode("utf-8")  # no lone surrogates: valid UTF-8
    table = by_exercise(loaded)
    assert table["01.1"][0] == 0 and "ünïcødé" in table["01.1"][2]
    assert table["01.2"][0] == 0 and table["01.3"][0] == 3


# ---------------------------------------------------------------------------- files and imports
def test_changing_cwd_and_deleting_its_folder(tmp_path: Path) -> None:
    path = solution_with(tmp_path / "work", """
        import os
        def composite_derivative(x):
            for name in os.listdir("."):
                if os.path.isfile(name):
                    os.remove(name)              # its own files: allowed
            os.chdir("/")
            os._exit(3)
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path), "exited with code 3")


def test_a_slow_import_within_the_limit_is_fine(tmp_path: Path) -> None:
    path = solution_with(tmp_path / "work", "import time\ntime.sleep(0.7)\n")
    # Only the submission's own import counts against the limit, not Python's and numpy's.
    assert grade_cli(path, tmp_path, "--timeout", "1.5")["score"] == 15


def test_sleeping_at_import_time(tmp_path: Path) -> None:
    path = solution_with(tmp_path / "work", "import time\ntime.sleep(30)\n")
    started = time.monotonic()
    results = grade_cli(path, tmp_path, "--timeout", "1")
    assert time.monotonic() - started < 15
    assert results["score"] == 0
    assert all("longer than 1 s while importing" in test["output"] for test in results["tests"])


def test_a_sandbox_that_cannot_start_says_why(tmp_path: Path) -> None:
    from minigrad.grading.grader import Options
    from minigrad.grading.reports import gradescope_results

    path = solution_with(tmp_path / "work", "")  # the command line refuses --memory 20 first
    result = grade_submission(path, LESSON01, options=Options(seed=0, timeout=3, memory_mb=20))
    results = gradescope_results(result)
    assert results["score"] == 0
    assert "--memory" in results["tests"][0]["output"]


def test_a_notebook_with_ipython_calls_and_no_exercise_tags(tmp_path: Path) -> None:
    cells = ["%matplotlib inline\nget_ipython().run_line_magic('load_ext', 'autoreload')",
             "\n%%bash\necho this cell is a shell script\nls -l",  # not Python: left out
             "%%time\nimport math",                                # Python: kept
             python_file_text(LESSON01, solutions=True), "display(composite_derivative(1.0))"]
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
                           "execution_count": None, "source": text} for text in cells],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "homework.ipynb"
    path.write_text(json.dumps(notebook))
    assert grade_cli(path, tmp_path)["score"] == 15


def test_a_submission_uploaded_as_one_folder_is_one_student(tmp_path: Path) -> None:
    # Gradescope: /autograder/submission/my-work/lesson01_derivatives.py — results.json must
    # be one student's results, not a class's.
    submission = tmp_path / "submission"
    write_exercises(LESSON01, submission / "my-work", solutions=True)
    results = grade_cli(submission, tmp_path, "--lesson", "1")
    assert results["score"] == 15 and len(results["tests"]) == 10


def test_a_process_that_cannot_start_is_reported(tmp_path: Path, monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(sandbox_module.subprocess, "Popen", refuse)
    monkeypatch.setattr(sandbox_module.zygote, "client", lambda path: None)  # no fork server
    result = grade_submission(solution_with(tmp_path / "work", ""), timeout=2)
    assert result.score == 0 and len(result.exercises) == 5
    assert "could not start a process" in result.exercises[0].feedback


# ---------------------------------------------------------------------------- a class
def make_class(root: Path) -> Path:
    klass = root / "class"
    write_exercises(LESSON01, klass / "alice", solutions=True)          # full marks
    solution_with(klass, "", name="alice.py")                           # same name as a folder
    solution_with(klass, "", name="bob.py")                             # one file
    (klass / "carol.ipynb").write_text("{ this is not json")            # corrupt notebook
    (klass / "dave").mkdir()                                            # empty folder
    (klass / "erin").mkdir()
    (klass / "erin" / "notes.ipynb").write_text(json.dumps({            # no exercise cells
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": "# notes"}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    write_exercises(LESSON02, klass / "frank", solutions=True)          # the wrong lesson
    (klass / "gina").mkdir()
    (klass / "gina" / FILE01).write_bytes(                              # not UTF-8
        b"# caf\xe9 \xff\n" + python_file_text(LESSON01, solutions=True).encode())
    (klass / "hank").mkdir()
    (klass / "hank" / FILE01).symlink_to(source_path(LESSON01))        # a link to the answers
    (klass / "ivan").mkdir()
    solution_with(klass / "ivan", "import os\nos.kill(os.getppid(), 9)\n")  # reaches no one
    return klass


def test_every_class_member_gets_a_name_of_their_own(tmp_path: Path) -> None:
    """A file named by its full name must not take the stem of another (x.py.ipynb's stem is
    x.py): one result would overwrite the other's."""
    from minigrad.grading.class_folder import class_members

    (tmp_path / "x").mkdir()
    for name in ("x.py", "x.py.ipynb", "y.py", "y.ipynb", "z.ipynb"):
        (tmp_path / name).write_text("")
    members = class_members(tmp_path)
    assert [name for name, _ in members] == ["x", "x.py", "x.py.ipynb", "y.ipynb", "y.py", "z"]
    assert [path.name for _, path in members] == ["x", "x.py", "x.py.ipynb", "y.ipynb", "y.py",
                                                  "z.ipynb"]


def test_a_messy_class_folder(tmp_path: Path) -> None:
    klass = make_class(tmp_path)
    out, scores = tmp_path / "grades", tmp_path / "scores.csv"
    done = run_cli("grade", str(klass), "--class", "--lesson", "01", "--jobs", "2", "--timeout",
                   "3", "--out", str(out), "--csv", str(scores), "--json",
                   str(tmp_path / "all.json"))  # (--class: students as folders and files)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = list(csv.DictReader(scores.open(encoding="utf-8")))
    names = [row["student_id"] for row in rows]
    assert names == sorted(names) and len(names) == len(set(names))
    assert set(names) == {"alice", "alice.py", "bob", "carol", "dave", "erin", "frank", "gina",
                          "hank", "ivan"}
    assert list(rows[0])[:8] == ["student_id", "total", "points_possible", "01.1", "01.2",
                                 "01.3", "01.4", "01.5"]
    totals = {row["student_id"]: float(row["total"]) for row in rows}
    assert totals == {"alice": 15, "alice.py": 15, "bob": 15, "carol": 0, "dave": 0, "erin": 0,
                      "frank": 0, "gina": 15, "hank": 0, "ivan": 15}
    for row in rows:
        assert float(row["points_possible"]) == 15 and row["error"] == ""
        assert sum(float(row[column]) for column in list(row)[3:8]) == pytest.approx(
            float(row["total"]))
    every = json.loads((tmp_path / "all.json").read_text())
    assert set(every) == set(names)
    for name in names:
        assert json.loads((out / f"{name}.json").read_text())["score"] == totals[name]
    assert "symbolic link" in every["hank"]["output"]
    assert "not a readable notebook" in every["carol"]["output"]
    assert "10/10" in done.stderr


def test_a_class_without_lesson_warns_about_mixed_lessons(tmp_path: Path) -> None:
    klass = tmp_path / "class"
    write_exercises(LESSON01, klass / "alice", solutions=True)
    write_exercises(LESSON02, klass / "bob")
    done = run_cli("grade", str(klass), "--out", str(tmp_path / "out"), "--timeout", "3")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "different lessons" in done.stderr and "--lesson" in done.stderr


def is_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as handle:
            return "State:\tZ" not in handle.read()
    except OSError:
        return False


def test_killing_the_grader_keeps_finished_students(tmp_path: Path) -> None:
    klass = tmp_path / "class"
    write_exercises(LESSON01, klass / "a-fast", solutions=True)
    solution_with(klass / "z-slow", "import time\ntime.sleep(60)\n")
    out = tmp_path / "out"
    grader = subprocess.Popen([sys.executable, "-m", "minigrad.cli", "grade", str(klass),
                               "--lesson", "1", "--jobs", "1", "--timeout", "30", "--out",
                               str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (out / "a-fast.json").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        children = [int(pid) for task in Path(f"/proc/{grader.pid}/task").iterdir()
                    for pid in (task / "children").read_text().split()]
    finally:
        grader.kill()
        grader.wait()
    assert json.loads((out / "a-fast.json").read_text())["score"] == 15
    time.sleep(0.5)  # the sleeping child dies with its grader (PR_SET_PDEATHSIG)
    assert children and not [pid for pid in children if is_alive(pid)]
    rows = list(csv.DictReader((out / "scores.csv").open()))
    assert [(row["student_id"], row["total"]) for row in rows] == [("a-fast", "15")]
    assert not [item for item in out.iterdir() if item.name.endswith(".tmp")]


def test_sigterm_stops_a_class_run_and_keeps_what_is_done(tmp_path: Path) -> None:
    klass = tmp_path / "class"
    write_exercises(LESSON01, klass / "a-fast", solutions=True)
    for name in ("m-slow", "n-slow", "o-slow"):
        solution_with(klass / name, "import time\ntime.sleep(60)\n")
    out = tmp_path / "out"
    grader = subprocess.Popen([sys.executable, "-m", "minigrad.cli", "grade", str(klass),
                               "--lesson", "1", "--jobs", "1", "--timeout", "2", "--out",
                               str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    deadline = time.monotonic() + 60
    while not (out / "a-fast.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    grader.send_signal(signal.SIGTERM)
    _, err = grader.communicate(timeout=30)
    assert grader.returncode == 130 and "interrupted" in err
    assert json.loads((out / "a-fast.json").read_text())["score"] == 15
    assert len(list(out.glob("*.json"))) <= 2  # the one being graded may finish; no more


# ---------------------------------------------------------------------------- the command line
@pytest.mark.parametrize("lesson", ["", "0", "99", "-1", "1.5", "xyz", "09"])
def test_bad_lesson_values(tmp_path: Path, lesson: str, capsys) -> None:
    path = solution_with(tmp_path / "work", "")
    assert cli_main(["grade", str(path), "--lesson", lesson]) == 2
    message = capsys.readouterr().err
    assert "minigrad grade:" in message and ("no lesson" in message or "no exercises" in message)


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf"])
def test_bad_timeouts(tmp_path: Path, timeout: str, capsys) -> None:
    path = solution_with(tmp_path / "work", "")
    assert cli_main(["grade", str(path), "--timeout", timeout]) == 2
    assert "--timeout must be a positive number" in capsys.readouterr().err


@pytest.mark.parametrize("option, value, phrase", [
    ("--seed", "-1", "--seed must be"), ("--jobs", "0", "--jobs must be"),
    ("--memory", "0", "--memory must be"),
    ("--memory", "10", "give at least 256 (the default is 2048)")])
def test_bad_numbers(tmp_path: Path, option: str, value: str, phrase: str, capsys) -> None:
    path = solution_with(tmp_path / "work", "")
    assert cli_main(["grade", str(path), option, value]) == 2
    assert phrase in capsys.readouterr().err


def test_json_paths(tmp_path: Path, capsys) -> None:
    path = solution_with(tmp_path / "work", "")
    deep = tmp_path / "not" / "yet" / "results.json"
    assert cli_main(["grade", str(path), "--json", str(deep)]) == 0
    assert json.loads(deep.read_text())["score"] == 15
    assert cli_main(["grade", str(path), "--json", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert cli_main(["grade", str(path), "--json", str(path / "results.json")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


linux_only = pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux's /sys")


@linux_only
@pytest.mark.parametrize("option, target, phrase", [
    ("--json", "/sys/r.json", "cannot write --json /sys/r.json: Permission denied"),
    ("--csv", "/sys/s.csv", "cannot write --csv /sys/s.csv: Permission denied"),
    ("--json", "/sys/new/deeper/r.json", "cannot write --json /sys/new/deeper/r.json: "),
])
def test_results_that_cannot_be_written_are_refused_before_grading(
        tmp_path: Path, option: str, target: str, phrase: str, capsys, monkeypatch) -> None:
    path = solution_with(tmp_path / "work", "")
    graded = []
    monkeypatch.setattr("minigrad.grading.grader.grade_submission",
                        lambda *args, **kwargs: graded.append(args))
    assert cli_main(["grade", str(path), option, target]) == 2
    message = capsys.readouterr().err
    assert message.startswith("minigrad grade: " + phrase) and "before grading" in message
    assert graded == []


@linux_only
def test_a_class_whose_results_folder_cannot_be_written_is_refused_before_grading(
        tmp_path: Path, capsys) -> None:
    for student in ("alice", "bob"):
        solution_with(tmp_path / "class" / student, "")
    assert cli_main(["grade", str(tmp_path / "class"), "--out", "/sys/grades"]) == 2
    assert "cannot write --out /sys/grades: Permission denied" in capsys.readouterr().err
    assert cli_main(["grade", str(tmp_path / "class"), "--csv", "/sys/scores.csv"]) == 2
    assert "cannot write --csv /sys/scores.csv" in capsys.readouterr().err
    assert not (tmp_path / "class-grades").exists()  # nothing graded, nothing written


def test_a_writable_destination_check_leaves_nothing_behind(tmp_path: Path) -> None:
    path = solution_with(tmp_path / "work", "")
    results = tmp_path / "out" / "results.json"
    assert cli_main(["grade", str(path), "--json", str(results), "--csv",
                     str(tmp_path / "scores.csv")]) == 0
    assert sorted(item.name for item in tmp_path.iterdir()) == ["out", "scores.csv", "work"]
    assert [item.name for item in results.parent.iterdir()] == ["results.json"]


def test_exit_code_is_zero_whatever_the_score(tmp_path: Path) -> None:
    path = solution_with(tmp_path / "work", "raise SystemExit(5)\n")
    done = run_cli("grade", str(path), "--json", str(tmp_path / "r.json"))
    assert done.returncode == 0 and json.loads((tmp_path / "r.json").read_text())["score"] == 0


@pytest.mark.parametrize("lesson, code", [("1", 0), ("01", 0), ("derivatives", 0),
                                          ("bad", 2), ("0", 2), ("9", 2)])
def test_exercises_lesson_values(tmp_path: Path, lesson: str, code: int) -> None:
    assert cli_main(["exercises", lesson, "--to", str(tmp_path / "out")]) == code
    assert (tmp_path / "out" / FILE01).exists() == (code == 0)


def test_exercises_never_lose_work(tmp_path: Path, capsys) -> None:
    work = tmp_path / "work"
    assert cli_main(["exercises", "1", "--to", str(work)]) == 0
    assert cli_main(["exercises", "1", "--to", str(work)]) == 0  # same content: fine
    mine = (work / FILE01).read_text().replace("raise NotImplementedError", "return 42", 1)
    (work / FILE01).write_text(mine)
    assert cli_main(["exercises", "1", "--to", str(work)]) == 2
    assert "--force" in capsys.readouterr().err
    assert (work / FILE01).read_text() == mine
    assert cli_main(["exercises", "1", "--to", str(work), "--solutions"]) == 2
    assert (work / FILE01).read_text() == mine
    assert cli_main(["exercises", "1", "--to", str(work), "--force"]) == 0
    assert (work / (FILE01 + ".bak")).read_text() == mine
    assert "return 42" not in (work / FILE01).read_text()
    assert cli_main(["exercises", "1", "--to", str(work / FILE01)]) == 2


def test_progress_and_csv_for_a_small_class(tmp_path: Path) -> None:
    klass = tmp_path / "class"
    for name in ("b", "a", "c"):
        write_exercises(LESSON01, klass / name, solutions=(name != "c"))
    scores = tmp_path / "s.csv"
    done = run_cli("grade", str(klass), "--jobs", "2", "--csv", str(scores), "--out",
                   str(tmp_path / "out"), "--timeout", "3")
    assert done.returncode == 0
    assert "grading: 100%" in done.stderr and "3/3" in done.stderr  # the tqdm bar
    rows = list(csv.reader(scores.open()))
    assert rows[0][:3] == ["student_id", "total", "points_possible"]
    assert [row[:3] for row in rows[1:]] == [["a", "15", "15"], ["b", "15", "15"],
                                             ["c", "0", "15"]]
    assert "a" in done.stdout and "15.00" in done.stdout


def test_a_symlink_planted_in_the_results_folder_is_not_followed(tmp_path: Path) -> None:
    """The temporary file of an atomic write had a predictable name (.PID.TID.tmp) opened
    without O_EXCL: a symlink planted there made a root grader overwrite any file."""
    import os
    import threading

    from minigrad.grading.classroom import write_text_atomic

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    results = tmp_path / "results"
    results.mkdir()
    for name in (f".{os.getpid()}.{threading.get_ident()}.tmp", ".results.json.tmp"):
        (results / name).symlink_to(victim)
    write_text_atomic(results / "results.json", '{"score": 1}')
    assert victim.read_text() == "precious"
    assert not (results / "results.json").is_symlink()
    assert (results / "results.json").read_text() == '{"score": 1}'
    assert oct((results / "results.json").stat().st_mode & 0o777) == "0o644"


def test_many_files_do_not_keep_the_grader_reading(tmp_path: Path) -> None:
    """A dozen 2 MB files in one student's folder took a minute of parsing before any graded
    code ran (hours with the 2 000-entry cap): the grader reads a bounded amount of code,
    lesson-named files first, and says so."""
    import time

    from minigrad.grading.submission import MAX_FILES_READ, find_sources

    folder = tmp_path / "mallory"
    write_exercises(LESSON01, folder, solutions=True)
    filler = "x = 1\n" * 2_000  # small files: the count is what is capped here
    for index in range(MAX_FILES_READ + 8):
        (folder / f"aa_notes_{index:02d}.py").write_text(f"# {index}\n" + filler)
    sources, notes = find_sources(folder)
    assert sorted(source.path.name for source in sources) == ["01-derivatives.ipynb", FILE01]
    assert any("stopped reading files after 32" in note for note in notes), notes


def test_many_large_notebooks_do_not_keep_the_grader_reading(tmp_path: Path,
                                                             monkeypatch) -> None:
    """32 notebooks of 10 MB holding no code (well under the cap on code read) took the grader
    110 s to read and parse for one student: the bytes read are capped too, before parsing."""
    from minigrad.grading import submission

    folder = tmp_path / "mallory"
    write_exercises(LESSON01, folder, solutions=True)
    padding = json.dumps({"cells": [], "metadata": {"pad": "x" * 5_000_000}, "nbformat": 4,
                          "nbformat_minor": 5})
    for index in range(12):
        (folder / f"aa_notes_{index:02d}.ipynb").write_text(padding)
    parsed = []
    real = submission.notebook_cells
    monkeypatch.setattr(submission, "notebook_cells", lambda text: parsed.append(1) or real(text))
    sources, notes = submission.find_sources(folder)
    assert sorted(source.path.name for source in sources) == ["01-derivatives.ipynb", FILE01]
    assert len(parsed) <= 1 + 30 // 5, len(parsed)  # its own notebook, then 30 MB in all
    assert any("stopped reading files after" in note for note in notes), notes


def test_student_names_that_only_look_alike_or_do_not_decode_stay_apart(tmp_path: Path,
                                                                         capsys) -> None:
    """Bob/ and bob.py shared one results file on a disk that ignores case; a zero-width
    space made 'alice\\u200b' look like 'alice'; an undecodable folder name put lone
    surrogates into the class JSON and raw invalid UTF-8 into the CSV."""
    klass = tmp_path / "class"
    stub = python_file_text(LESSON01, solutions=False)
    for name in ("Bob", "alice\u200b", os.fsdecode(b"carol\xff")):
        (klass / name).mkdir(parents=True)
        (klass / name / FILE01).write_text(stub)
    (klass / "bob.py").write_text(stub)
    out, scores, everything = tmp_path / "out", tmp_path / "scores.csv", tmp_path / "all.json"
    assert cli_main(["grade", str(klass), "--class", "--out", str(out), "--csv", str(scores),
                     "--json", str(everything), "--lesson", "01"]) == 0
    names = sorted(path.name for path in out.iterdir())
    assert len(names) == 4 and len({name.casefold() for name in names}) == 4, names
    scores.read_bytes().decode("utf-8")  # valid UTF-8 throughout
    assert "\u200b" not in scores.read_text()
    keys = json.loads(everything.read_bytes().decode("utf-8"))
    assert len(keys) == 4 and not any("\udcff" in key for key in keys), keys
    assert "alice\\u{200b}" in capsys.readouterr().out
