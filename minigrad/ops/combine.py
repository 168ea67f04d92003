"""Combining tensors: cat and stack join several into one, where picks from two.

Each input's gradient is its own part of grad_output: a slice of it (cat), one position
along the new dim (stack), or the entries where the condition chose that input (where).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.broadcast import ShapeError, sum_to
from minigrad.ops.index import Select, Slice
from minigrad.ops.shape import wrap_dim
from minigrad.tensor import dtypes
from minigrad.tensor.tensor import Tensor


# ---- cat / stack --------------------------------------------------------------------------
class Cat(Function):
    """out = the inputs joined along `dim`;  each input's gradient is its slice of grad_output."""

    @staticmethod
    def forward(ctx: Context, *arrays: np.ndarray, dim: int) -> np.ndarray:
        ctx.dim, ctx.sizes = dim, [array.shape[dim] for array in arrays]
        return np.concatenate(arrays, axis=dim, dtype=dtypes.result_type(*arrays))

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor, ...]:
        edges = np.cumsum([0] + ctx.sizes)
        before = (slice(None),) * ctx.dim
        return tuple(Slice.apply(grad_output, key=before + (slice(int(a), int(b)),))
                     for a, b in zip(edges[:-1], edges[1:]))


class Stack(Function):
    """out = the inputs (all one shape) stacked along a new dim;  input k's gradient is
    grad_output selected at position k of that dim."""

    @staticmethod
    def forward(ctx: Context, *arrays: np.ndarray, dim: int) -> np.ndarray:
        ctx.dim, ctx.count = dim, len(arrays)
        return np.stack(arrays, axis=dim, dtype=dtypes.result_type(*arrays))

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor, ...]:
        before = (slice(None),) * ctx.dim
        return tuple(Select.apply(grad_output, key=before + (k,)) for k in range(ctx.count))


def _tensor_list(tensors: Sequence[Tensor], name: str) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}() expects a list or tuple of Tensors, got {type(tensors).__name__}")
    if not tensors:  # PyTorch's two words for it (and two types)
        if name == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"minigrad.{name}(): expected a non-empty list of Tensors")
    for k, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got "
                            f"{dtypes.type_of(t)} "
                            f"({name}() joins Tensors: wrap other values in minigrad.tensor)")
    return list(tensors)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dim: (2, 3) and (4, 3) -> (6, 3) for dim=0."""
    tensors = _tensor_list(tensors, "cat")
    first = tensors[0]
    for k, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {k}) cannot be concatenated")
        if t.ndim != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} "
                               f"and {t.ndim} (shapes {tuple(first.shape)} and {tuple(t.shape)})")
    axis = wrap_dim(dim, first.ndim)
    for k, t in enumerate(tensors):
        for d in range(first.ndim):
            if d != axis and t.shape[d] != first.shape[d]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {axis}. Expected size "
                    f"{first.shape[d]} but got size {t.shape[d]} for tensor number {k} in the "
                    f"list. (Shapes {tuple(first.shape)} and {tuple(t.shape)}.)")
    return Cat.apply(*tensors, dim=axis)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Stack same-shape tensors along a new dim: three (2, 3) -> (3, 2, 3) for dim=0."""
    tensors = _tensor_list(tensors, "stack")
    for k, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at entry {k}")
    return Stack.apply(*tensors, dim=wrap_dim(dim, tensors[0].ndim + 1))


# ---- where --------------------------------------------------------------------------------
class Where(Function):
    """out = a where condition else b (broadcasting all three);
    grad_a = sum_to(where(condition, g, 0), a.shape),  grad_b = sum_to(where(condition, 0, g), b.shape)."""

    @staticmethod
    def forward(ctx: Context, a: Any, b: Any, condition: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(condition, names=("condition",))
        ctx.shapes = (np.shape(a), np.shape(b))
        try:
            shape = np.broadcast_shapes(condition.shape, np.shape(a), np.shape(b))
        except ValueError:
            raise ShapeError(f"where: the shapes of condition {condition.shape}, input "
                             f"{np.shape(a)} and other {np.shape(b)} cannot be broadcast "
                             "together") from None
        dtype = _result_dtype(a, b)
        for value in (a, b):
            dtypes.check_fits(value, dtype)  # a number beside an integer tensor
        return np.broadcast_to(np.where(condition, a, b), shape).astype(dtype)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        (condition,) = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        grad_a = sum_to(where(condition, grad_output, 0.0), ctx.shapes[0]) if need_a else None
        grad_b = sum_to(where(condition, 0.0, grad_output), ctx.shapes[1]) if need_b else None
        return grad_a, grad_b


def _result_dtype(a: Any, b: Any) -> np.dtype:
    """PyTorch's promotion: tensors decide; Python numbers only make an int result float32."""
    return dtypes.result_type(a, b)


def where(condition: Tensor | np.ndarray, input: Tensor | float, other: Tensor | float) -> Tensor:  # noqa: A002
    """Pick from `input` where `condition` is True, from `other` elsewhere (all broadcast)."""
    if not isinstance(condition, (Tensor, np.ndarray)):
        given = ", ".join(dtypes.type_of(value) for value in (condition, input, other))
        raise TypeError(f"where() received an invalid combination of arguments - got ({given}), "
                        "but expected one of: (Tensor condition, Tensor input, Tensor other) "
                        "(the condition is a mask tensor, e.g. x > 0)")
    mask = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if mask.dtype != np.bool_:
        name = dtypes.type_name(mask.dtype).removeprefix("minigrad.").removesuffix("Tensor")
        raise dtypes.DtypeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {name or mask.dtype.name} (write e.g. x > 0 to make a "
                           "mask)")
    return Where.apply(input, other, condition=mask)


__all__ = ["cat", "stack", "where"]
