"""Drawing computation graphs for slides and notebooks.

    from minigrad.viz import draw_graph
    graph = draw_graph(loss, kind="backward")
    graph                      # in Jupyter: shown as SVG
    graph.save("figures/loss.png")

Modules: ``draw`` (the entry point), ``value_graph`` / ``tensor_graph`` (what is drawn),
``dot`` (writing DOT text), ``labels`` (numbers and summaries), ``style`` (colours and fonts),
``graph`` (the `Graph` result) and ``render`` (running Graphviz).
"""

from minigrad.autograd.grad_mode import keep_inputs
from minigrad.viz.draw import draw_graph
from minigrad.viz.graph import Graph
from minigrad.viz.render import (GraphTooLargeError, RenderError, RendererNotFoundError,
                                 VizError, find_renderer)

__all__ = ["draw_graph", "record", "Graph", "GraphTooLargeError", "RenderError", "RendererNotFoundError",
           "VizError", "find_renderer"]


def record() -> keep_inputs:
    """Keep every tensor of the computations run inside, so their forward graph can be drawn.

        with minigrad.viz.record():
            out = ((x + 2) * (x + 2) * 3).mean()
        draw_graph(out, kind="forward")

    Outside it, the graph keeps only what backward needs (as in PyTorch): enough for the
    backward graph, not for the forward graph, whose boxes are the tensors themselves.
    """
    return keep_inputs()
