"""Reductions: sum, mean, max, min — over all elements or along `dim`.

A reduction maps many inputs to one output, so in backward one output gradient is sent back
to many inputs:

- sum:  every input contributed with weight 1, so each gets the output's gradient;
- mean: weight 1/N (N = number of elements reduced);
- max/min: only the winning input moved the output, so only it gets the gradient.

`dim` may be an int or a tuple of ints (negative counts from the end); `keepdim=True` keeps
the reduced dims with size 1, which is exactly the shape that broadcasts back over the input.
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.arithmetic import broadcast_to
from minigrad.ops.combine import where
from minigrad.ops.shape import reshape, wrap_dim, wrap_dims
from minigrad.tensor import dtypes
from minigrad.tensor.tensor import Tensor

Dims = int | Sequence[int] | None


def _kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """The output shape with keepdim=True: every reduced axis becomes size 1."""
    return tuple(1 if axis in axes else size for axis, size in enumerate(shape))


def _spread(grad_output: Tensor, input_shape: tuple[int, ...], axes: tuple[int, ...]) -> Tensor:
    """Send a reduced gradient back over the input: restore size-1 axes, then broadcast."""
    kept = reshape(grad_output, _kept_shape(input_shape, axes))
    return broadcast_to(kept, input_shape)


def _axes(x: Tensor, dim: Dims) -> tuple[int, ...]:
    """The numpy axes for `dim`; None or an empty tuple means all of them, as in PyTorch."""
    if dim is None:
        return tuple(range(x.ndim))
    if type(dim) is int and -x.ndim <= dim < x.ndim:  # the common case, without wrap_dims
        return (dim % x.ndim,)
    if x.ndim == 0:
        wrap_dims(dim, 0)  # still validates: only 0 and -1 are allowed
        return ()
    axes = wrap_dims(dim, x.ndim)
    return axes if axes else tuple(range(x.ndim))


# ---- sum ----------------------------------------------------------------------------------
class Sum(Function):
    """out = Σ_i x_i (a 0-d tensor);  d(out)/dx_i = 1, so grad_x = grad_output everywhere."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        ctx.input_shape = x.shape
        return np.asarray(x.sum())

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return broadcast_to(grad_output, ctx.input_shape)


class SumDim(Function, node_name="SumBackward1"):
    """out = x summed over `axes`;  grad_x = grad_output broadcast back over those axes."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axes: tuple[int, ...], keepdim: bool) -> np.ndarray:
        ctx.input_shape, ctx.axes = x.shape, axes
        # np.add.reduce is x.sum without numpy's Python-level wrapper (this runs in every backward)
        return np.asarray(np.add.reduce(x, axis=axes, keepdims=keepdim))

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return _spread(grad_output, ctx.input_shape, ctx.axes)


def sum(x: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """Sum of all elements (dim=None), or along `dim` (an int or a tuple of ints)."""
    if dim is None and not keepdim:
        return Sum.apply(x)
    return SumDim.apply(x, axes=_axes(x, dim), keepdim=keepdim)


# ---- mean ---------------------------------------------------------------------------------
class Mean(Function):
    """out = (1/N) Σ_i x_i;  d(out)/dx_i = 1/N."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        ctx.input_shape = x.shape
        if x.size == 0:
            return np.asarray(np.nan, dtype=x.dtype)  # the mean of nothing, as in PyTorch
        return np.asarray(x.sum() / x.size, dtype=x.dtype)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        count = math.prod(ctx.input_shape)
        return broadcast_to(grad_output / count, ctx.input_shape)


