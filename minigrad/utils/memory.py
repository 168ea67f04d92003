"""How much memory a graph keeps alive for backward.

Every node of the backward graph holds the arrays its backward rule needs (a Linear node its
input, a ReLU node its output, …) until backward has used them. `saved_bytes(loss)` adds up
those arrays — each counted once, parameters left out — which is the "activation memory" that
grows with depth and batch size.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.engine import schedule
from minigrad.autograd.function import AccumulateGrad, Node
from minigrad.tensor import Tensor


def _nodes(root: Tensor) -> list[Node]:
    """Every node reachable from root.grad_fn (the engine's schedule: iterative, so graphs can
    be deep)."""
    return [] if root.grad_fn is None else schedule([root.grad_fn])


def saved_bytes(root: Tensor) -> int:
    """Bytes of the arrays saved for backward in the graph of `root`, parameters excluded.

    Arrays shared by several nodes (a ReLU output that the next Linear saves as its input)
    count once. After backward (without retain_graph) the saved arrays are freed: 0.
    """
    nodes = _nodes(root)
    parameters = {id(np.asarray(node.variable)) for node in nodes
                  if isinstance(node, AccumulateGrad)}
    counted: dict[int, int] = {}
    for node in nodes:
        for array in node.saved_arrays().values():
            base = array if array.base is None else array.base  # views share their base
            if id(base) not in parameters and id(array) not in parameters:
                counted[id(base)] = base.nbytes
    return sum(counted.values())
