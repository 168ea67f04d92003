"""Argument checks shared by conv2d and the pools: sizes as (height, width) pairs, NCHW input.

Messages follow PyTorch's wording, so that an error seen here reads the same there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.tensor.dtypes import type_name
from minigrad.tensor.tensor import Tensor

Pair = tuple[int, int]


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def pair(value: Any, name: str, op: str) -> Pair:
    """An int n or a sequence of two ints as (n, n) / (a, b); anything else is a TypeError or
    the RuntimeError PyTorch raises for the wrong number of values."""
    if _is_int(value):
        return int(value), int(value)
    if isinstance(value, (tuple, list)) and all(_is_int(v) for v in value):
        if len(value) == 1:
            return int(value[0]), int(value[0])
        if len(value) == 2:
            return int(value[0]), int(value[1])
        shown = "[" + ", ".join(str(int(v)) for v in value) + "]"
        raise RuntimeError(f"expected {name} to be a single integer value or a list of 2 values "
                           f"to match the {op} dimensions, but got {name}={shown}")
    raise TypeError(f"{op}(): argument '{name}' must be an int or a tuple of two ints, "
                    f"not {type(value).__name__}: {value!r}")


def shape_text(shape: tuple) -> str:
    """PyTorch's way of printing a size in messages: [2, 3, 5, 5]."""
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def require_tensor(value: Any, name: str, op: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be a Tensor, not {type(value).__name__}")
    return value


def require_floating(x: Tensor, op: str) -> None:
    """The kernels compute in float32 or float64 only (PyTorch also accepts integers here)."""
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"{op}: expected a float32 or float64 input, got {type_name(x.dtype)} "
                        f"({x.dtype}); convert it first, e.g. x.float()")
