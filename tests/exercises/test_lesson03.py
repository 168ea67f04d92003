"""Lesson 03 exercises: the references pass their checks, and common mistakes do not
(cases run as the grader runs them: see tests/exercise_cases.py)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from support.exercise_cases import ExerciseCases
from support.wrong_students import assert_named

import minigrad as mg
from minigrad.exercises.lessons import lesson03 as reference
from minigrad.exercises.lessons.lesson03_checks import EXERCISES

SEEDS = range(8)

_cases = ExerciseCases(EXERCISES, reference, SEEDS)
BY_ID = _cases.by_id
_case_sets = _cases.case_sets
failures = _cases.failures
caught = _cases.caught


# Well formed, reference passes, hidden cases fresh: tests/exercises/test_every_lesson.py


# ---------------------------------------------------------------------------- 03.1
def test_sum_to_shape_is_the_adjoint_of_broadcasting() -> None:
    # <broadcast(u), g> = <u, sum_to_shape(g)> for every u: that is what "gradient" means here.
    rng = np.random.default_rng(0)
    for grad, shape in BY_ID["03.1"].hidden(rng):
        u = rng.normal(size=shape)
        summed = reference.sum_to_shape(grad, shape)
        assert summed.shape == tuple(shape)
        assert np.sum(np.broadcast_to(u, grad.shape) * grad) == pytest.approx(np.sum(u * summed))


def _only_leading_axes(grad: np.ndarray, shape: tuple) -> np.ndarray:
    return grad.sum(axis=tuple(range(grad.ndim - len(shape))))


def _drops_kept_axes(grad: np.ndarray, shape: tuple) -> np.ndarray:
    extra = grad.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(extra + axis for axis, size in enumerate(shape)
                                       if size == 1 and grad.shape[extra + axis] != 1)
    return grad.sum(axis=axes)  # no keepdims: (2, 1) comes back as (2,)


def _takes_one_copy(grad: np.ndarray, shape: tuple) -> np.ndarray:
    # Picks the first copy instead of adding all of them: the right shape, the wrong values.
    extra = grad.ndim - len(shape)
    index = (0,) * extra + tuple(slice(0, 1) if size == 1 else slice(None) for size in shape)
    return grad[index].reshape(shape)


def _averages(grad: np.ndarray, shape: tuple) -> np.ndarray:
    return reference.sum_to_shape(grad, shape) * np.prod(shape) / max(grad.size, 1)


@pytest.mark.parametrize("wrong", [_only_leading_axes, _drops_kept_axes, _takes_one_copy,
                                   _averages])
def test_sum_to_shape_mistakes_are_caught(wrong: Callable) -> None:
    caught("03.1", wrong)


def test_sum_to_shape_names_both_shapes() -> None:
    messages = failures("03.1", _drops_kept_axes, _case_sets("03.1")[:1])
    assert messages[0].startswith("expected an array of shape (2, 1), got shape (2,); the "
                                  "target keeps its axes of length 1")


# ---------------------------------------------------------------------------- 03.2
def test_matmul_backward_matches_finite_differences() -> None:
    rng = np.random.default_rng(1)
    a, b, grad_output = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
    grad_a, grad_b = reference.matmul_backward(a, b, grad_output)
    eps = 1e-6
    for i, j in np.ndindex(a.shape):
        step = np.zeros_like(a)
        step[i, j] = eps
        numeric = np.sum(((a + step) @ b - (a - step) @ b) * grad_output) / (2 * eps)
        assert grad_a[i, j] == pytest.approx(numeric, rel=1e-6, abs=1e-9)
    for i, j in np.ndindex(b.shape):
        step = np.zeros_like(b)
        step[i, j] = eps
        numeric = np.sum((a @ (b + step) - a @ (b - step)) * grad_output) / (2 * eps)
        assert grad_b[i, j] == pytest.approx(numeric, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("wrong", [
    lambda a, b, g: (g @ b.T, g.T @ a),            # dB transposed
    lambda a, b, g: (b @ g.T, a.T @ g) if b.shape[0] == b.shape[1] else (g @ b, a.T @ g),
    lambda a, b, g: (a.T @ g, g @ b.T),            # the two swapped
    lambda a, b, g: (g @ b.T, (a.T @ g) / len(a)),  # an extra mean
], ids=["dB-transposed", "dA-without-transpose", "swapped", "extra-division"])
def test_matmul_backward_mistakes_are_caught(wrong: Callable) -> None:
    caught("03.2", wrong)


@pytest.mark.parametrize("wrong, words", [
    (lambda a, b, g: (g @ b.T, g.T @ a), "your dL/dB is the right one transposed"),
    (lambda a, b, g: ((g @ b.T).T, a.T @ g), "your dL/dA is the right one transposed"),
    (lambda a, b, g: (a.T @ g, g @ b.T), "are swapped"),
    (lambda a, b, g: (g @ b.T, (a.T @ g) / len(a)), "your dL/dB is divided by n"),
], ids=["dB-transposed", "dA-transposed", "swapped", "extra-division"])
def test_matmul_backward_mistakes_are_named(wrong, words) -> None:  # type: ignore[no-untyped-def]
    messages = caught("03.2", wrong)
    assert all(words in message for message in messages), messages


def test_matmul_backward_with_da_right_earns_its_part() -> None:
    """dL/dA right and dL/dB transposed earned 0 of 3 points: no parts."""
    from minigrad.exercises.spec import judge

    exercise = BY_ID["03.2"]
    for args in _case_sets("03.2")[1]:
        a, b, g = args
        message, credit = judge(exercise, reference.matmul_backward(a, b, g),
                                (g @ b.T, g.T @ a), args)
        assert credit == 0.5 and "right: dL/dA; wrong: dL/dB" in message, message


def test_matmul_backward_message_names_the_shapes() -> None:
    transposed_b = failures("03.2", lambda a, b, g: (g @ b.T, g.T @ a), _case_sets("03.2")[:1])
    assert any("expected an array of shape (3, 4) in result[1], got shape (4, 3)" in message
               for message in transposed_b), transposed_b


# ---------------------------------------------------------------------------- 03.3
def test_mean_backward_is_the_adjoint_of_the_mean() -> None:
    # <dL/dx, u> = <dL/dy, mean(u)> for every u: the mean is linear, its VJP is its adjoint.
    rng = np.random.default_rng(3)
    for grad_output, shape, dim, keepdim in BY_ID["03.3"].hidden(rng):
        u = rng.normal(size=shape)
        axis = dim if isinstance(dim, int) else tuple(dim)
        grad_input = reference.mean_backward(grad_output, shape, dim, keepdim)
        assert grad_input.shape == tuple(shape)
        assert np.sum(grad_input * u) == pytest.approx(
            np.sum(grad_output * u.mean(axis=axis, keepdims=keepdim)))


def test_mean_backward_reproduces_the_syllabus_example() -> None:
    # x = ones(2, 2); out = (3 (x + 2)²).mean(): dout/dz = 1/4, dz/dx = 6 (x + 2) = 18 → 4.5.
    grad_z = reference.mean_backward(np.array(1.0), (2, 2), (0, 1), False)
    np.testing.assert_array_equal(grad_z * 6 * (np.ones((2, 2)) + 2), np.full((2, 2), 4.5))


def _mean_with(divide: bool = True, expand: bool = True, by_total: bool = False):
    def wrong(grad_output, input_shape, dim, keepdim):  # type: ignore[no-untyped-def]
        dims = tuple(axis % len(input_shape) for axis in ((dim,) if isinstance(dim, int) else dim))
        count = np.prod(input_shape) if by_total else np.prod([input_shape[a] for a in dims])
        if expand and not keepdim:
            grad_output = np.expand_dims(grad_output, dims)
        return np.broadcast_to(grad_output / (count if divide else 1), input_shape).copy()

    return wrong


@pytest.mark.parametrize("wrong", [_mean_with(divide=False), _mean_with(expand=False),
                                   _mean_with(by_total=True)],
                         ids=["no-division", "broadcast-from-the-right", "divides-by-total"])
def test_mean_backward_mistakes_are_caught(wrong: Callable) -> None:
    caught("03.3", wrong)


def test_broadcasting_from_the_right_is_caught_on_square_inputs() -> None:
    square = [[(grad, shape, dim, keepdim) for grad, shape, dim, keepdim in cases
               if shape == (shape[0], shape[0]) and dim in (1, -1) and not keepdim]
              for cases in _case_sets("03.3")]
    assert all(square)
    assert len(failures("03.3", _mean_with(expand=False), square)) == sum(map(len, square))


# ---------------------------------------------------------------------------- 03.4
def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _with_full_jacobian(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Forms J for each row and multiplies: slower, but correct, so it must be accepted."""
    rows = []
    for row_x, row_v in zip(np.atleast_2d(x), np.atleast_2d(v)):
        s = _softmax(row_x)
        jacobian = np.diag(s) - np.outer(s, s)
        rows.append(jacobian.T @ row_v)
    return np.array(rows).reshape(x.shape)


