"""The ways out of a Tensor: to numpy (`.numpy()`, `.tolist()`, `np.asarray(t)`) and to Python
numbers (`.item()`, `float(t)`, `int(t)`, `bool(t)`, `f"{t:.3f}"`, an index), as in PyTorch:
a number only from a one-element tensor. None of them is recorded in a graph."""

from __future__ import annotations

from typing import Any

import numpy as np


class TensorScalars:
    """Mixed into Tensor (whose values are in `self._data`, a numpy array)."""

    _data: np.ndarray

    def numpy(self) -> np.ndarray:
        """A copy of the values as a numpy array (no graph attached)."""
        return self._data.copy()

    def tolist(self) -> Any:
        return self._data.tolist()

    def item(self) -> float | int | bool:
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar; item() needs exactly one element (reduce first, "
                               "e.g. .sum() or .mean())")
        return self._data.item()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)

    def _scalar(self, kind: str) -> Any:
        if self._data.size != 1:
            if kind == "bool":
                raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
            raise ValueError("only one element tensors can be converted to Python scalars "
                             f"(this one has shape {self.shape})")
        return self._data.item()

    def __bool__(self) -> bool:
        return bool(self._scalar("bool"))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._scalar("int"))

    def __format__(self, spec: str) -> str:
        if spec and self._data.size == 1:
            return format(self._data.item(), spec)  # f"{loss:.3f}" works for one-element tensors
        return format(repr(self), spec)
