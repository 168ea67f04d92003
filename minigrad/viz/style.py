"""Colours, fonts and captions shared by every drawing, so Value and Tensor graphs match.

Colours follow torchviz, which many lecturers know: leaves light blue, the root (the output,
usually the loss) light green, operations grey.

The font is DejaVu Sans: Graphviz sizes each box from the font's metrics, but the viewer
(a browser, Jupyter) draws the SVG text with whatever font it has under that name. DejaVu Sans
is the usual Linux font and wider than Helvetica or Arial, so boxes measured with it (both a
system `dot` and graphviz-pure know its metrics) still fit where a viewer substitutes a
narrower face; boxes measured with Helvetica overflowed wherever DejaVu Sans was substituted.
"""

from __future__ import annotations

from minigrad.viz.dot import DotGraph

FONT = "DejaVu Sans"  # the widest common sans face: see the module docstring
LEAF_FILL = "#cfe8ff"
ROOT_FILL = "#d4f5b0"
FUNCTION_FILL = "#e4e4e4"
SAVED_FILL = "#ffd9a8"

BACKWARD_CAPTION = (
    "backward: the numbered rules run in order, 1 = the root's rule (reverse topological order)\n"
    "arrows: the gradient flowing from the root back to the inputs"
)


def base_graph(rankdir: str, *, title: str | None = None, caption: str | None = None) -> DotGraph:
    """An empty DOT graph with our fonts; ``title`` on top, ``caption`` underneath."""
    graph_attrs = {"fontname": FONT, "fontsize": "12", "nodesep": "0.25", "ranksep": "0.35"}
    lines = tuple("\n".join(part for part in (title, caption) if part).splitlines())
    if lines:
        graph_attrs.update(labelloc="t" if title else "b", labeljust="l")
    return DotGraph(rankdir=rankdir, graph_attrs=graph_attrs, caption=lines,
                    node_attrs={"fontname": FONT, "fontsize": "12", "height": "0.3"},
                    edge_attrs={"fontname": FONT, "fontsize": "10", "arrowsize": "0.7"})


def op_style(label: str) -> dict[str, str]:
    """A small circle for a symbol (``*``, ``+``, ``@``), an ellipse for a word (``tanh``)."""
    longest_line = max(len(line) for line in label.split("\n"))
    shape = "circle" if longest_line <= 2 else "ellipse"
    return {"shape": shape, "fontsize": "11", "margin": "0.02", "width": "0.3", "height": "0.3"}


def value_style(role: str) -> dict[str, str]:
    """Node attributes for a Value or Tensor box: ``role`` is "leaf", "inner" or "root"."""
    if role == "leaf":
        return {"style": "filled", "fillcolor": LEAF_FILL}
    if role == "root":
        return {"style": "filled", "fillcolor": ROOT_FILL, "penwidth": "1.6"}
    return {}
