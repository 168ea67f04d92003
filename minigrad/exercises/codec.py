"""Arguments and results as JSON, so they can cross from the grader to student code and back.

No pickle: unpickling runs code chosen by whoever wrote the bytes. JSON carries only data.

=========================  ==========================================================
Python value               JSON
=========================  ==========================================================
None, bool, int, str       themselves
float                      itself; ``nan``/``inf``/``-inf`` as ``{"__float__": "nan"}``
list                       a list
tuple                      ``{"__tuple__": [...]}``
dict (str keys)            ``{"__dict__": {...}}``
numpy ndarray              ``{"__ndarray__": {"dtype": "float32", "shape": [..], "data": [..]}}``
numpy scalar               the Python number it holds (``.item()``)
NamedFunction("sin")       ``{"__function__": "sin"}``
=========================  ==========================================================

A :class:`NamedFunction` stands for a function from the fixed table :data:`FUNCTIONS`; it is
callable (on floats and on numpy arrays) and knows its exact derivative, so exercises such as a
finite-difference checker can receive "a function" as an argument.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

#: The largest JSON text the grader accepts back from a submission (characters).
MAX_TEXT = 20_000_000


class CodecError(ValueError):
    """A value that cannot be sent across the process boundary (or text that is not one)."""


# ---------------------------------------------------------------------------- named functions
def _sigmoid(x: Any) -> Any:
    return 1.0 / (1.0 + np.exp(-x))


#: name -> (function, its derivative); each works on a float and on a numpy array.
FUNCTIONS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "sin": (np.sin, np.cos),
    "cos": (np.cos, lambda x: -np.sin(x)),
    "exp": (np.exp, np.exp),
    "log": (np.log, lambda x: 1.0 / x),
    "sqrt": (np.sqrt, lambda x: 0.5 / np.sqrt(x)),
    "square": (lambda x: x * x, lambda x: 2.0 * x),
    "cube": (lambda x: x * x * x, lambda x: 3.0 * x * x),
    "tanh": (np.tanh, lambda x: 1.0 - np.tanh(x) ** 2),
    "sigmoid": (_sigmoid, lambda x: _sigmoid(x) * (1.0 - _sigmoid(x))),
    "relu": (lambda x: np.maximum(x, 0.0), lambda x: np.where(np.asarray(x) > 0, 1.0, 0.0)),
    "softplus": (lambda x: np.logaddexp(0.0, x), _sigmoid),
    "composite": (lambda x: (x * x + 1.0) ** 3, lambda x: 6.0 * x * (x * x + 1.0) ** 2),
    "sin_of_square": (lambda x: np.sin(x * x), lambda x: 2.0 * x * np.cos(x * x)),
    "exp_sin": (lambda x: np.exp(np.sin(x)), lambda x: np.cos(x) * np.exp(np.sin(x))),
}


def _as_python(result: Any) -> Any:
    # np.sin(1.0) is a numpy scalar; students expect a plain float back from a scalar input.
    if isinstance(result, np.ndarray) and result.ndim == 0:
        return result.item()
    if isinstance(result, np.generic):
        return result.item()
    return result


@dataclass(frozen=True)
class NamedFunction:
    """A function from :data:`FUNCTIONS`, by name: ``NamedFunction("sin")(0.5) == sin(0.5)``.

    ``f.derivative(x)`` is its exact derivative, for checking numerical estimates.
    """

    name: str

    def __post_init__(self) -> None:
        if self.name not in FUNCTIONS:
            raise CodecError(f"no function named {self.name!r}; known: {sorted(FUNCTIONS)}")

    def __call__(self, x: Any) -> Any:
        return _as_python(FUNCTIONS[self.name][0](x))

    def derivative(self, x: Any) -> Any:
        """The exact derivative f'(x)."""
        return _as_python(FUNCTIONS[self.name][1](x))

    def __repr__(self) -> str:
        return f"NamedFunction({self.name!r})"