def test_softmax_vjp_accepts_the_full_jacobian_and_matches_it() -> None:
    assert failures("03.4", _with_full_jacobian) == []


def test_softmax_vjp_of_a_constant_upstream_is_zero() -> None:
    # Softmax sums to 1, so moving all of x together changes nothing: Jᵀ·ones = 0.
    np.testing.assert_allclose(reference.softmax_vjp(np.array([0.5, -1.0, 2.0]), np.ones(3)),
                               0.0, atol=1e-15)


@pytest.mark.parametrize("wrong", [
    lambda x, v: _softmax(x) * v,                                     # diagonal of J only
    lambda x, v: _softmax(x) * (v - np.sum(_softmax(x) * v)),         # sums across the batch
    lambda x, v: v - np.sum(_softmax(x) * v, axis=-1, keepdims=True),  # forgets the factor s
    lambda x, v: (lambda s: s * (v - (s * v).sum(axis=-1, keepdims=True)))(
        np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)),           # no max shift: overflow
], ids=["diagonal-only", "sum-over-batch", "missing-s", "unstable"])
def test_softmax_vjp_mistakes_are_caught(wrong: Callable) -> None:
    caught("03.4", wrong)


# ---------------------------------------------------------------------------- 03.5–03.7
def _student_op(forward, backward):  # type: ignore[no-untyped-def]
    """A Function made of two plain functions, as a student might write it."""
    return type("StudentOp", (reference.Function,), {"forward": staticmethod(forward),
                                                     "backward": staticmethod(backward)})


