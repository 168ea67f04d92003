"""Arithmetic: + - * / ** @ and negation, with numpy broadcasting.

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
from minigrad.tensor.dtypes import float32, float64
from minigrad.tensor.tensor import Tensor

Operand = Any  # a Tensor or a Python number


class ShapeError(RuntimeError, ValueError):
    """Shapes that cannot be combined (catchable as RuntimeError, like PyTorch, or ValueError)."""


def _shape(value: Any) -> tuple[int, ...]:
    return value.shape if type(value) is np.ndarray else ()


def _broadcast_error(a: Any, b: Any, symbol: str) -> ShapeError:
    return ShapeError(
        f"shapes {_shape(a)} and {_shape(b)} cannot be broadcast together for {symbol}: "
        "compare the shapes from the right; each pair of sizes must be equal or one of them 1")


def _promote(result: np.ndarray, a: Any, b: Any) -> np.ndarray:
    """Correct numpy's float64 results to PyTorch's dtype.

    numpy gives float64 for int tensors with Python floats, for int / int, and for a float32
    tensor with a 0-d float64 array; PyTorch keeps float32 there. Its rule: a float64 result
    needs a float64 operand with at least one dim, or a 0-d float64 operand and no other
    floating point operand with dims.
    """
    if result.dtype != float64:
        return result
    arrays = [x for x in (a, b) if type(x) is np.ndarray]
    dimensioned_floats = [x for x in arrays if x.ndim > 0 and x.dtype.kind == "f"]
    if dimensioned_floats:
        keep = any(x.dtype == float64 for x in dimensioned_floats)
    else:
        keep = any(x.dtype == float64 for x in arrays)
    return result if keep else result.astype(float32)


# ---- broadcasting and its adjoint -------------------------------------------------------
class SumTo(Function):
    """out = x summed down to `shape` (the adjoint of broadcasting); d(out)/dx = broadcast."""

    node_name = "SumToSizeBackward0"

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        ctx.input_shape = x.shape
        leading = x.ndim - len(shape)  # axes that broadcasting added in front
        stretched = tuple(leading + i for i, size in enumerate(shape)
                          if size == 1 and x.shape[leading + i] != 1)  # size-1 axes it stretched
        if stretched:
            x = x.sum(axis=stretched, keepdims=True)
        if leading:
            x = x.sum(axis=tuple(range(leading)))
        return x

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return broadcast_to(grad_output, ctx.input_shape)


class BroadcastTo(Function):
    """out = x repeated along new or size-1 axes up to `shape`; d(out)/dx = sum_to(grad)."""

    node_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        ctx.input_shape = x.shape
        try:
            return _broadcast_view(x, shape)
        except ValueError:
            raise ShapeError(f"cannot broadcast a tensor of shape {x.shape} to shape "
                             f"{tuple(shape)}") from None

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return sum_to(grad_output, ctx.input_shape)


def _broadcast_view(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """np.broadcast_to(x, shape): a read-only view whose broadcast axes have stride 0.

    Built directly for contiguous arrays (numpy's own broadcast_to is ~10x slower on the
    small arrays of a backward pass); anything else goes through numpy.
    """
    leading = len(shape) - x.ndim
    if leading < 0 or not x.flags.c_contiguous:
        return np.broadcast_to(x, shape)
    strides = [0] * leading
    for size, target, stride in zip(x.shape, shape[leading:], x.strides):
        if size == target:
            strides.append(stride)
        elif size == 1:
            strides.append(0)
        else:
            raise ValueError(f"cannot broadcast {x.shape} to {shape}")
    view = np.ndarray(shape, x.dtype, x, 0, tuple(strides))
    view.flags.writeable = False
    return view


def sum_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum `x` over the axes along which `shape` was broadcast to x.shape (no-op if equal)."""
    if x.shape == tuple(shape):
        return x
    return SumTo.apply(x, shape=tuple(shape))


