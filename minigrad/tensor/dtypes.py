"""Data types a Tensor may hold, and the rules for choosing one.

Floating point tensors (`float32`, the default, and `float64`) can require gradients.
Integer and boolean tensors are allowed for data such as class labels and masks, but can
never require gradients. Anything else (complex, float16, strings, objects) is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
bool_ = np.dtype(np.bool_)

default_float: np.dtype = float32
SUPPORTED = (float32, float64, int32, int64, bool_)
#: The scalars an op takes as a number: Python's and numpy's (bool included).
NUMBER_TYPES = (bool, int, float, np.number, np.bool_)
# Other integer types are stored as int64, as PyTorch does with Python ints.
_OTHER_INTEGERS = {np.dtype(t) for t in
                   (np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64)}

_SUPPORTED_NAMES = "float32, float64 (floating point), int32, int64, bool"


_SCALAR_TYPE_NAMES = {float32: "Float", float64: "Double", int64: "Long", int32: "Int",
                      bool_: "Bool"}


class DtypeError(RuntimeError, TypeError):
    """A tensor of the wrong dtype for an op. PyTorch raises RuntimeError for most of these,
    Python code expects TypeError: this is both."""


class DtypeNotImplemented(DtypeError, NotImplementedError):
    """An op PyTorch has no kernel for at this dtype (bool // bool, randn of integers): its
    NotImplementedError, which is also a DtypeError."""


def not_implemented_for(kernel: str, dtype: np.dtype, hint: str = "") -> DtypeNotImplemented:
    """PyTorch's `"div_floor_cpu" not implemented for 'Bool'`, and what to do instead."""
    return DtypeNotImplemented(f'"{kernel}" not implemented for \'{scalar_type_name(dtype)}\''
                               + (f" ({hint})" if hint else ""))


def check_fits(value: Any, dtype: np.dtype) -> None:
    """A number written into an integer tensor (fill_, x[k] = v, full, where) must fit its
    dtype, as PyTorch checks: numpy would wrap it round or raise its own OverflowError."""
    if np.dtype(dtype).kind not in "iu" or isinstance(value, (bool, np.bool_)) \
            or not isinstance(value, NUMBER_TYPES):
        return
    limits = np.iinfo(dtype)
    if not (np.isfinite(value) and limits.min <= value <= limits.max):
        name = {"int32": "int", "int64": "int64_t"}.get(np.dtype(dtype).name, np.dtype(dtype).name)
        raise RuntimeError(f"value cannot be converted to type {name} without overflow "
                           f"({value} does not fit in {dtype_name(dtype)}: {limits.min} … "
                           f"{limits.max})")


def type_of(value: Any) -> str:
    """A value's type as PyTorch's argument errors name it: `float`, `numpy.ndarray`."""
    kind = type(value)
    if kind.__module__ == "builtins":
        return kind.__name__
    return f"{kind.__module__.partition('.')[0]}.{kind.__name__}"


def dtype_name(dtype: np.dtype) -> str:
    """The name we print, e.g. `minigrad.float32`."""
    return f"minigrad.{np.dtype(dtype).name}"


def scalar_type_name(dtype: np.dtype) -> str:
    """PyTorch's name of the element type, as its messages print it: Float, Double, Long..."""
    return _SCALAR_TYPE_NAMES.get(np.dtype(dtype), np.dtype(dtype).name)


# The C names of the element types, as some PyTorch messages print them.
_C_TYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
                 "bool": "bool"}


def c_type_name(dtype: np.dtype) -> str:
    """The element type's C name, as PyTorch's matmul and .grad messages say it: double..."""
    return _C_TYPE_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name)


def type_name(dtype: np.dtype) -> str:
    """PyTorch-style legacy type name used in error messages, e.g. `minigrad.FloatTensor`."""
    if np.dtype(dtype) not in _SCALAR_TYPE_NAMES:
        return "minigrad.Tensor"
    return f"minigrad.{scalar_type_name(dtype)}Tensor"


def is_floating(dtype: np.dtype) -> bool:
    """True for float32 and float64, the dtypes that can carry gradients."""
    return dtype == float32 or dtype == float64


