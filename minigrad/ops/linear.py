"""The affine map of a Linear layer as one op: y = x Wᵀ + b.

Shapes: x (*, in), W (out, in), b (out,) → y (*, out); * is any number of batch dims.
With G = grad_output (*, out) and the batch dims flattened into rows:

    dL/dx = G W            (*, out) @ (out, in)  → (*, in)
    dL/dW = Gᵀ x           (out, B) @ (B, in)    → (out, in)   (summed over the batch)
    dL/db = Σ_rows G       (out,)

One node instead of three (transpose, matmul, add) keeps the graph readable and the step
fast. Backward uses Tensor ops, so it can be differentiated again (create_graph=True).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.matmul import matmul, mixed_dtypes
from minigrad.ops.reduce import sum as reduce_sum
from minigrad.ops.shape import reshape
from minigrad.tensor.dtypes import DtypeError, scalar_type_name
from minigrad.tensor.tensor import Tensor


def _rows(t: Tensor) -> Tensor:
    """(*, n) → (B, n): the batch dims flattened into rows (a 2-D t is returned as is)."""
    return t if t._data.ndim == 2 else reshape(t, (-1, t.shape[-1]))


def _save_what_is_needed(ctx: Context, x: np.ndarray, weight: np.ndarray) -> None:
    """dx needs only W and dW only x: each is saved (and version-checked) only if the other
    one's gradient is needed, as PyTorch's addmm/mm save them. So a weight changed in place
    under no_grad between forward and backward is fine when the input needs no gradient."""
    need_x, need_w = ctx.needs_input_grad[:2]
    ctx.save_for_backward(x if need_w else None, weight if need_x else None,
                          names=("input", "weight"))


class Linear(Function, node_name="AddmmBackward0"):  # PyTorch's node for x @ W.T + b
    """y = x Wᵀ + b;  dx = G W,  dW = Gᵀ x,  db = Σ_rows G."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
        _save_what_is_needed(ctx, x, weight)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        x, weight = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        grad_x = matmul(grad_output, weight) if need_x else None
        rows = _rows(grad_output)
        grad_w = matmul(rows.T, _rows(x)) if need_w else None
        grad_b = reduce_sum(rows, dim=0) if need_b else None
        return grad_x, grad_w, grad_b


class LinearNoBias(Function, node_name="MmBackward0"):
    """y = x Wᵀ;  dx = G W,  dW = Gᵀ x."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, weight: np.ndarray) -> np.ndarray:
        _save_what_is_needed(ctx, x, weight)
        return x @ weight.T

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        x, weight = ctx.saved_tensors
        need_x, need_w = ctx.needs_input_grad
        grad_x = matmul(grad_output, weight) if need_x else None
        grad_w = matmul(_rows(grad_output).T, _rows(x)) if need_w else None
        return grad_x, grad_w


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """y = input @ weight.T + bias (PyTorch's F.linear); input (*, in), weight (out, in)."""
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)
            and (bias is None or isinstance(bias, Tensor))):
        for name, value in (("input", input), ("weight", weight), ("bias", bias)):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"linear(): argument '{name}' must be a Tensor, "
                                f"not {type(value).__name__}")
    x, w = input._data, weight._data
    if w.ndim != 2:
        raise ValueError(f"linear(): weight must be 2-D (out_features, in_features), "
                         f"got shape {tuple(weight.shape)}")
    if x.ndim == 0 or x.shape[-1] != w.shape[1]:
        raise ValueError(f"linear(): input shape {tuple(input.shape)} does not fit weight shape "
                         f"{tuple(weight.shape)}: the input's last dim must equal in_features "
                         f"= {weight.shape[1]}")
    if x.dtype != w.dtype:
        raise DtypeError(f"{mixed_dtypes(x.dtype, w.dtype)} (linear(): input is {input.dtype} "
                         f"but weight is {weight.dtype}; convert one: x.float() or a model made "
                         "with dtype=...)")
    if bias is not None and bias._data.dtype != w.dtype:
        raise DtypeError(f"self and mat2 must have the same dtype, but got "
                         f"{scalar_type_name(bias.dtype)} and {scalar_type_name(w.dtype)} "
                         f"(linear(): bias is {bias.dtype} but weight is {weight.dtype})")
    if bias is None:
        return LinearNoBias.apply(input, weight)
    if bias._data.shape != (w.shape[0],):
        raise ValueError(f"linear(): bias must have shape ({weight.shape[0]},) to match weight "
                         f"{tuple(weight.shape)}, got {tuple(bias.shape)}")
    return Linear.apply(input, weight, bias)