def _cube_with(backward):  # type: ignore[no-untyped-def]
    def forward(ctx, x):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(x)
        return x ** 3

    def run(x, grad_output):  # type: ignore[no-untyped-def]
        return reference.run_function(_student_op(forward, backward), [x], grad_output)

    return run


@pytest.mark.parametrize("backward", [
    lambda ctx, g: g * 3 * ctx.saved_tensors[0],                      # forgot a factor x
    lambda ctx, g: 3 * ctx.saved_tensors[0] ** 2,                     # forgot grad_output
    lambda ctx, g: g * ctx.saved_tensors[0] ** 2,                     # forgot the 3
], ids=["3x", "no-upstream", "x-squared"])
def test_cube_mistakes_are_caught(backward) -> None:  # type: ignore[no-untyped-def]
    caught("03.5", _cube_with(backward))


def test_an_in_place_change_of_the_saved_input_is_named() -> None:
    """x **= 3 after saving x: gradcheck blamed "a wrong backward formula, an input at a
    kink, or inputs that are not float64"."""
    def forward(ctx, x):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(x)
        x **= 3
        return x

    def run(x, grad_output):  # type: ignore[no-untyped-def]
        op = _student_op(forward, lambda ctx, g: g * 3 * ctx.saved_tensors[0] ** 2)
        return reference.run_function(op, [x], grad_output)

    messages = caught("03.5", run)
    assert all("changed its input number 1 in place" in message for message in messages)
    assert not any("GradcheckError" in message for message in messages)


