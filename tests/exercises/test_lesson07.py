"""Lesson 07 exercises: the references pass their checks and agree with the engine, and
common mistakes do not pass (cases run as the grader runs them: see tests/exercise_cases.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from support.exercise_cases import ExerciseCases
from support.wrong_students import assert_named

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.exercises.harness import library_calls
from minigrad.exercises.lessons import lesson07 as reference
from minigrad.autograd import Function
from minigrad.exercises.lessons.lesson07_checks import EXERCISES
from minigrad.exercises.spec import judge

pytestmark = pytest.mark.usefixtures("warm_kernels")

SEEDS = range(8)

_cases = ExerciseCases(EXERCISES, reference, SEEDS)
BY_ID = _cases.by_id
caught = _cases.caught


# Well formed, reference passes, hidden cases fresh: tests/exercises/test_every_lesson.py


def _plane(array: np.ndarray, requires_grad: bool = True) -> mg.Tensor:
    return mg.tensor(array[None, None], dtype=mg.float64, requires_grad=requires_grad)


# ---------------------------------------------------------------------------- the engine agrees
@pytest.mark.parametrize("seed", range(4))
def test_max_and_avg_pool_references_match_the_engine(seed: int) -> None:
    for x, g, kernel, stride in BY_ID["07.2"].hidden(np.random.default_rng(seed)):
        xt = _plane(x)
        F.max_pool2d(xt, kernel, stride).backward(_plane(g, False))
        np.testing.assert_allclose(reference.max_pool_backward(x, g, kernel, stride),
                                   xt.grad.numpy()[0, 0], rtol=1e-12)
    for g, shape, kernel, stride in BY_ID["07.3"].hidden(np.random.default_rng(seed)):
        xt = _plane(np.zeros(shape))
        F.avg_pool2d(xt, kernel, stride).backward(_plane(g, False))
        np.testing.assert_allclose(reference.avg_pool_backward(g, shape, kernel, stride),
                                   xt.grad.numpy()[0, 0], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_conv_pool_step_matches_the_engine(seed: int) -> None:
    for x, w, b, g in BY_ID["07.4"].hidden(np.random.default_rng(seed)):
        xt, wt = _plane(x), _plane(w)
        bt = mg.tensor([b], dtype=mg.float64, requires_grad=True)
        y = F.max_pool2d(F.relu(F.conv2d(xt, wt, bt)), 2)
        y.backward(_plane(g, False))
        ours = reference.conv_pool_step(x, w, b, g)
        np.testing.assert_allclose(ours[0], y.numpy()[0, 0], rtol=1e-12)
        np.testing.assert_allclose(ours[1], wt.grad.numpy()[0, 0], rtol=1e-10, atol=1e-12)
        assert ours[2] == pytest.approx(bt.grad.numpy()[0], abs=1e-12)
        np.testing.assert_allclose(ours[3], xt.grad.numpy()[0, 0], rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------- mistakes
def _last_maximum(x, g, kernel, stride):
    grad = np.zeros_like(x, dtype=float)
    for i in range(g.shape[0]):
        for j in range(g.shape[1]):
            window = x[i * stride:i * stride + kernel, j * stride:j * stride + kernel]
            flat = window.size - 1 - np.argmax(window.ravel()[::-1])
            r, c = np.unravel_index(flat, window.shape)
            grad[i * stride + r, j * stride + c] += g[i, j]
    return grad


def _every_maximum(x, g, kernel, stride):
    grad = np.zeros_like(x, dtype=float)
    for i in range(g.shape[0]):
        for j in range(g.shape[1]):
            window = x[i * stride:i * stride + kernel, j * stride:j * stride + kernel]
            grad[i * stride:i * stride + kernel, j * stride:j * stride + kernel] += \
                g[i, j] * (window == window.max())
    return grad


def _overwrites_overlaps(x, g, kernel, stride):
    grad = np.zeros_like(x, dtype=float)
    for i in range(g.shape[0]):
        for j in range(g.shape[1]):
            window = x[i * stride:i * stride + kernel, j * stride:j * stride + kernel]
            r, c = np.unravel_index(np.argmax(window), window.shape)
            grad[i * stride + r, j * stride + c] = g[i, j]
    return grad


@pytest.mark.parametrize("wrong", [_last_maximum, _every_maximum, _overwrites_overlaps])
def test_max_pool_mistakes_are_caught(wrong) -> None:
    caught("07.2", wrong)


def _forgets_to_divide(g, shape, kernel, stride):
    return reference.avg_pool_backward(g, shape, kernel, stride) * kernel * kernel


def _divides_by_k(g, shape, kernel, stride):
    return reference.avg_pool_backward(g, shape, kernel, stride) * kernel


@pytest.mark.parametrize("wrong", [_forgets_to_divide, _divides_by_k])
def test_avg_pool_mistakes_are_caught(wrong) -> None:
    caught("07.3", wrong)


def _ignores_relu(x, w, b, g):
    y, _, _, _ = reference.conv_pool_step(x, w, b, g)
    big = reference.conv_pool_step(x, w, b + 100.0, g)  # every z > 0: the ReLU passes all
    return y, big[1], big[2], big[3]


def _flipped_kernel_for_dx(x, w, b, g):
    y, grad_w, grad_b, _ = reference.conv_pool_step(x, w, b, g)
    return y, grad_w, grad_b, reference.conv_pool_step(x, w[::-1, ::-1], b, g)[3]


def _relu_at_zero_passes(x, w, b, g):
    """The ReLU erratum, [z ≥ 0] instead of [z > 0]: the reference with every z = 0 nudged
    to a positive 1e-12 (too small to change the values beyond the grader's tolerance)."""
    y = reference.conv_pool_step(x, w, b, g)[0]
    return (y, *reference.conv_pool_step(x, w, b + 1e-12, g)[1:])


@pytest.mark.parametrize("wrong", [_ignores_relu, _flipped_kernel_for_dx, _relu_at_zero_passes])
def test_conv_pool_mistakes_are_caught(wrong) -> None:
    caught("07.4", wrong)


@pytest.mark.parametrize("seed", range(4))
def test_max_pool_forward_matches_the_engine(seed: int) -> None:
    for x, kernel, stride in BY_ID["07.1"].hidden(np.random.default_rng(seed)):
        values, indices = F.max_pool2d(_plane(x, False), kernel, stride, return_indices=True)
        ours = reference.max_pool_forward(x, kernel, stride)
        np.testing.assert_array_equal(ours[0], values.numpy()[0, 0])
        np.testing.assert_array_equal(ours[1], indices.numpy()[0, 0])


def _last_maximum_forward(x, kernel, stride):
    values, indices = reference.max_pool_forward(x, kernel, stride)
    for i, j in np.ndindex(*indices.shape):  # a later equal value replaces the first (>=)
        window = x[i * stride:i * stride + kernel, j * stride:j * stride + kernel].ravel()
        where = window.size - 1 - int(np.argmax(window[::-1]))
        indices[i, j] = (i * stride + where // kernel) * x.shape[1] + j * stride + where % kernel
    return values, indices


def _window_indices(x, kernel, stride):
    values, indices = reference.max_pool_forward(x, kernel, stride)
    return values, indices % kernel


@pytest.mark.parametrize("wrong", [_last_maximum_forward, _window_indices])
def test_max_pool_forward_mistakes_are_caught(wrong) -> None:
    caught("07.1", wrong)


# ---------------------------------------------------------------------------- targeted messages
def _message_for(exercise_id: str, wrong) -> str:
    """Every failure message of ``wrong`` over the visible and hidden cases, joined."""
    return "\n".join(caught(exercise_id, wrong))


def test_the_last_maximum_is_named_in_forward_and_backward() -> None:
    assert "LAST one" in _message_for("07.1", _last_maximum_forward)
    assert "LAST one" in _message_for("07.2", _last_maximum)


def test_every_maximum_of_a_tie_is_named() -> None:
    assert "to every copy" in _message_for("07.2", _every_maximum)


def test_overwriting_overlapping_windows_is_named() -> None:
    assert "add up (+=" in _message_for("07.2", _overwrites_overlaps)


def test_a_missing_one_over_k_squared_is_named() -> None:
    assert "k·k = 4 times" in _message_for("07.3", _forgets_to_divide) or \
        "k·k = 9 times" in _message_for("07.3", _forgets_to_divide)
    assert "not k" in _message_for("07.3", _divides_by_k)


def test_the_relu_erratum_is_named() -> None:
    assert "where z = 0 exactly" in _message_for("07.4", _relu_at_zero_passes)


def test_07_4_every_case_carries_gradient() -> None:
    """A forward-only answer (zeros for dW, db, dx) fails every visible and hidden case."""
    def forward_only(x, w, b, g):
        y = reference.conv_pool_step(x, w, b, g)[0]
        return y, np.zeros_like(w), 0.0, np.zeros_like(x)

    exercise = BY_ID["07.4"]
    for cases in _cases.case_sets("07.4"):
        for args in cases:
            expected = reference.conv_pool_step(*args)
            message, credit = judge(exercise, expected, forward_only(*args), args)
            assert message is not None and credit == pytest.approx(0.25), args


def test_07_4_gives_per_part_credit() -> None:
    args = BY_ID["07.4"].visible()[1]
    y, grad_w, grad_b, grad_x = reference.conv_pool_step(*args)
    message, credit = judge(BY_ID["07.4"], (y, grad_w, grad_b, grad_x),
                            (y, grad_w, grad_b, grad_x[::-1, ::-1]), args)
    assert credit == pytest.approx(0.75) and "wrong: dL/dx" in message


# ---------------------------------------------------------------------------- 07.5 and 07.6
@pytest.mark.parametrize("seed", range(4))
def test_the_pooling_functions_match_the_library(seed: int) -> None:
    """The references of 07.5 and 07.6 agree with F.max_pool2d and F.avg_pool2d (output and
    gradient) on the visible and hidden cases, and pass gradcheck wherever x has no ties."""
    for exercise_id, library, reference_function in (
            ("07.5", F.max_pool2d, reference.max_pool2d_function),
            ("07.6", F.avg_pool2d, reference.avg_pool2d_function)):
        for cases in _cases.case_sets(exercise_id, range(seed, seed + 1)):
            for x, kernel, stride, g in cases:
                xt = mg.tensor(x, dtype=mg.float64, requires_grad=True)
                y = library(xt, kernel, stride)
                y.backward(mg.tensor(g))
                ours, grad, agrees = reference_function(x, kernel, stride, g)
                np.testing.assert_allclose(ours, y.numpy(), rtol=1e-12, atol=1e-15)
                np.testing.assert_allclose(grad, xt.grad.numpy(), rtol=1e-12, atol=1e-15)
                plane = x[:1, :1]
                assert agrees is (None if np.unique(plane).size < plane.size else True)


def test_the_hidden_batches_cover_the_brief() -> None:
    """Batches and channels above 1, k 2 and 3, strides 1 to 3 (below, at and above k), ties,
    and in every overlapping case a pixel that wins several windows."""
    seen = set()
    for cases in _cases.case_sets("07.5"):
        for x, kernel, stride, g in cases:
            assert kernel in (2, 3) and stride in (1, 2, 3)
            seen.add(("k", kernel)); seen.add(("s", stride))
            seen.add(("batch", x.shape[0] > 1)); seen.add(("channels", x.shape[1] > 1))
            if stride < kernel:
                wins = reference.max_pool2d_function(x, kernel, stride, np.ones_like(g))[1]
                assert wins.max() >= 2
    assert {("k", 2), ("k", 3), ("s", 1), ("s", 2), ("s", 3), ("batch", True),
            ("channels", True)} <= seen


def _pool_function(forward, backward):
    """An answer to 07.5/07.6 whose Function is made of the given forward and backward."""
    def answer(x, kernel_size, stride, grad_output):
        class Pool(Function):
            pass
        Pool.forward = staticmethod(forward)
        Pool.backward = staticmethod(backward)
        return reference.run_pool(Pool, x, grad_output, kernel_size=kernel_size, stride=stride)
    return answer


def _max_forward(ctx, x, kernel_size, stride, last=False):
    """Forward of 07.5 keeping (row, column) of each argmax; ``last``: the last of a tie."""
    rows = (x.shape[2] - kernel_size) // stride + 1
    columns = (x.shape[3] - kernel_size) // stride + 1
    y = np.zeros((*x.shape[:2], rows, columns))
    where = np.zeros((*y.shape, 2), dtype=int)
    for n, c, i, j in np.ndindex(*y.shape):
        window = x[n, c, i * stride:i * stride + kernel_size, j * stride:j * stride + kernel_size]
        flat = window.ravel()
        a = flat.size - 1 - int(np.argmax(flat[::-1])) if last else int(np.argmax(flat))
        y[n, c, i, j] = flat[a]
        where[n, c, i, j] = (i * stride + a // kernel_size, j * stride + a % kernel_size)
    ctx.where, ctx.input_shape = where, x.shape
    return y


def _max_backward_adding(ctx, grad_output):
    grad = np.zeros(ctx.input_shape)
    g = grad_output.numpy()
    for n, c, i, j in np.ndindex(*g.shape):
        grad[(n, c, *ctx.where[n, c, i, j])] += g[n, c, i, j]
    return grad


def _max_backward_fancy_index(ctx, grad_output):
    """`grad[index] += g` with repeated indices: numpy adds each repeated pixel only once."""
    grad = np.zeros(ctx.input_shape)
    n, c, _, _ = np.indices(grad_output.shape)
    grad[n, c, ctx.where[..., 0], ctx.where[..., 1]] += grad_output.numpy()
    return grad


def test_max_pool_function_mistakes_get_their_message() -> None:
    right = _pool_function(_max_forward, _max_backward_adding)
    assert not _cases.failures("07.5", right)  # the test's own Function is right
    last = _pool_function(lambda ctx, x, kernel_size, stride:
                          _max_forward(ctx, x, kernel_size, stride, last=True),
                          _max_backward_adding)
    assert "LAST one" in _message_for("07.5", last)
    assert "add up (+=" in _message_for("07.5", _pool_function(_max_forward,
                                                              _max_backward_fancy_index))


def test_a_pooled_output_of_the_wrong_shape_is_named() -> None:
    def padded_forward(ctx, x, kernel_size, stride):  # one row and column too many
        y = _max_forward(ctx, x, kernel_size, stride)
        ctx.extra = True
        return np.pad(y, ((0, 0), (0, 0), (0, 1), (0, 1)))

    def backward(ctx, grad_output):
        return _max_backward_adding(ctx, grad_output[:, :, :-1, :-1])

    message = _message_for("07.5", _pool_function(padded_forward, backward))
    assert "your forward returned shape (1, 1, 3, 3), but there is one window per entry of " \
        "grad_output, shape (1, 1, 2, 2): the pooled output must have shape" in message


def test_a_gradient_of_the_wrong_shape_is_refused_by_the_engine() -> None:
    def backward(ctx, grad_output):
        return grad_output.numpy()  # dL/dy, not dL/dx

    message = _message_for("07.5", _pool_function(_max_forward, backward))
    assert "returned an invalid gradient at index 0" in message


def test_forward_only_answers_score_only_the_output() -> None:
    zeros = _pool_function(_max_forward, lambda ctx, g: np.zeros(ctx.input_shape))
    exercise = BY_ID["07.5"]
    for cases in _cases.case_sets("07.5"):
        for args in cases:
            message, credit = judge(exercise, reference.max_pool2d_function(*args),
                                    zeros(*args), args)
            assert message is not None and credit <= 2 / 3


def _avg_forward(ctx, x, kernel_size, stride, divide=True):
    rows = (x.shape[2] - kernel_size) // stride + 1
    columns = (x.shape[3] - kernel_size) // stride + 1
    y = np.zeros((*x.shape[:2], rows, columns))
    for i in range(rows):
        for j in range(columns):
            window = x[:, :, i * stride:i * stride + kernel_size,
                       j * stride:j * stride + kernel_size]
            y[:, :, i, j] = window.sum(axis=(2, 3)) / (kernel_size ** 2 if divide else 1)
    ctx.shape, ctx.kernel_size, ctx.stride, ctx.divide = x.shape, kernel_size, stride, divide
    return y


def _avg_backward(ctx, grad_output, overwrite=False):
    k, s = ctx.kernel_size, ctx.stride
    g = grad_output.numpy() / (k * k if ctx.divide else 1)
    grad = np.zeros(ctx.shape)
    for i in range(g.shape[2]):
        for j in range(g.shape[3]):
            window = grad[:, :, i * s:i * s + k, j * s:j * s + k]
            if overwrite:
                window[...] = g[:, :, i, j, None, None]
            else:
                window += g[:, :, i, j, None, None]
    return grad


def test_avg_pool_function_mistakes_get_their_message() -> None:
    assert not _cases.failures("07.6", _pool_function(_avg_forward, _avg_backward))
    no_division = _pool_function(lambda ctx, x, kernel_size, stride:
                                 _avg_forward(ctx, x, kernel_size, stride, divide=False),
                                 _avg_backward)
    assert "times the right one: an average divides by the k·k" in \
        _message_for("07.6", no_division)
    overwrites = _pool_function(_avg_forward, lambda ctx, g: _avg_backward(ctx, g, True))
    assert "add up (+=" in _message_for("07.6", overwrites)


# ---------------------------------------------------------------------------- the library is refused
def _own_max_backward(ctx, grad_output):
    """A right backward of 07.5 from the positions the library's forward noted."""
    grad = np.zeros(ctx.input_shape)
    g = grad_output.numpy()
    for n, c, i, j in np.ndindex(*g.shape):
        window = ctx.x[n, c, i * ctx.s:i * ctx.s + ctx.k, j * ctx.s:j * ctx.s + ctx.k]
        a = int(np.argmax(window))
        grad[n, c, i * ctx.s + a // ctx.k, j * ctx.s + a % ctx.k] += g[n, c, i, j]
    return grad


def _borrowing_forward(pool):
    """A forward that hands the pooling to ``pool(x, k, s)`` (a numpy array back)."""
    def forward(ctx, x, kernel_size, stride):
        ctx.x, ctx.k, ctx.s, ctx.input_shape = x, kernel_size, stride, x.shape
        ctx.shape, ctx.kernel_size, ctx.stride, ctx.divide = x.shape, kernel_size, stride, True
        return pool(x, kernel_size, stride)
    return forward


def _torch_pool(name):
    def pool(x, k, s):
        torch = pytest.importorskip("torch")
        return getattr(torch.nn.functional, name)(torch.tensor(x), k, s).numpy()
    return pool


def _module_pool(layer):
    def pool(x, k, s):
        with mg.no_grad():
            return layer(k, s)(mg.tensor(x)).numpy()
    return pool


def _library_backward(ctx, grad_output):
    """A backward that asks the engine for F.max_pool2d's gradient."""
    x = mg.tensor(ctx.x, requires_grad=True)
    with mg.enable_grad():
        F.max_pool2d(x, ctx.k, ctx.s).backward(grad_output)
    return x.grad.numpy()


@pytest.mark.parametrize("exercise, pool, backward, named", [
    ("07.5", lambda x, k, s: F.max_pool2d(mg.tensor(x), k, s).numpy(), _own_max_backward,
     "minigrad.ops.pool"),
    ("07.5", _module_pool(mg.nn.MaxPool2d), _own_max_backward, "minigrad.ops.pool"),
    ("07.5", lambda x, k, s: __import__("minigrad.kernels").kernels.max_pool2d_forward(
        x, (k, k), (s, s), (0, 0))[0], _own_max_backward, "minigrad.kernels"),
    ("07.5", _torch_pool("max_pool2d"), _own_max_backward, "torch.max_pool2d"),
    ("07.5", lambda x, k, s: _max_forward(type("Ctx", (), {})(), x, k, s), _library_backward,
     "minigrad.ops.pool"),
    ("07.6", lambda x, k, s: F.avg_pool2d(mg.tensor(x), k, s).numpy(), None, "minigrad.ops.pool"),
    ("07.6", _module_pool(mg.nn.AvgPool2d), None, "minigrad.ops.pool"),
    ("07.6", _torch_pool("avg_pool2d"), None, "torch.avg_pool2d")])
def test_a_pool_function_that_calls_the_librarys_pooling_is_refused(exercise, pool, backward,
                                                                    named) -> None:
    """Each Function below is right (its forward and backward are the library's): without the
    watch it would score full marks."""
    import sys

    if backward is None:  # 07.6: the share of each window, by hand
        def backward(ctx, grad_output):
            return _avg_backward(ctx, grad_output)
    answer = _pool_function(_borrowing_forward(pool), backward)
    for args in BY_ID[exercise].visible():
        with pytest.raises(RuntimeError, match="calls the library's pooling") as raised:
            answer(*args)
        assert named in str(raised.value) and "07.5 and 07.6 ask for your own" in str(raised.value)
        assert sys.getprofile() is None  # the watch is taken off again
    assert "calls the library's pooling" in _message_for(exercise, answer)


def test_the_pool_watch_lets_numpy_and_the_right_answers_through() -> None:
    with library_calls(("minigrad.ops.pool", "minigrad.kernels"), "pool") as calls:
        np.lib.stride_tricks.sliding_window_view(np.ones((4, 4)), (2, 2)).max(axis=(2, 3))
        np.add.at(np.zeros(3), [0, 0], 1.0)
    assert calls == []
    for exercise in ("07.5", "07.6"):
        for args in BY_ID[exercise].visible():
            getattr(reference, BY_ID[exercise].function)(*args)  # no error: nothing borrowed


def _split_maximum(x, g, kernel, stride):
    grad = np.zeros_like(x, dtype=float)
    for i in range(g.shape[0]):
        for j in range(g.shape[1]):
            window = x[i * stride:i * stride + kernel, j * stride:j * stride + kernel]
            maxima = window == window.max()
            grad[i * stride:i * stride + kernel, j * stride:j * stride + kernel] += \
                g[i, j] * maxima / maxima.sum()
    return grad


def test_a_tie_shared_among_the_maxima_is_named() -> None:
    """It got numbers only (every-copy and last-one were recognised)."""
    assert "shares the gradient among the copies" in _message_for("07.2", _split_maximum)


def test_integer_indices_are_shown_as_integers() -> None:
    """07.1's argmax indices read "expected 4.0, got 2.0"."""
    messages = caught("07.1", _last_maximum_forward)
    assert any(re.search(r"expected \d+, got \d+\b(?!\.)", m) for m in messages), messages
    assert not any(re.search(r"expected \d+\.0, got", m) for m in messages), messages


def test_no_lesson_writes_a_mistake_as_a_function() -> None:
    """One idiom: Mistake(says, gives=…) rows; the told(...) functions are gone."""
    import minigrad.exercises.mistakes as mistakes

    assert not hasattr(mistakes, "told")


def _forward_with(values=None, index=None):  # type: ignore[no-untyped-def]
    """07.1's answer with the values or the indices computed another (wrong) way."""
    def wrong(x, kernel, stride):  # type: ignore[no-untyped-def]
        right_values, flat = reference.max_pool_forward(x, kernel, stride)
        rows, columns = flat // x.shape[1], flat % x.shape[1]
        starts_r = (np.arange(flat.shape[0]) * stride)[:, None]
        starts_c = (np.arange(flat.shape[1]) * stride)[None, :]
        if index == "window":
            flat = (rows - starts_r) * kernel + (columns - starts_c)
        elif index == "columns":
            flat = columns * x.shape[0] + rows
        if values == "mean":
            right_values = np.array([[x[s:s + kernel, t:t + kernel].mean()
                                      for t in range(0, stride * flat.shape[1], stride)]
                                     for s in range(0, stride * flat.shape[0], stride)])
        return right_values, flat
    return wrong


def _spread_over_window(x, g, kernel, stride):  # type: ignore[no-untyped-def]
    grad = np.zeros_like(x, dtype=float)
    for i in range(g.shape[0]):
        for j in range(g.shape[1]):
            grad[i * stride:i * stride + kernel, j * stride:j * stride + kernel] += g[i, j]
    return grad


def _avg_to_first_pixel(g, shape, kernel, stride):  # type: ignore[no-untyped-def]
    grad = np.zeros(shape)
    for i in range(g.shape[0]):
        for j in range(g.shape[1]):
            grad[i * stride, j * stride] += g[i, j] / kernel ** 2
    return grad


@pytest.mark.parametrize("exercise_id, wrong, words", [
    ("07.1", _forward_with(index="window"), "count within each window"),
    ("07.1", _forward_with(index="columns"), "along the columns first"),
    ("07.1", _forward_with(values="mean"), "the windows' means"),
    ("07.3", _avg_to_first_pixel, "goes to one pixel of each window"),
    ("07.2", lambda x, g, k, s: _spread_over_window(x, g, k, s), "every pixel of a window"),
], ids=["window-index", "column-major", "mean", "one-pixel", "spread"])
def test_pooling_mistakes_are_named(exercise_id, wrong, words) -> None:  # type: ignore
    messages = caught(exercise_id, wrong)
    assert sum(words in message for message in messages) >= len(messages) / 2, messages


# ---------------------------------------------------------------------------- named mistakes
# 07.4: a wrong solution as a student writes it (a line of the reference replaced), and the
# sentence that names its mistake.
CONV_POOL_NAMED = [
    (("delta_z = delta_a * (z > 0)", "delta_z = delta_a * (z >= 0)"), "where z = 0 exactly"),
    (("delta_z = delta_a * (z > 0)", "delta_z = delta_a"), "your gradients skip the ReLU"),
    (("delta_z = delta_a * (z > 0)", "delta_z = delta_a * a"), "multiplied by the ReLU's output"),
    (("delta_a[2 * i + r, 2 * j + c] += grad_output[i, j]",
      "delta_a[2 * i:2 * i + 2, 2 * j:2 * j + 2] += grad_output[i, j]"),
     "to all four of its pixels"),
    (("+= weight[m, n] * delta_z", "+= weight[k - 1 - m, k - 1 - n] * delta_z"),
     "your dL/dx takes the kernel turned around"),
    (("float(delta_z.sum())", "float(delta_z.mean())"), "your dL/dbias is the mean"),
    (("float(delta_z.sum())", "float(grad_output.sum())"), "your dL/dbias sums dL/dy"),
    (("window = a[2 * i:2 * i + 2, 2 * j:2 * j + 2]", "window = z[2 * i:2 * i + 2, 2 * j:2 * j + 2]"),
     "your y pools z, before the ReLU"),
]


@pytest.mark.parametrize("replaced, sentence", CONV_POOL_NAMED,
                         ids=[sentence[:30] for _, sentence in CONV_POOL_NAMED])
def test_conv_pool_step_names_each_mistake(replaced: tuple[str, str], sentence: str) -> None:
    # The visible cases route no gradient to a negative z and pool no all-negative window:
    # those two mistakes show on hidden cases only.
    hidden_only = sentence in ("your gradients skip the ReLU", "your y pools z, before the ReLU")
    # A case whose routed pixels all have z ≥ 0 cannot tell a skipped ReLU from one passing at 0.
    assert_named("07.4", replaced, sentence, seeds=range(4) if hidden_only else range(1),
                 alike=("where z = 0 exactly",) if "skip" in sentence else ())


# 07.3
def test_avg_pool_backward_names_windows_placed_every_k_pixels() -> None:
    assert_named("07.3", ("            grad_x[i * stride:i * stride + kernel_size,\n"
                          "                   j * stride:j * stride + kernel_size] += share[i, j]",
                          "            grad_x[i * kernel_size:i * kernel_size + kernel_size,\n"
                          "                   j * kernel_size:j * kernel_size + kernel_size] += "
                          "share[i, j]"),
                 "your windows start every k", seeds=range(3),
                 # (with a uniform dL/dy the answer is also an overwrite's, which is named)
                 alike=("several overlapping windows",))
