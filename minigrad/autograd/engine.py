"""The backward pass: walk the graph from the outputs back to the leaves.

Every node must receive the gradient from *all* of its consumers before it can pass its own
gradient on (fan-in adds up). `schedule` finds such an order without recursion, so graphs of
any depth work: count, for each node, the edges pointing into it, then run the nodes whose
count has dropped to zero.

`run_backward` follows the schedule. At a node it runs the tensor hooks, hands the node's
total gradient to a `visit` function, which decides what happens there, and, if asked to go
on, calls the op's `backward` and adds what it returns into the pending gradients of the
node's inputs.
- `backward()` (below) visits by storing: into `.grad` at leaves, and for retain_grad().
- `autograd.grad` (minigrad.autograd.gradients) visits by capturing the gradients of its
  inputs, and goes on only where a path leads to one of them.
The op's backward runs under `no_grad` unless `create_graph=True`, in which case the
backward pass itself is recorded (and can be differentiated again).

PyTorch's rules that are not the algorithm live one import away: who owns the memory stored
in `.grad` (minigrad.autograd.accumulate) and the checks, in PyTorch's words, of what user
code and ops hand to the engine (minigrad.autograd.checks).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Callable, Iterable, Sequence

from minigrad.autograd import checks
from minigrad.autograd.accumulate import LeafGradients, store_retained
from minigrad.autograd.function import AccumulateGrad, Node
from minigrad.autograd.grad_mode import set_grad_enabled
from minigrad.tensor.tensor import Tensor

NextNodes = Callable[[Node], Iterable[Node | None]]  # a node -> the nodes of its inputs


def _count_dependencies(roots: Iterable[Node], next_nodes: NextNodes) -> dict[Node, int]:
    """For each node reachable from the roots, the number of edges pointing into it."""
    dependencies: dict[Node, int] = {}
    stack = list(dict.fromkeys(roots))
    seen = set(stack)
    while stack:
        for child in next_nodes(stack.pop()):
            if child is None:
                continue
            dependencies[child] = dependencies.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return dependencies


def schedule(roots: Iterable[Node], next_nodes: NextNodes = attrgetter("_next")) -> list[Node]:
    """Every node reachable from `roots`, once each, and each only after all its consumers:
    the order backward runs them in.

    Count the edges into each node; keep a stack of the nodes no edge points into any more
    (`ready`): pop the last one pushed, append it to the order, then take its edges away,
    pushing an input whose count drops to zero (in argument order). `next_nodes(node)` gives
    a node's inputs' nodes (`node._next`; a drawing of a PyTorch graph reads `next_functions`).
    """
    dependencies = _count_dependencies(roots, next_nodes)
    ready = [node for node in dict.fromkeys(roots) if node not in dependencies]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for child in next_nodes(node):
            if child is not None:
                dependencies[child] -= 1
                if dependencies[child] == 0:
                    ready.append(child)
    return order


def run_backward(roots: Sequence[Node], gradients: Sequence[Tensor], retain_graph: bool,
                 create_graph: bool, visit: Callable[[Node, Tensor], bool],
                 order: list[Node] | None = None) -> None:
    """The engine: send `gradients` back from the `roots` through every node, once each.

    `visit(node, gradient)` receives a node's total gradient; it returns True to go on
    through the node's backward (see the module docstring). `order`: the roots' schedule,
    when the caller has it already.
    """
    pending: dict[Node, Tensor] = {}
    for root, gradient in zip(roots, gradients):
        pending[root] = gradient if root not in pending else pending[root] + gradient
    with set_grad_enabled(bool(create_graph)):
        for node in schedule(roots) if order is None else order:
            gradient = pending.pop(node, None)
            if gradient is None:
                continue
            if node._pre_hooks:
                gradient = _run_hooks(node, gradient)
            if not visit(node, gradient):
                continue
            input_grads = _call_backward(node, gradient, retain_graph)
            for index, child in enumerate(node._next):
                if child is not None and input_grads[index] is not None:
                    _send(pending, node, index, input_grads[index])


def _run_hooks(node: Node, gradient: Tensor) -> Tensor:
    """Tensor hooks, in registration order; each may return a replacement gradient."""
    for hook in tuple(node._pre_hooks.values()):
        replaced = hook(gradient)
        if replaced is not None:
            gradient = checks.hook_result(hook, replaced, gradient)
    return gradient


def _call_backward(node: Node, gradient: Tensor, retain_graph: bool) -> tuple:
    """The op's backward rule: one gradient (or None) per input; then free its saved values."""
    input_grads = node._function.backward(node, gradient)
    if not retain_graph:
        node._release()
    if type(input_grads) is not tuple or len(input_grads) != len(node._next):
        input_grads = checks.gradient_count(input_grads, node)
    return input_grads


def _send(pending: dict[Node, Tensor], node: Node, index: int, gradient: Any) -> None:
    """Add the gradient `node` sends to its input `index` into what that input's node has
    received so far (fan-in adds up). One not of the input's shape and dtype is checked first."""
    expected = node.inputs[index]
    if type(gradient) is not Tensor or gradient._data.shape != expected.shape \
            or gradient._data.dtype != expected.dtype:
        gradient = checks.input_gradient(gradient, node, index)
    child = node._next[index]
    earlier = pending.get(child)
    pending[child] = gradient if earlier is None else earlier + gradient


def node_of(tensor: Tensor) -> Node:
    """The node a tensor's gradient arrives at: its grad_fn, or a leaf's AccumulateGrad."""
    return tensor.grad_fn if tensor.grad_fn is not None else tensor._get_accumulator()


def as_tensor_list(values: Any) -> list[Any]:
    """One tensor (or None), or a sequence of them, as a list."""
    if isinstance(values, Tensor) or values is None:
        return [values]
    return list(values)


def backward(tensor: Tensor, gradient: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Iterable[Tensor] | None = None) -> None:
    """`tensor.backward(...)`: add d(tensor)/d(leaf) (times v) into every leaf's `.grad`.

    With `inputs`, only those tensors' `.grad` receive a gradient (as in PyTorch).
    """
    gradients = checks.root_gradients([tensor], [gradient])
    if retain_graph is None:
        retain_graph = create_graph
    leaves = LeafGradients(gradients, create_graph)
    if inputs is not None:
        from minigrad.autograd.gradients import capture

        inputs = as_tensor_list(inputs)
        if not all(tensor_input.requires_grad for tensor_input in inputs):
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        captured = capture([tensor], gradients, inputs, retain_graph, create_graph, leaves)
        for tensor_input in inputs:
            if node_of(tensor_input) in captured:
                leaves.accumulate(tensor_input, captured[node_of(tensor_input)])
        return

    def store(node: Node, node_gradient: Tensor) -> bool:
        if node._pre_hooks:
            leaves.hand_out(node_gradient)  # a hook saw it: user code may keep it
        if type(node) is AccumulateGrad:  # a leaf: add into .grad; nothing further back
            leaves.accumulate(node.variable, node_gradient)
            return False
        store_retained(node, node_gradient)
        return True

    run_backward([node_of(tensor)], gradients, retain_graph, create_graph, store)
