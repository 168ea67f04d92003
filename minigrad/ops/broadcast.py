"""Broadcasting and its adjoint: `broadcast_to` and `sum_to`.

When an op broadcasts an input (a (3,) bias added to a (2, 3) batch), every copy of it
contributes to the output, so its gradient is the sum over the broadcast axes:
`sum_to(grad, input.shape)`. The two ops are each other's backward, and both are
differentiable, so gradients of gradients work too.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.tensor.tensor import Tensor


class ShapeError(RuntimeError, ValueError):
    """Shapes that cannot be combined (catchable as RuntimeError, like PyTorch, or ValueError)."""


class SumTo(Function, node_name="SumToSizeBackward0"):
    """out = x summed down to `shape` (the adjoint of broadcasting); d(out)/dx = broadcast."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        ctx.input_shape = x.shape
        leading = x.ndim - len(shape)  # axes that broadcasting added in front
        stretched = tuple(leading + i for i, size in enumerate(shape)
                          if size == 1 and x.shape[leading + i] != 1)  # size-1 axes it stretched
        if stretched:
            x = np.add.reduce(x, axis=stretched, keepdims=True)  # x.sum, without numpy's wrapper
        if leading:
            x = np.add.reduce(x, axis=tuple(range(leading)))
        return x

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return broadcast_to(grad_output, ctx.input_shape)


class BroadcastTo(Function, node_name="ExpandBackward0"):
    """out = x repeated along new or size-1 axes up to `shape`; d(out)/dx = sum_to(grad)."""

    is_view = True  # read-only: one stored value stands for many elements

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
