"""Hidden means hidden: for a hidden case a student learns its number and the kind of failure,
never its inputs, its expected answer, nor what the submission said about them; a regrade
draws new hidden cases unless the instructor asks for the same ones (``--same-cases``).

The attack these tests replay: answer 0, read (call, expected) pairs from the results, hand in
a lookup table, ask for a regrade."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from support.gradescope_bundles import run_autograder, stub_wheel
from support.grading_results import needs_sandbox

from minigrad.cli import main as cli_main
from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import BUILTIN, student_file_name
from minigrad.grading.grader import answer_key

LESSON01 = find_lesson(1)
FILE01 = student_file_name(LESSON01)
REFERENCE = python_file_text(LESSON01, solutions=True)
ZERO = "\n\ndef composite_derivative(x):\n    return 0.0\n"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def student_file(folder: Path, extra: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / FILE01).write_text(REFERENCE + extra, encoding="utf-8")
    return folder


def lookup_table(results_text: str) -> dict[float, float]:
    """What a student reads out of her results: every (x, expected) pair they quote."""
    table = {}
    for x, expected in re.findall(r"composite_derivative\(([-0-9.e+]+)\)[^\n\"]*?expected "
                                  r"([-0-9.e+]+)", results_text):
        table[float(x)] = float(expected)
    return table


def table_file(table: dict[float, float]) -> str:
    return ("\n\nTABLE = " + repr(table) + "\n\ndef composite_derivative(x):\n"
            "    for key, value in TABLE.items():\n"
            "        if abs(key - x) < 1e-9:\n"
            "            return value\n"
            "    return 0.0\n")


def score_01_1(results: dict) -> float:
    return sum(test["score"] for test in results["tests"] if test["name"].startswith("01.1"))


def hidden_numbers(seed: int) -> list[float]:
    """The inputs and expected answers of every hidden case of lesson 01 drawn with ``seed``."""
    numbers = []

    def collect(value) -> None:  # type: ignore[no-untyped-def]
        if isinstance(value, (list, tuple)):
            for item in value:
                collect(item)
        elif isinstance(value, np.ndarray):
            for item in value.reshape(-1).tolist():
                collect(item)
        elif isinstance(value, float) and np.isfinite(value) and abs(value) > 1e-3 \
                and value != round(value):
            numbers.append(value)

    for cases in answer_key(BUILTIN, LESSON01, seed).values():
        for case in cases:
            if not case.visible:
                collect(case.args)
                collect(case.expected)
    assert len(numbers) > 20
    return numbers


def assert_no_hidden_number_in(text: str, seed: int) -> None:
    shown = [float(token) for token in NUMBER.findall(text)]
    for secret in hidden_numbers(seed):
        near = [value for value in shown if abs(value - secret) <= 1e-5 * abs(secret)]
        assert not near, f"the hidden value {secret!r} shows as {near} in:\n{text}"


def hidden_texts(results: dict) -> str:
    """What the student sees about hidden cases: the hidden tests and the overall output."""
    return "\n".join([results["output"]] + [test["output"] for test in results["tests"]
                                             if "hidden" in test["name"]])


# ---------------------------------------------------------------------------- the attack
@needs_sandbox
def test_a_lookup_table_read_from_the_results_never_gets_full_marks(tmp_path: Path) -> None:
    klass = tmp_path / "class"
    student_file(klass / "alice", ZERO)
    student_file(klass / "bob", "")
    out = tmp_path / "out"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--seed", "42", "--out",
                     str(out)]) == 0
    first_text = (out / "alice.json").read_text()
    first = json.loads(first_text)
    assert score_01_1(first) == pytest.approx(2 / 8)  # 0 is right at x = 0.0 only
    assert_no_hidden_number_in(hidden_texts(first), first["extra_data"]["seed"])
    table = lookup_table(first_text)
    assert table, "the visible cases keep their full feedback"
    assert len(table) == 2  # two visible cases failed: nothing about the five hidden ones
    student_file(klass / "alice", table_file(table))
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out), "--regrade",
                     "alice"]) == 0
    again = json.loads((out / "alice.json").read_text())
    assert again["extra_data"]["seed"] != first["extra_data"]["seed"]  # new hidden cases
    assert score_01_1(again) == pytest.approx(2 * 3 / 8)  # the visible cases only
    fresh = tmp_path / "fresh.json"
    assert cli_main(["grade", str(klass / "alice"), "--lesson", "1", "--json", str(fresh)]) == 0
    assert score_01_1(json.loads(fresh.read_text())) == pytest.approx(2 * 3 / 8)


@needs_sandbox
def test_same_cases_is_the_instructors_explicit_choice(tmp_path: Path, capsys) -> None:
    klass = tmp_path / "class"
    for name in ("alice", "bob"):
        student_file(klass / name, ZERO)
    out = tmp_path / "out"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--seed", "42", "--out",
                     str(out)]) == 0
    first = json.loads((out / "alice.json").read_text())["extra_data"]
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out), "--regrade",
                     "alice", "--same-cases"]) == 0
    same = json.loads((out / "alice.json").read_text())["extra_data"]
    assert (same["seed"], same["class_seed"]) == (first["seed"], first["class_seed"])
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out), "--regrade",
                     "alice"]) == 0
    new = json.loads((out / "alice.json").read_text())["extra_data"]
    assert new["seed"] != first["seed"] and new["class_seed"] != 42
    # ... recorded, so that --same-cases gives this regrade's cases again
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out), "--regrade",
                     "alice", "--same-cases"]) == 0
    assert json.loads((out / "alice.json").read_text())["extra_data"]["seed"] == new["seed"]
    capsys.readouterr()
    assert cli_main(["grade", str(klass / "bob"), "--same-cases"]) == 2
    assert "--same-cases" in capsys.readouterr().err


# ---------------------------------------------------------------------------- what is shown
BEHAVIOURS = """

