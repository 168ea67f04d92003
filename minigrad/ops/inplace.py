"""In-place operations: `x += y`, `x.add_(y)`, `x.mul_(2)`, `x.zero_()`, `x.fill_(v)`
(and, in minigrad.ops.setitem, `x[i] = v`).

They write into x's memory and bump its version counter, so that a node which saved `x` for
backward can tell that the value it needs is gone (and raise instead of returning a wrong
gradient). Views share memory and version counter with their base, so a write through a
view is seen by the base, by every other view of it, and by the version checks.

Rules, as in PyTorch:
- a leaf that requires grad (or a view of one) may only be changed in place under
  `no_grad()` (that is how optimizers update parameters);
- if `x` (or the other operand) is part of a graph, the op is recorded: the op runs out of
  place on x's old value, its result is written back, and `x.grad_fn` becomes its node;
- if `x` is a view, its base changed too: the base's node becomes `CopySlices` (see
  minigrad.ops.copy_slices), and the view's own node is rebuilt from the base by replaying
  the view steps (see `Tensor._refresh_view_node`).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import GradMode
from minigrad.ops.arithmetic import broadcast_error, refuse_bool
from minigrad.ops.broadcast import sum_to
from minigrad.ops.copy_slices import copy_into, move_node, write_through_view
from minigrad.ops.overlap import refuse_partial_overlap
from minigrad.tensor import dtypes
from minigrad.tensor.tensor import _LEAF_INPLACE_MESSAGE, Tensor

class Fill(Function, node_name="FillBackward2"):
    """out = a tensor of a's shape filled with `value` (a number);  d(out)/da = 0."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, value: float) -> np.ndarray:
        return np.full_like(a, value)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return _zeros_like(grad_output)


class Zero(Fill, node_name="ZeroBackward0"):
    """out = zeros of a's shape;  d(out)/da = 0."""


class FillTensor(Function, node_name="FillBackward3"):
    """out = a's shape filled with a 0-d tensor v;  d(out)/da = 0,  d(out)/dv = sum of grad."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, value: np.ndarray) -> np.ndarray:
        return np.full_like(a, value)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_value = ctx.needs_input_grad
        return (_zeros_like(grad_output) if need_a else None,
                grad_output.sum() if need_value else None)


class Copy(Function, node_name="CopyBackwards"):  # PyTorch's name
    """out = src broadcast to a's shape, in a's dtype (`a.copy_(src)`);
    d(out)/da = 0,  d(out)/dsrc = grad summed to src's shape."""

    @staticmethod
    def forward(ctx: Context, a: np.ndarray, src: np.ndarray) -> np.ndarray:
        ctx.src_shape = np.shape(src)
        out = np.empty_like(a)
        copy_into(out, src)
        return out

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_src = ctx.needs_input_grad
        return (_zeros_like(grad_output) if need_a else None,
                sum_to(grad_output, ctx.src_shape) if need_src else None)


def _zeros_like(grad: Tensor) -> Tensor:
    """A zero gradient: a constant, as in PyTorch (its own derivative is not needed)."""
    return Tensor._make(np.zeros_like(grad._data), False, None)


# ---- checks -----------------------------------------------------------------------------------
def check_writeable(tensor: Tensor) -> None:
    """expand() results are broadcast views: one stored value stands for many elements."""
    if not tensor._data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")


def _check_leaf(tensor: Tensor, prefix: str = "") -> None:
    """Refuse, in grad mode, to change a leaf that requires grad, a view of one, or a view
    made under no_grad of a tensor that requires grad (minigrad.tensor.views)."""
    if not GradMode.enabled:
        return
    base = tensor._base
    if base is not None:
        if tensor._no_grad_view:
            raise RuntimeError(
                "A view was created in no_grad mode and is being modified inplace with grad "
                "mode enabled. Given that this use case is ambiguous and error-prone, it is "
                "forbidden. You can clarify your code by moving both the view and the inplace "
                "either both inside the no_grad block (if you don't want the inplace to be "
                "tracked) or both outside (if you want the inplace to be tracked).")
        leaf_base = base._requires_grad and base._grad_fn is None
        leaf_view = tensor._requires_grad and tensor._grad_fn is None  # v.requires_grad_()
        if not (leaf_base or leaf_view):
            return
        prefix = "a view of "
    elif not (tensor._requires_grad and tensor._grad_fn is None):
        return
    raise RuntimeError(prefix + _LEAF_INPLACE_MESSAGE + " Wrap parameter updates in "
                       "`with minigrad.no_grad():`, or work on a copy (x = x + 1).")


