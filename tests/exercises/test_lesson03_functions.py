"""Lesson 03's Functions (03.5–03.7) tried as a student who makes one mistake: each variant is
the reference solution with one line changed, and its mistake must be named — on the
visible cases and every hidden case it fails (the checks, as the grader judges), by
``check()`` with the idea as the first hint and never the formula, and by ``minigrad grade``.

The given ``run_function`` gradchecked the Function before returning, so a wrong forward
value (or a backward gradcheck refuses) raised inside the runner: the student read a generic
gradcheck failure and the exercise's mistakes were never consulted.
"""

from __future__ import annotations

import pytest
from support.wrong_students import assert_named, student

from minigrad.exercises import selfcheck
from minigrad.exercises.authoring.source import all_exercises

_FORWARD_CUBE = "            return x ** 3\n"
_BACKWARD_CUBE = "return grad_output * 3 * x * x"
_SAVED_CUBE = "            (x,) = ctx.saved_tensors\n            return grad_output * 3 * x * x"
_MUL_FORWARD = "            return a * b\n"
_MUL_RETURN = "return sum_back(g * b, a.shape), sum_back(g * a, b.shape)"
_SUM_FORWARD = "            return x.sum(axis=ctx.axes, keepdims=keepdim)"
_SUM_RETURN = "            return np.broadcast_to(g, ctx.input_shape).copy()"