def broadcast_to(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Broadcast `x` to `shape` (a read-only view, like numpy's broadcast_to)."""
    if x.shape == tuple(shape):
        return x
    return BroadcastTo.apply(x, shape=tuple(shape))


# ---- + - * / ------------------------------------------------------------------------------
class Add(Function):
    """out = a + b;  d(out)/da = 1,  d(out)/db = 1."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        try:
            return _promote(np.add(a, b), a, b)
        except ValueError:
            raise _broadcast_error(a, b, "+") from None

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_b = ctx.needs_input_grad
        return (sum_to(grad_output, ctx.inputs[0].shape) if need_a else None,
                sum_to(grad_output, ctx.inputs[1].shape) if need_b else None)


class Sub(Function):
    """out = a - b;  d(out)/da = 1,  d(out)/db = -1."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        try:
            return _promote(np.subtract(a, b), a, b)
        except ValueError:
            raise _broadcast_error(a, b, "-") from None

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_b = ctx.needs_input_grad
        return (sum_to(grad_output, ctx.inputs[0].shape) if need_a else None,
                sum_to(-grad_output, ctx.inputs[1].shape) if need_b else None)


class Rsub(Function):
    """out = other - a for a Python number `other` (`2 - x`);  d(out)/da = -1."""

    node_name = "RsubBackward1"

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, other: float) -> np.ndarray:
        return _promote(np.subtract(other, a), a, None)

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
        try:
            return _promote(np.multiply(a, b), a, b)
        except ValueError:
            raise _broadcast_error(a, b, "*") from None

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
        try:
            return _promote(np.true_divide(a, b), a, b)
        except ValueError:
            raise _broadcast_error(a, b, "/") from None

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
        result = _promote(np.reciprocal(a, dtype=None if a.dtype.kind == "f" else float32), a, None)
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
        return _promote(np.power(a, exponent), a, None)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        if ctx.exponent == 0:
            return grad_output * 0.0
        return grad_output * ctx.exponent * a ** (ctx.exponent - 1)


class PowTensor(Function):
    """out = a ** b (both tensors);  d/da = b · a^(b-1),  d/db = out · ln(a)."""

    node_name = "PowBackward1"

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        try:
            result = _promote(np.power(a, b), a, b)
        except ValueError:
            raise _broadcast_error(a, b, "**") from None
        ctx.save_for_backward(a, b, result if ctx.needs_input_grad[1] else None,
                              names=("self", "exponent", "result"))
        return result

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b, result = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = sum_to(grad_output * b * a ** (b - 1), ctx.inputs[0].shape) if need_a else None
        grad_b = None
        if need_b:
            from minigrad.ops.unary import log

            # 0 ** b has derivative 0 in b (for b >= 0), not 0 * log(0) = nan: use log(1) there.
            safe_base = a + (a.data == 0).astype(a.dtype)
            grad_b = sum_to(grad_output * result * log(safe_base), ctx.inputs[1].shape)
        return grad_a, grad_b


class RPow(Function):
    """out = base ** a for a Python number `base` (`2 ** x`);  d(out)/da = out · ln(base)."""

    node_name = "PowBackward2"

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, base: float) -> np.ndarray:
        ctx.log_base = math.log(base) if base > 0 else float("nan") if base < 0 else -math.inf
        result = _promote(np.power(base, a if a.dtype.kind == "f" else a.astype(float32)), a, None)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * result * ctx.log_base


# ---- matrix product -----------------------------------------------------------------------
class Matmul(Function):
    """out = a @ b with numpy's rules (1-D vectors, batched stacks with broadcasting).

    d(out)/da = grad @ bᵀ,  d(out)/db = aᵀ @ grad  (a 1-D operand is treated as a row/column,
    broadcast batch axes are summed away).
    """

    node_name = "MatmulBackward0"

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None, names=("self", "other"))
        return _promote(np.matmul(a, b), a, b)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        shapes = (np.shape(ctx.inputs[0]), np.shape(ctx.inputs[1]))
        return _matmul_backward(grad_output, a, b, need_a, need_b, shapes)


class Dot(Matmul):
    """1-D @ 1-D: the dot product."""

    node_name = "DotBackward0"


class Mv(Matmul):
    """2-D @ 1-D: matrix times vector."""

    node_name = "MvBackward0"


class Mm(Matmul):
    """2-D @ 2-D: matrix product."""

    node_name = "MmBackward0"


