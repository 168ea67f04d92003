"""Copies: `x.clone()`, and dtype changes `x.double()`, `x.to(minigrad.float64)`.

Both stay in the graph: the gradient passes through unchanged (converted back to x's dtype).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.tensor import dtypes
from minigrad.tensor.tensor import Tensor


class ToCopy(Function):
    """out = x as `dtype` (a copy);  d(out)/dx = 1, converted back to x's dtype."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
        ctx.input_dtype = x.dtype
        return x.astype(dtype)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return to(grad_output, ctx.input_dtype)


class Clone(Function):
    """out = a copy of x;  d(out)/dx = 1."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray) -> np.ndarray:
        # PyTorch's clone keeps the layout (x.T.clone() is column-major too, so its view()
        # is refused as x.T's is); a broadcast x (strides 0) becomes row-major.
        broadcast = 0 in x.strides and x.size > 1
        return x.copy(order="C" if broadcast else "K")

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return grad_output


def clone(x: Tensor) -> Tensor:
    """A copy of x with its own data that stays in the graph (gradient passes unchanged)."""
    return Clone.apply(x)


def to(x: Tensor, dtype: Any) -> Tensor:
    """`x` converted to `dtype`; returns `x` itself when it already has that dtype."""
    target = dtypes.as_dtype(dtype)
    if x.dtype == target:
        return x
    if x.requires_grad and not dtypes.is_floating(target):
        # Like PyTorch: the result is simply cut from the graph (integers carry no gradient).
        return Tensor._make(x._data.astype(target), False, None)
    return ToCopy.apply(x, dtype=target)