def _check_shape_and_dtype(tensor: Tensor, values: np.ndarray, op_name: str) -> None:
    """PyTorch's rules: an in-place op keeps the tensor's shape and may not promote its dtype."""
    if values.shape != tensor._data.shape:
        raise RuntimeError(
            f"output with shape {list(tensor._data.shape)} doesn't match the broadcast shape "
            f"{list(values.shape)} (in-place {op_name} cannot change the shape of a tensor)")
    if not np.can_cast(values.dtype, tensor._data.dtype, casting="same_kind"):
        raise RuntimeError(
            f"result type {dtypes.scalar_type_name(values.dtype)} can't be cast "
            f"to the desired output type {dtypes.scalar_type_name(tensor.dtype)}")


# ---- recording an in-place change -------------------------------------------------------------
def _old_value(tensor: Tensor) -> Tensor:
    """A snapshot of tensor's current value, attached where tensor is in the graph."""
    return Tensor._make(tensor._data.copy(), tensor._requires_grad, tensor.grad_fn)


def _commit(tensor: Tensor, result: Tensor, op_name: str) -> None:
    """tensor takes result's value and place in the graph (result = op(old tensor, ...))."""
    _check_shape_and_dtype(tensor, result._data, op_name)
    if tensor._base is None:
        np.copyto(tensor._data, result._data, casting="same_kind")
        tensor._version_counter[0] += 1
        move_node(tensor, result._grad_fn)
        return
    write_through_view(tensor._base, result, tensor._view_steps, update=True)
    tensor._refresh_view_node()
    tensor._requires_grad = True


def _records(tensor: Tensor, other: Any) -> bool:
    """Must this in-place op be recorded? (grad mode on, a graph on either side, and a
    floating tensor written to: `ints[0] = w` stores int(w) and, as in PyTorch, gives w no
    gradient and the int tensor no graph)"""
    if not GradMode.enabled or not dtypes.is_floating(tensor.dtype):
        return False
    base = tensor._base
    return (tensor._requires_grad or (base is not None and base._requires_grad)
            or (isinstance(other, Tensor) and other._requires_grad))


