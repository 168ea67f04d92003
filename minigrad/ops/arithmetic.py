"""Arithmetic: + - * / ** and negation, with numpy broadcasting.

Each op's backward gets `grad_output` with the *output's* shape. When an input was
broadcast (a (3,) bias added to a (2, 3) batch), every copy of it contributed to the
output, so its gradient is the sum over the broadcast axes: `sum_to(grad, input.shape)`.
`sum_to` and `broadcast_to` are each other's backward, both differentiable, so gradients
of gradients work too.

Type promotion follows PyTorch: float32 with float64 gives float64; a Python number never
changes a tensor's dtype; integer tensors mixed with floats (or divided) give float32.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.broadcast import BroadcastTo, ShapeError, broadcast_to, sum_to
from minigrad.ops.matmul import matmul
from minigrad.tensor.dtypes import DtypeError, float32, not_implemented_for, promote
from minigrad.tensor.tensor import Tensor

Operand = Any  # a Tensor or a Python number


def _shape(value: Any) -> tuple[int, ...]:
    return value.shape if type(value) is np.ndarray else ()


def broadcast_error(a: Any, b: Any, symbol: str) -> ShapeError:
    shape_a, shape_b = _shape(a), _shape(b)
    ndim = max(len(shape_a), len(shape_b))
    padded_a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    padded_b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    torch_words = ""
    for dim in reversed(range(ndim)):  # PyTorch names the last mismatching dim
        size_a, size_b = padded_a[dim], padded_b[dim]
        if size_a != size_b and size_a != 1 and size_b != 1:
            torch_words = (f" (The size of tensor a ({size_a}) must match the size of tensor b "
                           f"({size_b}) at non-singleton dimension {dim})")
            break
    return ShapeError(
        f"shapes {shape_a} and {shape_b} cannot be broadcast together for {symbol}: "
        "compare the shapes from the right; each pair of sizes must be equal or one of them 1"
        + torch_words)


def _broadcasting(ufunc: np.ufunc, a: Any, b: Any, symbol: str) -> np.ndarray:
    """ufunc(a, b) with numpy broadcasting and PyTorch's dtype promotion; a clear error
    naming both shapes when they do not broadcast."""
    try:
        return promote(ufunc(a, b), a, b)
    except ValueError:
        raise broadcast_error(a, b, symbol) from None


# ---- + - * / ------------------------------------------------------------------------------
class Add(Function):
    """out = a + b;  d(out)/da = 1,  d(out)/db = 1."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return _broadcasting(np.add, a, b, "+")

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_b = ctx.needs_input_grad
        return (sum_to(grad_output, ctx.inputs[0].shape) if need_a else None,
                sum_to(grad_output, ctx.inputs[1].shape) if need_b else None)


def refuse_bool(a: Any, b: Any) -> None:
    """PyTorch has no subtraction of bools (numpy would give ints or raise its own error)."""
    bools = [type(x) is bool or getattr(x, "dtype", None) == np.bool_ for x in (a, b)]
    if all(bools):
        raise DtypeError("Subtraction, the `-` operator, with two bool tensors is not "
                         "supported. Use the `^` or `logical_xor()` operator instead.")
    if any(bools):
        raise DtypeError("Subtraction, the `-` operator, with a bool tensor is not supported. If "
                         "you are trying to invert a mask, use the `~` or `logical_not()` "
                         "operator instead.")


class Sub(Function):
    """out = a - b;  d(out)/da = 1,  d(out)/db = -1."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        refuse_bool(a, b)
        return _broadcasting(np.subtract, a, b, "-")

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_b = ctx.needs_input_grad
        return (sum_to(grad_output, ctx.inputs[0].shape) if need_a else None,
                sum_to(-grad_output, ctx.inputs[1].shape) if need_b else None)


class Rsub(Function, node_name="RsubBackward1"):
    """out = other - a for a Python number `other` (`2 - x`);  d(out)/da = -1."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, other: float) -> np.ndarray:
        refuse_bool(other, a)
        ctx.other = other  # (only for drawing: `2 - x` shows its 2)
        return promote(np.subtract(other, a), a, other)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return -grad_output


