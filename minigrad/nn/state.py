"""Loading a module's state: `Module.load_state_dict`, with PyTorch's checks and messages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, NamedTuple

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
    `Module.load_state_dict`).

    The keys are checked module by module, root first (PyTorch's order, also for the
    missing and unexpected keys it lists): a module's own parameters and buffers, then the
    keys under its prefix that name none of them and no child.
    """
    if not isinstance(state_dict, dict):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing: list[str] = []
    unexpected: list[str] = []
    bad_values: list[str] = []
    copies: list[tuple[Tensor, np.ndarray]] = []
    for prefix, owner in _walk(module):
        own = {name: value for registry in (owner._parameters, owner._buffers)
               for name, value in registry.items() if value is not None}
        for name, target in own.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = _checked_value(key, state_dict[key], target, bad_values)
            if value is not None:
                copies.append((target, value))
        unexpected += [key for key in state_dict if key.startswith(prefix)
                       and _names_nothing(owner, key[len(prefix):], own)]
    errors = []
    if strict:  # PyTorch's order: missing keys, unexpected keys, then each bad value
        if missing:
            errors.append("Missing key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in missing) + ". ")
        if unexpected:
            errors.append("Unexpected key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in unexpected) + ". ")
    errors += bad_values
    if errors:
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                           + "\n\t".join(errors))
    # Every value was checked and converted before anything is copied: a bad checkpoint
    # leaves the module as it was.
    with no_grad():
        for target, value in copies:
            target[...] = Tensor(value)
    return IncompatibleKeys(missing, unexpected)


def _walk(module: Module) -> Iterator[tuple[str, Module]]:
    """Every module with the prefix of its keys, depth first, root first: the order of
    `state_dict()`. A module held under two names is visited under each, as it is saved."""
    stack = [("", module)]
    while stack:
        prefix, current = stack.pop()
        yield prefix, current
        children = [(f"{prefix}{name}.", child)
                    for name, child in current._modules.items() if child is not None]
        stack.extend(reversed(children))


def _names_nothing(owner: Module, rest: str, own: dict[str, Tensor]) -> bool:
    """Whether the key `prefix + rest` is unexpected at `owner`: `rest` names none of its
    parameters or buffers ("name"), nor a child ("child.more": the child checks the rest)."""
    head, dot, _ = rest.partition(".")
    return head not in owner._modules if dot else head not in own


def _checked_value(key: str, value: Any, target: Tensor, errors: list[str]) -> np.ndarray | None:
    """The checkpoint's value for `target`, as an array of its dtype; None (and a message in
    `errors`) when it is no array of numbers or has another shape."""
    array = _as_array(value)
    if array is None:
        errors.append(f'While copying the parameter named "{key}", expected minigrad.Tensor or '
                      f"Tensor-like object from checkpoint but received {type(value)}")
        return None
    if target.ndim == 0 and array.shape == (1,):  # PyTorch accepts [x] for a 0-d value
        array = array.reshape(())
    if array.shape != target.shape:
        errors.append(f"size mismatch for {key}: copying a param with shape "
                      f"{_size(array.shape)} from checkpoint, the shape in current "
                      f"model is {_size(target.shape)}.")
        return None
    return array.astype(target.dtype, copy=False)


def _as_array(value: Any) -> np.ndarray | None:
    """A checkpoint value as an array of numbers (a Tensor's, or an ndarray itself); None for
    anything else (strings, lists, objects, complex numbers)."""
    array = value._data if isinstance(value, Tensor) else value
    if not isinstance(array, np.ndarray) or array.dtype.kind not in "biuf":
        return None
    return array


def _size(shape: tuple[int, ...]) -> str:
    return str(tuple(shape))
