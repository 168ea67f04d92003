"""Lesson 03 exercises: the references pass their checks, and common mistakes do not
(cases run as the grader runs them: see tests/exercise_cases.py)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from exercise_cases import ExerciseCases

from minigrad.exercises.codec import NamedFunction, encode
from minigrad.exercises.lessons import lesson03 as reference
from minigrad.exercises.lessons.lesson03_checks import EXERCISES

SEEDS = range(8)

_cases = ExerciseCases(EXERCISES, reference, SEEDS)
BY_ID = _cases.by_id
_case_sets = _cases.case_sets
failures = _cases.failures
caught = _cases.caught


def test_every_exercise_is_well_formed() -> None:
    assert [exercise.id for exercise in EXERCISES] == [f"03.{k}" for k in range(1, 7)]
    for exercise in EXERCISES:
        assert 2 <= exercise.points <= 5
        assert callable(getattr(reference, exercise.function))
        assert exercise.hint and exercise.title


@pytest.mark.parametrize("exercise_id", sorted(BY_ID))
def test_reference_passes_visible_and_hidden_cases(exercise_id: str) -> None:
    function = getattr(reference, BY_ID[exercise_id].function)
    assert failures(exercise_id, function) == []


@pytest.mark.parametrize("exercise_id", sorted(BY_ID))
def test_hidden_cases_are_fresh_for_each_seed(exercise_id: str) -> None:
    hidden = BY_ID[exercise_id].hidden
    assert encode(hidden(np.random.default_rng(1))) != encode(hidden(np.random.default_rng(2)))


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
    assert messages[0] == "expected an array of shape (2, 1), got shape (2,)"


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


def test_matmul_backward_message_names_the_shapes() -> None:
    transposed_b = failures("03.2", lambda a, b, g: (g @ b.T, g.T @ a), _case_sets("03.2")[:1])
    assert "expected an array of shape (3, 4) at [1], got shape (4, 3)" in transposed_b


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


# ---------------------------------------------------------------------------- 03.5
def _exact_jacobian(f: NamedFunction, weights: np.ndarray, x: np.ndarray,
                    eps: float = 1e-6) -> np.ndarray:
    """diag(f'(W x)) W — the true Jacobian; within ~ε² of any central difference."""
    return np.asarray(f.derivative(weights @ x))[:, None] * weights


def _jacobian_with(transpose: bool = False, one_sided: bool = False, halves: bool = False):
    def wrong(f, weights, x, eps=1e-6):  # type: ignore[no-untyped-def]
        columns = []
        for j in range(x.size):
            step = np.zeros_like(x)
            step[j] = eps
            plus = f(weights @ (x + step))
            if one_sided:
                columns.append((plus - f(weights @ x)) / eps)
            else:
                columns.append((plus - f(weights @ (x - step))) / (eps if halves else 2 * eps))
        return np.stack(columns, axis=0 if transpose else 1)

    return wrong


def test_numerical_jacobian_accepts_the_exact_jacobian() -> None:
    assert failures("03.5", _exact_jacobian) == []


def test_numerical_jacobian_does_not_change_x() -> None:
    x = np.array([0.1, -0.2, 0.3])
    reference.numerical_jacobian(NamedFunction("tanh"), np.eye(3), x, 1e-6)
    assert x.tolist() == [0.1, -0.2, 0.3]


@pytest.mark.parametrize("wrong", [_jacobian_with(transpose=True), _jacobian_with(one_sided=True),
                                   _jacobian_with(halves=True)],
                         ids=["transposed", "one-sided", "divides-by-eps"])
def test_numerical_jacobian_mistakes_are_caught(wrong: Callable) -> None:
    caught("03.5", wrong)


def test_a_transposed_jacobian_is_told_its_shape() -> None:
    messages = failures("03.5", _jacobian_with(transpose=True), _case_sets("03.5")[:1])
    assert messages[0] == "expected an array of shape (2, 3), got shape (3, 2)"


# ---------------------------------------------------------------------------- 03.6
def test_cross_entropy_matches_finite_differences() -> None:
    rng = np.random.default_rng(2)
    logits, targets = rng.normal(size=(4, 3)), [0, 2, 1, 2]
    _, grad = reference.cross_entropy_backward(logits, targets)
    eps = 1e-6
    for index in np.ndindex(logits.shape):
        step = np.zeros_like(logits)
        step[index] = eps
        numeric = (reference.cross_entropy_backward(logits + step, targets)[0]
                   - reference.cross_entropy_backward(logits - step, targets)[0]) / (2 * eps)
        assert grad[index] == pytest.approx(numeric, rel=1e-6, abs=1e-9)
    assert grad.sum(axis=1) == pytest.approx(np.zeros(4), abs=1e-15)


def _cross_entropy_with(no_batch_mean: bool = False, summed_loss: bool = False,
                        unstable: bool = False, no_onehot: bool = False):
    def wrong(logits, targets):  # type: ignore[no-untyped-def]
        batch = logits.shape[0]
        rows = np.arange(batch)
        if unstable:
            probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        else:
            probs = _softmax(logits)
        losses = -np.log(probs[rows, targets])
        grad = probs.copy()
        if not no_onehot:
            grad[rows, targets] -= 1.0
        loss = losses.sum() if summed_loss else losses.mean()
        return float(loss), grad if no_batch_mean else grad / batch

    return wrong


@pytest.mark.parametrize("wrong", [_cross_entropy_with(no_batch_mean=True),
                                   _cross_entropy_with(summed_loss=True),
                                   _cross_entropy_with(unstable=True),
                                   _cross_entropy_with(no_onehot=True)],
                         ids=["no-1/B", "sum-not-mean", "unstable", "no-onehot"])
def test_cross_entropy_mistakes_are_caught(wrong: Callable) -> None:
    caught("03.6", wrong)


# ---------------------------------------------------------------------------- through the grader
WRONG_FUNCTIONS = '''
def sum_to_shape(grad, shape):
    return grad.sum(axis=tuple(range(grad.ndim - len(shape))))  # forgets the length-1 axes


def cross_entropy_backward(logits, targets):
    rows = np.arange(logits.shape[0])
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    grad = probs.copy()
    grad[rows, targets] -= 1.0
    return float(-np.log(probs[rows, targets]).mean()), grad  # forgets the 1/B
'''


def _graded(tmp_path, extra: str = "", solutions: bool = True):  # type: ignore[no-untyped-def]
    from minigrad.exercises.authoring.generate import python_file_text
    from grading_results import SANDBOX_PROBLEM

    from minigrad.exercises.grading.grader import grade_submission
    from minigrad.lessons import find_lesson

    if SANDBOX_PROBLEM:
        pytest.skip(f"graded code cannot be confined here: {SANDBOX_PROBLEM}")

    lesson = find_lesson(3)
    path = tmp_path / "lesson03_tensors.py"
    path.write_text(python_file_text(lesson, solutions=solutions) + extra, encoding="utf-8")
    result = grade_submission(path, lesson, seed=11)
    return {item.exercise.id: item for item in result.exercises}


def test_the_grader_gives_the_reference_full_marks_and_stubs_none(tmp_path) -> None:
    results = _graded(tmp_path)
    assert {key: item.status for key, item in results.items()} == {key: "passed" for key in BY_ID}
    stubs = _graded(tmp_path, solutions=False)
    assert all(item.score == 0 and item.status == "not attempted" for item in stubs.values())


def test_the_grader_catches_broadcast_and_batch_mean_mistakes(tmp_path) -> None:
    results = _graded(tmp_path, WRONG_FUNCTIONS)
    assert "expected an array of shape (2, 1), got shape (2, 3)" in results["03.1"].feedback
    assert results["03.6"].score < results["03.6"].max_score
    assert "entries differ at [1]" in results["03.6"].feedback
    assert all(results[key].status == "passed" for key in ("03.2", "03.3", "03.4", "03.5"))


def test_check_reports_a_transposed_jacobian(capsys) -> None:  # type: ignore[no-untyped-def]
    from minigrad.exercises import check

    assert not check("03.5", _jacobian_with(transpose=True))
    printed = capsys.readouterr().out
    assert "expected an array of shape (2, 3), got shape (3, 2)" in printed
    assert BY_ID["03.5"].hint in printed
