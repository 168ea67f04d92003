"""Loading a module's state: `Module.load_state_dict`, with PyTorch's checks and messages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from minigrad.autograd import no_grad
from minigrad.tensor import Tensor

if TYPE_CHECKING:
    from minigrad.nn.module import Module


class IncompatibleKeys(NamedTuple):
    """What `load_state_dict(..., strict=False)` could not match."""

    missing_keys: list[str]
    unexpected_keys: list[str]


def load_state(module: Module, state_dict: dict[str, Any], strict: bool = True) -> IncompatibleKeys:
    """Copy `state_dict`'s values into `module`'s parameters and buffers, in place (see
    `Module.load_state_dict`)."""
    if not isinstance(state_dict, dict):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    own = module.state_dict()
    missing = [key for key in own if key not in state_dict]
    unexpected = [key for key in state_dict if key not in own]
    errors = []
    if strict:  # PyTorch's order: missing keys, unexpected keys, then each bad value
        if missing:
            errors.append("Missing key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in missing) + ". ")
        if unexpected:
            errors.append("Unexpected key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in unexpected) + ". ")
    # Every value is checked and converted before anything is copied: a bad checkpoint
    # leaves the module as it was.
    values = {}
    for key, target in own.items():
        if key not in state_dict:
            continue
        value = _as_array(state_dict[key])
        if value is None:
            errors.append(f'While copying the parameter named "{key}", expected Tensor or '
                          f"Tensor-like object from checkpoint but received "
                          f"{type(state_dict[key])}")
        elif value.shape != target.shape:
            errors.append(f"size mismatch for {key}: copying a param with shape "
                          f"{_size(value.shape)} from checkpoint, the shape in current "
                          f"model is {_size(target.shape)}.")
        else:
            values[key] = value.astype(target.dtype, copy=False)
    if errors:
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                           + "\n\t".join(errors))
    with no_grad():
        for key, value in values.items():
            own[key][...] = Tensor(value)
    return IncompatibleKeys(missing, unexpected)


def _as_array(value: Any) -> np.ndarray | None:
    """A checkpoint value as an array of numbers (a Tensor's, or an ndarray itself); None for
    anything else (strings, lists, objects, complex numbers)."""
    array = value._data if isinstance(value, Tensor) else value
    if not isinstance(array, np.ndarray) or array.dtype.kind not in "biuf":
        return None
    return array


def _size(shape: tuple[int, ...]) -> str:
    return str(tuple(shape))