def test_cube_gradient_matches_the_engine() -> None:
    x, g = np.array([[-1.0, 0.5], [2.0, -3.0]]), np.array([[1.0, 2.0], [0.5, -1.0]])
    y, (grad_x,), verdict = reference.cube_function(x, g)
    t = mg.tensor(x, requires_grad=True)
    (t ** 3).backward(mg.tensor(g))
    assert verdict == "passed"
    np.testing.assert_allclose(y, x ** 3)
    np.testing.assert_allclose(grad_x, t.grad.numpy())


def _mul_without_sum(a, b, grad_output):  # type: ignore[no-untyped-def]
    def forward(ctx, a, b):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(a, b)
        return a * b

    def backward(ctx, g):  # type: ignore[no-untyped-def]
        a, b = ctx.saved_tensors
        return g * b, g * a  # the broadcast shape, not the inputs'

    return reference.run_function(_student_op(forward, backward), [a, b], grad_output)


def test_a_mul_that_forgets_sum_to_is_refused_by_the_engine() -> None:
    messages = caught("03.6", _mul_without_sum)
    assert any("returned an invalid gradient" in message for message in messages)


def test_broadcast_mul_matches_the_engine_on_every_hidden_case() -> None:
    for a, b, g in BY_ID["03.6"].hidden(np.random.default_rng(5)):
        out, (grad_a, grad_b), verdict = reference.broadcast_mul_function(a, b, g)
        assert verdict == "passed"
        ta, tb = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
        (ta * tb).backward(mg.tensor(g))
        np.testing.assert_allclose(out, a * b)
        np.testing.assert_allclose(grad_a, ta.grad.numpy())
        np.testing.assert_allclose(grad_b, tb.grad.numpy())


def _sum_from_the_right(x, dim, keepdim, grad_output):  # type: ignore[no-untyped-def]
    def forward(ctx, x, dim, keepdim):  # type: ignore[no-untyped-def]
        ctx.input_shape = x.shape
        return x.sum(axis=dim if isinstance(dim, int) else tuple(dim), keepdims=keepdim)

    def backward(ctx, g):  # type: ignore[no-untyped-def]
        return np.broadcast_to(g.numpy(), ctx.input_shape).copy()  # no expand_dims

    return reference.run_function(_student_op(forward, backward), [x], grad_output,
                                  dim=dim, keepdim=keepdim)


def test_a_sum_that_broadcasts_from_the_right_is_caught() -> None:
    caught("03.7", _sum_from_the_right)


def test_sum_matches_the_engine_on_every_hidden_case() -> None:
    for x, dim, keepdim, g in BY_ID["03.7"].hidden(np.random.default_rng(6)):
        y, (grad_x,), verdict = reference.sum_function(x, dim, keepdim, g)
        assert verdict == "passed"
        t = mg.tensor(x, requires_grad=True)
        t.sum(dim=dim if isinstance(dim, int) else tuple(dim), keepdim=keepdim).backward(
            mg.tensor(g))
        np.testing.assert_allclose(y, t.detach().numpy().sum(
            axis=dim if isinstance(dim, int) else tuple(dim), keepdims=keepdim))
        np.testing.assert_allclose(grad_x, t.grad.numpy())