# ---- the in-place ops -------------------------------------------------------------------------
def apply_inplace(tensor: Tensor, other: Any, op: Callable[[Any, Any], Tensor],
                  ufunc: np.ufunc, op_name: str, alpha: float = 1) -> Tensor:
    """tensor = op(tensor, alpha * other), written into tensor's own memory."""
    if not isinstance(other, (Tensor, np.ndarray, *dtypes.NUMBER_TYPES)):
        raise TypeError(f"{op_name}(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    # Nothing to record (an optimizer step, `p.data -= lr * p.grad`): plain numpy when the
    # shapes and dtypes agree; the leaf rule cannot apply, as _records would be True.
    _check_leaf(tensor)  # PyTorch's order: the leaf rule, then overlap, then shapes
    if isinstance(other, Tensor):
        refuse_partial_overlap(tensor._data, other._data)  # b += b.T
    if ufunc is np.subtract:
        refuse_bool(tensor._data, other._data if isinstance(other, Tensor) else other)
    other_data = other._data if isinstance(other, Tensor) else None
    # (only a bool tensor can have a bool result: the dtype test first spares the promotion)
    if alpha != 1 and alpha and tensor._data.dtype == dtypes.bool_ and dtypes.result_type(
            tensor._data, other if other_data is None else other_data) == dtypes.bool_:
        alpha = 1  # PyTorch casts alpha to the result's dtype: for bools, 2 is True
    if other_data is not None and other_data.shape == tensor._data.shape \
            and other_data.dtype == tensor._data.dtype and tensor._data.flags.writeable \
            and (ufunc is not np.true_divide or tensor._data.dtype.kind == "f") \
            and not _records(tensor, other):
        ufunc(tensor._data, other_data if alpha == 1 else other_data * alpha, out=tensor._data)
        tensor._version_counter[0] += 1
        return tensor
    if alpha != 1:
        other = other * alpha
    check_writeable(tensor)
    if _records(tensor, other):
        _commit(tensor, op(_old_value(tensor), other), op_name)
        return tensor
    other_data = other._data if isinstance(other, Tensor) else other
    if isinstance(other_data, np.ndarray) and other_data.shape != tensor._data.shape:
        try:
            np.broadcast_shapes(tensor._data.shape, other_data.shape)
        except ValueError:
            raise broadcast_error(tensor._data, other_data, op_name) from None
        if np.broadcast_shapes(tensor._data.shape, other_data.shape) != tensor._data.shape:
            raise RuntimeError(
                f"output with shape {list(tensor._data.shape)} doesn't match the broadcast shape "
                f"{list(np.broadcast_shapes(tensor._data.shape, other_data.shape))}")
    try:
        ufunc(tensor._data, other_data, out=tensor._data, casting="same_kind")
    except TypeError:  # numpy's UFuncTypeError: e.g. an int tensor += 1.5
        result_dtype = dtypes.result_type(tensor._data, other_data)
        if ufunc is np.true_divide and result_dtype.kind != "f":
            result_dtype = dtypes.default_float  # int / int is a float (true division)
        raise RuntimeError(
            f"result type {dtypes.scalar_type_name(result_dtype)} can't be "
            f"cast to the desired output type "
            f"{dtypes.scalar_type_name(tensor.dtype)}") from None
    except ValueError as error:
        raise RuntimeError(f"in-place {op_name} failed: {error}") from None
    tensor._version_counter[0] += 1
    return tensor


def _check_broadcasts_into(tensor: Tensor, src: np.ndarray) -> None:
    """copy_'s source may be broadcast to the tensor's shape, never past it (PyTorch's words)."""
    try:
        shape = np.broadcast_shapes(tensor._data.shape, src.shape)
    except ValueError:
        return  # no common shape: expand names both shapes (in copy_into)
    if shape != tensor._data.shape:
        raise RuntimeError(f"output with shape {list(tensor._data.shape)} doesn't match the "
                           f"broadcast shape {list(shape)} (copy_ writes into the tensor, so "
                           "the source must fit in it)")


def copy_(tensor: Tensor, src: Any) -> Tensor:
    """Copy `src` (broadcast, converted to tensor's dtype) into tensor, in place."""
    _check_leaf(tensor)
    check_writeable(tensor)
    if isinstance(src, np.ndarray):
        src = Tensor(src)
    if isinstance(src, Tensor):
        refuse_partial_overlap(tensor._data, src._data)  # src as given, before broadcasting
        _check_broadcasts_into(tensor, src._data)
    if _records(tensor, src):
        _commit(tensor, Copy.apply(_old_value(tensor), src), "copy_")
        return tensor
    copy_into(tensor._data, src._data if isinstance(src, Tensor) else src)
    tensor._version_counter[0] += 1
    return tensor


def fill_(tensor: Tensor, value: Any) -> Tensor:
    """Set every element to `value` (a number or a 0-d tensor), in place."""
    if not isinstance(value, (Tensor, *dtypes.NUMBER_TYPES)):
        raise TypeError(f"fill_() received an invalid combination of arguments - got "
                        f"({type(value).__name__}), but expected one of: (Tensor value) "
                        f"(Number value)")
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.ndim} dimensions.")
    dtypes.check_fits(value, tensor.dtype)
    _check_leaf(tensor)
    check_writeable(tensor)
    if _records(tensor, value):
        if isinstance(value, Tensor):
            result = FillTensor.apply(_old_value(tensor), value)
        else:
            result = (Zero if value == 0 else Fill).apply(_old_value(tensor), value=value)
        _commit(tensor, result, "fill_")
        return tensor
    tensor._data.fill(value._data if isinstance(value, Tensor) else value)
    tensor._version_counter[0] += 1
    return tensor


def zero_(tensor: Tensor) -> Tensor:
    """Set every element to 0 (in place)."""
    return fill_(tensor, 0)


__all__ = ["apply_inplace", "copy_", "fill_", "setitem", "zero_"]
