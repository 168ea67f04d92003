"""The grader: full marks for the solutions, nothing for stubs, and every way student code can
misbehave is contained — with a clear message and a results file all the same."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.grading_results import by_exercise, needs_sandbox

from minigrad.cli import main as cli_main
from minigrad.exercises.authoring.generate import python_file_text, write_exercises
from minigrad.grading.grader import answer_key, grade_submission
from minigrad.grading.reports import gradescope_results
from minigrad.exercises.authoring.source import BUILTIN, student_file_name
from minigrad.course.catalog import find_lesson

LESSON01 = find_lesson(1)
FILE01 = student_file_name(LESSON01)

pytestmark = needs_sandbox  # every test here grades real code


def solution_with(tmp_path: Path, extra: str, name: str = FILE01) -> Path:
    """Lesson 01's reference file with ``extra`` appended (a later ``def`` replaces one)."""
    path = tmp_path / name
    path.write_text(python_file_text(LESSON01, solutions=True) + "\n\n"
                    + textwrap.dedent(extra), encoding="utf-8")
    return path


def grade_cli(path: Path, tmp_path: Path, *options: str) -> dict:
    """Run `minigrad grade` in-process; return the Gradescope JSON it wrote."""
    results = tmp_path / "results.json"
    assert cli_main(["grade", str(path), "--json", str(results), *options]) == 0
    return json.loads(results.read_text())


def assert_only_01_1_lost(results: dict, *phrases: str) -> None:
    table = by_exercise(results)
    score, max_score, output = table["01.1"]
    assert score == 0 and max_score == 2
    for phrase in phrases:
        assert phrase in output, output
    for exercise_id in ("01.2", "01.3", "01.4", "01.5"):
        assert table[exercise_id][0] == table[exercise_id][1] > 0, (exercise_id, table)
    assert results["score"] == pytest.approx(13.0)


# ---------------------------------------------------------------------------- marks
# Every lesson's solutions and stubs are graded once, under the strict seccomp filter, in
# test_every_lesson_graded.py.


def test_partial_credit_is_per_case(tmp_path: Path) -> None:
    # Right at x = 1 only: 1 of the 3 visible cases, none of the hidden ones.
    path = solution_with(tmp_path, """
        def composite_derivative(x):
            return 2 * math.exp(math.sin(1.0)) * math.cos(1.0)   # f'(1) for f = exp(sin(x²))
        """)
    result = grade_submission(path, seed=5)
    item = result.exercises[0]
    assert len(item.cases) == 8
    assert item.score == pytest.approx(2 * 1 / 8)
    assert item.status == "1/8 cases"
    assert "a hidden case" in item.feedback or "composite_derivative" in item.feedback


def test_hidden_cases_follow_the_seed(tmp_path: Path) -> None:
    path = solution_with(tmp_path, "")
    first = grade_submission(path, seed=123)
    other = grade_submission(path, seed=124)
    assert (first.seed, other.seed) == (123, 124)
    hidden = lambda seed: [case.args for cases in answer_key(BUILTIN, LESSON01, seed).values()  # noqa: E731
                           for case in cases if not case.visible]
    assert hidden(123) == hidden(123) != hidden(124)
    assert gradescope_results(first)["extra_data"]["seed"] == 123
    # The calls of hidden cases are not in the results (see test_hidden_cases.py).
    calls = [case.call for item in first.exercises for case in item.cases if not case.visible]
    assert calls and set(calls) == {""}


def test_gradescope_format(tmp_path: Path) -> None:
    results = grade_cli(solution_with(tmp_path, ""), tmp_path)
    assert results["score"] == 15
    assert isinstance(results["extra_data"]["seed"], int)
    visibilities = {test["visibility"] for test in results["tests"]}
    assert visibilities == {"visible", "after_published"}
    for test in results["tests"]:
        assert set(test) == {"name", "score", "max_score", "output", "visibility"}
        assert 0 <= test["score"] <= test["max_score"]
    assert sum(test["max_score"] for test in results["tests"]) == pytest.approx(15)


# ---------------------------------------------------------------------------- failure modes
def test_a_hang_is_stopped_and_the_rest_still_graded(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        def composite_derivative(x):
            while True:
                pass
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path, "--timeout", "1"), "longer than 1 s")