class Mul(Function):
    """out = a * b;  d(out)/da = b,  d(out)/db = a."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        need_a, need_b = ctx.needs_input_grad
        # Keep only what backward will read: b for a's gradient, a for b's.
        ctx.save_for_backward(a if need_b else None, b if need_a else None, names=("self", "other"))
        return _broadcasting(np.multiply, a, b, "*")

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (sum_to(grad_output * b, ctx.inputs[0].shape) if need_a else None,
                sum_to(grad_output * a, ctx.inputs[1].shape) if need_b else None)


class Div(Function):
    """out = a / b;  d(out)/da = 1/b,  d(out)/db = -a/b²."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b, names=("self", "other"))
        return _broadcasting(np.true_divide, a, b, "/")

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (sum_to(grad_output / b, ctx.inputs[0].shape) if need_a else None,
                sum_to(-grad_output * a / (b * b), ctx.inputs[1].shape) if need_b else None)


class Reciprocal(Function):
    """out = 1 / a;  d(out)/da = -1/a² = -out²."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray) -> np.ndarray:
        result = promote(np.reciprocal(a, dtype=None if a.dtype.kind == "f" else float32), a, None)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return -grad_output * (result * result)


class Neg(Function):
    """out = -a;  d(out)/da = -1."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray) -> np.ndarray:
        if a.dtype == np.bool_:
            raise DtypeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                             "you are trying to invert a mask, use the `~` or `logical_not()` "
                             "operator instead.")
        return np.negative(a)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return -grad_output


# ---- powers -------------------------------------------------------------------------------
class Pow(Function):
    """out = a ** exponent (a Python number);  d(out)/da = exponent · a^(exponent-1)."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, exponent: float) -> np.ndarray:
        ctx.exponent = exponent
        ctx.save_for_backward(a)
        if a.dtype == np.bool_ and type(exponent) is bool:  # numpy would give int8
            return a.copy() if exponent else np.ones_like(a)
        try:
            return promote(np.power(a, exponent), a, exponent)
        except ValueError as error:  # numpy: "Integers to negative integer powers ..."
            raise RuntimeError(str(error)) from None

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        if ctx.exponent == 0:
            return grad_output * 0.0
        return grad_output * ctx.exponent * a ** (ctx.exponent - 1)


class PowTensor(Function, node_name="PowBackward1"):
    """out = a ** b (both tensors);  d/da = b · a^(b-1),  d/db = out · ln(a)."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        integers = a.dtype.kind in "iub" and b.dtype.kind in "iub"
        if integers and a.dtype == b.dtype == np.bool_:
            raise not_implemented_for("pow", a.dtype)
        result = _broadcasting(_integer_power if integers else np.power, a, b, "**")
        ctx.save_for_backward(a, b, result if ctx.needs_input_grad[1] else None,
                              names=("self", "exponent", "result"))
        return result

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b, result = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = None
        if need_a:
            # Where b == 0 the derivative is 0 (as in PyTorch), not 0 * a^(-1) = nan at a = 0.
            grad_a = grad_output * b * a ** (b - 1)
            if (b._data == 0).any():
                from minigrad.ops.combine import where

                grad_a = where(Tensor._make(b._data != 0, False, None), grad_a, 0.0)
            grad_a = sum_to(grad_a, ctx.inputs[0].shape)
        grad_b = None
        if need_b:
            from minigrad.ops.unary import log

            # 0 ** b has derivative 0 in b for b >= 0, not 0 * log(0) = nan: use log(1) there
            # (for b < 0 it is inf * log(0) = -inf, as in PyTorch).
            safe_base = a + ((a._data == 0) & (b._data >= 0)).astype(a.dtype)
            grad_b = sum_to(grad_output * result * log(safe_base), ctx.inputs[1].shape)
        return grad_a, grad_b


