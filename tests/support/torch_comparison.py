"""Running one snippet of code with minigrad and with PyTorch and comparing what each gives.

A snippet uses ``L`` for the library (``L.tensor(...)``) and leaves its answer in ``out``;
:func:`same_as_torch` runs it with ``L = minigrad`` and ``L = torch`` and compares values,
dtypes, shapes, or the exception type and its key words.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg


def _normalise(value):
    """A comparable picture of a result: tensors as (dtype, shape, values), nodes by name."""
    if isinstance(value, (tuple, list)):
        return tuple(_normalise(v) for v in value)
    if hasattr(value, "shape") and hasattr(value, "numpy") and hasattr(value, "dtype"):
        array = value.detach().numpy() if hasattr(value, "detach") else value.numpy()
        dtype = str(array.dtype)
        if array.dtype != bool:
            array = array.astype(np.float64)
        return ("tensor", dtype, tuple(array.shape), array.tolist())
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if callable(getattr(value, "name", None)):  # a graph node
        return ("node", value.name().removeprefix("torch::autograd::"))
    return repr(value)


def run(code: str, library):
    namespace = {"L": library, "np": np}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, namespace)  # noqa: S102 - our own test snippets
    return _normalise(namespace.get("r"))


def close(mine, theirs) -> bool:
    if isinstance(mine, tuple) and isinstance(theirs, tuple):
        return len(mine) == len(theirs) and all(close(a, b) for a, b in zip(mine, theirs))
    if isinstance(mine, list) or isinstance(mine, float):
        return np.allclose(np.asarray(mine, dtype=float), np.asarray(theirs, dtype=float),
                           rtol=1e-5, atol=1e-6, equal_nan=True)
    return mine == theirs


def _key_words(message: str) -> str:
    """PyTorch's message up to its first detail (a hint, a parenthesis, a torch.Size)."""
    for stop in (". ", " (", "torch.Size", "Hint:"):
        message = message.split(stop)[0]
    return message.replace("torch.", "minigrad.").strip()


def same_as_torch(code: str) -> None:
    """Run `code` with minigrad and with torch as `L`; demand the same answer or error."""
    torch = pytest.importorskip("torch")
    try:
        theirs = run(code, torch)
    except Exception as torch_error:  # noqa: BLE001 - compared below
        with pytest.raises(Exception) as mine:
            run(code, mg)
        assert isinstance(mine.value, type(torch_error)), (mine.value, torch_error)
        expected = _key_words(str(torch_error))
        assert expected in str(mine.value), (str(mine.value), str(torch_error))
        return
    mine = run(code, mg)
    assert close(mine, theirs), f"\nminigrad: {mine}\ntorch:    {theirs}"


def oracle_cases(text: str) -> list[str]:
    return [case.strip() for case in text.split("\n---\n") if case.strip()]


def case_id(code: str) -> str:
    return code.replace("\n", " ; ")[:70]


# ---- factories -----------------------------------------------------------------------------
