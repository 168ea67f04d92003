"""A capstone left as the stub it was given is "not attempted" without a child of its own: the
grader neither builds its stripped copy of minigrad nor starts its child (that took most of
the time of grading a lesson-08 file). Anything that might run code of the student's in the
capstone is graded in its child as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.grading_results import needs_sandbox

from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import BUILTIN
from minigrad.grading import grader
from minigrad.grading.grader import _given_text, grade_submission
from minigrad.grading.parsing import plainly_a_stub
from minigrad.grading.sandbox.worker import NOT_ATTEMPTED

LESSON08 = find_lesson(8)
GIVEN = _given_text(BUILTIN, LESSON08)
STUB = python_file_text(LESSON08)  # the file as a student gets it
RAISE = "    # YOUR CODE HERE\n    raise NotImplementedError\n    return capstone_report("


def test_the_given_file_s_stubs_are_plain_stubs() -> None:
    assert RAISE in STUB
    for function in ("capstone", "l2_relu_batch_gradients", "accumulate_microbatches"):
        assert plainly_a_stub(STUB, function, GIVEN), function


@pytest.mark.parametrize("changed", [
    # code of the student's before the raise: it runs, and may raise or take too long
    STUB.replace(RAISE, "    losses = [1 / 0]\n" + RAISE),
    STUB.replace(RAISE, RAISE.replace("    raise NotImplementedError\n", "")),  # answered
    STUB + "\n\ncapstone = print\n",  # rebound after the def
    STUB + "\n\ndef capstone(seed):\n    return {}\n",  # defined twice
    STUB + "\n\nglobals()['capst' + 'one'] = print\n",  # rebound without its name
    STUB + "\n\nNotImplementedError = ValueError\n",
    STUB + "\n\nfrom math import *\n",
    STUB.replace("def capstone(seed: int)", "@staticmethod\ndef capstone(seed: int)"),
    STUB.replace(RAISE, RAISE.replace("raise NotImplementedError",
                                      "raise NotImplementedError(print('hi'))")),
    STUB + "\n\ndef broken(:\n",  # does not parse
])
def test_anything_else_is_not_a_plain_stub(changed: str) -> None:
    assert changed != STUB
    assert not plainly_a_stub(changed, "capstone", GIVEN)


def test_a_function_missing_from_the_given_file_is_not_a_stub() -> None:
    assert not plainly_a_stub(STUB, "no_such_function", GIVEN)
    assert not plainly_a_stub(STUB, "capstone", "def capstone(seed):\n    return 1\n")


@needs_sandbox
def test_a_stub_capstone_is_not_attempted_without_building_its_runtime(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    children: list = []
    real = grader.Sandbox

    def recorded(*args, **kwargs):  # type: ignore[no-untyped-def]
        children.append(kwargs.get("runtime"))
        return real(*args, **kwargs)

    def refused(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the capstone's runtime copy was built for a stub")

    monkeypatch.setattr(grader, "Sandbox", recorded)
    monkeypatch.setattr(grader.runtime, "_copy_without", refused)
    path = tmp_path / "lesson08_stub.py"
    path.write_text(STUB, encoding="utf-8")
    results = {item.exercise.id: item
               for item in grade_submission(path, LESSON08, seed=3).exercises}
    assert children == [None]  # the shared child only
    capstone = results["08.5"]
    assert capstone.score == 0 and capstone.status == "not attempted"
    assert capstone.cases and all(case.kind == "not_implemented" for case in capstone.cases)
    assert [case.message for case in capstone.cases if case.visible] == \
        [NOT_ATTEMPTED] * sum(case.visible for case in capstone.cases)


@needs_sandbox
def test_a_capstone_with_code_before_its_raise_still_runs_in_its_own_child(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    children: list = []
    real = grader.Sandbox

    def recorded(*args, **kwargs):  # type: ignore[no-untyped-def]
        children.append(kwargs.get("runtime"))
        return real(*args, **kwargs)

    monkeypatch.setattr(grader, "Sandbox", recorded)
    path = tmp_path / "lesson08_started.py"
    path.write_text(STUB.replace(RAISE, "    raise ValueError('mine')\n" + RAISE),
                    encoding="utf-8")
    results = {item.exercise.id: item
               for item in grade_submission(path, LESSON08, seed=3).exercises}
    assert children[0] is None and children[1] is not None  # the capstone's own child ran it
    assert any("mine" in case.message for case in results["08.5"].cases if case.visible)