#: (exercise, name, (old, new), the sentence that names the mistake, seeds): with seeds,
#: a mistake no visible case shows (float32 rounding on exact small numbers), named on the
#: hidden cases.
VARIANTS = [
    # 03.5 Cube
    ("03.5", "sign", (_BACKWARD_CUBE, "return -grad_output * 3 * x * x"),
     "your gradients have the wrong sign", None),
    ("03.5", "no-grad-output", (_BACKWARD_CUBE, "return 3 * x * x"),
     "your backward gives the local derivative alone", None),
    ("03.5", "no-factor-3", (_BACKWARD_CUBE, "return grad_output * x * x"),
     "lacks the factor 3", None),
    ("03.5", "square-derivative", (_BACKWARD_CUBE, "return grad_output * 2 * x"),
     "the derivative of the square", None),
    ("03.5", "saves-the-output", (
        "            ctx.save_for_backward(x)\n            return x ** 3\n",
        "            y = x ** 3\n            ctx.save_for_backward(y)\n            return y\n"),
     "uses the output y = x³ where the saved input x belongs", None),
    ("03.5", "forward-squares", (_FORWARD_CUBE, "            return x ** 2\n"),
     "your forward squares x", None),
    ("03.5", "forward-times-3", (_FORWARD_CUBE, "            return x * 3\n"),
     "your forward multiplies x by 3", None),
    ("03.5", "forward-derivative", (_FORWARD_CUBE, "            return 3 * x ** 2\n"),
     "your forward returns the cube's derivative", None),
    ("03.5", "forward-float32", (_FORWARD_CUBE,
                                 "            return (x ** 3).astype(np.float32)\n"),
     "your forward returns float32", None),
    ("03.5", "backward-float32", (_BACKWARD_CUBE, "return (grad_output.numpy() * 3 * "
                                                  "x.numpy() ** 2).astype(np.float32)"),
     "right to about 7 digits only", range(2)),
    ("03.5", "adds-grad-output", (_BACKWARD_CUBE, "return grad_output + 3 * x * x"),
     "adds grad_output to the local derivative", None),
    ("03.5", "summed-gradient", (_BACKWARD_CUBE, "return (grad_output * 3 * x * x).sum()"),
     "a gradient has its input's shape", None),
    ("03.5", "in-place-in-backward", (_SAVED_CUBE, "            (x,) = ctx.saved_tensors\n"
                                                   "            x.mul_(x)\n"
                                                   "            return grad_output * 3 * x"),
     "your backward changed its input number 1 in place", None),
    # 03.6 BroadcastMul
    ("03.6", "sign", (_MUL_RETURN, "return sum_back(-g * b, a.shape), sum_back(-g * a, b.shape)"),
     "your gradients have the wrong sign", None),
    ("03.6", "swapped", (_MUL_RETURN, "return sum_back(g * a, a.shape), sum_back(g * b, b.shape)"),
     "yours are swapped", None),
    ("03.6", "no-grad-output", (_MUL_RETURN, "return sum_back(b + 0 * g, a.shape), "
                                             "sum_back(a + 0 * g, b.shape)"),
     "leave out grad_output", None),
    ("03.6", "no-sum-to", (_MUL_RETURN, "return g * b, g * a"), "its own input's shape", None),
    ("03.6", "no-keepdims", (
        "                summed = grad.sum(axis=tuple(range(leading)) + stretched, "
        "keepdims=True)\n                return summed.reshape(shape)\n",
        "                return grad.sum(axis=tuple(range(leading)) + stretched)\n"),
     "drops the axes of length 1", None),
    ("03.6", "averages-the-copies", (
        "summed = grad.sum(axis=tuple(range(leading)) + stretched, keepdims=True)",
        "summed = grad.mean(axis=tuple(range(leading)) + stretched, keepdims=True)"),
     "you averaged the copies", None),
    ("03.6", "sums-stretched-axes-only", (
        "summed = grad.sum(axis=tuple(range(leading)) + stretched, keepdims=True)",
        "summed = grad.sum(axis=stretched, keepdims=True)"), "sums the stretched axes only", None),
    ("03.6", "sums-every-axis", (
        "summed = grad.sum(axis=tuple(range(leading)) + stretched, keepdims=True)",
        "summed = grad.sum()"), "you summed every axis", None),
    ("03.6", "db-from-b", (_MUL_RETURN,
                           "return sum_back(g * b, a.shape), sum_back(g * b, b.shape)"),
     "your dL/db carries b itself", None),
    ("03.6", "forward-adds", (_MUL_FORWARD, "            return a + b\n"),
     "your forward adds the two factors", None),
    ("03.6", "forward-float32", (_MUL_FORWARD,
                                 "            return (a * b).astype(np.float32)\n"),
     "your forward returns float32", None),
    ("03.6", "backward-float32", (_MUL_RETURN, "return sum_back(g * b, a.shape).astype("
                                               "np.float32), sum_back(g * a, b.shape)"),
     "right to about 7 digits only", range(2)),
    ("03.6", "saves-one-factor", ("            ctx.save_for_backward(a, b)\n",
                                  "            ctx.save_for_backward(a)\n"),
     "reads more saved tensors than forward saved", None),
    ("03.6", "tensors-as-arrays", (
        "            a, b = (t.numpy() for t in ctx.saved_tensors)\n"
        "            g = grad_output.numpy()\n",
        "            a, b = ctx.saved_tensors\n            g = grad_output\n"),
     "minigrad Tensors, not numpy arrays", None),
    ("03.6", "none-for-b", (_MUL_RETURN, "return sum_back(g * b, a.shape), None"),
     "your backward returned None for dL/db", None),
    # 03.7 Sum
    ("03.7", "sign", (_SUM_RETURN, "            return -np.broadcast_to(g, ctx.input_shape)"),
     "your gradients have the wrong sign", None),
    ("03.7", "no-grad-output", (_SUM_RETURN, "            return np.ones(ctx.input_shape)"),
     "your gradient leaves out grad_output", None),
    ("03.7", "divides-by-n", (_SUM_RETURN, _SUM_RETURN + " / np.prod([ctx.input_shape[axis] "
                                                      "for axis in ctx.axes])"),
     "divided by the number of entries summed", None),
    ("03.7", "not-broadcast", (_SUM_RETURN, "            return g"),
     "your gradient has the shape of the sum", None),
    ("03.7", "forward-ignores-keepdim", (_SUM_FORWARD,
                                         "            return x.sum(axis=ctx.axes)"),
     "your forward ignores keepdim", None),
    ("03.7", "forward-every-axis", (_SUM_FORWARD,
                                    "            return x.sum(keepdims=keepdim)"),
     "your forward sums over every axis", None),
    ("03.7", "forward-averages", (_SUM_FORWARD,
                                  "            return x.mean(axis=ctx.axes, keepdims=keepdim)"),
     "your forward averages", None),
    ("03.7", "axes-as-a-list", (_SUM_FORWARD,
                                "            return x.sum(axis=dim, keepdims=keepdim)"),
     "numpy wants several axes as a tuple", None),
    ("03.7", "forward-float32", (_SUM_FORWARD, _SUM_FORWARD + ".astype(np.float32)"),
     "your forward returns float32", None),
]

IDS = [f"{exercise}-{name}" for exercise, name, *_ in VARIANTS]


def test_a_keepdim_test_the_wrong_way_round_is_named_on_each_case() -> None:
    """Each case names what went wrong there: the axes gone (keepdim False) or still there."""
    assert_named("03.7", ("            if not ctx.keepdim:\n", "            if ctx.keepdim:\n"),
                 "without keepdim the summed axes are gone",
                 alike=("with keepdim the summed axes are still in the gradient",
                        "broadcast along the wrong axes"))