# ---------------------------------------------------------------------------- encode
def to_json(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-ready data (see the table in the module docstring)."""
    if depth > 100:
        raise CodecError("value is nested more than 100 levels deep")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _float_to_json(value)
    if isinstance(value, np.generic):
        return to_json(value.item(), depth + 1)
    if isinstance(value, NamedFunction):
        return {"__function__": value.name}
    if isinstance(value, list):
        return [to_json(item, depth + 1) for item in value]
    if isinstance(value, tuple):
        return {"__tuple__": [to_json(item, depth + 1) for item in value]}
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise CodecError(f"dict keys must be strings, got {type(key).__name__}: {key!r}")
        return {"__dict__": {key: to_json(item, depth + 1) for key, item in value.items()}}
    if isinstance(value, np.ndarray):
        return _array_to_json(value)
    raise CodecError(
        f"cannot send a {type(value).__module__}.{type(value).__name__} "
        "(use numbers, strings, lists, tuples, dicts with string keys, or numpy arrays)"
    )


def _float_to_json(value: float) -> Any:
    if math.isnan(value):
        return {"__float__": "nan"}
    if math.isinf(value):
        return {"__float__": "inf" if value > 0 else "-inf"}
    return value


def _array_to_json(array: np.ndarray) -> dict:
    if array.dtype.kind not in "biuf":
        raise CodecError(f"cannot send an array of dtype {array.dtype} (use bool, int or float)")
    flat = array.reshape(-1).tolist()
    if array.dtype.kind == "f":
        flat = [_float_to_json(item) for item in flat]
    return {"__ndarray__": {"dtype": array.dtype.name,
                            "shape": list(array.shape), "data": flat}}


def encode(value: Any) -> str:
    """``value`` as a JSON text; raises :class:`CodecError` for anything else."""
    return json.dumps(to_json(value), allow_nan=False, separators=(",", ":"))


def changed_argument(sent: Any, args: tuple) -> int | None:
    """The position of the first of ``args`` that no longer encodes to what was ``sent``
    (``to_json`` of the whole tuple): the function called with them changed it in place.
    None when every argument is as it was sent."""
    before = sent.get("__tuple__") if isinstance(sent, dict) else None
    if not isinstance(before, list) or len(before) != len(args):
        return None
    for position, (encoded, value) in enumerate(zip(before, args)):
        try:
            if to_json(value) != encoded:
                return position
        except CodecError:  # now holds something that cannot even be sent
            return position
    return None


# ---------------------------------------------------------------------------- decode
def from_json(data: Any, depth: int = 0) -> Any:
    """The Python value that :func:`to_json` turned into ``data``."""
    if depth > 100:
        raise CodecError("value is nested more than 100 levels deep")
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [from_json(item, depth + 1) for item in data]
    if not isinstance(data, dict) or len(data) != 1:
        raise CodecError(f"not an encoded value: {str(data)[:80]}")
    (tag, body), = data.items()
    if tag == "__float__":
        return _special_float(data)
    if tag == "__tuple__" and isinstance(body, list):
        return tuple(from_json(item, depth + 1) for item in body)
    if tag == "__dict__" and isinstance(body, dict):
        return {str(key): from_json(item, depth + 1) for key, item in body.items()}
    if tag == "__function__" and isinstance(body, str):
        return NamedFunction(body)
    if tag == "__ndarray__" and isinstance(body, dict):
        return _array_from_json(body)
    raise CodecError(f"not an encoded value: {str(data)[:80]}")


#: An encoded array may have at most this many dims, each of at most MAX_DIM_SIZE entries.
MAX_DIMS, MAX_DIM_SIZE = 32, 2**31


def _array_from_json(body: dict) -> np.ndarray:
    shape = body.get("shape") if isinstance(body, dict) else None
    # Checked before any arithmetic: huge numbers make even math.prod slow (a forged answer).
    if not isinstance(shape, list) or len(shape) > MAX_DIMS or not all(
            type(n) is int and 0 <= n < MAX_DIM_SIZE for n in shape):
        raise CodecError(f"bad encoded array shape: {str(shape)[:80]}")
    try:
        dtype = np.dtype(body["dtype"])
        flat = body["data"]
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        raise CodecError(f"bad encoded array: {str(error)[:200]}") from None
    if dtype.kind not in "biuf" or not isinstance(flat, list):
        raise CodecError(f"bad encoded array of dtype {dtype}")
    if math.prod(shape) != len(flat):
        raise CodecError(f"encoded array of shape {shape} has {len(flat)} entries")
    try:
        if dtype.kind == "f":
            flat = [_special_float(item) if isinstance(item, dict) else item for item in flat]
        return np.array(flat, dtype=dtype).reshape(shape)
    except (TypeError, ValueError, OverflowError) as error:
        raise CodecError(f"bad encoded array: {str(error)[:200]}") from None


def _special_float(encoded: dict) -> float:
    """The float that ``{"__float__": "nan" | "inf" | "-inf"}`` stands for (alone, or in an
    array's data)."""
    text = encoded.get("__float__") if len(encoded) == 1 else None
    if text not in ("nan", "inf", "-inf"):
        raise CodecError(f"bad special float {str(encoded)[:80]}")
    return float(text)


def decode(text: str) -> Any:
    """The value :func:`encode` wrote as ``text``; raises :class:`CodecError` on anything else."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise CodecError("encoded text is not a string or is too long")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise CodecError(f"not JSON: {error}") from None
    return from_json(data)
