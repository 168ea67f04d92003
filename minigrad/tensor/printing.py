"""How a Tensor prints: the same layout as PyTorch (`tensor([1., 2.], requires_grad=True)`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from minigrad.tensor import dtypes

if TYPE_CHECKING:
    from minigrad.tensor.tensor import Tensor


def _float_formatter(values: np.ndarray) -> Callable[[float], str]:
    """PyTorch's choice: `1.` when every value is whole, else 4 decimals, else scientific."""
    finite = values[np.isfinite(values)]
    magnitudes = np.abs(finite[finite != 0]).astype(np.float64)  # ratios in double, as torch
    spread = magnitudes.size and (magnitudes.max() / magnitudes.min() > 1000
                                  or magnitudes.max() > 1e8)
    if finite.size and np.all(finite == np.round(finite)) and not spread:
        def whole(x: float) -> str:
            return f"{x:.0f}." if np.isfinite(x) else str(x)
        formatter = whole
    elif spread or (magnitudes.size and magnitudes.min() < 1e-4):
        def scientific(x: float) -> str:
            return f"{x:.4e}" if np.isfinite(x) else str(x)
        formatter = scientific
    else:
        def fixed(x: float) -> str:
            return f"{x:.4f}" if np.isfinite(x) else str(x)
        formatter = fixed
    # PyTorch pads to the widest *finite* value: nan and inf never widen a column.
    width = max((len(formatter(float(v))) for v in finite.flat), default=0)
    return lambda x: formatter(float(x)).rjust(width)


def tensor_repr(tensor: Tensor) -> str:
    data = tensor._data
    prefix = "tensor("
    if data.size == 0:
        body = "[]"
    else:
        formatter = {}
        if data.dtype.kind == "f":
            shown = data if data.size <= 1000 else _edges(data)
            formatter = {"float_kind": _float_formatter(shown)}
        body = np.array2string(data, separator=", ", prefix=prefix, formatter=formatter,
                               threshold=1000, edgeitems=3,
                               max_line_width=80 if data.size <= 1000 else 79)
        # PyTorch's spacing inside a summarised row (one space more, hence the 79 above)
        body = body.replace(", ..., ", ",  ..., ")
    suffix = []
    if data.size == 0 and data.ndim != 1:
        suffix.append(f"size={data.shape}")
    if data.dtype not in (dtypes.float32, dtypes.int64, dtypes.bool_):
        suffix.append(f"dtype={dtypes.dtype_name(data.dtype)}")
    if tensor.grad_fn is not None:
        suffix.append(f"grad_fn=<{tensor.grad_fn.name()}>")
    elif tensor.requires_grad:
        suffix.append("requires_grad=True")
    return prefix + body + "".join(", " + part for part in suffix) + ")"


def _edges(data: np.ndarray) -> np.ndarray:
    """The values a summarised print shows (first and last three along each axis)."""
    for axis in range(data.ndim):
        if data.shape[axis] > 6:
            edges = [np.take(data, range(3), axis), np.take(data, range(-3, 0), axis)]
            data = np.concatenate(edges, axis)
    return data