class MatrixTranspose(Function):
    """out = x with its last two axes swapped, as a read-only view (no copy);
    d(out)/dx = the gradient swapped back.

    matmul's backward needs bᵀ and aᵀ; numpy's matmul reads a transposed view directly, so
    not copying keeps backward as cheap as the hand-written numpy version.
    """

    node_name = "TransposeBackward0"

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        view = x.T if x.ndim == 2 else np.swapaxes(x, -1, -2)
        view.flags.writeable = False  # a view: writing to it would change x
        return view

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return MatrixTranspose.apply(grad_output)


def _matmul_backward(grad_output: Tensor, a: Tensor | None, b: Tensor | None, need_a: bool,
                     need_b: bool, shapes: tuple) -> tuple[Tensor | None, Tensor | None]:
    a_shape, b_shape = shapes
    if len(a_shape) == 1 and len(b_shape) == 1:  # dot product: grad_output is a scalar
        return (grad_output * b if need_a else None, grad_output * a if need_b else None)
    transpose = MatrixTranspose.apply
    if len(a_shape) == 2 and len(b_shape) == 2:
        return (grad_output @ transpose(b) if need_a else None,
                transpose(a) @ grad_output if need_b else None)
    from minigrad.ops.shape import reshape

    # Treat a 1-D operand as a 1-row (a) or 1-column (b) matrix, as numpy does.
    a2_shape = (1,) + a_shape if len(a_shape) == 1 else a_shape
    b2_shape = b_shape + (1,) if len(b_shape) == 1 else b_shape
    grad_shape = np.broadcast_shapes(a2_shape[:-2], b2_shape[:-2]) + (a2_shape[-2], b2_shape[-1])
    grad2 = reshape(grad_output, grad_shape)
    grad_a = grad_b = None
    if need_a:
        grad_a = grad2 @ transpose(reshape(b, b2_shape))
        grad_a = reshape(sum_to(grad_a, a2_shape), a_shape)
    if need_b:
        grad_b = transpose(reshape(a, a2_shape)) @ grad2
        grad_b = reshape(sum_to(grad_b, b2_shape), b_shape)
    return grad_a, grad_b


def _matmul_error(a: np.ndarray, b: np.ndarray) -> ShapeError | None:
    """None if numpy can multiply a and b, else the error to raise (both shapes named)."""
    if a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0]:
        return None  # the common case, checked first because matmul is called so often
    if a.ndim == 0 or b.ndim == 0:
        return ShapeError(f"both arguments to matmul need to be at least 1D, but they are "
                          f"{a.ndim}D and {b.ndim}D")
    inner_a = a.shape[-1]
    inner_b = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if inner_a != inner_b:
        rows_a = a.shape[-2] if a.ndim > 1 else 1
        return ShapeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows_a}x{inner_a} and "
            f"{inner_b}x{b.shape[-1] if b.ndim > 1 else 1}): the last size of the first "
            f"operand {a.shape} must equal the {'first' if b.ndim == 1 else 'second-to-last'} "
            f"size of the second {b.shape}")
    try:
        if a.ndim > 2 and b.ndim > 2:
            np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        return ShapeError(f"matmul batch shapes {a.shape[:-2]} and {b.shape[:-2]} (of operands "
                          f"{a.shape} and {b.shape}) cannot be broadcast together")
    return None


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


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """a @ b like numpy.matmul; 2-D @ 2-D records an MmBackward0 node, as in PyTorch."""
    if type(a) is Tensor and type(b) is Tensor and a.data.ndim == 2 == b.data.ndim \
            and a.data.shape[1] == b.data.shape[0]:
        return Mm.apply(a, b)  # the common case, first: matmul sits in every layer
    a_data = a.data if isinstance(a, Tensor) else np.asarray(a)
    b_data = b.data if isinstance(b, Tensor) else np.asarray(b)
    error = _matmul_error(a_data, b_data)
    if error is not None:
        raise error
    return _MATMUL_NODES.get((a_data.ndim, b_data.ndim), Matmul).apply(a, b)


# PyTorch records 1-D @ 1-D, 2-D @ 1-D and 2-D @ 2-D under these names.
_MATMUL_NODES = {(1, 1): Dot, (2, 1): Mv, (2, 2): Mm}


def _number(value: Any) -> float:
    return value.item() if isinstance(value, np.generic) else value
