"""Floor division and remainder: `a // b` and `a % b` (numpy broadcasting, PyTorch's dtypes).

    a // b = floor(a / b)              piecewise constant: PyTorch defines no derivative, and
                                       neither do we (backward raises, as in PyTorch)
    a % b  = a - floor(a / b) · b      the sign of b, like Python's % and torch.remainder;
                                       d/da = 1,  d/db = -floor(a / b)  (away from the jumps)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.arithmetic import _broadcasting
from minigrad.ops.broadcast import sum_to
from minigrad.tensor.dtypes import not_implemented_for
from minigrad.tensor.tensor import Tensor


def _refuse_bools(kernel: str, a: Any, b: Any) -> None:
    """bool // bool and bool % bool have no kernel in PyTorch (numpy would give int8)."""
    if np.asarray(a).dtype == np.bool_ and np.asarray(b).dtype == np.bool_:
        raise not_implemented_for(kernel, np.dtype(np.bool_),
                                  "convert the masks to integers first, e.g. mask.long()")


def _refuse_integer_zero(result: np.ndarray, divisor: Any) -> None:
    """Integers have no inf: an integer // or % by zero is an error, as in PyTorch (numpy
    would give 0 with a warning). Floats give inf or nan."""
    if result.dtype.kind in "iu" and result.size and np.any(np.asarray(divisor) == 0):
        raise RuntimeError("ZeroDivisionError (an integer // or % by zero)")


# "NotImplemented" is what PyTorch shows as the grad_fn of a // b.
class FloorDivide(Function, node_name="NotImplemented"):
    """out = floor(a / b);  no derivative (PyTorch: "derivative for aten::floor_divide is not
    implemented")."""

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> np.ndarray:
        _refuse_bools("div_floor_cpu", a, b)
        with np.errstate(divide="ignore", invalid="ignore"):
            result = _broadcasting(np.floor_divide, a, b, "//")
        _refuse_integer_zero(result, b)
        return result

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[None, None]:
        raise RuntimeError("derivative for aten::floor_divide is not implemented: a // b is a "
                           "step function (its derivative is 0 almost everywhere); detach it, "
                           "or use a / b if you need a gradient")


class Remainder(Function):
    """out = a - floor(a / b) · b;  d(out)/da = 1,  d(out)/db = -floor(a / b)."""

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any) -> np.ndarray:
        _refuse_bools("remainder_cpu", a, b)
        ctx.shapes = (np.shape(a), np.shape(b))
        with np.errstate(divide="ignore", invalid="ignore"):
            result = _broadcasting(np.remainder, a, b, "%")
            ctx.quotient = np.floor_divide(a, b) if ctx.needs_input_grad[1] else None
        _refuse_integer_zero(result, b)
        return result

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_b = ctx.needs_input_grad
        grad_a = sum_to(grad_output, ctx.shapes[0]) if need_a else None
        grad_b = None
        if need_b:
            quotient = Tensor._make(np.asarray(ctx.quotient, dtype=grad_output.dtype), False, None)
            grad_b = sum_to(-(grad_output * quotient), ctx.shapes[1])
        return grad_a, grad_b


class RemainderTensor(Remainder, node_name="RemainderBackward1"):
    """Remainder with a tensor divisor (PyTorch's second overload)."""


def floor_divide(a: Any, b: Any) -> Tensor:
    """a // b, rounded towards minus infinity (as Python's //)."""
    return FloorDivide.apply(a, b)


def remainder(a: Any, b: Any) -> Tensor:
    """a % b, with the sign of b (as Python's %)."""
    if isinstance(b, Tensor):
        return RemainderTensor.apply(a, b)
    return Remainder.apply(a, b)


__all__ = ["floor_divide", "remainder"]
