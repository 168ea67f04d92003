"""What backward checks, worded as PyTorch words it: the seeds of a backward pass, what a
tensor hook returns, and what an op's backward returns.

These are not the algorithm (minigrad.autograd.engine); they make a mistake in user code or
in a new op fail at once, with the sentence a PyTorch user would search for, followed by what
to do.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.autograd.function import Node
from minigrad.tensor.dtypes import type_name
from minigrad.tensor.tensor import Tensor


def root_gradients(outputs: list[Tensor], gradients: list[Any]) -> list[Tensor]:
    """The vector v for each output: given by the user, or 1 for a one-element output."""
    if len(gradients) != len(outputs):
        raise RuntimeError(f"got {len(gradients)} gradients for {len(outputs)} outputs; "
                           "pass one gradient per output tensor")
    roots = []
    for index, (output, gradient) in enumerate(zip(outputs, gradients)):
        if not isinstance(output, Tensor):
            raise TypeError(f"outputs must be Tensors, got {type(output).__name__}")
        if not output.requires_grad:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not "
                               "have a grad_fn")
        if gradient is None:
            if output._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs "
                                   f"(this output has shape {output.shape}; pass "
                                   "gradient=<tensor of that shape>, the vector v of v^T J)")
            ones = np.array(1, dtype=output._data.dtype)  # (np.ones is a slower Python function)
            gradient = Tensor._make(ones.reshape(output._data.shape), False, None)
        elif not isinstance(gradient, Tensor):
            gradient = Tensor(np.asarray(gradient), dtype=output.dtype)
        if gradient.shape != output.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{index}] has a shape of "
                               f"{gradient.shape} and output[{index}] has a shape of "
                               f"{output.shape}. The gradient must have the output's shape.")
        if gradient.dtype != output.dtype:
            gradient = Tensor._make(gradient._data.astype(output.dtype), False, None)
        roots.append(gradient)
    return roots


def hook_result(hook: Callable, replaced: Any, gradient: Tensor) -> Tensor:
    """What a tensor hook returned in place of `gradient`: a Tensor of its shape and dtype."""
    name = getattr(hook, "__name__", hook)
    if not isinstance(replaced, Tensor):
        kind = type(replaced)
        qualified = kind.__name__ if kind.__module__ == "builtins" else \
            f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"expected Variable, but hook returned '{qualified}' (hook "
                        f"{name!r} must return None or a Tensor shaped like its gradient)")
    if replaced.shape != gradient.shape:
        raise RuntimeError(f"hook {name!r} has changed the size of value: it returned "
                           f"{replaced.shape} for a gradient of shape {gradient.shape}; a "
                           "hook must return None or a Tensor of the same shape")
    if replaced.dtype != gradient.dtype:
        raise RuntimeError(f"hook {name!r} has changed the type of value (was "
                           f"{type_name(gradient.dtype)} got {type_name(replaced.dtype)})")
    return replaced


def gradient_count(input_grads: Any, node: Node) -> tuple:
    """What an op's backward returned, as a tuple with one entry per input of the node."""
    if type(input_grads) is not tuple:
        input_grads = (input_grads,)
    if len(input_grads) != len(node._next):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(node._next)}, got {len(input_grads)})")
    return input_grads


def input_gradient(gradient: Any, node: Node, index: int) -> Tensor:
    """The gradient an op's backward returned for input `index`: a Tensor of that input's
    shape (else an error) and dtype (else converted, as PyTorch does)."""
    expected = node.inputs[index]
    if type(gradient) is Tensor and gradient._data.shape == expected.shape \
            and gradient._data.dtype == expected.dtype:
        return gradient
    if not isinstance(gradient, Tensor):
        gradient = Tensor._make(np.asarray(gradient), False, None)
    if gradient._data.shape != expected.shape:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index} - got "
            f"{list(gradient.shape)} but expected shape compatible with {list(expected.shape)}")
    if gradient._data.dtype != expected.dtype:
        gradient = gradient.to(expected.dtype) if gradient.requires_grad else \
            Tensor._make(gradient._data.astype(expected.dtype), False, None)
    return gradient
