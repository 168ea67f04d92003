"""`draw_graph`: one entry point for drawing the graph behind a `Value` or a `Tensor`."""

from __future__ import annotations

import warnings
from typing import Any, Iterable, Mapping

from minigrad.scalar.value import Value
from minigrad.viz import render
from minigrad.viz.graph import DEFAULT_MAX_NODES, Graph
from minigrad.viz.style import DEFAULT_FONT_SIZE, Style
from minigrad.viz.value_graph import value_graph

KINDS = ("forward", "backward")
RANKDIRS = ("LR", "RL", "TB", "BT")
READABLE_NODES = 60  # more boxes than this do not read on a slide


def draw_graph(root: Any, kind: str = "forward", show_data: bool = True, show_grad: bool = True,
               rankdir: str = "LR", *,
               names: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
               show_saved: bool = False, show_order: bool | None = None, digits: int = 4,
               title: str | None = None, max_nodes: int = DEFAULT_MAX_NODES,
               timeout: float = render.DEFAULT_TIMEOUT, theme: str = "light",
               font_size: float = DEFAULT_FONT_SIZE, collapse: bool = False) -> Graph:
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
        theme: ``"light"`` or ``"dark"`` (for dark slides).
        font_size: text size in points (14 reads well on a projector).
        collapse: Tensor backward graphs: draw each recorded group (one ``nn.Module`` call, or
            any :func:`minigrad.viz.group`) as a single box.

    A drawing of more than :data:`READABLE_NODES` nodes warns (``UserWarning``): past that, a
    slide is unreadable; ``collapse=True`` or a smaller part of the graph helps.

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
    names = _names(names)
    style = Style.of(theme, font_size)
    if collapse and (kind != "backward" or not _is_tensor(root)):
        raise ValueError("collapse=True folds groups of a Tensor backward graph (one box per "
                         "nn.Module call or mg.viz.group); use kind='backward' with a Tensor root")

    if isinstance(root, Value):
        dot = value_graph(root, kind, show_data=show_data, show_grad=show_grad, rankdir=rankdir,
                          names=names, show_order=True if show_order is None else show_order,
                          digits=digits, title=title, style=style)
    elif _is_tensor(root):
        from minigrad.viz.tensor_graph import tensor_graph

        dot = tensor_graph(root, kind, show_data=show_data, show_grad=show_grad,
                           rankdir=rankdir, names=names, show_saved=show_saved,
                           show_order=bool(show_order), digits=digits, title=title,
                           style=style, collapse=collapse)
    else:
        raise TypeError(f"draw_graph expects a minigrad Value or Tensor, got "
                        f"{type(root).__module__}.{type(root).__qualname__}")
    if dot.node_count > READABLE_NODES:
        hint = ("collapse=True (minigrad graph --collapse) folds each layer call into one box"
                if _is_tensor(root) and not collapse else "draw a smaller part of the graph")
        warnings.warn(f"this drawing has {dot.node_count} nodes; past about {READABLE_NODES} "
                      f"a slide is hard to read: {hint}", UserWarning, stacklevel=2)
    return Graph(dot.source, dot.node_count, dot.edge_count, max_nodes=max_nodes,
                 timeout=timeout)


def _is_tensor(root: Any) -> bool:
    try:
        from minigrad.tensor.tensor import Tensor
    except ImportError:  # the Tensor engine is not installed in this version
        return False
    return isinstance(root, Tensor)


def _names(names: Any) -> dict[str, Any]:
    """`names=` as a dict of label → Value/Tensor (a mapping or (label, value) pairs)."""
    if names is None:
        return {}
    try:
        pairs = dict(names)
    except (TypeError, ValueError):
        raise TypeError(f"names must map labels to the Values or Tensors they name, e.g. "
                        f"dict(model.named_parameters()); got {type(names).__name__}") from None
    for label in pairs:
        if not isinstance(label, str):
            raise TypeError(f"names must map labels (strings) to Values or Tensors; got the "
                            f"label {label!r}")
    return pairs
