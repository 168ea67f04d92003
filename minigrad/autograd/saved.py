"""What a graph node keeps for its backward, and the check that it is still valid.

`forward` calls `ctx.save_for_backward(a, b)` with numpy arrays; when the call is recorded,
`Function.apply` turns each value into a *saved entry* (below) that remembers which tensor
the array belongs to and that tensor's version at that moment. When backward reads
`ctx.saved_tensors`, every entry whose tensor has been changed in place since then (its
version moved on) raises PyTorch's "modified by an inplace operation" error, because the
gradient would silently be computed from the wrong numbers.

A saved tensor that had a history when it was saved (a non-leaf input) and has lost it by
the time backward reads it, through `detach_()`, raises PyTorch's "detached in-place" error:
the gradient could no longer be followed through it.

A saved entry is a tuple (kind, value, version counter, expected version, input index):
kind "input" (a Tensor argument without history: a leaf), "intermediate" (a Tensor argument
with a grad_fn), "result" (the op's own output, kept as its array so that the node does not
hold its output alive: a cycle) or "constant" (anything else).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.tensor.dtypes import type_name
from minigrad.tensor.tensor import Tensor

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


DETACHED_MESSAGE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
    "This is not supported, please use out-of-place `.detach()` instead"
)

NOTHING_SAVED = ("constant", None, None, 0, None)  # save_for_backward(None, ...)


def modified_message(value: Any, version: int, expected: int, node: Any, kind: str) -> str:
    """PyTorch's error for a saved value whose tensor was changed in place after saving."""
    array = value._data if isinstance(value, Tensor) else value
    shape = ", ".join(str(n) for n in array.shape)
    described = f"[{type_name(array.dtype)} [{shape}]]"
    producer = value.grad_fn if isinstance(value, Tensor) else (node if kind == "result" else None)
    if producer is not None:  # PyTorch drops "Backward0": MulBackward0 -> Mul, MaxBackward1 -> Max1
        op_name = producer.name().removesuffix("Backward0").replace("Backward", "")
        described += f", which is output 0 of {op_name},"
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {described} is at version {version}; expected version {expected} instead. "
        "Hint: a tensor saved for backward was changed in place (+=, *=, add_, ...) after it "
        "was used; write the update out of place (x = x + 1) or clone it first."
    )


def keep_saved(ctx: Any, args: tuple, arrays: list, result: Tensor, raw_output: Any) -> None:
    """Turn the values forward passed to save_for_backward into saved entries, each with the
    version it must still have when backward reads it."""
    saved = []
    for value in ctx._to_save:
        if value is None:
            saved.append(NOTHING_SAVED)
        elif value is raw_output:  # the output (also when numpy returned a 0-d scalar)
            counter = result._version_counter
            saved.append(("result", result._data, counter, counter[0], None))
        else:
            saved.append(saved_entry(value, args, arrays))
    ctx._saved = tuple(saved)
    ctx._to_save = ()


def saved_entry(value: Any, args: tuple, arrays: list) -> tuple:
    """(kind, value, version counter, expected version, input index) for one saved value
    other than the output: an input (version-checked in backward), or a constant."""
    if type(value) is np.ndarray:
        for index, array in enumerate(arrays):
            if array is value and isinstance(args[index], Tensor):
                arg = args[index]
                return (_kind(arg), arg, arg._version_counter, arg._version_counter[0], index)
        return ("constant", Tensor._make(value, False, None), None, 0, None)
    if isinstance(value, Tensor):
        return (_kind(value), value, value._version_counter, value._version_counter[0], None)
    return ("constant", value, None, 0, None)


def _kind(tensor: Tensor) -> str:
    """"intermediate" for a tensor with a history (it must keep it until backward)."""
    return "input" if tensor._grad_fn is None else "intermediate"
