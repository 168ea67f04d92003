"""Lesson 06 exercises: the references pass their checks and agree with the engine, the
worked case's numbers, and common mistakes do not pass (see tests/exercise_cases.py)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from support import student_conv
from support.exercise_cases import ExerciseCases
from support.wrong_students import assert_named

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.exercises.harness import library_calls
from minigrad.exercises.lessons import lesson06 as reference
from minigrad.exercises.lessons.lesson06_checks import (EXERCISES, STRIDED_DELTA, STRIDED_W,
                                                        WORKED_DELTA, WORKED_W, WORKED_X,
                                                        padded_input_grad, weight_grad_per_example)
from minigrad.exercises.spec import judge

pytestmark = pytest.mark.usefixtures("warm_kernels")

SEEDS = range(8)

_cases = ExerciseCases(EXERCISES, reference, SEEDS)
BY_ID = _cases.by_id
caught = _cases.caught
# 06.5's reference runs gradcheck on every case: two hidden sets are enough for its mistakes.
caught_conv = ExerciseCases(EXERCISES, reference, range(2)).caught


# Well formed, reference passes, hidden cases fresh: tests/exercises/test_every_lesson.py


def _plane(array: np.ndarray, requires_grad: bool = True) -> mg.Tensor:
    return mg.tensor(array[None, None], dtype=mg.float64, requires_grad=requires_grad)


def test_worked_case_by_hand() -> None:
    np.testing.assert_array_equal(reference.conv_weight_grad(WORKED_X, WORKED_DELTA),
                                  [[6.0, 9.0], [15.0, 18.0]])
    np.testing.assert_array_equal(reference.conv_input_grad(WORKED_W, WORKED_DELTA),
                                  [[1.0, 4.0, 4.0], [2.0, 9.0, 10.0], [-3.0, -1.0, 4.0]])


@pytest.mark.parametrize("seed", range(4))
def test_gradients_match_the_engine(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for x, delta in BY_ID["06.1"].hidden(rng):
        k = x.shape[0] - delta.shape[0] + 1
        w = rng.normal(size=(k, k))
        xt, wt = _plane(x), _plane(w)
        F.conv2d(xt, wt).backward(_plane(delta, False))
        np.testing.assert_allclose(reference.conv_weight_grad(x, delta), wt.grad.numpy()[0, 0],
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(reference.conv_input_grad(w, delta), xt.grad.numpy()[0, 0],
                                   rtol=1e-10, atol=1e-12)


def test_output_size_matches_the_engine() -> None:
    for size, kernel, stride, padding in BY_ID["06.3"].hidden(np.random.default_rng(0)):
        y = F.conv2d(mg.zeros(1, 1, size, size), mg.zeros(1, 1, kernel, kernel), stride=stride,
                     padding=padding)
        assert y.shape[2] == reference.conv_output_size(size, kernel, stride, padding)


# ---------------------------------------------------------------------------- mistakes
def _convolves_the_other_way(x, delta):
    return reference.conv_weight_grad(x, delta)[::-1, ::-1]


def _unrotated_kernel(w, delta):
    return reference.conv_input_grad(w[::-1, ::-1], delta)


def _forgets_the_padding(w, delta):
    return reference.conv_input_grad(w, delta)[:delta.shape[0], :delta.shape[1]]


def _ceil_instead_of_floor(size, kernel, stride, padding):
    return -(-(size + 2 * padding - kernel) // stride) + 1


def _padding_once(size, kernel, stride, padding):
    return (size + padding - kernel) // stride + 1


@pytest.mark.parametrize("exercise_id, wrong", [
    ("06.1", _convolves_the_other_way), ("06.2", _unrotated_kernel),
    ("06.2", _forgets_the_padding), ("06.3", _ceil_instead_of_floor), ("06.3", _padding_once)])
def test_mistakes_are_caught(exercise_id, wrong) -> None:
    caught(exercise_id, wrong)


# ---------------------------------------------------------------------------- 06.4
def test_strided_worked_case_of_the_reading() -> None:
    np.testing.assert_array_equal(
        reference.strided_input_grad(STRIDED_W, STRIDED_DELTA, 2, 5, 5),
        [[1, 2, 5, 4, 6], [4, 5, 14, 10, 12], [10, 14, 36, 24, 30], [12, 15, 34, 20, 24],
         [21, 24, 55, 32, 36]])


@pytest.mark.parametrize("seed", range(4))
def test_strided_input_grad_matches_the_engine(seed: int) -> None:
    for w, delta, stride, height, width in BY_ID["06.4"].hidden(np.random.default_rng(seed)):
        xt = mg.zeros(1, 1, height, width, dtype=mg.float64, requires_grad=True)
        y = F.conv2d(xt, _plane(w, False), stride=stride)
        assert y.shape[2:] == delta.shape
        y.backward(_plane(delta, False))
        np.testing.assert_allclose(reference.strided_input_grad(w, delta, stride, height, width),
                                   xt.grad.numpy()[0, 0], rtol=1e-10, atol=1e-12)


def _strided_not_dilated(w, delta, stride, height, width):
    return reference.conv_input_grad(w, delta)


def _strided_not_dilated_but_right_shape(w, delta, stride, height, width):
    grad = np.zeros((height, width))
    full = reference.conv_input_grad(w, delta)
    grad[:min(height, full.shape[0]), :min(width, full.shape[1])] = full[:height, :width]
    return grad


def _strided_unrotated(w, delta, stride, height, width):
    return reference.strided_input_grad(w[::-1, ::-1], delta, stride, height, width)


def _strided_without_unread_rows(w, delta, stride, height, width):
    k, (rows, columns) = w.shape[0], delta.shape
    return reference.strided_input_grad(w, delta, stride, height, width)[
        :stride * (rows - 1) + k, :stride * (columns - 1) + k]


@pytest.mark.parametrize("wrong, words", [
    (_strided_not_dilated, "δ was not dilated"),
    (_strided_not_dilated_but_right_shape, "δ was not dilated"),
    (_strided_unrotated, "NOT rotated by 180°"),
    (_strided_without_unread_rows, "no window read get gradient 0")])
def test_strided_mistakes_get_their_own_message(wrong, words) -> None:
    messages = caught("06.4", wrong)
    assert all(words in message for message in messages), messages


def test_unrotated_and_flipped_kernels_are_named() -> None:
    assert all("NOT rotated by 180°" in m for m in caught("06.2", _unrotated_kernel))
    assert all("pad δ with k − 1 zeros" in m for m in caught("06.2", _forgets_the_padding))
    assert all("rotated by 180°: slide δ over x" in m
               for m in caught("06.1", _convolves_the_other_way))


# ---------------------------------------------------------------------------- 06.5
def _engine_conv(x, w, b, delta, stride, padding):
    leaves = [mg.tensor(a, dtype=mg.float64, requires_grad=True) for a in (x, w, b)]
    y = F.conv2d(*leaves, stride=stride, padding=padding)
    y.backward(mg.tensor(delta, dtype=mg.float64))
    return [y.numpy()] + [leaf.grad.numpy() for leaf in leaves]


@pytest.mark.parametrize("seed", range(3))
def test_conv2d_function_matches_the_librarys_conv2d(seed: int) -> None:
    cases = BY_ID["06.5"].hidden(np.random.default_rng(seed)) + (
        list(BY_ID["06.5"].visible()) if seed == 0 else [])
    for args in cases:
        *values, passed = reference.conv2d_function(*args)
        assert passed is True
        for mine, library in zip(values, _engine_conv(*args)):
            np.testing.assert_allclose(mine, library, rtol=1e-10, atol=1e-12)


def test_hidden_conv2d_cases_cover_stride_padding_batch_and_unread_rows() -> None:
    for seed in SEEDS:
        cases = BY_ID["06.5"].hidden(np.random.default_rng(seed))
        x, w, _, _, stride, padding = cases[0]
        assert stride == 2 and (x.shape[2] + 2 * padding - w.shape[2]) % 2 == 1
        x, w, _, _, stride, padding = cases[1]
        assert padding >= 1 and x.shape[0] >= 2 and w.shape[2] >= 2


def _answer(args, grad_x=None, grad_w=None, grad_b=None, passed=False):
    """The right answer of 06.5 (from the library's conv2d) with some gradients replaced
    (gradcheck then fails)."""
    y, dx, dw, db = _engine_conv(*args)
    return (y, dx if grad_x is None else grad_x, dw if grad_w is None else grad_w,
            db if grad_b is None else grad_b, passed)


def _padded_grad(args, weight=None, stride=None):
    x, w, _, delta, s, p = args
    shape = (x.shape[0], x.shape[1], x.shape[2] + 2 * p, x.shape[3] + 2 * p)
    return padded_input_grad(delta, w if weight is None else weight, shape,
                             s if stride is None else stride)


def _conv_unrotated(*args):
    x, w, _, _, _, p = args
    grad = _padded_grad(args, weight=w[:, :, ::-1, ::-1])
    return _answer(args, grad_x=grad[:, :, p:p + x.shape[2], p:p + x.shape[3]])


def _conv_uncropped(*args):
    return _answer(args, grad_x=_padded_grad(args))


def _conv_cropped_at_the_top_left(*args):
    x = args[0]
    return _answer(args, grad_x=_padded_grad(args)[:, :, :x.shape[2], :x.shape[3]])


def _conv_not_dilated(*args):
    x, w, _, delta, s, p = args
    k = w.shape[2]
    shape = (x.shape[0], x.shape[1], delta.shape[2] + k - 1, delta.shape[3] + k - 1)
    grad = padded_input_grad(delta, w, shape, 1)
    return _answer(args, grad_x=grad[:, :, p:shape[2] - p, p:shape[3] - p])


def _conv_first_example_only(*args):
    x, w, _, delta, s, p = args
    one = weight_grad_per_example(x, delta, w.shape[2], s, p)[0]
    return _answer(args, grad_w=one, grad_b=delta[0].sum(axis=(1, 2)))


def _conv_batch_axis_kept(*args):
    x, w, _, delta, s, p = args
    return _answer(args, grad_w=weight_grad_per_example(x, delta, w.shape[2], s, p),
                   grad_b=delta.sum(axis=(2, 3)))


def _conv_forward_only(*args):
    x, w, b, _, _, _ = args
    y = _answer(args)[0]
    return (y, np.zeros_like(x), np.zeros_like(w), np.zeros_like(b), False)


def _conv_no_bias(*args):
    y, dx, dw, db, passed = _answer(args, passed=True)
    return (y - args[2][None, :, None, None], dx, dw, db, False)


def _conv_flipped_forward(*args):
    x, w, b, delta, s, p = args
    flipped = _engine_conv(x, w[:, :, ::-1, ::-1].copy(), b, delta, s, p)[0]
    return (flipped,) + _answer(args)[1:]


def _conv_one_input_channel(*args):
    from minigrad.exercises.lessons.lesson06_checks import forward_without_bias
    x, w, b, _, s, p = args
    return (forward_without_bias(x[:, :1], w[:, :1], s, p) + b[None, :, None, None],
            ) + _answer(args)[1:]


def _conv_one_output_channel(*args):
    x, w, _, delta, s, p = args
    shape = (x.shape[0], x.shape[1], x.shape[2] + 2 * p, x.shape[3] + 2 * p)
    last = padded_input_grad(delta[:, -1:], w[-1:], shape, s)  # `=` where `+=` was meant
    return _answer(args, grad_x=last[:, :, p:p + x.shape[2], p:p + x.shape[3]])


def _conv_not_dilated_right_shape(*args):
    x, w, _, delta, s, p = args
    k = w.shape[2]
    full = padded_input_grad(delta, w, (*x.shape[:2], delta.shape[2] + k - 1,
                                        delta.shape[3] + k - 1), 1)
    placed = np.zeros((*x.shape[:2], x.shape[2] + 2 * p, x.shape[3] + 2 * p))
    rows, columns = min(placed.shape[2], full.shape[2]), min(placed.shape[3], full.shape[3])
    placed[:, :, :rows, :columns] = full[:, :, :rows, :columns]
    return _answer(args, grad_x=placed[:, :, p:p + x.shape[2], p:p + x.shape[3]])


def _conv_bias_summed_per_image(*args):
    return _answer(args, grad_b=args[3].sum(axis=(1, 2, 3)))


def _conv_bias_summed_over_everything(*args):
    return _answer(args, grad_b=args[3].sum())


def _conv_float32(*args):
    y, dx, dw, db, _ = _answer(args)
    return (y.astype(np.float32), dx.astype(np.float32), dw, db, False)


@pytest.mark.parametrize("wrong, words", [
    (_conv_float32, "your y and dL/dx are float32"),
    (_conv_one_input_channel, "y uses one input channel only"),
    (_conv_one_output_channel, "dL/dx holds one output channel's share only"),
    (_conv_not_dilated_right_shape, "δ was not dilated"),
    (_conv_bias_summed_per_image, "b[o] was added to every output of channel o"),
    (_conv_bias_summed_over_everything, "dL/db has shape ()"),
    (_conv_no_bias, "y lacks the bias"),
    (_conv_flipped_forward, "y flips the kernel"),
    (_conv_unrotated, "NOT rotated by 180°"),
    (_conv_uncropped, "still has the padding"),
    (_conv_cropped_at_the_top_left, "cropped at the wrong place"),
    (_conv_not_dilated, "δ was not dilated"),
    (_conv_first_example_only, "dL/dw is not summed over the batch"),
    (_conv_batch_axis_kept, "dL/db is not summed over the batch")])
def test_conv2d_mistakes_get_their_own_message(wrong, words) -> None:
    messages = caught_conv("06.5", wrong)
    assert any(words in message for message in messages), messages
    for message in messages:  # where the mistake shows, it is named
        assert words in message or "gradcheck" in message, message


def test_each_part_of_a_conv2d_answer_earns_its_share() -> None:
    args = BY_ID["06.5"].visible()[1]
    expected = reference.conv2d_function(*args)
    message, credit = judge(BY_ID["06.5"], expected, _conv_unrotated(*args), args)
    assert credit == pytest.approx(4 / 8)  # y 1, dL/dw 2, dL/db 1 of 1 + 2 + 2 + 1 + 2
    assert "NOT rotated" in message and "right: y, dL/dw, dL/db; wrong: dL/dx, gradcheck" in message


def test_a_forward_only_answer_fails_every_visible_case() -> None:
    for args in BY_ID["06.5"].visible():
        message, credit = judge(BY_ID["06.5"], reference.conv2d_function(*args),
                                _conv_forward_only(*args), args)
        assert message and credit == pytest.approx(1 / 8)


def test_a_real_function_without_rotation_fails_gradcheck_and_is_named() -> None:
    from minigrad.autograd import Function

    class Unrotated(Function):
        @staticmethod
        def forward(ctx, x, weight, bias, stride, padding):
            ctx.save_for_backward(x, weight)
            ctx.stride, ctx.padding = stride, padding
            return student_conv.forward(x, weight, stride, padding) + bias[None, :, None, None]

        @staticmethod
        def backward(ctx, grad_output):
            x, weight = (t.numpy() for t in ctx.saved_tensors)
            delta, s, p = grad_output.numpy(), ctx.stride, ctx.padding
            flipped = weight[:, :, ::-1, ::-1]  # the mistake
            return (student_conv.input_grad(delta, flipped, x.shape, s, p),
                    student_conv.weight_grad(x, delta, weight.shape[2], s, p),
                    delta.sum(axis=(0, 2, 3)))

    args = BY_ID["06.5"].visible()[2]
    got = reference.run_conv2d(Unrotated, *args)
    assert got[4] is False
    message, credit = judge(BY_ID["06.5"], reference.conv2d_function(*args), got, args)
    assert "NOT rotated by 180°" in message and credit == pytest.approx(4 / 8)


def _library_function(forward_with, backward_with):
    """A Conv2d Function that hands its work to the library: the hole 06.5 must close."""
    from minigrad.autograd import Function

    class Borrowed(Function):
        @staticmethod
        def forward(ctx, x, weight, bias, stride, padding):
            ctx.args = (x, weight, bias, stride, padding)
            return forward_with(x, weight, bias, stride, padding)

        @staticmethod
        def backward(ctx, grad_output):
            return backward_with(*ctx.args, grad_output.numpy())

    return Borrowed


def _engine_forward(x, w, b, stride, padding):
    return F.conv2d(mg.tensor(x), mg.tensor(w), mg.tensor(b), stride=stride,
                    padding=padding).numpy()


def _module_forward(x, w, b, stride, padding):
    layer = mg.nn.Conv2d(w.shape[1], w.shape[0], w.shape[2], stride=stride, padding=padding,
                         dtype=mg.float64)
    layer.weight.data = mg.tensor(w)
    layer.bias.data = mg.tensor(b)
    with mg.no_grad():
        return layer(mg.tensor(x)).numpy()


def _kernel_forward(x, w, b, stride, padding):
    from minigrad.kernels import im2col
    return im2col.conv2d_forward(x, w, (stride, stride), (padding, padding)) + b[:, None, None]


def _numpy_forward(x, w, b, stride, padding):
    return student_conv.forward(x, w, stride, padding) + b[:, None, None]


def _engine_backward(x, w, b, stride, padding, delta):
    return tuple(_engine_conv(x, w, b, delta, stride, padding)[1:])


def _kernel_backward(x, w, b, stride, padding, delta):
    from minigrad import kernels
    settings = (stride, stride), (padding, padding)
    return (kernels.conv2d_grad_input(delta, w, x.shape, *settings),
            kernels.conv2d_grad_weight(x, delta, w.shape, *settings), delta.sum(axis=(0, 2, 3)))


def _torch_forward(x, w, b, stride, padding):
    torch = pytest.importorskip("torch")
    return torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b),
                                      stride=stride, padding=padding).numpy()


@pytest.mark.parametrize("forward_with, backward_with, named", [
    (_engine_forward, _engine_backward, "minigrad.ops.conv"),
    (_module_forward, _engine_backward, "minigrad.ops.conv"),
    (_kernel_forward, _kernel_backward, "minigrad.kernels"),
    (_numpy_forward, _engine_backward, "minigrad.ops.conv"),
    (_numpy_forward, _kernel_backward, "minigrad.kernels"),
    (_torch_forward, _engine_backward, "torch.conv2d")])
def test_a_conv2d_that_calls_the_librarys_convolution_is_refused(forward_with, backward_with,
                                                                 named) -> None:
    args = BY_ID["06.5"].visible()[2]
    with pytest.raises(RuntimeError, match="calls the library's convolution") as raised:
        reference.run_conv2d(_library_function(forward_with, backward_with), *args)
    assert named in str(raised.value)
    assert sys.getprofile() is None  # the watch is taken off again


def test_the_watch_lets_numpy_and_check_yourself_calls_through() -> None:
    with library_calls(("minigrad.ops.conv", "minigrad.kernels"), "conv") as calls:
        np.einsum("ij,jk->ik", np.ones((2, 2)), np.ones((2, 2)))
        np.pad(np.ones((2, 2)), 1)
    assert calls == []
    _engine_forward(*BY_ID["06.5"].visible()[1][:3], 1, 1)  # outside the watch: allowed


@pytest.mark.parametrize("answer, words", [
    (lambda y, dx, dw, db: (y, dx, dw, None, False), "returned None for dL/db"),
    (lambda y, dx, dw, db: (y, dx, dw, False), "backward returned 2 gradient(s)")])
def test_a_backward_with_a_missing_gradient_is_told_so(answer, words) -> None:
    args = BY_ID["06.5"].visible()[1]
    message, _ = judge(BY_ID["06.5"], reference.conv2d_function(*args),
                       answer(*_engine_conv(*args)), args)
    assert words in message


def test_the_figures_show_the_readings_numbers() -> None:
    from minigrad.figures import lesson06 as pictures

    y, grad_x, grad_w = pictures.conv_plane(WORKED_X, WORKED_W, WORKED_DELTA)
    assert (y[0, 1], grad_w[0, 1], grad_x[1, 1]) == (47.0, 9.0, 9.0)
    _, grad_x, _ = pictures.conv_plane(np.zeros((5, 5)), STRIDED_W, STRIDED_DELTA, stride=2)
    np.testing.assert_array_equal(
        grad_x, reference.strided_input_grad(STRIDED_W, STRIDED_DELTA, 2, 5, 5))
    assert grad_x[2, 2] == 36.0
    loss, names = pictures.conv_pool_net_loss()
    assert names["loss"] is loss and loss.shape == ()


def test_a_loop_by_loop_conv2d_has_time_for_every_case() -> None:
    """Seven nested loops, gradchecked, took up to 21 s for 06.5's cases on a loaded 2-core
    machine (see the checks): more than the grader's default 10 s per exercise."""
    assert BY_ID["06.5"].timeout is not None and BY_ID["06.5"].timeout >= 40


@pytest.mark.parametrize("wrong, words", [
    (lambda size, k, s, p: (size + 2 * p - k) // s, "one short"),
    (lambda size, k, s, p: (size + 2 * p - k) // s + 2, "one too many"),
    (lambda size, k, s, p: (size + p - k) // s + 1, "padded one end only"),
    (lambda size, k, s, p: (size - k) // s + 1, "left the padding out"),
    (lambda size, k, s, p: size + 2 * p - k + 1, "as if the stride were 1"),
    (lambda size, k, s, p: -(-(size + 2 * p - k) // s) + 1, "rounded up"),
], ids=["one-short", "one-too-many", "one-end", "no-padding", "no-stride", "ceil"])
def test_output_size_mistakes_are_named(wrong, words) -> None:
    """An off-by-one said "expected 2, got 1" on every case, never "one short"."""
    messages = caught("06.3", wrong)
    assert any(words in message for message in messages), messages
    assert sum(words in message for message in messages) >= len(messages) / 2, messages



def test_06_5_points_follow_the_backward() -> None:
    """Every strided dL/dx wrong earned 4/5 of 06.5, a float32 forward 3.1/5: the weights of
    its parts put the backward first."""
    from minigrad.exercises.spec import judge

    exercise = BY_ID["06.5"]
    strided = [args for args in exercise.visible() if args[4] > 1]
    assert strided
    for args in strided:
        message, credit = judge(exercise, reference.conv2d_function(*args),
                                _conv_not_dilated_right_shape(*args), args)
        assert credit == pytest.approx(4 / 8), message  # y, dL/dw, dL/db; not dL/dx, gradcheck
    for args in exercise.visible():
        message, credit = judge(exercise, reference.conv2d_function(*args), _conv_float32(*args),
                                args)
        assert credit == pytest.approx(3 / 8) and "float32" in message, message


def test_a_batch_of_one_is_not_called_a_batch_that_shares() -> None:
    """It said "the parameters are shared by the one example of this batch"."""
    from minigrad.exercises.spec import judge

    exercise = BY_ID["06.5"]
    ones = [args for cases in _cases.case_sets("06.5") for args in cases
            if args[0].shape[0] == 1]
    assert ones
    for args in ones:
        message, _ = judge(exercise, reference.conv2d_function(*args),
                           _conv_batch_axis_kept(*args), args)
        assert "keeps the batch axis, of length 1 here" in message, message
        assert "one example of this batch" not in message


def _weight_grad_last_term(x, delta):  # type: ignore[no-untyped-def]
    rows, columns = delta.shape
    k = x.shape[0] - rows + 1, x.shape[1] - columns + 1
    grad = np.zeros(k)
    for i in range(rows):
        for j in range(columns):
            grad = delta[i, j] * x[i:i + k[0], j:j + k[1]]  # `=` where `+=` was meant
    return grad


@pytest.mark.parametrize("exercise_id, wrong, words", [
    ("06.1", _weight_grad_last_term, "keeps only the last output's term"),
    ("06.1", lambda x, d: reference.conv_weight_grad(x, d) / d.size, "the mean of the outputs'"),
    ("06.1", lambda x, d: reference.conv_weight_grad(x, d)[:-1], "the kernel's shape"),
    ("06.2", lambda w, d: reference.conv_input_grad(w, np.ones_like(d)), "without δ"),
], ids=["last-term", "mean", "shape", "no-delta"])
def test_plane_gradient_mistakes_are_named(exercise_id, wrong, words) -> None:  # type: ignore
    messages = caught(exercise_id, wrong)
    assert sum(words in message for message in messages) >= len(messages) / 2, messages



def _strided_overwrites(w, delta, stride, height, width):  # type: ignore[no-untyped-def]
    grad, k = np.zeros((height, width)), w.shape[0]
    for i, j in np.ndindex(delta.shape):
        grad[stride * i:stride * i + k, stride * j:stride * j + k] = w * delta[i, j]
    return grad


def test_strided_input_grad_without_delta_is_named() -> None:
    messages = caught("06.4", lambda w, d, s, h, width: reference.strided_input_grad(
        w, np.ones_like(d), s, h, width))
    assert all("without δ" in message for message in messages), messages


def test_strided_overwriting_is_named_where_windows_overlap() -> None:
    sets = [[args for args in cases if args[0].shape[0] > args[2]]
            for cases in _cases.case_sets("06.4")]
    messages = _cases.failures("06.4", _strided_overwrites, [s for s in sets if s])
    assert messages and all("shares add up (+=)" in m for m in messages), messages


# ---------------------------------------------------------------------------- named mistakes
# 06.2: a wrong solution as a student writes it (a line of the reference replaced), and the
# sentence that names its mistake.
INPUT_GRAD_NAMED = [
    (("grad_x += rotated[m, n] * padded[m:m + rows, n:n + columns]",
      "grad_x = rotated[m, n] * padded[m:m + rows, n:n + columns]"),
     "keeps only the last kernel offset's term"),
    (("    rotated = weight[::-1, ::-1]\n    rows, columns = grad_output.shape[0] + k - 1",
      "    rotated = weight.T\n    rows, columns = grad_output.shape[0] + k - 1"),
     "your kernel is transposed"),
    (("    rotated = weight[::-1, ::-1]\n    rows, columns = grad_output.shape[0] + k - 1",
      "    rotated = weight[::-1]\n    rows, columns = grad_output.shape[0] + k - 1"),
     "flipped along one axis only"),
]


@pytest.mark.parametrize("replaced, sentence", INPUT_GRAD_NAMED,
                         ids=[sentence[:30] for _, sentence in INPUT_GRAD_NAMED])
def test_conv_input_grad_names_each_mistake(replaced: tuple[str, str], sentence: str) -> None:
    assert_named("06.2", replaced, sentence)


# 06.1
def test_conv_weight_grad_names_a_sum_of_delta_times_one_pixel() -> None:
    assert_named("06.1", ("grad_w[m, n] = np.sum(grad_output * x[m:m + rows, n:n + columns])",
                          "grad_w[m, n] = np.sum(grad_output) * x[m, n]"),
                 "multiplies the sum of δ by one pixel")
