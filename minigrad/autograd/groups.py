"""Groups: name a piece of a Tensor graph (one layer call) so a drawing can fold it into one box.

A big model's backward graph has hundreds of nodes; on a slide one wants ``fc1``, ``relu``,
``fc2``. A group remembers where a piece of the graph starts (its *inputs*) and ends (its
*outputs*); the drawing folds every node between them — the layer's ops and its parameters'
``AccumulateGrad`` nodes — into one node::

    with mg.viz.group("fc1", x) as scope:     # x: the tensors the piece reads
        h = x @ W.T + b
        scope.output(h)                       # h: what it returns
    draw_graph(loss, kind="backward", collapse=True)

``nn.Module.__call__`` does exactly this around ``forward`` (one group per layer call), so
``collapse=True`` shows one box per layer. Groups nest; a drawing folds the innermost ones.

Nothing here keeps a graph alive: a group is stored on its output's ``grad_fn`` node (so it
lives exactly as long as that node) and holds its inputs by weak reference, so recording
costs a small tuple per layer call.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Iterable, NamedTuple

from minigrad.tensor.tensor import Tensor

_depth = [0]  # how many groups are open right now (nesting level of the next one)


class GroupRecord(NamedTuple):
    """One recorded group: its name, nesting depth and where it starts (weakly; see boundaries)."""

    name: str | Callable[[], str]  # a callable is asked only when a drawing needs the name
    depth: int
    inputs: tuple[weakref.ReferenceType, ...]  # per input: its grad_fn node, or the leaf itself

    def boundaries(self) -> list[Any]:
        return [item for item in (ref() for ref in self.inputs) if item is not None]


def _weak_boundaries(values: Iterable[Any]) -> tuple[weakref.ReferenceType, ...]:
    """Where the piece starts, weakly: an input's grad_fn node (the graph keeps it alive while
    it matters, whereas an intermediate tensor is freed once backward no longer needs it), or
    the tensor itself for a leaf (found again as an AccumulateGrad node's `variable`)."""
    refs = []
    for value in values:
        if isinstance(value, Tensor):
            node = value.grad_fn
            refs.append(weakref.ref(node if node is not None else value))
    return tuple(refs)


class group:  # noqa: N801  (lower case: used like a function, as no_grad is)
    """Context manager recording a named piece of the graph (see the module docstring).

    Args:
        name: what the folded box says, e.g. ``"fc1"`` or ``"Linear(4, 2)"``; or a function
            returning it, called only if a drawing needs it (a layer call stays cheap).
        *inputs: the tensors the piece reads (others, e.g. plain numbers, are ignored).
    """

    __slots__ = ("name", "_inputs", "_depth")

    def __init__(self, name: str | Callable[[], str], *inputs: Any) -> None:
        self.name = name
        self._inputs = _weak_boundaries(inputs)
        self._depth = 0

    def __enter__(self) -> group:
        self._depth = _depth[0]
        _depth[0] += 1
        return self

    def __exit__(self, *exc_info: Any) -> None:
        _depth[0] -= 1

    def output(self, *outputs: Any) -> None:
        """Mark what the piece returned (tensors; tuples, lists and dicts are searched)."""
        record = GroupRecord(self.name, self._depth, self._inputs)
        single = len(outputs) == 1 and type(outputs[0]) is Tensor  # (the usual layer call)
        for tensor in (outputs if single else _flatten(outputs)):
            node = tensor.grad_fn if isinstance(tensor, Tensor) else None
            if node is not None:  # an inner layer's output node is also the outer's
                node._groups = node._groups + (record,)


def _flatten(values: Iterable[Any]) -> Iterable[Any]:
    for value in values:
        if isinstance(value, (tuple, list)):
            yield from _flatten(value)
        elif isinstance(value, dict):
            yield from _flatten(value.values())
        else:
            yield value


def _is_boundary(node: Any, boundaries: list[Any]) -> bool:
    variable = getattr(node, "variable", None)
    return any(node is item or (variable is not None and variable is item)
               for item in boundaries)


def group_members(nodes: Iterable[Any]) -> dict[int, tuple[str, str]]:
    """For the backward nodes given, ``id(node) -> (group key, group name)`` of those inside a
    recorded group; the innermost group wins. Nodes outside every group are left out."""
    nodes = list(nodes)
    members: dict[int, tuple[str, str]] = {}
    depth_of: dict[int, int] = {}
    for number, node in enumerate(nodes):
        for record in node._groups:
            inputs = record.boundaries()
            stack, seen = [node], {id(node)}
            while stack:
                current = stack.pop()
                if depth_of.get(id(current), -1) < record.depth:
                    label = record.name() if callable(record.name) else str(record.name)
                    members[id(current)] = (f"g{number}_{record.depth}", label)
                    depth_of[id(current)] = record.depth
                for child, _ in current.next_functions:
                    if child is None or id(child) in seen or _is_boundary(child, inputs):
                        continue
                    seen.add(id(child))
                    stack.append(child)
    return members
