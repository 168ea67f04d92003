"""A student's wrong answer in, the message (or status) out: each diagnosis the checks of
lessons 05–08 used to get wrong, with the answer that showed it."""

from __future__ import annotations

import copy
from types import ModuleType

import numpy as np
import pytest

from minigrad.exercises.authoring.source import remove_markers, source_text
from minigrad.exercises.codec import decode, encode
from minigrad.exercises.spec import judge
from minigrad.lessons import find_lesson


def _student(number: int, *replaced: tuple[str, str]) -> ModuleType:
    """The lesson's reference solutions as a student's file, with some code replaced."""
    text = remove_markers(source_text(find_lesson(number)))
    for old, new in replaced:
        assert old in text, old
        text = text.replace(old, new)
    module = ModuleType(f"student{number:02d}")
    exec(compile(text, f"student{number:02d}.py", "exec"), module.__dict__)
    return module


def _exercise(exercise_id: str):  # type: ignore[no-untyped-def]
    from minigrad.exercises.authoring.source import all_exercises

    return all_exercises()[exercise_id][1]


def _judged(exercise_id: str, student: ModuleType, reference: ModuleType,
            args: tuple) -> tuple[str, float]:
    """(message, credit) for the student's answer on ``args``, as the grader judges it."""
    exercise = _exercise(exercise_id)
    args = decode(encode(args))
    expected = decode(encode(getattr(reference, exercise.function)(*copy.deepcopy(args))))
    got = decode(encode(getattr(student, exercise.function)(*copy.deepcopy(args))))
    message, credit = judge(exercise, expected, got, args)
    return message or "", credit


def _visible(exercise_id: str) -> list[tuple]:
    return list(_exercise(exercise_id).visible())


# ---------------------------------------------------------------------------- 05.1
LINEAR_BACKWARD = ("            x, weight = (t.numpy() for t in ctx.saved_tensors)\n"
                   "            g = grad_output.numpy()\n"
                   "            return g @ weight, g.T @ x, g.sum(axis=0)\n")


def test_05_1_an_unwritten_backward_is_called_unwritten_and_z_earns_its_part() -> None:
    from minigrad.exercises.lessons import lesson05

    student = _student(5, (LINEAR_BACKWARD, "            raise NotImplementedError\n"))
    for args in _visible("05.1"):
        message, credit = _judged("05.1", student, lesson05, args)
        assert "backward is not written yet" in message, message
        assert "compare the shape" not in message
        assert credit == pytest.approx(1 / 5)  # Z


def test_05_1_an_extra_one_over_b_in_dw_alone_is_named() -> None:
    from minigrad.exercises.lessons import lesson05

    student = _student(5, (LINEAR_BACKWARD, LINEAR_BACKWARD.replace(
        "g.T @ x,", "g.T @ x / len(x),")))
    for args in _visible("05.1"):
        message, _ = _judged("05.1", student, lesson05, args)
        assert "your dL/dW is the right one divided by B" in message, message


def test_05_1_the_gradcheck_verdict_is_complete() -> None:
    from minigrad.exercises.lessons import lesson05

    student = _student(5, (LINEAR_BACKWARD, LINEAR_BACKWARD.replace("g.T @ x,", "2 * g.T @ x,")))
    message, _ = _judged("05.1", student, lesson05, _visible("05.1")[0])
    assert "with respect to input 1: worst entry" in message, message
    assert "numerical = " in message and "analytical = " in message
    assert "input 1:\n" not in message and not message.rstrip(")").endswith(":")


# ---------------------------------------------------------------------------- 05.6
def test_05_6_written_on_an_unwritten_05_1_is_an_error_naming_05_1_not_not_attempted() -> None:
    student = _student(5, (LINEAR_BACKWARD, "            raise NotImplementedError\n"))
    args = decode(encode(_visible("05.6")[1]))
    with pytest.raises(RuntimeError, match="builds on your exercise 05.1, which is not written"):
        student.train_mlp(*args)  # a NotImplementedError here read as "not attempted"