@pytest.mark.parametrize("exercise_id, name, replaced, sentence, seeds", VARIANTS, ids=IDS)
def test_each_mistake_is_named_by_the_checks(exercise_id, name, replaced, sentence,  # type: ignore
                                              seeds) -> None:
    assert_named(exercise_id, replaced, sentence, seeds=seeds or range(1))


@pytest.mark.parametrize("exercise_id, name, replaced, sentence, seeds",
                         [variant for variant in VARIANTS if variant[4] is None],
                         ids=[i for i, variant in zip(IDS, VARIANTS) if variant[4] is None])
def test_check_names_the_mistake_with_the_idea_never_the_formula(  # type: ignore
        exercise_id, name, replaced, sentence, seeds, capsys, monkeypatch) -> None:
    monkeypatch.setattr(selfcheck, "_failed_checks", {})  # a first failed check
    _, exercise = all_exercises()[exercise_id]
    module = student(3, replaced)
    assert not selfcheck.check(exercise_id, getattr(module, exercise.function))
    printed = capsys.readouterr().out
    assert sentence in printed, printed
    assert f"Idea: {exercise.idea}" in printed and exercise.hint not in printed, printed
    assert "Formula:" not in printed


def test_a_backward_right_only_for_this_grad_output_is_told_what_gradcheck_found(
        capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Without grad_output, the gradients of grad_output = ones are right: gradcheck, which
    tries every direction, says what is wrong."""
    monkeypatch.setattr(selfcheck, "_failed_checks", {})
    module = student(3, (_BACKWARD_CUBE, "return 3 * x * x"))
    assert not selfcheck.check("03.5", module.cube_function)
    case_1 = capsys.readouterr().out.split("✗ case 1:")[1].split("\n")[0]
    assert "right for this case, but gradcheck" in case_1
    assert "whatever grad_output is: multiply by grad_output" in case_1


# ---------------------------------------------------------------------------- through the grader
#: Students' files, each with one mistake in each of 03.5, 03.6 and 03.7 (the variants above,
#: by name), and what the grader's feedback must say.
GRADED = [
    ({"03.5": "forward-squares", "03.6": "forward-adds", "03.7": "forward-averages"}),
    ({"03.5": "sign", "03.6": "no-keepdims", "03.7": "not-broadcast"}),
    ({"03.5": "forward-float32", "03.6": "averages-the-copies", "03.7": "axes-as-a-list"}),
    ({"03.5": "in-place-in-backward", "03.6": "no-grad-output",
      "03.7": "forward-ignores-keepdim"}),
]
#: The same mistake in other words, where the grader's first failed case says it so: on a
#: grad_output of ones the gradients are right, and gradcheck's verdict names it.
SAID_OTHERWISE = {"no-grad-output": "whatever grad_output is: multiply by grad_output"}


@pytest.mark.parametrize("chosen", GRADED, ids=lambda chosen: "+".join(chosen.values()))
def test_minigrad_grade_names_each_mistake(chosen: dict, tmp_path) -> None:  # type: ignore
    from support.grading_results import SANDBOX_PROBLEM

    from minigrad.course.catalog import find_lesson
    from minigrad.exercises.authoring.generate import python_file_text
    from minigrad.grading.grader import grade_submission

    if SANDBOX_PROBLEM:
        pytest.skip(f"graded code cannot be confined here: {SANDBOX_PROBLEM}")
    by_name = {(exercise, name): (replaced, sentence)
               for exercise, name, replaced, sentence, _ in VARIANTS}
    lesson = find_lesson(3)
    text = python_file_text(lesson, solutions=True)
    for exercise, name in chosen.items():
        old, new = by_name[exercise, name][0]
        assert text.count(old) == 1, (exercise, name)
        text = text.replace(old, new)
    path = tmp_path / "lesson03_tensors.py"
    path.write_text(text, encoding="utf-8")
    results = {item.exercise.id: item for item in grade_submission(path, lesson, seed=3).exercises}
    for exercise, name in chosen.items():
        result = results[exercise]
        assert result.status != "passed", (exercise, name)
        assert any(words in result.feedback for words in (
            by_name[exercise, name][1], SAID_OTHERWISE.get(name, "—"))), (exercise, name,
                                                                         result.feedback)
        assert result.exercise.hint not in result.feedback
    assert all(results[key].status == "passed" for key in results if key not in chosen)
