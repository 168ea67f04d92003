"""Views: tensors that share memory with another tensor, their base (`x.T`, `x[0]`, `x.view(6)`).

A Function whose forward returns a numpy view of its input (`is_view = True`) makes its result
a view: `Function.apply` calls `_become_view`. A view keeps

- `_base`: the tensor whose memory it shows (always the first, non-view tensor of a chain);
- `_version_counter`: the base's own counter, so a write through either one is seen by
  every node that saved any of them;
- `_view_steps`: the view ops, with their settings, that make the view from the base. They are
  replayed to find the view's region in the base (minigrad.ops.copy_slices) and to rebuild
  the view's node when the base was changed in place (as PyTorch regenerates it);
- `_no_grad_view`: made under no_grad from a tensor that requires grad (or from such a view):
  changing it in place with grad mode on is refused, as in PyTorch, since the change could
  not be recorded in the base's graph.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import minigrad  # minigrad.autograd is looked up when a view's node is rebuilt

if TYPE_CHECKING:
    from minigrad.tensor.tensor import Tensor


class TensorViews:
    """Mixin of `Tensor`: the view bookkeeping (see the module docstring)."""

    __slots__ = ()

    def _is_view(self) -> bool:
        """True if this tensor shares memory with `_base`, the tensor it was viewed from."""
        return self._base is not None

    def _become_view(self, source: Tensor, function: type, settings: dict) -> None:
        """Record that self = function(source, **settings) is a view of source's storage.

        A view shares its base's version counter (a write through either is seen by both)
        and remembers the steps that made it from the base, so that autograd can replay
        them after an in-place change (see `minigrad.ops.inplace`).
        """
        base = source._base if source._base is not None else source
        self._base = base
        self._version_counter = base._version_counter
        step = ((function, settings),)
        self._view_steps = source._view_steps + step if source._base is not None else step
        self._view_of_node = base._grad_fn
        self._no_grad_view = (source._no_grad_view if source._base is not None else False) or (
            source._requires_grad and not minigrad.autograd.grad_mode.GradMode.enabled)

    @property
    def grad_fn(self) -> Any:
        """The backward node of the op that made this tensor (None for a leaf).

        A view whose base was changed in place since the view was made gets a fresh node:
        the view steps replayed on the base's new node (PyTorch regenerates it the same way).
        """
        if self._base is not None:
            self._sync_view()
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node: Any) -> None:
        self._grad_fn = node

    def _sync_view(self) -> None:
        """Rebuild this view's node if its base's node changed since (an in-place change).

        A view made under no_grad of a base that requires grad stays out of the graph.
        """
        base = self._base
        if base._grad_fn is not self._view_of_node and (self._grad_fn is not None
                                                         or base._requires_grad):
            self._refresh_view_node()

    def _refresh_view_node(self) -> None:
        """Replay the view steps on the base, so gradients reach the base's current node."""
        base = self._base
        with minigrad.autograd.enable_grad():
            replayed = base
            for function, settings in self._view_steps:
                replayed = function.apply(replayed, **settings)
        self._grad_fn = replayed._grad_fn
        self._requires_grad = replayed._requires_grad
        self._view_of_node = base._grad_fn
        if self.retains_grad and self._grad_fn is not None:
            self._grad_fn._retained = weakref.ref(self)