# ---------------------------------------------------------------------------- 03.8
def test_forward_mode_tangent_is_the_backward_gradient_along_the_direction() -> None:
    # Ju = Σ_i (∂L/∂x_i) u_i: forward mode one direction at a time agrees with reverse mode.
    from minigrad.exercises.lessons import lesson02

    for program, direction in BY_ID["03.8"].hidden(np.random.default_rng(4)):
        grads = lesson02.backpropagate(program)["grad"]
        tangent = reference.forward_mode(program, direction)["tangent"]["L"]
        assert tangent == pytest.approx(sum(grads[name] * u for name, u in direction.items()),
                                        rel=1e-9, abs=1e-12)


def test_the_worked_example_along_a_is_dl_da() -> None:
    from minigrad.exercises.lessons.lesson02_checks import WORKED_PROGRAM

    result = reference.forward_mode(WORKED_PROGRAM, {"a": 1.0})
    assert result["value"]["L"] == 55.0 and result["tangent"]["L"] == 45.0


def _forward_mode_that_assigns_the_square(program, direction):  # type: ignore[no-untyped-def]
    result = reference.forward_mode(program, direction)
    for name, op, *operands in program:        # x·x given x' instead of 2x·x'
        if op == "*" and operands[0] == operands[1]:
            value = result["value"][operands[0]]
            result["tangent"][name] = value * result["tangent"][operands[0]]
    return result


def test_a_half_product_rule_is_caught() -> None:
    caught("03.8", _forward_mode_that_assigns_the_square)


# ---------------------------------------------------------------------------- through the grader
WRONG_FUNCTIONS = '''
def sum_to_shape(grad, shape):
    return grad.sum(axis=tuple(range(grad.ndim - len(shape))))  # forgets the length-1 axes


def cube_function(x, grad_output):
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x  # forgets a factor x

    return run_function(Cube, [x], grad_output)
'''


def _graded(tmp_path, extra: str = ""):  # type: ignore[no-untyped-def]
    from minigrad.exercises.authoring.generate import python_file_text
    from support.grading_results import SANDBOX_PROBLEM

    from minigrad.grading.grader import grade_submission
    from minigrad.course.catalog import find_lesson

    if SANDBOX_PROBLEM:
        pytest.skip(f"graded code cannot be confined here: {SANDBOX_PROBLEM}")

    lesson = find_lesson(3)
    path = tmp_path / "lesson03_tensors.py"
    path.write_text(python_file_text(lesson, solutions=True) + extra, encoding="utf-8")
    result = grade_submission(path, lesson, seed=11)
    return {item.exercise.id: item for item in result.exercises}


def test_the_grader_catches_broadcast_and_backward_mistakes(tmp_path) -> None:
    results = _graded(tmp_path, WRONG_FUNCTIONS)
    assert "expected an array of shape (2, 1), got shape (2, 3)" in results["03.1"].feedback
    # y right, dL/dx and gradcheck wrong: the forward's part alone, 1 of weights (1, 2, 1)
    assert results["03.5"].score == pytest.approx(3 / 4)
    assert "your backward has one factor x too few" in results["03.5"].feedback
    assert all(results[key].status == "passed" for key in ("03.2", "03.3", "03.4", "03.6", "03.7",
                                                        "03.8"))


@pytest.mark.parametrize("backward, words", [
    (lambda ctx, g: 3 * ctx.saved_tensors[0] ** 2,
     ("local derivative alone", "whatever grad_output is")),  # the latter: grad_output of ones
    (lambda ctx, g: g * ctx.saved_tensors[0] ** 2, ("lacks the factor 3",)),
], ids=["no-upstream", "x-squared"])
def test_cube_backward_mistakes_are_named(backward, words) -> None:  # type: ignore[no-untyped-def]
    """A backward without grad_output got gradcheck's Jacobian entries, not its name."""
    messages = caught("03.5", _cube_with(backward))
    assert all(any(word in message for word in words) for message in messages), messages
    assert sum(words[0] in message for message in messages) > len(messages) / 2