def test_sys_exit_in_a_function(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        import sys
        def composite_derivative(x):
            sys.exit(3)
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path), "sys.exit(3)")


def test_os_exit_in_a_function(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        import os
        def composite_derivative(x):
            os._exit(7)
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path), "exited with code 7")


def test_sys_exit_while_importing(tmp_path: Path) -> None:
    path = solution_with(tmp_path, "import sys\nsys.exit(0)\n")
    results = grade_cli(path, tmp_path)
    assert results["score"] == 0
    assert all("could not be imported" in test["output"] and "sys.exit(0)" in test["output"]
               for test in results["tests"])


def test_os_exit_while_importing(tmp_path: Path) -> None:
    path = solution_with(tmp_path, "import os\nos._exit(0)\n")
    results = grade_cli(path, tmp_path)
    assert results["score"] == 0
    assert "exited with code 0" in results["tests"][0]["output"]


def test_a_memory_bomb_is_refused(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        def composite_derivative(x):
            hog = bytearray(64 * 2**30)
            return -1.0
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path, "--memory", "1024"), "out of memory")


def test_a_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = solution_with(tmp_path, "def composite_derivative(x)\n    return 1\n")
    results = grade_cli(path, tmp_path)
    assert results["score"] == 0
    output = results["tests"][0]["output"]
    assert "SyntaxError at line" in output and "def composite_derivative(x)" in output
    assert FILE01 in output


def test_an_import_error(tmp_path: Path) -> None:
    path = solution_with(tmp_path, "import a_module_that_does_not_exist\n")
    results = grade_cli(path, tmp_path)
    assert results["score"] == 0
    assert "ModuleNotFoundError" in results["tests"][0]["output"]


def test_an_exception_is_reported_with_its_line(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        def composite_derivative(x):
            raise ValueError("my bug")
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path), "ValueError: my bug", "line")


def test_garbage_output_is_refused(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        class Strange:
            pass
        def composite_derivative(x):
            return Strange()
        def several_paths(a, b, c):
            return "forty-five"
        """)
    table = by_exercise(grade_cli(path, tmp_path))
    assert table["01.1"][0] == 0 and "cannot be graded" in table["01.1"][2]
    assert table["01.2"][0] == 0 and "expected a dict" in table["01.2"][2]
    assert table["01.3"][0] == 3


def test_a_print_flood_is_cut_off(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        def composite_derivative(x):
            while True:
                print("spam " * 10000)
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path, "--timeout", "5"), "output")


def test_prints_do_not_disturb_the_answers(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        import os, sys
        print('{"case": 0, "ok": true, "value": 0}')
        _reference = composite_derivative
        def composite_derivative(x):
            print("debugging", x)
            sys.stderr.write("more noise\\n")
            os.write(1, b"\\n{}\\n")
            return _reference(x)
        """)
    assert grade_cli(path, tmp_path)["score"] == 15


def test_patching_numpy_does_not_fool_the_comparison(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        import numpy
        numpy.allclose = lambda *args, **kwargs: True
        numpy.isclose = lambda *args, **kwargs: True
        numpy.abs = lambda x: 0 * x
        numpy.array_equal = lambda *args, **kwargs: True
        def composite_derivative(x):
            return -1.0
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path), "expected")


def test_patching_the_grader_modules_does_not_help(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        import minigrad.exercises.spec as spec
        import minigrad.exercises.codec as codec
        spec.close = lambda *a, **k: (lambda expected, got: None)
        spec.compare_values = lambda *args: None
        try:
            import minigrad.grading.grader as grader
            grader.compare_values = lambda *args: None
        except ImportError:
            pass
        try:
            from minigrad.exercises.lessons import lesson01
        except ImportError:
            lesson01 = None
        def composite_derivative(x):
            assert lesson01 is None, "the reference solutions were importable"
            return -1.0
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path), "expected")


def test_patching_json_does_not_forge_results(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        import json
        json.dumps = lambda *args, **kwargs: '{"case": 0, "ok": true, "value": 24.0}'
        json.loads = lambda *args, **kwargs: {"quit": True}
        def composite_derivative(x):
            return -1.0
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path), "expected")


