"""gradcheck: passes on correct backward rules, fails loudly and usefully on wrong ones."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import Function
from minigrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from minigrad.ops import reduce, unary


def leaf(*shape, seed=0):
    data = np.random.default_rng(seed).standard_normal(shape)
    return mg.tensor(data, dtype=mg.float64, requires_grad=True)


# ---- deliberately wrong Functions ---------------------------------------------------------
class SquareMissingFactor2(Function):
    """y = x²  with the classic bug: backward returns x·g instead of 2x·g."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x


class WrongAtOneEntry(Function):
    """y = 3x, whose backward is right everywhere except at flat position 4."""

    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        return 3 * x

    @staticmethod
    def backward(ctx, grad_output):
        factor = np.full(ctx.shape, 3.0)
        factor.flat[4] = 2.0
        return grad_output * factor


class MulSwappedGradients(Function):
    """y = a * b with the gradients of a and b swapped (right only when a == b)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output * a, grad_output * b


class TanhDetachedBackward(Function):
    """tanh whose backward uses a constant copy of the output: first derivative right,
    second derivative wrong (the backward graph is cut)."""

    @staticmethod
    def forward(ctx, x):
        result = np.tanh(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * (1 - result.detach() * result.detach())


# ---- passing cases ------------------------------------------------------------------------
def test_passes_on_correct_ops():
    x, y = leaf(3, 4), leaf(4, seed=1)
    assert gradcheck(lambda a, b: unary.tanh(a) * b + unary.exp(b), (x, y)) is True
    assert mg.autograd.gradcheck(lambda a: reduce.sum(a * a, 1), x) is True


def test_passes_with_a_tuple_of_outputs_and_constant_inputs():
    x = leaf(2, 3)
    constant = mg.tensor(np.arange(3.0), dtype=mg.float64)  # does not require grad
    assert gradcheck(lambda a, c, k: (a * c, unary.sigmoid(a) * k), (x, constant, 2.5))


def test_passes_when_an_output_ignores_an_input():
    x, y = leaf(3), leaf(3, seed=1)
    assert gradcheck(lambda a, b: (unary.exp(a), b * 2), (x, y))


def test_does_not_touch_the_callers_grad():
    x = leaf(3)
    gradcheck(unary.exp, (x,))
    assert x.grad is None


# ---- failing cases ------------------------------------------------------------------------
def test_fails_on_a_wrong_backward_with_a_useful_message():
    x = leaf(2, 3)
    with pytest.raises(GradcheckError) as error:
        gradcheck(SquareMissingFactor2.apply, (x,))
    message = str(error.value)
    assert "output 0 with respect to input 0" in message
    numbers = re.search(r"numerical = (\S+), analytical = (\S+), relative error = (\S+)", message)
    numerical, analytical, relative = (float(v.rstrip(",")) for v in numbers.groups())
    # The worst entry is the diagonal one with the largest |x|: numerical 2x, analytical x.
    worst = int(np.argmax(np.abs(x.numpy())))
    row, col = np.unravel_index(worst, (2, 3))
    assert f"d output[0][{row}, {col}] / d input[0][{row}, {col}]" in message
    assert numerical == pytest.approx(2 * x.numpy().flat[worst], rel=1e-6)
    assert analytical == pytest.approx(x.numpy().flat[worst], rel=1e-9)
    assert relative == pytest.approx(0.5, rel=1e-3)
    assert "6 of 36" in message  # the 6 diagonal entries are wrong, the zeros are right
    assert isinstance(error.value, RuntimeError)


def test_finds_a_single_wrong_entry():
    x = leaf(2, 3)
    with pytest.raises(GradcheckError, match=r"d output\[0\]\[1, 1\] / d input\[0\]\[1, 1\]") as error:
        gradcheck(WrongAtOneEntry.apply, (x,))
    assert "1 of 36" in str(error.value)


def test_names_the_input_whose_gradient_is_wrong():
    a, b = leaf(3, seed=1), leaf(3, seed=2)
    with pytest.raises(GradcheckError, match="with respect to input 1"):
        gradcheck(MulSwappedGradients.apply, (mg.tensor(a.numpy(), dtype=mg.float64), b))
    with pytest.raises(GradcheckError, match="with respect to input 0"):
        gradcheck(MulSwappedGradients.apply, (a, b))


def test_can_return_false_instead_of_raising():
    assert gradcheck(SquareMissingFactor2.apply, (leaf(3),), raise_exception=False) is False


def test_tolerances_are_applied():
    # A 1e-3 relative error passes with rtol=1e-2 and fails with the default rtol=1e-3 (atol 0).
    class SlightlyOff(Function):
        @staticmethod
        def forward(ctx, x):
            return 2 * x

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * 2.004

    x = leaf(3)
    assert gradcheck(SlightlyOff.apply, (x,), atol=0, rtol=1e-2)
    with pytest.raises(GradcheckError):
        gradcheck(SlightlyOff.apply, (x,), atol=0, rtol=1e-3)


def test_nan_gradients_fail():
    class NanBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * np.nan

    with pytest.raises(GradcheckError):
        gradcheck(NanBackward.apply, (leaf(2),))


def test_warns_for_float32_inputs():
    x = mg.tensor([0.5, 1.0], requires_grad=True)  # float32
    with pytest.warns(UserWarning, match="float64"):
        gradcheck(unary.exp, (x,), atol=1e-2, rtol=1e-2)


def test_needs_an_input_that_requires_grad():
    with pytest.raises(ValueError, match="requires grad"):
        gradcheck(unary.exp, (mg.tensor([1.0], dtype=mg.float64),))


def test_rejects_non_tensor_outputs():
    with pytest.raises(TypeError, match="Tensor"):
        gradcheck(lambda a: a.numpy(), (leaf(2),))


# ---- second order -------------------------------------------------------------------------
def test_gradgradcheck_passes_on_differentiable_backward_rules():
    x = leaf(2, 3)
    assert gradgradcheck(unary.tanh, (x,))
    assert gradgradcheck(lambda a: reduce.sum(unary.exp(a) * a, 1), (x,))


def test_gradgradcheck_catches_a_backward_that_cuts_the_graph():
    x = leaf(2, 3)
    assert gradcheck(TanhDetachedBackward.apply, (x,))  # first order is right ...
    with pytest.raises(GradcheckError):                    # ... second order is not
        gradgradcheck(TanhDetachedBackward.apply, (x,))


def test_output_positions_count_integer_outputs_too():
    # fn returns (indices, wrong values): the message must say output 1, as the caller sees it.
    x = leaf(2, 3)
    with pytest.raises(GradcheckError, match="output 1 with respect to input 0"):
        gradcheck(lambda t: (mg.tensor([0, 1]), SquareMissingFactor2.apply(t)), (x,))


def test_scalar_entries_are_named_without_brackets():
    with pytest.raises(GradcheckError, match=r"d output\[0\] / d input\[0\]\n"):
        gradcheck(SquareMissingFactor2.apply, (mg.tensor(1.5, dtype=mg.float64, requires_grad=True),))


def test_reachable_as_mg_autograd_gradcheck_every_time():
    import minigrad.autograd.gradcheck  # noqa: F401  (importing the module must not hide the function)

    x = leaf(2)
    assert mg.autograd.gradcheck(unary.exp, (x,)) is True
    assert mg.autograd.gradcheck(unary.exp, (x,)) is True


def test_gradcheck_of_a_function_returning_a_number_says_so():
    x = mg.ones(2, dtype=mg.float64, requires_grad=True)
    with pytest.raises(TypeError, match="fn must return a Tensor or a tuple of Tensors, got float"):
        mg.autograd.gradcheck(lambda t: 3.0, (x,))