def _integer_power(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """base ** exponent for integers, as PyTorch computes it: a negative exponent gives
    1 / base^|exponent| rounded towards 0, that is 0 unless the base is 1 or -1 (numpy
    refuses negative integer exponents)."""
    negative = exponent < 0
    if not negative.any():
        return np.power(base, exponent)
    result = np.power(base, np.abs(exponent))
    return np.where(negative & (np.abs(base) != 1), 0, result).astype(result.dtype)


class RPow(Function, node_name="PowBackward2"):
    """out = base ** a for a Python number `base` (`2 ** x`);  d(out)/da = out · ln(base).

    For base 0 the derivative is 0 where a >= 0 (PyTorch's choice, not 1 · ln 0) and -inf
    elsewhere. Saved: a and out, as PyTorch saves them, so changing either in place before
    backward is refused.
    """

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, base: float) -> np.ndarray:
        ctx.base = base  # (also for drawing: `2 ** x` shows its 2)
        if a.dtype.kind in "iub" and isinstance(base, int):  # 2 ** int tensor stays integer
            if a.dtype.kind == "b" and isinstance(base, bool):
                raise not_implemented_for("pow", a.dtype)
            integers = a.astype(np.int64) if a.dtype.kind == "b" else a
            return promote(_integer_power(np.array(base), integers), a, base)
        result = promote(np.power(base, a if a.dtype.kind == "f" else a.astype(float32)), a, base)
        ctx.save_for_backward(a, result, names=("exponent", "result"))
        return result

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        exponent, result = ctx.saved_tensors
        base = ctx.base
        if base == 0:
            log_base = np.where(exponent._data >= 0, 0.0, -math.inf).astype(result.dtype)
        else:
            log_base = math.log(base) if base > 0 else float("nan")
        return grad_output * (result * log_base)


# ---- the functions users and Tensor operators call ----------------------------------------
def add(a: Operand, b: Operand) -> Tensor:
    """a + b (broadcasting)."""
    return Add.apply(a, b)


def sub(a: Operand, b: Operand) -> Tensor:
    """a - b (broadcasting)."""
    if not isinstance(a, Tensor):
        return Rsub.apply(b, other=a) if not isinstance(a, np.ndarray) else Sub.apply(Tensor(a), b)
    return Sub.apply(a, b)


def mul(a: Operand, b: Operand) -> Tensor:
    """a * b (broadcasting)."""
    return Mul.apply(a, b)


def div(a: Operand, b: Operand) -> Tensor:
    """a / b (broadcasting; integer tensors give float32, like PyTorch)."""
    if not isinstance(a, Tensor) and not isinstance(a, np.ndarray):
        return Mul.apply(Reciprocal.apply(b), a)  # PyTorch computes `2 / x` as reciprocal(x) * 2
    return Div.apply(a, b)


def reciprocal(a: Tensor) -> Tensor:
    """1 / a."""
    return Reciprocal.apply(a)


def neg(a: Tensor) -> Tensor:
    """-a."""
    return Neg.apply(a)


def pow(a: Operand, exponent: Operand) -> Tensor:  # noqa: A001 - PyTorch's name
    """a ** exponent: Tensor ** number, Tensor ** Tensor, or number ** Tensor."""
    if isinstance(a, Tensor):
        if isinstance(exponent, Tensor) or isinstance(exponent, np.ndarray):
            return PowTensor.apply(a, exponent)
        return Pow.apply(a, exponent=_number(exponent))
    if isinstance(a, np.ndarray):
        return PowTensor.apply(Tensor(a), exponent)
    return RPow.apply(exponent, base=_number(a))


def _number(value: Any) -> float:
    return value.item() if isinstance(value, np.generic) else value

__all__ = ["BroadcastTo", "ShapeError", "add", "broadcast_to", "div", "matmul", "mul", "neg",
           "pow", "reciprocal", "sub", "sum_to"]
