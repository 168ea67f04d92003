"""Drawing computation graphs for slides and notebooks.

    from minigrad.viz import draw_graph, backward_steps, trace_backward
    graph = draw_graph(loss, kind="backward")
    graph                      # in Jupyter: shown as SVG
    graph.save("figures/loss.png")
    backward_steps(loss)       # in Jupyter: step through backward (prev / next / play)
    trace_backward(loss)       # print every local derivative and product

Modules: ``draw`` (the entry point), ``value_graph`` / ``tensor_graph`` (what is drawn),
``dot`` (writing DOT text), ``labels`` (numbers and summaries), ``style`` (colours and fonts),
``graph`` (the `Graph` result) and ``render`` (running Graphviz), ``fonts`` (text that fits).
Backward, step by step: ``replay`` (the only module that knows the engines' order),
``frames`` (what each step changed), ``frame_drawing``, ``trace``, ``stepper`` (HTML) and
``steps`` (the entry points). ``group`` names pieces of a graph for ``collapse=True``;
``command`` is ``minigrad graph``.
"""

from minigrad.viz.draw import draw_graph
from minigrad.viz.graph import Graph
from minigrad.autograd.groups import group
from minigrad.viz.steps import BackwardSteps, backward_steps, trace_backward
from minigrad.viz.render import (GraphTooLargeError, RenderError, RendererNotFoundError,
                                 VizError, find_renderer)

__all__ = ["draw_graph", "backward_steps", "trace_backward", "group", "BackwardSteps", "Graph",
           "GraphTooLargeError", "RenderError", "RendererNotFoundError", "VizError",
           "find_renderer"]
