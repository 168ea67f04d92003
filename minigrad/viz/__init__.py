"""Drawing computation graphs for slides and notebooks.

    from minigrad.viz import draw_graph
    graph = draw_graph(loss, kind="backward")
    graph                      # in Jupyter: shown as SVG
    graph.save("figures/loss.png")

Modules: ``draw`` (the entry point), ``value_graph`` / ``tensor_graph`` (what is drawn),
``dot`` (writing DOT text), ``labels`` (numbers and summaries), ``style`` (colours and fonts),
``graph`` (the `Graph` result) and ``render`` (running Graphviz).
"""

from minigrad.viz.draw import draw_graph
from minigrad.viz.graph import Graph
from minigrad.viz.render import (GraphTooLargeError, RenderError, RendererNotFoundError,
                                 VizError, find_renderer)

__all__ = ["draw_graph", "Graph", "GraphTooLargeError", "RenderError", "RendererNotFoundError",
           "VizError", "find_renderer"]
