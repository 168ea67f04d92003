"""Ways to make tensors: zeros, ones, full, randn, rand, arange, eye, *_like; manual_seed.

Each takes `dtype=` (default float32, except `arange` of integers, which gives int64, as in
PyTorch) and `requires_grad=`. Random numbers come from one module-level generator, so
`manual_seed(n)` makes every later `randn`/`rand` reproducible.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.tensor import Tensor

_generator = np.random.default_rng()


def manual_seed(seed: int) -> None:
    """Reset the random generator used by `randn` and `rand` (any int, negative ones too,
    taken modulo 2⁶⁴ as PyTorch does)."""
    global _generator
    _generator = np.random.default_rng(int(seed) % 2**64)


def generator() -> np.random.Generator:
    """The generator `manual_seed` resets; layers, dropout and data loaders draw from it."""
    return _generator


def _require_number(value: Any, function: str, name: str, position: int | None = None) -> None:
    if not isinstance(value, dtypes.NUMBER_TYPES):
        where = f" (position {position})" if position else ""
        raise TypeError(f"{function}(): argument '{name}'{where} must be Number, not "
                        f"{type(value).__name__}")


def _shape(size: tuple[Any, ...], function: str) -> tuple[int, ...]:
    """Accept both `zeros(2, 3)` and `zeros((2, 3))`; refuse what is no shape as PyTorch does
    (its `zeros` words a negative size its own way)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for n in size:
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise TypeError(f"{function}(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {type(n).__name__}")
    shape = tuple(int(n) for n in size)
    negative = [n for n in shape if n < 0]
    if negative:
        words = ("zeros: Dimension size must be non-negative." if function == "zeros" else
                 f"Trying to create tensor with negative dimension {negative[0]}: {list(shape)}")
        raise RuntimeError(f"{words} (a size counts elements along a dim: 0 or more)")
    return shape


def _leaf(array: np.ndarray, requires_grad: bool) -> Tensor:
    result = Tensor._make(array, False, None)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _dtype(dtype: Any) -> np.dtype:
    return dtypes.default_float if dtype is None else dtypes.as_dtype(dtype)


def zeros(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor of 0s of the given shape."""
    return _leaf(np.zeros(_shape(size, "zeros"), dtype=_dtype(dtype)), requires_grad)


def ones(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor of 1s of the given shape."""
    return _leaf(np.ones(_shape(size, "ones"), dtype=_dtype(dtype)), requires_grad)


def full(size: Any, fill_value: float, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor of the given shape filled with `fill_value` (a number or a 0-d tensor)."""
    if isinstance(fill_value, Tensor) and fill_value.ndim == 0:
        fill_value = fill_value.item()
    _require_number(fill_value, "full", "fill_value", 2)
    shape = _shape(tuple(size) if isinstance(size, (tuple, list)) else (size,), "full")
    if dtype is None:
        dtype = dtypes.bool_ if isinstance(fill_value, bool) else \
            dtypes.int64 if isinstance(fill_value, (int, np.integer)) else dtypes.default_float
    dtypes.check_fits(fill_value, dtypes.as_dtype(dtype))
    return _leaf(np.full(shape, fill_value, dtype=dtypes.as_dtype(dtype)), requires_grad)


def randn(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Samples from the standard normal distribution N(0, 1)."""
    target = _dtype(dtype)
    if not dtypes.is_floating(target):
        raise dtypes.not_implemented_for("normal_kernel_cpu", target,
                                         "randn draws floating point numbers: pass a float dtype")
    return _leaf(_generator.standard_normal(_shape(size, "randn"), dtype=target), requires_grad)


def rand(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Samples from the uniform distribution on [0, 1)."""
    target = _dtype(dtype)
    if not dtypes.is_floating(target):
        raise dtypes.not_implemented_for("check_uniform_bounds", target,
                                         "rand draws floating point numbers: pass a float dtype")
    return _leaf(_generator.random(_shape(size, "rand"), dtype=target), requires_grad)


def arange(start: float, end: float | None = None, step: float = 1, dtype: Any = None,
           requires_grad: bool = False) -> Tensor:
    """Values from `start` (inclusive) to `end` (exclusive) in steps of `step`."""
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if end is None:
        start, end = 0, start
    for name, value in (("start", start), ("end", end), ("step", step)):
        _require_number(value, "arange", name)
    if not all(np.isfinite(v) for v in (start, end, step)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign "
                           f"(arange({start}, {end}, {step}) would count "
                           f"{'up' if step > 0 else 'down'} away from the end)")
    if dtype is None:
        whole = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = dtypes.int64 if whole else dtypes.default_float
    return _leaf(np.arange(start, end, step).astype(dtypes.as_dtype(dtype)), requires_grad)


def eye(n: int, m: int | None = None, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """The n×m identity matrix (m defaults to n)."""
    for name, size in (("n", n), ("m", m)):
        if size is not None and size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    return _leaf(np.eye(n, m, dtype=_dtype(dtype)), requires_grad)


def zeros_like(other: Tensor, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Zeros with the shape (and, by default, the dtype) of `other`."""
    return _like(np.zeros, "zeros_like", other, dtype, requires_grad)


def ones_like(other: Tensor, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """Ones with the shape (and, by default, the dtype) of `other`."""
    return _like(np.ones, "ones_like", other, dtype, requires_grad)


def _like(make: Any, function: str, other: Tensor, dtype: Any, requires_grad: bool) -> Tensor:
    if not isinstance(other, Tensor):
        raise TypeError(f"{function}(): argument 'input' (position 1) must be Tensor, not "
                        f"{dtypes.type_of(other)}")
    target = other.dtype if dtype is None else dtypes.as_dtype(dtype)
    return _leaf(make(other.shape, dtype=target), requires_grad)