@pytest.mark.parametrize("exercise_id, wrong, words", [
    ("03.1", _only_leading_axes, "the extra leading axes only"),
    ("03.1", _drops_kept_axes, "keeps its axes of length 1"),
    ("03.1", _takes_one_copy, "kept one copy of each entry"),
    ("03.1", _averages, "you averaged the copies"),
    ("03.3", _mean_with(divide=False), "not divided by N"),
    ("03.3", _mean_with(expand=False), "broadcast along the wrong axes"),
    ("03.3", _mean_with(by_total=True), "the size of the whole input"),
    ("03.4", lambda x, v: _softmax(x) * v, "only the diagonal"),
    ("03.4", lambda x, v: _softmax(x) * (v - np.sum(_softmax(x) * v)), "runs over the whole batch"),
    ("03.4", lambda x, v: v - np.sum(_softmax(x) * v, axis=-1, keepdims=True),
     "lacks the factor s"),
    ("03.4", lambda x, v: (lambda s: s * (v - (s * v).sum(axis=-1, keepdims=True)))(
        np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)), "overflows"),
])
def test_lesson03_mistakes_are_named(exercise_id, wrong, words) -> None:  # type: ignore
    """They got numbers only ("1 of 4 entries differ …")."""
    messages = caught(exercise_id, wrong)
    assert any(words in message for message in messages), messages



def _mul_op(backward):  # type: ignore[no-untyped-def]
    def forward(ctx, a, b):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(a, b)
        return a * b

    def run(a, b, grad_output):  # type: ignore[no-untyped-def]
        return reference.run_function(_student_op(forward, backward), [a, b], grad_output)
    return run


def _sum_op(backward):  # type: ignore[no-untyped-def]
    def forward(ctx, x, dim, keepdim):  # type: ignore[no-untyped-def]
        ctx.shape, ctx.dim, ctx.keepdim = x.shape, dim, keepdim
        return x.sum(axis=dim if isinstance(dim, int) else tuple(dim), keepdims=keepdim)

    def run(x, dim, keepdim, grad_output):  # type: ignore[no-untyped-def]
        return reference.run_function(_student_op(forward, backward), [x], grad_output,
                                      dim=dim, keepdim=keepdim)
    return run


@pytest.mark.parametrize("exercise_id, wrong, words", [
    ("03.6", _mul_op(lambda ctx, g: (g * ctx.saved_tensors[1], g * ctx.saved_tensors[0])),
     "its own input's shape"),
    ("03.7", _sum_op(lambda ctx, g: np.broadcast_to(g.numpy(), ctx.shape).copy()),
     "the summed axes"),
    ("03.7", _sum_op(lambda ctx, g: (np.ones(ctx.shape), None, None)), "one gradient per tensor"),
], ids=["mul-without-sum-to", "sum-without-expand", "sum-gradients-for-settings"])
def test_functions_that_raise_are_named(exercise_id, wrong, words) -> None:  # type: ignore
    """The engine's "returned an invalid gradient" or numpy's broadcast error, alone."""
    messages = caught(exercise_id, wrong)
    assert sum(words in message for message in messages) >= len(messages) / 2, messages


# ---------------------------------------------------------------------------- named mistakes
# Each: a wrong solution as a student writes it (a line of the reference replaced), and the
# sentence that names its mistake.
FORWARD_MODE_NAMED = [
    (("float(direction.get(name, 0.0))", "float(direction.get(name, 1.0))"),
     "an input the direction does not name starts with a tangent that is not 0"),
    (("da * b + a * db", "da * b"), "keeps one term of two"),
    (("da * b + a * db", "da * db"), "multiplies the two tangents"),
    (("(1.0 - value[name] ** 2) * da", "(1.0 - a ** 2) * da"), "taken from its input squared"),
    (("da if a > 0 else 0.0", "da if a >= 0 else 0.0"), "passes through at 0"),
    (("tangent[name] = value[name] * da", "tangent[name] = value[name]"),
     "is exp's slope alone"),
    (("slope += out * math.log(a) * db", "pass"), "leaves out the term for its moving exponent"),
]


