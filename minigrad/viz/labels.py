"""The text inside the boxes: numbers, shapes and short summaries of arrays.

A drawing has little room, so numbers keep 4 significant digits (``55``, ``0.5932``,
``1.235e5``) and an array larger than a handful of entries is summarised by its mean and range.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

DEFAULT_DIGITS = 4
MAX_LISTED_ELEMENTS = 6  # arrays up to this size are printed in full


def format_number(number: float, digits: int = DEFAULT_DIGITS) -> str:
    """``number`` with ``digits`` significant digits, as short as possible: 55, 0.5932, 1.2e-7."""
    number = float(number)
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    text = f"{number:.{digits}g}"
    if "e" in text:  # 1.235e+05 -> 1.235e5, 1e-07 -> 1e-7
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return "0" if text == "-0" else text


def format_shape(shape: tuple[int, ...]) -> str:
    """A shape as PyTorch prints it in torchviz: ``(2, 3)``, ``(4,)``, ``()`` for a scalar."""
    shape = tuple(int(size) for size in shape)
    return f"({shape[0]},)" if len(shape) == 1 else str(shape)


def summarize_array(array: Any, digits: int = DEFAULT_DIGITS,
                    max_elements: int = MAX_LISTED_ELEMENTS) -> str:
    """The entries of a small array (``[[1, 2], [3, 4]]``), or ``mean m, range [lo, hi]``."""
    array = np.asarray(array)
    if array.dtype == bool or not np.issubdtype(array.dtype, np.number):
        return str(array.tolist()) if array.size <= max_elements else f"{array.dtype} array"
    if array.size == 0:
        return "[]"
    if array.size <= max_elements:
        return _nested(array, digits)
    finite = array[np.isfinite(array)]
    if finite.size == 0:
        return "no finite entries"
    text = (f"mean {format_number(finite.mean(), digits)}, range "
            f"[{format_number(finite.min(), digits)}, {format_number(finite.max(), digits)}]")
    not_finite = array.size - finite.size
    return text + (f", {not_finite} nan/inf" if not_finite else "")


def _nested(array: np.ndarray, digits: int) -> str:
    if array.ndim == 0:
        return format_number(array.item(), digits)
    return "[" + ", ".join(_nested(item, digits) for item in array) + "]"
