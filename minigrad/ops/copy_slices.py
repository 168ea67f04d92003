"""Writing through a view: PyTorch's CopySlices, and index_put for integer-array keys.

When `v` is a view of `base` (v = base[0], v = base.T ...) and v is changed in place, the
base changed too. Autograd records that on the base as one op,

    base_new = CopySlices(base_old, src):  base_old with the view's region replaced by src,

where `src` is the new value of the region (v's new value, or the value of `base[key] = src`).
The region is found by replaying the view's steps from the base (`Tensor._view_steps`), on
arrays in forward and on gradients in backward: grad_base_old is the gradient with the region
set to 0 (those values were overwritten), grad_src is the gradient's region.

For an in-place op on the view (`v.mul_(w)`: src = old v · w), the node holds that op's node,
as PyTorch's CopySlices holds its `fn`: its inputs are the base and the op's other inputs
(`next_functions`: the base's old node, then w's), and its backward runs the op's backward
on the gradient's region; the part for old v goes back into the region of grad_base_old.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function, Node
from minigrad.ops.broadcast import sum_to
from minigrad.ops.combine import where
from minigrad.ops.index import getitem
from minigrad.ops.overlap import refuse_partial_overlap
from minigrad.ops.shape import expand
from minigrad.tensor.tensor import Tensor


class CopySlicesNode(Context):
    """A CopySlices node; `update` is the node of the in-place op it holds (None for a copy),
    whose saved values are freed with the node's own."""

    update: Node | None = None

    def _release(self) -> None:
        super()._release()
        if self.update is not None:
            self.update._release()


class CopySlices(Function, node_name="CopySlices"):  # PyTorch's name
    """out = base with the region of a view replaced by `src` (broadcast into it), in place.

    The view is given by its `steps` from the base (e.g. Select at 0, then Transpose), so
    grad_base = grad with the region set to 0 (those values were overwritten), and
    grad_src = the region of grad, found by replaying the steps on grad, summed to src's shape.
    Holding an in-place op's node (src = op(old region, *others)):
    (grad_old_region, *grad_others) = op's backward(region of grad), and grad_base gets
    grad_old_region written into its region. Its forward writes into the base's memory and
    returns it: the caller bumps the version.
    """

    node_base = CopySlicesNode

    @staticmethod
    def forward(ctx: Context, base: np.ndarray, src: Any, steps: tuple) -> np.ndarray:
        ctx.steps, ctx.src_shape = steps, np.shape(src)
        copy_into(_replay_on_array(base, steps), src)
        return base

    @staticmethod
    def backward(ctx: CopySlicesNode, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        need_base, *need_others = ctx.needs_input_grad
        grad_base = None
        if need_base:
            overwritten = np.zeros(grad_output.shape, dtype=bool)
            _replay_on_array(overwritten, ctx.steps)[...] = True
            grad_base = _zero_where(overwritten, grad_output)
        if not any(need_others) and ctx.update is None:
            return grad_base, None
        region = grad_output
        for function, settings in ctx.steps:
            region = function.apply(region, **settings)
        if ctx.update is None:  # base[key] = src: src's gradient is the region
            return grad_base, sum_to(region, ctx.src_shape)
        grads = ctx.update._function.backward(ctx.update, region)
        grad_old_region, *grad_others = grads if type(grads) is tuple else (grads,)
        if grad_base is not None and grad_old_region is not None:
            grad_base = CopySlices.apply(grad_base, grad_old_region, steps=ctx.steps)
        return (grad_base, *grad_others)


def copy_into(region: np.ndarray, src: Any) -> None:
    """region[...] = src, converting the dtype (as `copy_` does) and broadcasting src.

    src is broadcast first and then checked for overlap with region, as PyTorch's
    `x[key] = src` does: `x[1:] = x[:-1]` is refused (minigrad.ops.overlap).
    """
    if isinstance(src, np.ndarray) and src.shape != region.shape:
        try:
            src = np.broadcast_to(src, region.shape)  # a view: the same memory
        except ValueError:
            expand(Tensor(np.asarray(src)), region.shape)  # raises PyTorch's message
            raise
    refuse_partial_overlap(region, src)
    np.copyto(region, src, casting="unsafe")


def _replay_on_array(array: np.ndarray, steps: tuple) -> np.ndarray:
    """The numpy view of `array` that the view steps select (each step's forward is a view)."""
    for function, settings in steps:
        array = function.forward(function._node_class(), array, **settings)
    return array


class IndexPut(Function, node_name="IndexPutBackward0"):
    """out = a with out[key] = b (integer-array or mask key);  grad_a = grad with the
    overwritten slots set to 0,  grad_b = grad[key] summed to b's shape (b was broadcast)."""

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
        need_a, need_b = ctx.needs_input_grad
        overwritten = np.zeros(grad_output.shape, dtype=bool)
        overwritten[ctx.key] = True
        grad_a = _zero_where(overwritten, grad_output) if need_a else None
        grad_b = sum_to(getitem(grad_output, ctx.key), ctx.b_shape) if need_b else None
        return grad_a, grad_b


def _zero_where(mask: np.ndarray, grad: Tensor) -> Tensor:
    return where(Tensor._make(mask, False, None), 0.0, grad)


def write_through_view(base: Tensor, src: Any, steps: tuple, update: bool = False) -> None:
    """base[region given by steps] = src, recorded as CopySlices on the base.

    `update`: src is an in-place op's result, op(old region, *others); the node then holds
    that op's node in place of src (see the module docstring)."""
    old_base = Tensor._make(base._data, base._requires_grad, base.grad_fn)
    new_base = CopySlices.apply(old_base, src, steps=steps)
    if update and new_base._grad_fn is not None and src._grad_fn is not None:
        _hold(new_base._grad_fn, src._grad_fn)
    base._version_counter[0] += 1
    move_node(base, new_base._grad_fn)


def _hold(node: CopySlicesNode, update: Any) -> None:
    """Make `node` stand for `update` too: its inputs become the base's and update's others."""
    node.update = update
    node._next = (node._next[0], *update._next[1:])
    node.needs_input_grad = (node.needs_input_grad[0], *update.needs_input_grad[1:])
    node.inputs = (node.inputs[0], *update.inputs[1:])


def move_node(tensor: Tensor, node: Any) -> None:
    """Make `node` the tensor's grad_fn (its values came from that op); retain_grad() stays on."""
    tensor._grad_fn = node
    tensor._requires_grad = True
    if tensor.retains_grad:
        node._retained = weakref.ref(tensor)
