"""A student's wrong answer in, the message (or status) out: each diagnosis the checks of
lessons 05–08 used to get wrong, with the answer that showed it."""

from __future__ import annotations

import copy
from types import ModuleType

import numpy as np
import pytest
from support.wrong_students import student as _student

from minigrad.exercises.codec import decode, encode
from minigrad.exercises.spec import judge
from minigrad.course.catalog import find_lesson


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
    assert "with respect to input 1: the derivative that is most wrong: how entry" in message
    assert "worst entry d output" not in message, message  # jargon
    assert "numerical = " in message and "analytical = " in message
    assert "input 1:\n" not in message and not message.rstrip(")").endswith(":")


# ---------------------------------------------------------------------------- 05.6
def test_05_6_written_on_an_unwritten_05_1_is_an_error_naming_05_1_not_not_attempted() -> None:
    student = _student(5, (LINEAR_BACKWARD, "            raise NotImplementedError\n"))
    args = decode(encode(_visible("05.6")[1]))
    with pytest.raises(RuntimeError, match="builds on your exercise 05.1, which is not written"):
        student.train_mlp(*args)  # a NotImplementedError here read as "not attempted"


# ---------------------------------------------------------------------------- 06.5
CONV_BIAS = "            grad_bias = delta.sum(axis=(0, 2, 3))\n"
CONV_BACKWARD_START = "            x, weight = (t.numpy() for t in ctx.saved_tensors)\n            delta ="
CONV_ADD = "grad_padded[:, :, :full_rows, :full_columns] += np.einsum("
CONV_SCATTER = '''            grad_padded = np.zeros(padded.shape)
            for i in range(rows):
                for j in range(columns):
                    grad_padded[:, :, stride * i:stride * i + k, stride * j:stride * j + k] = \\
                        np.einsum("NO,OCHW->NCHW", delta[:, :, i, j], weight)
            grad_x = grad_padded[:, :, padding:padding + x.shape[2], padding:padding + x.shape[3]]
            return grad_x, grad_weight, grad_bias
'''


def _conv_messages(student: ModuleType, overlapping_only: bool = False) -> list[tuple[str, float]]:
    from minigrad.exercises.lessons import lesson06

    cases = _visible("06.5")
    if overlapping_only:  # stride < k: windows overlap
        cases = [args for args in cases if args[4] < args[1].shape[-1]]
    return [_judged("06.5", student, lesson06, args) for args in cases]


def test_06_5_a_zero_bias_gradient_is_called_zero() -> None:
    student = _student(6, (CONV_BIAS, "            grad_bias = np.zeros(delta.shape[1])\n"))
    for message, _ in _conv_messages(student):
        assert "your dL/db is all zeros" in message, message
        assert "sums the wrong entries" not in message


def test_06_5_a_bias_gradient_divided_by_the_batch_is_named() -> None:
    student = _student(6, (CONV_BIAS, "            grad_bias = delta.sum(axis=(0, 2, 3)) / batch\n"))
    messages = [message for message, _ in _conv_messages(student) if message]
    assert messages  # the visible cases with a batch of more than one
    for message in messages:
        assert "dL/db is the right one divided by N" in message, message
        assert "sums the wrong entries" not in message


def test_06_5_overwriting_instead_of_adding_in_dx_is_named() -> None:
    scatter = _student(6, (
        "            dilated = np.zeros((batch,",
        CONV_SCATTER + "            dilated = np.zeros((batch,"))
    for message, _ in _conv_messages(scatter, overlapping_only=True):
        assert "several overlapping windows read" in message and "+=" in message, message
    gather = _student(6, (CONV_ADD, CONV_ADD.replace("+=", "=")))
    for message, _ in _conv_messages(gather):
        assert "keeps only the last kernel offset's term" in message, message


def test_06_5_a_right_forward_earns_its_part_when_backward_is_not_written() -> None:
    student = _student(6, (CONV_BACKWARD_START,
                           "            raise NotImplementedError\n" + CONV_BACKWARD_START))
    for message, credit in _conv_messages(student):
        assert "backward is not written yet" in message, message
        assert credit == pytest.approx(1 / 8)  # y


def test_06_5_one_example_is_not_all_1_examples() -> None:
    student = _student(6, (CONV_BIAS, "            grad_bias = delta.sum(axis=(2, 3))\n"))
    message, _ = _conv_messages(student)[0]  # the worked case: a batch of one
    assert "not summed over the batch" in message, message
    assert "all 1 examples" not in message and "the one example" not in message
    assert "keeps the batch axis, of length 1 here" in message


# ---------------------------------------------------------------------------- 07.5, 07.6
MAX_POOL_BACKWARD = "            g = grad_output.numpy()\n            grad_x = np.zeros(ctx.input_shape)\n            n, c, i, j"
AVG_POOL_BACKWARD = "            k, s = ctx.kernel_size, ctx.stride\n            share ="


@pytest.mark.parametrize("exercise_id, body", [("07.5", MAX_POOL_BACKWARD),
                                               ("07.6", AVG_POOL_BACKWARD)])
def test_07_a_right_forward_earns_its_part_when_backward_is_not_written(exercise_id: str,
                                                                        body: str) -> None:
    from minigrad.exercises.lessons import lesson07

    student = _student(7, (body, "            raise NotImplementedError\n" + body))
    for args in _visible(exercise_id):
        message, credit = _judged(exercise_id, student, lesson07, args)
        assert "backward is not written yet" in message, message
        assert credit == pytest.approx(1 / 3)  # y


# ---------------------------------------------------------------------------- 08.4
ADAMW_STEP = '                    p.sub_(state["m"] / denominator, alpha=lr / (1 - beta1 ** t))\n'


def test_08_4_a_partly_out_of_place_adamw_update_is_named() -> None:
    from minigrad.exercises.lessons import lesson08

    student = _student(8, (ADAMW_STEP, '                    p = p - lr / (1 - beta1 ** t) * '
                                       'state["m"] / denominator\n'))
    for args in _visible("08.4"):
        message, _ = _judged("08.4", student, lesson08, args)
        assert "only the decay reached the model" in message, message


def test_05_6_status_through_the_grader_is_not_not_attempted(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from minigrad.exercises.authoring.generate import python_file_text
    from minigrad.grading.grader import grade_submission

    lesson = find_lesson(5)
    text = python_file_text(lesson, solutions=True)
    assert text.count(LINEAR_BACKWARD) == 1
    path = tmp_path / "lesson05.py"
    path.write_text(text.replace(LINEAR_BACKWARD, "            raise NotImplementedError\n"),
                    encoding="utf-8")
    try:
        results = grade_submission(path, lesson, seed=3).exercises
    except Exception as error:  # noqa: BLE001 — no sandbox on this machine
        pytest.skip(f"the grader cannot run here: {error}")
    status = {item.exercise.id: (item.status, item.score) for item in results}
    assert status["05.6"][0] != "not attempted", status
    assert status["05.1"][1] > 0, status  # Z earns its part
