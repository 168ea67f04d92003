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
    asked = dtypes.as_dtype(dtype) if dtype is not None else None
    array = _huge_integers(array, data, from_python, asked)
    if array.dtype == object:
        element = _first_unsupported(np.ravel(array))
        raise TypeError(f"minigrad does not support dtype object (elements of type {element}); "
                        "supported dtypes are float32, float64 (floating point), int32, int64, "
                        "bool. Use numbers, nested lists of numbers or a numpy array "
                        "(nested lists must be rectangular).")
    if from_python and array.dtype == np.float64 and _holds_double(data):
        from_python = False  # [np.float64(1.0), 2.0] is float64, as in PyTorch
    target = dtypes.as_dtype(dtype) if dtype is not None else dtypes.infer_dtype(array, from_python)
    if asked is not None and asked.kind == "i" and not isinstance(data, (np.ndarray, np.generic)):
        _refuse_overflow(array, asked)
    if array.dtype != target:
        array = array.astype(target)
    return array


_INT64_MAX = np.iinfo(np.int64).max


def _huge_integers(array: np.ndarray, data: Any, from_python: bool,
                   asked: np.dtype | None) -> np.ndarray:
    """Integers beyond int64, as PyTorch treats them: floats when a float dtype is asked for
    or a Python float sits beside them; otherwise 'Overflow when unpacking long long' (numpy
    would wrap them round to negative numbers, or quietly make floats of them)."""
    flat = np.ravel(array) if array.dtype == object else ()
    numbers = array.dtype == object and all(
        isinstance(item, (int, float)) and not isinstance(item, bool) for item in flat)
    huge = (numbers and any(type(item) is int and not -_INT64_MAX - 1 <= item <= _INT64_MAX
                            for item in flat)) \
        or (array.dtype == np.uint64 and array.size > 0 and array.max() > _INT64_MAX) \
        or (from_python and array.dtype == np.float64 and array.size > 0
            and np.abs(array).max() >= 2.0 ** 63 and _only_ints(data))
    if not huge:
        return array
    as_float = (asked is not None and dtypes.is_floating(asked)) or (
        asked is None and numbers and any(type(item) is float for item in flat))
    if as_float:
        return array.astype(np.float64)
    raise ValueError("Overflow when unpacking long long: an integer does not fit in int64 "
                     "(−2⁶³ … 2⁶³ − 1); pass dtype=minigrad.float64 for large numbers")


def _refuse_overflow(array: np.ndarray, target: np.dtype) -> None:
    """Numbers from Python lists must fit the integer dtype asked for, as PyTorch checks
    (numpy would wrap 2**40 round to 0 in int32, and turn nan into any integer)."""
    if array.size == 0 or array.dtype.kind not in "iuf":
        return
    limits = np.iinfo(target)
    if not (np.isfinite(array).all() and limits.min <= array.min() and array.max() <= limits.max):
        raise RuntimeError(f"value cannot be converted to type {target.name} without overflow "
                           f"(the numbers must lie in {limits.min} … {limits.max}; pass "
                           "dtype=minigrad.int64 or a float dtype for larger ones)")


def _only_ints(data: Any) -> bool:
    """True if nested lists hold Python ints only (no floats): numbers PyTorch keeps integer."""
    if isinstance(data, (list, tuple)):
        return all(_only_ints(item) for item in data)
    return type(data) is int


def _first_unsupported(elements: np.ndarray) -> str:
    """The type name of the first element that is not a number (what made the array object)."""
    for item in elements:
        if not isinstance(item, dtypes.NUMBER_TYPES):
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
