"""Turning what users pass to `tensor(...)` into an ndarray of a supported dtype (a copy)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.operators import TensorOperators  # Tensor's base class


def to_array(data: Any, dtype: Any = None) -> np.ndarray:
    """Copy `data` (list, number, ndarray, Tensor) into a new ndarray of a supported dtype."""
    if isinstance(data, TensorOperators):  # a Tensor
        data = data._data
    from_python = not isinstance(data, (np.ndarray, np.generic))
    try:
        array = np.array(data)
    except ValueError as error:
        raise ValueError(f"cannot make a tensor from this data: {error}. "
                         "Nested lists must be rectangular (every row the same length).") from None
    if array.dtype == object and dtype is not None and dtypes.is_floating(dtypes.as_dtype(dtype)):
        try:  # huge Python ints as floating point, as asked
            array = array.astype(dtypes.as_dtype(dtype))
        except (TypeError, ValueError):
            pass  # not numbers: refused below
    if array.dtype == object and any(type(item) is int for item in np.ravel(array)) or (
            array.dtype == np.uint64 and dtype is None and array.size
            and array.max() > np.iinfo(np.int64).max):
        raise ValueError("Overflow when unpacking long long: an integer does not fit in int64 "
                         "(−2⁶³ … 2⁶³ − 1); pass dtype=minigrad.float64 for large numbers")
    if array.dtype == object:
        element = _first_unsupported(np.ravel(array))
        raise TypeError(f"minigrad does not support dtype object (elements of type {element}); "
                        "supported dtypes are float32, float64 (floating point), int32, int64, "
                        "bool. Use numbers, nested lists of numbers or a numpy array "
                        "(nested lists must be rectangular).")
    if from_python and array.dtype == np.float64 and _holds_double(data):
        from_python = False  # [np.float64(1.0), 2.0] is float64, as in PyTorch
    target = dtypes.as_dtype(dtype) if dtype is not None else dtypes.infer_dtype(array, from_python)
    if array.dtype != target:
        array = array.astype(target)
    return array


def _first_unsupported(elements: np.ndarray) -> str:
    """The type name of the first element that is not a number (what made the array object)."""
    for item in elements:
        if not isinstance(item, (int, float, bool, np.number, np.bool_)):
            return type(item).__name__
    return type(elements[0]).__name__ if elements.size else "object"


def _holds_double(data: Any) -> bool:
    """True if nested lists hold a float64 numpy scalar, array or tensor (not just floats)."""
    if not isinstance(data, (list, tuple)):
        return False
    for item in data:
        if isinstance(item, (list, tuple)):
            if _holds_double(item):
                return True
        elif type(item) is np.float64 or (
                isinstance(item, (np.ndarray, TensorOperators)) and item.dtype == np.float64):
            return True
    return False
