"""In-place operations: `x += y`, `x.add_(y)`, `x.mul_(2)`, `x.zero_()`, `x.fill_(v)`, `x[i] = v`.

They write into `x.data` and bump `x._version`, so that a node which saved `x` for backward
can tell that the value it needs is gone (and raise instead of returning a wrong gradient).

Rules, as in PyTorch:
- a leaf that requires grad may only be changed in place under `no_grad()` (that is how
  optimizers update parameters);
- if `x` (or the other operand) is part of a graph, the op is recorded: `x.grad_fn` becomes
  the node of the op, whose input is the old value of `x`.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import GradMode
from minigrad.tensor import dtypes
from minigrad.tensor.tensor import _LEAF_INPLACE_MESSAGE, Tensor

_TORCH_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
                "bool": "Bool"}


class Fill(Function):
    """out = a tensor of a's shape filled with `value`;  d(out)/da = 0."""

    node_name = "FillBackward2"

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, value: float) -> np.ndarray:
        return np.full_like(a, value)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return grad_output * 0.0


class Zero(Fill):
    """out = zeros of a's shape;  d(out)/da = 0."""

    node_name = "ZeroBackward0"


def _check_writeable(tensor: Tensor) -> None:
    """expand() results are broadcast views: one stored value stands for many elements."""
    if not tensor.data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")


def _check_leaf(tensor: Tensor, prefix: str = "") -> None:
    if GradMode.enabled and tensor._requires_grad and tensor.grad_fn is None:
        raise RuntimeError(prefix + _LEAF_INPLACE_MESSAGE + " Wrap parameter updates in "
                           "`with minigrad.no_grad():`, or work on a copy (x = x + 1).")


def _move_node(tensor: Tensor, node: Any) -> None:
    """Make `node` (the in-place op's) the tensor's grad_fn; a retain_grad() stays on."""
    tensor.grad_fn = node
    if tensor.retains_grad:
        node._retained = weakref.ref(tensor)


def _write(tensor: Tensor, values: np.ndarray, op_name: str) -> None:
    """Copy `values` into tensor.data, with PyTorch's shape and dtype rules."""
    if values.shape != tensor.data.shape:
        raise RuntimeError(
            f"output with shape {list(tensor.data.shape)} doesn't match the broadcast shape "
            f"{list(values.shape)} (in-place {op_name} cannot change the shape of a tensor)")
    if not np.can_cast(values.dtype, tensor.data.dtype, casting="same_kind"):
        raise RuntimeError(
            f"result type {_TORCH_NAMES.get(values.dtype.name, values.dtype.name)} can't be cast "
            f"to the desired output type {_TORCH_NAMES.get(tensor.dtype.name, tensor.dtype.name)}")
    np.copyto(tensor.data, values, casting="same_kind")
    tensor._version_counter[0] += 1


def apply_inplace(tensor: Tensor, other: Any, op: Callable[[Any, Any], Tensor],
                  ufunc: np.ufunc, op_name: str) -> Tensor:
    """tensor = op(tensor, other), written into tensor's own array."""
    if not GradMode.enabled:  # e.g. an optimizer step: plain numpy, when shapes and dtypes agree
        other_data = other.data if isinstance(other, Tensor) else None
        if other_data is not None and other_data.shape == tensor.data.shape \
                and other_data.dtype == tensor.data.dtype and tensor.data.flags.writeable:
            ufunc(tensor.data, other_data, out=tensor.data)
            tensor._version_counter[0] += 1
            return tensor
    _check_leaf(tensor)
    _check_writeable(tensor)
    other_requires = isinstance(other, Tensor) and other._requires_grad
    if GradMode.enabled and (tensor._requires_grad or other_requires):
        # Record the op on a snapshot of the old value, then make `tensor` its output.
        before = Tensor._make(tensor.data.copy(), tensor._requires_grad, tensor.grad_fn)
        result = op(before, other)
        _write(tensor, result.data, op_name)
        _move_node(tensor, result.grad_fn)
        tensor._requires_grad = True
        return tensor
    other_data = other.data if isinstance(other, Tensor) else other
    if isinstance(other_data, np.ndarray) and other_data.shape != tensor.data.shape:
        if np.broadcast_shapes(tensor.data.shape, other_data.shape) != tensor.data.shape:
            raise RuntimeError(
                f"output with shape {list(tensor.data.shape)} doesn't match the broadcast shape "
                f"{list(np.broadcast_shapes(tensor.data.shape, other_data.shape))}")
    try:
        ufunc(tensor.data, other_data, out=tensor.data, casting="same_kind")
    except TypeError:  # numpy's UFuncTypeError: e.g. an int tensor += 1.5
        result_dtype = np.result_type(tensor.data, other_data)
        if ufunc is np.true_divide and result_dtype.kind != "f":
            result_dtype = np.dtype(np.float32)  # int / int is a float (true division)
        other_is_double = isinstance(other_data, np.ndarray) and other_data.dtype == np.float64
        if result_dtype.kind == "f" and not other_is_double:
            result_dtype = np.dtype(np.float32)  # a Python float does not make a Double tensor
        raise RuntimeError(
            f"result type {_TORCH_NAMES.get(result_dtype.name, result_dtype.name)} can't be "
            f"cast to the desired output type "
            f"{_TORCH_NAMES.get(tensor.dtype.name, tensor.dtype.name)}") from None
    except ValueError as error:
        raise RuntimeError(f"in-place {op_name} failed: {error}") from None
    tensor._version_counter[0] += 1
    return tensor