@pytest.mark.parametrize("replaced, sentence", FORWARD_MODE_NAMED,
                         ids=[sentence[:30] for _, sentence in FORWARD_MODE_NAMED])
def test_forward_mode_names_each_mistake_and_its_step(replaced: tuple[str, str],
                                                       sentence: str) -> None:
    assert_named("03.8", replaced, sentence)


def test_forward_mode_names_the_step_where_the_tangent_first_goes_wrong() -> None:
    from support.wrong_students import failed_messages

    visible, _ = failed_messages("03.8", ("da * b + a * db", "da * b"))
    assert any("the tangent of the product at step y keeps one term" in m for m in visible)


# 03.6 (more of its mistakes, and of 03.5's and 03.7's: test_lesson03_functions.py)
BROADCAST_MUL_NAMED = [
    (("                stretched = tuple(leading + axis for axis, size in enumerate(shape)\n"
      "                                  if size == 1 and grad.shape[leading + axis] != 1)\n",
      "                stretched = ()\n"), "sums the leading axes only"),
]


@pytest.mark.parametrize("replaced, sentence", BROADCAST_MUL_NAMED,
                         ids=[sentence[:30] for _, sentence in BROADCAST_MUL_NAMED])
def test_broadcast_mul_names_each_mistake(replaced: tuple[str, str], sentence: str) -> None:
    assert_named("03.6", replaced, sentence)


# 03.3
MEAN_NAMED = [
    (("return np.broadcast_to(grad_output / count, input_shape).copy()",
      "return np.broadcast_to(grad_output * count, input_shape).copy()"),
     "your gradient is multiplied by N"),
    (("    count = int(np.prod([input_shape[axis] for axis in dims]))\n",
      "    count = int(np.prod(input_shape)) // int(np.prod([input_shape[axis] for axis in dims]))\n"),
     "you divided by the number of means"),
    (("return np.broadcast_to(grad_output / count, input_shape).copy()",
      "return grad_output / count"), "your gradient has the shape of the mean"),
]


@pytest.mark.parametrize("replaced, sentence", MEAN_NAMED,
                         ids=[sentence[:30] for _, sentence in MEAN_NAMED])
def test_mean_backward_names_each_mistake(replaced: tuple[str, str], sentence: str) -> None:
    # (a mean over every axis makes one mean: dividing by their number is not dividing)
    assert_named("03.3", replaced, sentence, alike=("is not divided by N",))


# 03.4
SOFTMAX_NAMED = [
    (("return s * (v - (s * v).sum(axis=-1, keepdims=True))",
      "return s * ((s * v).sum(axis=-1, keepdims=True) - v)"), "your VJP has the wrong sign"),
    (("s = shifted / shifted.sum(axis=-1, keepdims=True)",
      "s = shifted / shifted.sum(axis=0, keepdims=True)"), "normalises down the columns"),
]


@pytest.mark.parametrize("replaced, sentence", SOFTMAX_NAMED,
                         ids=[sentence[:30] for _, sentence in SOFTMAX_NAMED])
def test_softmax_vjp_names_each_mistake(replaced: tuple[str, str], sentence: str) -> None:
    assert_named("03.4", replaced, sentence)


# 03.5
CUBE_NAMED = [
    (("            ctx.save_for_backward(x)\n            return x ** 3\n",
      "            return x ** 3\n"), "reads a saved tensor that forward did not save"),
    (("            (x,) = ctx.saved_tensors\n", "            x = ctx.saved_tensors\n"),
     "ctx.saved_tensors is a tuple"),
    (("return grad_output * 3 * x * x", "return grad_output * 3 * x * x, None"),
     "backward returns one gradient per input"),
]


@pytest.mark.parametrize("replaced, sentence", CUBE_NAMED,
                         ids=[sentence[:30] for _, sentence in CUBE_NAMED])
def test_cube_function_names_each_mistake(replaced: tuple[str, str], sentence: str) -> None:
    assert_named("03.5", replaced, sentence)
