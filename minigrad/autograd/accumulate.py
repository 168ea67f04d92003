"""What lands in `.grad`, by PyTorch's rules: who owns the memory of a leaf's gradient.

PyTorch's AccumulateGrad stores the first gradient a leaf receives without copying it when
nothing else refers to it (it "steals" the buffer), and a copy otherwise; later gradients are
added into `.grad` in place. The values are the same either way; what the rule decides is
whether `.grad` can share memory with a tensor user code holds. minigrad cannot count
references, so a backward pass keeps the set of arrays user code may hold (`LeafGradients`):
the gradients the user passed in, those a tensor hook saw or returned, and every `.grad`
stored so far.

retain_grad() tensors get a copy of their first gradient, then a new tensor for each sum.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from minigrad.autograd.function import Node
from minigrad.tensor.tensor import Tensor


def _owner_id(array: np.ndarray) -> int:
    """Which memory an array shows: its own, or that of the array it is a view of."""
    return id(array if array.base is None else array.base)


class LeafGradients:
    """Stores gradients into leaves' `.grad` during one backward pass (see the module
    docstring); `create_graph`: the stored gradients are themselves recorded."""

    def __init__(self, root_gradients: Iterable[Tensor], create_graph: bool) -> None:
        self.create_graph = create_graph
        self.handed_out = {_owner_id(gradient._data) for gradient in root_gradients}

    def hand_out(self, gradient: Tensor) -> None:
        """`gradient` was seen by user code (a tensor hook): no `.grad` may share its memory."""
        self.handed_out.add(_owner_id(gradient._data))

    def accumulate(self, tensor: Tensor, gradient: Tensor) -> None:
        """leaf.grad += gradient (the first time: leaf.grad = gradient), as AccumulateGrad.

        The first gradient is stored as it is only when nobody else can hold it (`_owned`);
        with create_graph it is always a recorded copy (PyTorch's
        `empty_like(grad).copy_(grad)`: CopyBackwards). Later gradients are added into the
        existing `.grad` in place, so older references to it see the sum; with create_graph
        the sum is a new, recorded tensor.
        """
        if not tensor._requires_grad:
            return  # frozen by requires_grad_(False) after the forward pass: .grad stays as it is
        grad = tensor._grad
        if grad is None:
            if self.create_graph and gradient.requires_grad:
                tensor._grad = Tensor._make(np.empty_like(gradient._data), False,
                                            None).copy_(gradient)
            else:
                tensor._grad = self._owned(gradient)
        elif self.create_graph or grad._data.base is not None or not grad._data.flags.writeable:
            tensor._grad = grad + gradient
        else:
            np.add(grad._data, gradient._data, out=grad._data)
            grad._version_counter[0] += 1

    def _owned(self, gradient: Tensor) -> Tensor:
        """A gradient safe to store in `.grad`: its memory shared with nothing handed out and
        no broadcast (read-only) array. A row-major view of all of a fresh array (what a
        transpose of a transposed matmul result is) needs no copy."""
        array = gradient._data
        owner = array if array.base is None else array.base
        whole_view = array.base is None or (type(owner) is np.ndarray and owner.size == array.size
                                            and array.flags.c_contiguous)
        if not whole_view or not array.flags.writeable or id(owner) in self.handed_out:
            gradient = Tensor._make(array.copy(), False, None)
            owner = gradient._data
        self.handed_out.add(id(owner))
        return gradient


def store_retained(node: Node, gradient: Tensor) -> None:
    """If `node` made a tensor marked retain_grad(), add `gradient` into that tensor's .grad
    (in backward() and in autograd.grad alike, as PyTorch does): a copy of the first gradient
    (a recorded clone under create_graph), then `grad + gradient`, a new tensor each time, so
    neither what autograd.grad returned nor an earlier .grad ever changes."""
    if node._retained is None:
        return
    retained = node._retained()
    if retained is None or retained.grad_fn is not node:
        return
    if retained._grad is None:
        retained._grad = gradient.clone()
    else:
        retained._grad = retained._grad + gradient