def test_junk_on_the_answer_channel_is_refused(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        import os
        def composite_derivative(x):
            for fd in range(3, 64):
                try:
                    os.write(fd, b"this is not json\\n")
                except OSError:
                    pass
            return -1.0
        """)
    table = by_exercise(grade_cli(path, tmp_path))
    assert table["01.1"][0] == 0 and "corrupted" in table["01.1"][2]
    assert table["01.5"][0] == 4  # a fresh process grades the rest


def test_the_printed_table_is_followed_by_whole_feedback_and_hints(tmp_path: Path,
                                                                  capsys) -> None:
    """The table cuts feedback to one short line; under it each failed exercise gets its whole
    message (the value it got) and the exercise's hint."""
    path = solution_with(tmp_path, """
        def composite_derivative(x):
            return 1234.5678
        """)
    grade_cli(path, tmp_path)
    printed = capsys.readouterr().out
    details = printed[printed.index("  total"):]
    assert "01.1: composite_derivative(1.0): expected" in details and "got 1234.5678" in details
    assert "hint: Peel the three functions" in details and "01.2:" not in details
    assert "exp'(s) = exp(s)" not in details  # the formula is shown only to who asks


def test_forged_array_encodings_are_bad_output_not_a_grader_crash(tmp_path: Path) -> None:
    """Encodings that only a patched encoder sends (a special float that is not one, a dict
    without its tag, a shape too large for an int) were decoded with errors the grader did
    not catch: it stopped with a traceback and lost the student's other exercises."""
    path = solution_with(tmp_path, """
        import itertools
        import minigrad.exercises.codec as codec
        forged = itertools.cycle([
            {"__ndarray__": {"dtype": "float64", "shape": [1], "data": [{"__float__": None}]}},
            {"__ndarray__": {"dtype": "float64", "shape": [1], "data": [{"no tag": 1}]}},
            {"__ndarray__": {"dtype": "float64", "shape": [1e400], "data": [1.0]}},
            # 3 000 huge dims: math.prod of them took the grader minutes, holding the GIL
            {"__ndarray__": {"dtype": "float64", "shape": [1e308] * 3000, "data": []}},
            {"__ndarray__": {"dtype": "float64", "shape": [2 ** 40] * 40, "data": []}},
            {"__ndarray__": {"dtype": "x" * 10**5, "shape": [1], "data": [1.0]}}])
        encode = codec._array_to_json
        codec._array_to_json = lambda array: next(forged) if array.shape == (1,) else encode(array)
        def composite_derivative(x):
            return np.zeros(1)
        """)
    results = grade_cli(path, tmp_path)
    assert_only_01_1_lost(results, "unreadable")
    assert max(len(test["output"]) for test in results["tests"]) < 20_000  # messages capped


def test_printed_memory_error_is_not_taken_for_the_grader_s(tmp_path: Path) -> None:
    """The child's output is the student's: printing "MemoryError" and exiting must not make
    the report tell the instructor that --memory is too small."""
    path = solution_with(tmp_path, """
        import os, sys
        def composite_derivative(x):
            sys.stdout.write("MemoryError")
            sys.stdout.flush()
            os._exit(1)
        """)
    table = by_exercise(grade_cli(path, tmp_path))
    assert "exited with code 1" in table["01.1"][2] and "If that MemoryError is real" in table["01.1"][2]


def test_a_forged_failure_kind_cannot_print_fake_rows(tmp_path: Path, capsys) -> None:
    """The status column comes from the child's "kind": only the kinds the worker sends are
    taken, and nothing in a row may break the line."""
    path = solution_with(tmp_path, """
        import minigrad.grading.sandbox.worker as worker
        worker._describe_failure = lambda error, depth=6: (
            "passed\\n  01.1 forged row 2.00 2 passed\\n  total 15.00 15\\n", "a\\nb")
        def composite_derivative(x):
            raise ValueError("wrong")
        """)
    results = grade_cli(path, tmp_path)
    printed = capsys.readouterr().out
    assert_only_01_1_lost(results)
    assert "forged row" not in printed and "raised" in printed and "a b" in printed


def test_a_byte_order_mark_and_a_lone_surrogate_are_read_as_text(tmp_path: Path) -> None:
    """Notepad starts a file with a byte-order mark, which `python file.py` accepts; a
    notebook's JSON may escape a lone surrogate, which cannot be encoded. Neither may turn a
    correct submission into a SyntaxError or a grader crash."""
    write_exercises(LESSON01, tmp_path / "solution", solutions=True)
    source = tmp_path / "solution" / FILE01
    with_bom = tmp_path / "bom" / FILE01
    with_bom.parent.mkdir()
    with_bom.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
    assert by_exercise(grade_cli(with_bom, tmp_path))["01.5"][0] == 4
    notebook = next((tmp_path / "solution").glob("*.ipynb"))
    data = json.loads(notebook.read_text(encoding="utf-8"))
    code = next(cell for cell in data["cells"] if cell["cell_type"] == "code")
    code["source"] = ["NOTE = '\\ud800'\n"] + list(code["source"])
    odd = tmp_path / "surrogate" / notebook.name
    odd.parent.mkdir()
    odd.write_text(json.dumps(data), encoding="utf-8")  # (ensure_ascii escapes it: \ud800)
    assert '\\ud800' in odd.read_text(encoding="utf-8")
    assert grade_cli(odd, tmp_path)["score"] == pytest.approx(15.0)


def test_student_code_cannot_rewrite_the_results(tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    # The write itself is refused now (PermissionError: another user id, and the guard);
    # a submission that swallows the refusal must still not change the results.
    path = solution_with(tmp_path, f"""
        def forge():
            try:
                open({str(results)!r}, "w").write('{{"score": 100, "tests": []}}')
            except OSError:
                pass
        forge()
        def composite_derivative(x):
            forge()
            return -1.0
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path), "expected")


def test_a_missing_function(tmp_path: Path) -> None:
    path = tmp_path / FILE01
    path.write_text("import math\ndef composite_derivative(x):\n    return 2 * x * math.cos(x * x) * math.exp(math.sin(x * x))\n")
    table = by_exercise(grade_cli(path, tmp_path))
    assert table["01.1"][0] == 2
    assert table["01.2"][0] == 0 and "no function named several_paths" in table["01.2"][2]


def test_changing_an_argument_in_place_fails_the_case(tmp_path: Path) -> None:
    """Exercises say "leave the arrays you are given as they are": 03.1 returns the right sum,
    but the caller's gradient is zeroed on the way. The grader says which argument changed.
    (08.1 used to show this; it is now an Optimizer, which updates in place by design.)"""
    lesson = find_lesson(3)
    path = tmp_path / student_file_name(lesson)
    path.write_text(python_file_text(lesson, solutions=True) + textwrap.dedent("""

        def sum_to_shape(grad, shape):
            extra_leading = grad.ndim - len(shape)
            stretched = tuple(extra_leading + axis for axis, size in enumerate(shape)
                              if size == 1 and grad.shape[extra_leading + axis] != 1)
            summed = grad.sum(axis=tuple(range(extra_leading)) + stretched, keepdims=True)
            grad[...] = 0.0  # the caller's array, changed
            return summed.reshape(shape)
        """), encoding="utf-8")
    table = by_exercise(grade_cli(path, tmp_path))
    score, max_score, feedback = table["03.1"]
    assert score == 0 and max_score > 0
    assert "changed its argument `grad` in place" in feedback
    assert all(table[other][0] == table[other][1] for other in ("03.2", "03.3", "03.4"))


# ---------------------------------------------------------------------------- inputs
def test_grading_a_notebook(tmp_path: Path) -> None:
    write_exercises(LESSON01, tmp_path / "solution", solutions=True)
    notebook = tmp_path / "solution" / f"{LESSON01.name}.ipynb"
    only = tmp_path / "only"
    only.mkdir()
    (only / notebook.name).write_bytes(notebook.read_bytes())
    results = grade_cli(only / notebook.name, tmp_path)
    assert results["score"] == 15
    assert results["extra_data"]["files"] == [notebook.name]


def test_a_notebook_without_tags_uses_all_code_cells(tmp_path: Path) -> None:
    reference = python_file_text(LESSON01, solutions=True)
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": source}
             for source in ["%matplotlib inline\n!echo hi", reference,
                            'check("01.1", composite_derivative)\nprint("ok")']]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "my work.ipynb"
    path.write_text(json.dumps(notebook))
    results = grade_cli(path, tmp_path, "--lesson", "derivatives")
    assert results["score"] == 15


def test_lesson_is_inferred_from_content(tmp_path: Path) -> None:
    path = tmp_path / "homework.py"
    path.write_text(python_file_text(LESSON01, solutions=True))
    assert grade_submission(path).score == 15


def test_a_folder_prefers_the_file_with_the_work(tmp_path: Path) -> None:
    # Student worked in the notebook; the .py file next to it is still the stub.
    write_exercises(LESSON01, tmp_path / "solution", solutions=True)
    write_exercises(LESSON01, tmp_path / "student")
    notebook = f"{LESSON01.name}.ipynb"
    (tmp_path / "student" / notebook).write_bytes((tmp_path / "solution" / notebook).read_bytes())
    result = grade_submission(tmp_path / "student")
    assert result.score == 15 and result.files == [notebook]


def test_nothing_to_grade_still_writes_results(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    results = grade_cli(empty, tmp_path, "--lesson", "1")
    assert results["score"] == 0 and len(results["tests"]) == 5


# ---------------------------------------------------------------------------- a class
def test_class_folder_csv_and_results(tmp_path: Path, capsys) -> None:
    klass = tmp_path / "class"
    write_exercises(LESSON01, klass / "alice", solutions=True)
    write_exercises(LESSON01, klass / "bob")
    (klass / "carol").mkdir()
    (klass / "carol" / "answers.py").write_text(
        "import math\ndef composite_derivative(x):\n    return 2 * x * math.cos(x * x) * math.exp(math.sin(x * x))\n")
    (klass / "dave").mkdir()
    (klass / "dave" / FILE01).write_text("import os\nos._exit(1)\n")
    scores = tmp_path / "scores.csv"
    out = tmp_path / "out"
    assert cli_main(["grade", str(klass), "--csv", str(scores), "--out", str(out), "--jobs", "3",
                     "--lesson", "01"]) == 0
    progress = capsys.readouterr().err
    assert "grading" in progress and "4/4" in progress  # the tqdm bar
    rows = list(csv.DictReader(scores.open()))
    assert [row["student_id"] for row in rows] == ["alice", "bob", "carol", "dave"]
    totals = {row["student_id"]: float(row["total"]) for row in rows}
    assert totals == {"alice": 15, "bob": 0, "carol": 2, "dave": 0}
    assert list(rows[0]) == ["student_id", "total", "points_possible", "01.1", "01.2", "01.3",
                             "01.4", "01.5", "error", "seed", "seconds", "graded_at"]
    for student in totals:
        assert json.loads((out / f"{student}.json").read_text())["score"] == totals[student]


def test_class_detection_and_names_a_student_cannot_steer(tmp_path: Path, capsys) -> None:
    """A top-level file whose name merely contains a lesson slug (``mlpeters.py``) no longer
    turns a class into one submission (a file at the top beside students' folders is refused
    as ambiguous until the instructor says --class); a folder named like another student's
    hashed results file (``O_Brien-<16 hex>``) no longer overwrites that student's results."""
    from minigrad.grading.classroom import results_name

    klass = tmp_path / "class"
    write_exercises(LESSON01, klass / "O'Brien", solutions=True)
    twin = results_name("O'Brien").removesuffix(".json")
    write_exercises(LESSON01, klass / twin)
    (klass / "mlpeters.py").write_text("print('my own notes')\n")
    out = tmp_path / "out"
    assert cli_main(["grade", str(klass), "--out", str(out), "--lesson", "01"]) == 2
    assert "mlpeters.py" in capsys.readouterr().err and not out.exists()
    assert cli_main(["grade", str(klass), "--class", "--out", str(out), "--lesson", "01"]) == 0
    assert json.loads((out / results_name("O'Brien")).read_text())["score"] == 15
    assert json.loads((out / results_name(twin)).read_text())["score"] == 0
    assert results_name(twin) != results_name("O'Brien")


def test_one_grades_a_folder_of_folders_as_one_submission(tmp_path: Path) -> None:
    """Gradescope: an upload with old/ and new/ is one student's, and results.json must be in
    Gradescope's format, not one entry per "student"."""
    upload = tmp_path / "submission"
    write_exercises(LESSON01, upload / "old")
    write_exercises(LESSON01, upload / "new", solutions=True)
    results = grade_cli(upload, tmp_path, "--one", "--lesson", "01")
    assert results["score"] == pytest.approx(15.0) and "tests" in results


# ---------------------------------------------------------------------------- the command line
def test_the_console_script_end_to_end(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "minigrad"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "minigrad.cli"]
    run = lambda *args: subprocess.run(command + list(args), capture_output=True, text=True,  # noqa: E731
                                       timeout=120)
    made = run("exercises", "1", "--to", str(tmp_path / "work"))
    assert made.returncode == 0, made.stderr
    graded = run("grade", str(tmp_path / "work"), "--json", str(tmp_path / "r.json"),
                 "--seed", "7")
    assert graded.returncode == 0, graded.stderr
    assert "not attempted" in graded.stdout and "seed 7" in graded.stdout
    assert json.loads((tmp_path / "r.json").read_text())["score"] == 0
    missing = run("grade", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_closing_the_answer_channel(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        import os
        def composite_derivative(x):
            for fd in range(3, 64):
                try:
                    os.close(fd)
                except OSError:
                    pass
            return -1.0
        """)
    assert_only_01_1_lost(grade_cli(path, tmp_path), "exited with code 1")


def test_check_calls_in_a_python_file_are_harmless(tmp_path: Path) -> None:
    path = solution_with(tmp_path, """
        from minigrad.exercises import check
        check("01.1", composite_derivative)
        """)
    assert grade_cli(path, tmp_path)["score"] == 15


def test_a_full_disk_is_named_not_reported_as_a_grader_bug(tmp_path: Path, monkeypatch,
                                                            capsys) -> None:
    import errno

    from minigrad.grading import classroom, grader

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(grader, "grade_submission", full)
    monkeypatch.setattr(classroom, "grade_submission", full)
    write_exercises(LESSON01, tmp_path / "alice")
    results = tmp_path / "results.json"
    assert cli_main(["grade", str(tmp_path / "alice" / FILE01), "--json", str(results)]) == 1
    message = capsys.readouterr().err
    assert "the disk is full" in message and "internal grader error" not in message
    assert "the disk is full" in json.loads(results.read_text())["output"]
    klass = tmp_path / "class"
    write_exercises(LESSON01, klass / "bob")
    write_exercises(LESSON01, klass / "carol")
    # In a class, the grader's own failure is an error (status 1), named, never a score.
    assert cli_main(["grade", str(klass), "--out", str(tmp_path / "out"), "--lesson", "01"]) == 1
    assert capsys.readouterr().out.count("the disk is full") == 2


def test_a_message_the_table_shows_whole_is_not_printed_again(tmp_path: Path, capsys) -> None:
    """Untouched exercises: 'not attempted yet' stands in the table; it was printed a second
    time under it for every exercise."""
    path = solution_with(tmp_path, """
        def composite_derivative(x):
            raise NotImplementedError
        """)
    grade_cli(path, tmp_path)
    printed = capsys.readouterr().out
    assert printed.count("not attempted yet (raises NotImplementedError)") == 1


def test_a_grader_process_leaves_no_socket_or_process_behind(tmp_path: Path) -> None:
    """The fork server (zygote) is stopped when the grader exits: Python's development mode
    reports any socket or child process still open then."""
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "lesson01.py").write_text(python_file_text(find_lesson(1), solutions=True),
                                        encoding="utf-8")
    done = subprocess.run([sys.executable, "-X", "dev", "-m", "minigrad", "grade", str(folder)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "ResourceWarning" not in done.stderr, done.stderr


def test_an_error_is_said_in_plain_words_with_the_students_own_line(tmp_path: Path) -> None:
    """numpy's "gufunc signature (n?,k),(k,m?)->(n?,m?)" reached the student as it was."""
    path = solution_with(tmp_path, """
        def composite_derivative(x):
            product = np.ones((2, 3)) @ np.ones((2, 3))
            return float(product[0, 0])
        """)
    output = by_exercise(grade_cli(path, tmp_path))["01.1"][2]
    assert "gufunc" not in output and "a matrix product A @ B whose sizes do not fit" in output
    assert "in composite_derivative: product = np.ones((2, 3)) @ np.ones((2, 3))" in output


def test_the_given_runners_lines_are_left_out_of_an_error() -> None:
    from minigrad.grading.grader import _students_error

    message = ("ZeroDivisionError: float division by zero\n"
               "  line 301, in run_optimizer: optimizer.step()\n"
               "  line 77, in step: corrected = lr / (1 - beta1 ** t)")
    assert _students_error(message) == ("ZeroDivisionError: float division by zero\n"
                                        "  line 77, in step: corrected = lr / (1 - beta1 ** t)")
