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
``steps`` (the entry points). ``group`` (from ``minigrad.autograd.groups``) names pieces of a
graph for ``collapse=True``; ``record`` keeps tensors for forward drawings; ``command`` is
``minigrad graph``.
"""

from minigrad.autograd.grad_mode import keep_inputs
from minigrad.autograd.groups import group
from minigrad.viz.draw import draw_graph
from minigrad.viz.graph import Graph
from minigrad.viz.steps import BackwardSteps, backward_steps, trace_backward
from minigrad.viz.render import (GraphTooLargeError, RenderError, RendererNotFoundError,
                                 VizError, find_renderer)

__all__ = ["draw_graph", "backward_steps", "trace_backward", "group", "record", "BackwardSteps",
           "Graph", "GraphTooLargeError", "RenderError", "RendererNotFoundError", "VizError",
           "find_renderer"]


def record() -> keep_inputs:
    """Keep every tensor of the computations run inside, so their forward graph can be drawn.

        with minigrad.viz.record():
            out = ((x + 2) * (x + 2) * 3).mean()
        draw_graph(out, kind="forward")

    Outside it, the graph keeps only what backward needs (as in PyTorch): enough for the
    backward graph, not for the forward graph, whose boxes are the tensors themselves.
    """
    return keep_inputs()