class SetItem(Function):
    """out = a with out[key] = b;  grad_a = g with g[key] set to 0,
    grad_b = g[key] summed to b's shape (b was broadcast into the slots)."""

    node_name = "CopySlices"  # PyTorch's node for an assignment through basic indexing

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, b: Any, key: Any) -> np.ndarray:
        ctx.key, ctx.b_shape = key, np.shape(b)
        out = a.copy()
        try:
            out[key] = b
        except (IndexError, ValueError) as error:
            raise type(error)(f"cannot assign to a tensor of shape {a.shape} at {key!r}: "
                              f"{error}") from None
        return out

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from minigrad.ops.broadcast import sum_to
        from minigrad.ops.combine import where
        from minigrad.ops.index import getitem

        need_a, need_b = ctx.needs_input_grad
        grad_a = grad_b = None
        if need_a:
            overwritten = np.zeros(grad_output.shape, dtype=bool)
            overwritten[ctx.key] = True
            grad_a = where(Tensor._make(overwritten, False, None), 0.0, grad_output)
        if need_b:
            grad_b = sum_to(getitem(grad_output, ctx.key), ctx.b_shape)
        return grad_a, grad_b


class IndexPut(SetItem):
    """SetItem through integer-array or mask indexing (PyTorch's IndexPutBackward0)."""

    node_name = "IndexPutBackward0"


def _plain_key(key: Any) -> Any:
    """The key with Tensors replaced by their arrays (numpy indexes with it)."""
    if isinstance(key, Tensor):
        return key.data
    if isinstance(key, tuple):
        return tuple(part.data if isinstance(part, Tensor) else part for part in key)
    return key


def _is_advanced(key: Any) -> bool:
    parts = key if isinstance(key, tuple) else (key,)
    return any(isinstance(part, (list, np.ndarray)) and np.ndim(part) > 0 for part in parts)


def setitem(tensor: Tensor, key: Any, value: Any) -> None:
    """tensor[key] = value in place. In a graph it is recorded (CopySlices / IndexPutBackward0):
    the overwritten slots get no gradient, `value` gets the gradient of its slots."""
    _check_leaf(tensor, prefix="a view of ")  # PyTorch: x[key] is a view of the leaf x
    _check_writeable(tensor)
    key = _plain_key(key)
    value_requires = isinstance(value, Tensor) and value._requires_grad
    if GradMode.enabled and (tensor._requires_grad or value_requires):
        before = Tensor._make(tensor.data.copy(), tensor._requires_grad, tensor.grad_fn)
        kind = IndexPut if _is_advanced(key) else SetItem
        result = kind.apply(before, value, key=key)
        _write(tensor, result.data, "setitem")
        _move_node(tensor, result.grad_fn)
        tensor._requires_grad = True
        return
    try:
        tensor.data[key] = value.data if isinstance(value, Tensor) else value
    except (IndexError, ValueError) as error:
        raise type(error)(f"cannot assign to a tensor of shape {tensor.shape} at {key!r}: "
                          f"{error}") from None
    tensor._version_counter[0] += 1


def fill_(tensor: Tensor, value: Any) -> Tensor:
    """Set every element to `value` (in place)."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        value = value.item()
    _check_leaf(tensor)
    _check_writeable(tensor)
    if GradMode.enabled and tensor._requires_grad:
        kind = Zero if value == 0 else Fill
        result = kind.apply(Tensor._make(tensor.data.copy(), True, tensor.grad_fn), value=value)
        _move_node(tensor, result.grad_fn)
    tensor.data.fill(value)
    tensor._version_counter[0] += 1
    return tensor


def zero_(tensor: Tensor) -> Tensor:
    """Set every element to 0 (in place)."""
    return fill_(tensor, 0)


__all__ = ["apply_inplace", "fill_", "zero_", "dtypes"]