import itertools, os, sys, time
_reference_01_1, _reference_01_2 = composite_derivative, several_paths
_calls = itertools.count()

def composite_derivative(x):
    call = next(_calls)                     # 0-2: the visible cases, 3-7: the hidden ones
    if call < 3:
        return _reference_01_1(x)
    if call == 3:
        return 0.0                          # wrong values
    if call == 4:
        return [x, x, x]                    # the wrong kind of answer
    if call == 5:
        raise ValueError(f"the input was {x!r}")
    if call == 6:
        return f"x={x!r}"                   # an answer that quotes the input
    print(f"x is {x!r}", flush=True)
    os._exit(3)                             # exits: its output quotes the input

def several_paths(*args):
    if args in [(1.0, 1.0, 3.0), (2.0, -0.5, 0.25)]:  # the visible cases
        return _reference_01_2(*args)
    time.sleep(60)                          # hidden cases: too slow
"""


@needs_sandbox
def test_a_hidden_case_shows_its_number_and_the_kind_of_failure_only(tmp_path: Path,
                                                                     capsys) -> None:
    folder = student_file(tmp_path / "work", BEHAVIOURS)
    results_path = tmp_path / "results.json"
    assert cli_main(["grade", str(folder), "--lesson", "1", "--seed", "7", "--timeout", "3",
                     "--json", str(results_path)]) == 0
    printed = capsys.readouterr().out
    results = json.loads(results_path.read_text())
    tests = {test["name"]: test for test in results["tests"]}
    hidden = tests["01.1 The chain rule through three functions (hidden cases)"]["output"]
    lines = hidden.splitlines()
    assert lines[:5] == ["hidden case 1: FAILED — wrong values",
                         "hidden case 2: FAILED — the wrong kind of value (a number, a list, an "
                         "array…)",
                         "hidden case 3: FAILED — raised ValueError",
                         "hidden case 4: FAILED — the wrong kind of value (a number, a list, an "
                         "array…)",
                         "hidden case 5: FAILED — the process exited (sys.exit or os._exit?)"]
    slow = tests["01.2 Several paths add up (hidden cases)"]["output"]
    assert "every case: took too long (stopped at the time limit)" in slow, slow
    for text in (hidden, slow, results["output"], printed):
        assert "the input was" not in text and "x=" not in text and "x is" not in text
        assert "composite_derivative(" not in text.replace("composite_derivative(1.0)", "") \
            .replace("composite_derivative(-0.5)", "").replace("composite_derivative(0.0)", "")
    assert_no_hidden_number_in(hidden_texts(results) + "\n" + printed, 7)
    visible = tests["01.1 The chain rule through three functions (visible cases)"]["output"]
    assert visible.startswith("case 1: composite_derivative(1.0): passed")  # in full
    assert "01.1" in printed and "hidden case 1: wrong values" in printed


def test_gradescope_visibility_of_hidden_cases_is_one_option(tmp_path: Path) -> None:
    assert "--visibility after_due_date" in run_autograder(tmp_path, "1", "--visibility",
                                                             "after_due_date")
    out, wheel = tmp_path / "autograder.zip", stub_wheel(tmp_path)
    with pytest.raises(SystemExit) as refused:
        cli_main(["gradescope", "1", "--out", str(out), "--wheel", str(wheel),
                  "--visibility", "sometimes"])
    assert refused.value.code == 2


@needs_sandbox
def test_grade_sets_the_visibility_of_hidden_tests(tmp_path: Path) -> None:
    folder = student_file(tmp_path / "work", ZERO)
    for choice in ("hidden", "visible", "after_due_date", "after_published"):
        results = tmp_path / f"{choice}.json"
        assert cli_main(["grade", str(folder), "--lesson", "1", "--json", str(results),
                         "--visibility", choice]) == 0
        tests = json.loads(results.read_text())["tests"]
        assert {test["visibility"] for test in tests if "hidden" in test["name"]} == {choice}
        assert {test["visibility"] for test in tests if "visible" in test["name"]} == {"visible"}


def test_a_container_regrade_is_given_the_recorded_seed_of_same_cases(tmp_path: Path) -> None:
    """The container's results folder starts empty: --same-cases becomes the --seed recorded
    on this machine, and the other options go in."""
    import argparse

    from minigrad.grading.container import container_command

    klass = tmp_path / "class"
    for name in ("alice", "bob"):
        student_file(klass / name, ZERO)
    out = tmp_path / "out"
    out.mkdir()
    (out / "alice.json").write_text(json.dumps({"extra_data": {"class_seed": 4242}}))
    args = argparse.Namespace(path=klass, json=None, csv=None, out=out, exercises=None,
                              lesson="1", timeout=None, seed=None, memory=2048, jobs=1,
                              regrade="alice", same_cases=True, visibility="hidden",
                              container="image", one=False, verbose=False, lms="minigrad")
    inner = " ".join(container_command(args, "docker", tmp_path / "staging"))
    assert "--seed 4242" in inner and "--regrade alice" in inner
    assert "--visibility hidden" in inner and "--same-cases" not in inner
    args.regrade = "bob"  # no results recorded for bob
    with pytest.raises(ValueError, match="no class seed recorded"):
        container_command(args, "docker", tmp_path / "staging")


@needs_sandbox
def test_the_instructor_sees_a_hidden_case_in_full_with_show_hidden(tmp_path: Path,
                                                                    capsys) -> None:
    """From a student's recorded seed, the instructor sees the same hidden cases in full on
    the terminal, and the results file stays as the student sees it."""
    klass = tmp_path / "class"
    for name in ("alice", "bob"):
        student_file(klass / name, ZERO)
    out = tmp_path / "out"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out)]) == 0
    seed = json.loads((out / "alice.json").read_text())["extra_data"]["seed"]
    capsys.readouterr()
    results = tmp_path / "alice.json"
    assert cli_main(["grade", str(klass / "alice"), "--lesson", "1", "--seed", str(seed),
                     "--show-hidden", "--json", str(results)]) == 0
    printed = capsys.readouterr().out
    key = answer_key(BUILTIN, LESSON01, seed)["01.1"]
    x, expected = next((case.args[0], case.expected) for case in key if not case.visible)
    assert f"01.1 hidden case 1: composite_derivative({x!r}): expected {expected!r}, got 0.0" \
        in printed, printed
    assert repr(x) not in results.read_text()
    assert cli_main(["grade", str(klass), "--lesson", "1", "--show-hidden"]) == 2
