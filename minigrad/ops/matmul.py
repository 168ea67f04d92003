"""The matrix product `a @ b`, with numpy's rules (1-D vectors, batched stacks).

PyTorch names the node by the shapes: DotBackward0 (1-D @ 1-D), MvBackward0 (2-D @ 1-D),
MmBackward0 (2-D @ 2-D). Other cases record MatmulBackward0 (one node where PyTorch records
several reshapes around a batched product).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.broadcast import ShapeError, sum_to
from minigrad.tensor.dtypes import c_type_name, promote
from minigrad.tensor.tensor import Tensor


class Matmul(Function, node_name="MatmulBackward0"):
    """out = a @ b with numpy's rules (1-D vectors, batched stacks with broadcasting).

    d(out)/da = grad @ bᵀ,  d(out)/db = aᵀ @ grad  (a 1-D operand is treated as a row/column,
    broadcast batch axes are summed away).
    """

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        need_a, need_b = ctx.needs_input_grad
        if need_a or need_b:  # (nothing to keep when the call is not recorded)
            ctx.save_for_backward(a if need_b else None, b if need_a else None,
                                  names=("self", "other"))
            # b stored column by column (b = W.T of a row-major W): see Mm.backward
            flags = b.flags
            ctx.b_is_transposed = b.ndim == 2 and flags.f_contiguous and not flags.c_contiguous
        return promote(np.matmul(a, b), a, b)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        shapes = (ctx.inputs[0].shape, ctx.inputs[1].shape)  # inputs: Tensors or arrays
        return _matmul_backward(grad_output, a, b, need_a, need_b, shapes)


class Dot(Matmul, node_name="DotBackward0"):
    """1-D @ 1-D: the dot product (Matmul's rule, PyTorch's node name)."""


class Mv(Matmul, node_name="MvBackward0"):
    """2-D @ 1-D: matrix times vector (Matmul's rule, PyTorch's node name)."""


class Mm(Matmul, node_name="MmBackward0"):
    """2-D @ 2-D: matrix product;  d(out)/da = grad @ bᵀ,  d(out)/db = aᵀ @ grad."""

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors  # (a is None when b needs no gradient, and vice versa)
        need_a, need_b = ctx.needs_input_grad
        transpose = MatrixTranspose.apply
        grad_a = matmul(grad_output, transpose(b)) if need_a else None
        if not need_b:
            return grad_a, None
        if ctx.b_is_transposed:
            # b = W.T: compute (gradᵀ a)ᵀ, the same numbers laid out like b, so that W's
            # gradient arrives row-major, as the hand-written gradᵀ @ a would be (PyTorch too).
            return grad_a, transpose(matmul(transpose(grad_output), a))
        return grad_a, matmul(transpose(a), grad_output)


class MatrixTranspose(Function, node_name="TransposeBackward0"):
    """out = x with its last two axes swapped, as a view (no copy);
    d(out)/dx = the gradient swapped back.

    matmul's backward needs bᵀ and aᵀ; numpy's matmul reads a transposed view directly, so
    not copying keeps backward as cheap as the hand-written numpy version.
    """

    is_view = True  # shares x's memory and version counter, like x.mT in PyTorch

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        return x.T if x.ndim == 2 else np.swapaxes(x, -1, -2)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return MatrixTranspose.apply(grad_output)


def _matmul_backward(grad_output: Tensor, a: Tensor | None, b: Tensor | None, need_a: bool,
                     need_b: bool, shapes: tuple) -> tuple[Tensor | None, Tensor | None]:
    a_shape, b_shape = shapes
    if len(a_shape) == 1 and len(b_shape) == 1:  # dot product: grad_output is a scalar
        return (grad_output * b if need_a else None, grad_output * a if need_b else None)
    transpose = MatrixTranspose.apply  # (2-D @ 2-D is Mm, with its own backward)
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


def mixed_dtypes(a: np.dtype, b: np.dtype) -> str:
    """PyTorch's words for a matrix product of two dtypes (@ and F.linear do not promote)."""
    return (f"expected m1 and m2 to have the same dtype, but got: {c_type_name(a)} != "
            f"{c_type_name(b)}")


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """a @ b like numpy.matmul; 2-D @ 2-D records an MmBackward0 node, as in PyTorch.
    Unlike + or *, @ does not promote: both operands must have the same dtype."""
    if type(a) is Tensor and type(b) is Tensor and a._data.ndim == 2 == b._data.ndim \
            and a._data.shape[1] == b._data.shape[0] and a._data.dtype == b._data.dtype:
        return Mm.apply(a, b)  # the common case, first: matmul sits in every layer
    a_data = a._data if isinstance(a, Tensor) else np.asarray(a)
    b_data = b._data if isinstance(b, Tensor) else np.asarray(b)
    error = _matmul_error(a_data, b_data)
    if error is not None:
        raise error
    if a_data.dtype != b_data.dtype:
        raise RuntimeError(f"{mixed_dtypes(a_data.dtype, b_data.dtype)} (convert one operand: "
                           "x.float() or x.double())")
    return _MATMUL_NODES.get((a_data.ndim, b_data.ndim), Matmul).apply(a, b)


# PyTorch records 1-D @ 1-D, 2-D @ 1-D and 2-D @ 2-D under these names.
_MATMUL_NODES = {(1, 1): Dot, (2, 1): Mv, (2, 2): Mm}
