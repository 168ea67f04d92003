"""`draw_graph`: one entry point for drawing the graph behind a `Value` or a `Tensor`."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from minigrad.value import Value
from minigrad.viz import render
from minigrad.viz.graph import DEFAULT_MAX_NODES, Graph
from minigrad.viz.value_graph import value_graph

KINDS = ("forward", "backward")
RANKDIRS = ("LR", "RL", "TB", "BT")


def draw_graph(root: Any, kind: str = "forward", show_data: bool = True, show_grad: bool = True,
               rankdir: str = "LR", *,
               names: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
               show_saved: bool = False, show_order: bool | None = None, digits: int = 4,
               title: str | None = None, max_nodes: int = DEFAULT_MAX_NODES,
               timeout: float = render.DEFAULT_TIMEOUT) -> Graph:
    """Draw the computation graph that produced ``root`` (a ``Value`` or a ``Tensor``).

    Args:
        root: the output whose graph to draw (usually the loss).
        kind: ``"forward"`` — values (or tensors) and the operations between them, arrows from
            inputs to output; ``"backward"`` — the graph backward walks, from the root to the
            leaves (for a Tensor: the ``grad_fn`` nodes, as torchviz draws them).
        show_data, show_grad: put each node's data / grad in its box.
        rankdir: direction of the layout, ``"LR"`` (left to right), ``"TB"``, ``"RL"``, ``"BT"``.
        names: ``{"name": value_or_tensor}`` labels (e.g. ``dict(model.named_parameters())``);
            a Value's own ``label`` is used otherwise.
        show_saved: Tensor backward graphs only: show the arrays each node saved for backward.
        show_order: number the backward rules in the order they run (default: on for Value
            backward graphs, off for Tensor ones, as in torchviz).
        digits: significant digits of the numbers shown.
        title: a line of text above the drawing.
        max_nodes: rendering refuses larger graphs (``.source`` and ``.save('x.dot')`` still work).
        timeout: seconds the renderer may run.

    Returns:
        a :class:`Graph`: ``.source`` (DOT), ``.svg()``, ``.pipe(format)``, ``.save(path)``;
        it shows itself as SVG in Jupyter.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be 'forward' or 'backward', got {kind!r}")
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(RANKDIRS)}, got {rankdir!r}")
    if not (isinstance(digits, int) and 1 <= digits <= 17):
        raise ValueError(f"digits must be an int from 1 to 17, got {digits!r}")
    names = dict(names) if names is not None else {}

    if isinstance(root, Value):
        dot = value_graph(root, kind, show_data=show_data, show_grad=show_grad, rankdir=rankdir,
                          names=names, show_order=True if show_order is None else show_order,
                          digits=digits, title=title)
    elif _is_tensor(root):
        from minigrad.viz.tensor_graph import tensor_graph

        dot = tensor_graph(root, kind, show_data=show_data, show_grad=show_grad,
                           rankdir=rankdir, names=names, show_saved=show_saved,
                           show_order=bool(show_order), digits=digits, title=title)
    else:
        raise TypeError(f"draw_graph expects a minigrad Value or Tensor, got "
                        f"{type(root).__module__}.{type(root).__qualname__}")
    return Graph(dot.source, dot.node_count, dot.edge_count, max_nodes=max_nodes,
                 timeout=timeout)


def _is_tensor(root: Any) -> bool:
    try:
        from minigrad.tensor.tensor import Tensor
    except ImportError:  # the Tensor engine is not installed in this version
        return False
    return isinstance(root, Tensor)