class MeanDim(Function, node_name="MeanBackward1"):
    """out = x averaged over `axes` (N = product of their sizes);  grad_x = grad_output / N."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axes: tuple[int, ...], keepdim: bool) -> np.ndarray:
        ctx.input_shape, ctx.axes = x.shape, axes
        count = math.prod(x.shape[axis] for axis in axes)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(x.sum(axis=axes, keepdims=keepdim) / count, dtype=x.dtype)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        count = math.prod(ctx.input_shape[axis] for axis in ctx.axes)
        return _spread(grad_output / count, ctx.input_shape, ctx.axes)


def mean(x: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:
    """Average of all elements (dim=None), or along `dim` (an int or a tuple of ints)."""
    if not dtypes.is_floating(x.dtype):
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {dtypes.type_name(x.dtype)[9:-6]} (a "
            f"{dtypes.dtype_name(x.dtype)} tensor; convert it with x.float())")
    if dim is None and not keepdim:
        return Mean.apply(x)
    return MeanDim.apply(x, axes=_axes(x, dim), keepdim=keepdim)


# ---- max / min over everything -----------------------------------------------------------
class Max(Function, node_name="MaxBackward1"):
    """out = max_i x_i.  The gradient goes to the maximal entries; k tied maxima share it
    equally (each gets grad_output / k), as in PyTorch."""

    reduction = staticmethod(np.max)

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        result = np.asarray(ctx._function.reduction(x))
        ctx.save_for_backward(x, result, names=("self", "result"))
        return result

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        x, result = ctx.saved_tensors
        # a constant mask; a nan maximum is where the nans are (PyTorch's rule). Chosen with
        # where, not multiplied: the other entries get 0 even when the gradient is inf or nan.
        winners = np.isnan(x._data) if np.isnan(result._data) else x._data == result._data
        share = grad_output / float(winners.sum())
        return where(Tensor._make(winners, False, None), broadcast_to(share, x.shape), 0.0)


class Min(Max, node_name="MinBackward1"):
    """out = min_i x_i; the gradient is shared equally by tied minima (backward as for max)."""

    reduction = staticmethod(np.min)


# ---- max / min along a dim ----------------------------------------------------------------
class ValuesIndices(NamedTuple):
    """What max/min along a dim return: `.values` (differentiable) and `.indices` (int64)."""

    values: Tensor
    indices: Tensor


class MaxDim(Function, node_name="MaxBackward0"):
    """out = x[..., indices, ...] along `dim`: the values at the given (arg-max) indices.

    The gradient goes only to the entry each index names (the first one among ties).
    """

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, dim: int, keepdim: bool,
                indices: np.ndarray) -> np.ndarray:
        ctx.input_shape, ctx.dim = x.shape, dim
        kept_indices = np.expand_dims(indices, dim) if x.ndim else indices
        ctx.save_for_backward(kept_indices, names=("indices",))
        if x.ndim == 0:
            return x.copy()
        values = np.take_along_axis(x, kept_indices, axis=dim)
        return values if keepdim else np.squeeze(values, axis=dim)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (kept_indices,) = ctx.saved_tensors
        if not ctx.input_shape:
            return grad_output
        winners = np.zeros(ctx.input_shape, dtype=bool)
        np.put_along_axis(winners, kept_indices._data, True, axis=ctx.dim)  # one-hot along dim
        spread = _spread(grad_output, ctx.input_shape, (ctx.dim,))
        return where(Tensor._make(winners, False, None), spread, 0.0)  # (0 even for inf grads)


class MinDim(MaxDim, node_name="MinBackward0"):
    """The values at the arg-min indices along `dim` (MaxDim's rule)."""


def _extreme(x: Tensor, dim: int | None, keepdim: bool, name: str) -> Tensor | ValuesIndices:
    whole, along_dim, arg = {"max": (Max, MaxDim, np.argmax), "min": (Min, MinDim, np.argmin)}[name]
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}(): keepdim=True needs a dim to reduce along, e.g. "
                            f"x.{name}(dim=0, keepdim=True)")
        if x._data.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument.")
        return whole.apply(x)
    axis = wrap_dim(dim, x.ndim)
    if x.ndim and x.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    indices = np.asarray(arg(x._data, axis=axis) if x.ndim else 0, dtype=np.int64)
    values = along_dim.apply(x, dim=axis, keepdim=keepdim, indices=indices)
    if keepdim and x.ndim:
        indices = np.expand_dims(indices, axis)
    return ValuesIndices(values, Tensor._make(indices, False, None))


def max(x: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor | ValuesIndices:  # noqa: A001
    """The largest element (dim=None), or (values, indices) of the largest along `dim`."""
    return _extreme(x, dim, keepdim, "max")


def min(x: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor | ValuesIndices:  # noqa: A001
    """The smallest element (dim=None), or (values, indices) of the smallest along `dim`."""
    return _extreme(x, dim, keepdim, "min")


__all__ = ["ValuesIndices", "max", "mean", "min", "sum"]