def _unsupported(dtype: Any) -> TypeError:
    return TypeError(
        f"minigrad does not support dtype {_readable(dtype)}; "
        f"supported dtypes are {_SUPPORTED_NAMES}. "
        "Convert the data first, e.g. np.asarray(data, dtype=np.float32)."
    )


def _readable(dtype: Any) -> str:
    if not _is_dtype(dtype):
        return repr(dtype)
    resolved = np.dtype(dtype)
    return {"U": "str", "S": "bytes", "O": "object"}.get(resolved.kind, resolved.name)


def _is_dtype(value: Any) -> bool:
    try:
        np.dtype(value)
    except TypeError:
        return False
    return True


def as_dtype(dtype: Any) -> np.dtype:
    """A user's `dtype=` (mg.float64, np.float32, "float64", float…) as a numpy dtype."""
    if dtype is float:
        return float64  # as in PyTorch: the Python type float stands for float64 (double)
    if dtype is int:
        return int64
    if dtype is bool:
        return bool_
    try:
        resolved = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be one of {_SUPPORTED_NAMES}; got {dtype!r}") from None
    if resolved not in SUPPORTED:
        raise _unsupported(resolved)
    return resolved


def infer_dtype(array: np.ndarray, from_python: bool) -> np.dtype:
    """The dtype a new tensor gets when the user did not ask for one.

    Python floats become float32 (the default, as in PyTorch); a numpy array keeps its own
    float32/float64 dtype; Python ints become int64; bools stay bool.
    """
    kind = array.dtype.kind
    if kind == "f":
        if array.dtype == np.float16:
            raise _unsupported(array.dtype)
        return default_float if from_python else array.dtype
    if kind in "iu":
        if array.dtype in _OTHER_INTEGERS:
            return int64
        return array.dtype
    if kind == "b":
        return bool_
    raise _unsupported(array.dtype)


def promote(result: np.ndarray, *operands: Any) -> np.ndarray:
    """numpy's `result` of an op on `operands`, cast to PyTorch's dtype (`result_type`).

    numpy widens where PyTorch does not (int32 & a 0-d int64 is int64 in numpy, int32 in
    PyTorch; float32 + a 0-d float64 is float64 in numpy). A floating result of integer
    operands (int / int, 2 ** int tensor with a float exponent) is the default float.
    """
    arrays = [x for x in operands if type(x) is np.ndarray]
    if arrays and all(x.dtype == result.dtype for x in arrays):
        return result  # the common case: numpy kept the tensors' own dtype, as PyTorch does
    dtype = result_type(*operands)
    if result.dtype.kind == "f" and dtype.kind != "f":
        dtype = default_float
    return result if result.dtype == dtype else result.astype(dtype)


def _category(value: Any) -> int:
    """bool 0 < integer 1 < floating point 2, for an array's dtype or a number."""
    kind = value.dtype.kind if isinstance(value, (np.ndarray, np.generic)) else \
        "b" if isinstance(value, bool) else "f" if isinstance(value, float) else "i"
    return {"b": 0, "i": 1, "u": 1, "f": 2}[kind]


def result_type(*values: Any) -> np.dtype:
    """PyTorch's type promotion for several operands: arrays (tensors' data) and numbers.

    The result's category (bool < integer < floating point) is the highest among all
    operands; inside it, arrays with dims decide first, then 0-d arrays, then numbers
    (Python's or numpy's scalars, which give int64 or the default float). So int64 with
    float32 is float32 (numpy would say float64), a 0-d float64 does not promote a float32
    matrix, and a 0-d int64 does not promote an int32 one.
    """
    arrays = [v for v in values if isinstance(v, np.ndarray)]
    top = max(_category(v) for v in values if v is not None)
    for group in ([a for a in arrays if a.ndim > 0], [a for a in arrays if a.ndim == 0]):
        candidates = [a.dtype for a in group if _category(a) == top]
        if candidates:
            return np.result_type(*candidates)
    return (bool_, int64, default_float)[top]
