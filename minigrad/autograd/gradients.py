"""`autograd.grad`: the gradients of some inputs, returned instead of stored in `.grad`.

It runs the same engine as `backward()` (minigrad.autograd.engine.run_backward) with a
different visit: at an input's node it *captures* the gradient that arrived there, and it
goes on through a node only if some input can be reached from it (the rest of the graph is
pruned: found by reading the engine's schedule backwards, inputs before their consumers).
"""

from __future__ import annotations

from typing import Any, Sequence

from minigrad.autograd.accumulate import LeafGradients, store_retained
from minigrad.autograd.checks import root_gradients
from minigrad.autograd.engine import as_tensor_list, node_of, run_backward, schedule
from minigrad.autograd.function import AccumulateGrad, Node
from minigrad.tensor.tensor import Tensor


def _leading_to(targets: set[Node], order: list[Node]) -> set[Node]:
    """The nodes from which some target can be reached: the only ones autograd.grad must run.
    `order` is a schedule (each node before its inputs), read backwards: inputs first."""
    found: set[Node] = set()
    for node in reversed(order):
        for child in node._next:
            if child in targets or child in found:
                found.add(node)
                break
    return found


def capture(outputs: Sequence[Tensor], gradients: Sequence[Tensor], inputs: Sequence[Tensor],
            retain_graph: bool, create_graph: bool,
            leaves: LeafGradients | None = None) -> dict[Node, Tensor]:
    """Run backward only where it leads to `inputs`; the gradient arriving at each input's node
    (`leaves`: told of every gradient a hook saw, when backward(inputs=...) stores them)."""
    roots = [node_of(output) for output in outputs]
    targets = {node_of(tensor) for tensor in inputs}
    order = schedule(roots)
    needed = _leading_to(targets, order)
    captured: dict[Node, Tensor] = {}

    def visit(node: Node, gradient: Tensor) -> bool:
        if leaves is not None and node._pre_hooks:
            leaves.hand_out(gradient)
        if node in targets:
            captured[node] = gradient
        store_retained(node, gradient)
        return node in needed and type(node) is not AccumulateGrad

    run_backward(roots, gradients, retain_graph, create_graph, visit, order)
    return captured


def grad(outputs: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor],
         grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
         retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool = False) -> tuple[Tensor | None, ...]:
    """d(outputs)/d(inputs) (times grad_outputs) as a tuple, without touching any `.grad`.

    >>> dx, = grad(y, x)           # like y.backward(); x.grad — but returned, not stored
    """
    output_list = as_tensor_list(outputs)
    input_list = as_tensor_list(inputs)
    for index, tensor_input in enumerate(input_list):
        if not isinstance(tensor_input, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(tensor_input).__name__} (input {index})")
        if not tensor_input.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad "
                               f"(input {index}); autograd.grad can only differentiate with "
                               "respect to tensors that require grad")
    if grad_outputs is None:
        grad_list: list[Any] = [None] * len(output_list)
    else:
        grad_list = as_tensor_list(grad_outputs)
    gradients = root_gradients(output_list, grad_list)
    if retain_graph is None:
        retain_graph = create_graph
    captured = capture(output_list, gradients, input_list, retain_graph, create_graph)
    results = []
    for index, tensor_input in enumerate(input_list):
        result = captured.get(node_of(tensor_input))
        if result is None and not allow_unused:
            # Both wordings: the classic one and PyTorch 2.x's, which names the index.
            raise RuntimeError("One of the differentiated Tensors appears to not have been "
                               "used in the graph. Set allow_unused=True if this is the "
                               f"desired behavior. The differentiated Tensor at index {index} "
                               "appears to not have been used in the graph. Set "
                               "allow_unused=True if this is the desired behavior. (The "
                               "outputs do not depend on it; with allow_unused=True its "
                               "gradient is returned as None.)")
        if result is not None and not create_graph:
            result = result.detach() if result.requires_grad else result
        results.append(result)
    return tuple(results)
