"""The backward pass: walk the graph from the output back to the leaves.

Every node must receive the gradient from *all* of its consumers before it can pass its
own gradient on (fan-in adds up). So the engine first counts, for each node, how many edges
point into it (`dependencies`), then runs nodes whose count has dropped to zero. This is a
topological order found without recursion, so graphs of any depth work.

At a node the engine: runs the tensor hooks (they may replace the gradient), stores the
gradient of a `retain_grad()` tensor, calls the op's `backward` (under `no_grad` unless
`create_graph=True`, in which case the backward itself is recorded), checks the shapes it
returns, adds them into the inputs' pending gradients, and frees the node's saved values
unless `retain_graph=True`. At an `AccumulateGrad` node the gradient is added into the leaf's
`.grad`.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from minigrad.autograd.function import AccumulateGrad, Node
from minigrad.autograd.grad_mode import GradMode
from minigrad.tensor.dtypes import type_name
from minigrad.tensor.tensor import Tensor


def _as_tensor_list(values: Any, what: str) -> list[Any]:
    if isinstance(values, Tensor) or values is None:
        return [values]
    return list(values)


def _root_gradients(outputs: list[Tensor], gradients: list[Any]) -> list[Tensor]:
    """The vector v for each output: given by the user, or 1 for a one-element output."""
    if len(gradients) != len(outputs):
        raise RuntimeError(f"got {len(gradients)} gradients for {len(outputs)} outputs; "
                           "pass one gradient per output tensor")
    roots = []
    for index, (output, gradient) in enumerate(zip(outputs, gradients)):
        if not isinstance(output, Tensor):
            raise TypeError(f"outputs must be Tensors, got {type(output).__name__}")
        if not output.requires_grad:
            raise RuntimeError(f"element {index} of tensors does not require grad and does not "
                               "have a grad_fn")
        if gradient is None:
            if output._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs "
                                   f"(this output has shape {output.shape}; pass "
                                   "gradient=<tensor of that shape>, the vector v of v^T J)")
            gradient = Tensor._make(np.ones(output._data.shape, output._data.dtype), False, None)
        elif not isinstance(gradient, Tensor):
            gradient = Tensor(np.asarray(gradient), dtype=output.dtype)
        if gradient.shape != output.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{index}] has a shape of "
                               f"{gradient.shape} and output[{index}] has a shape of "
                               f"{output.shape}. The gradient must have the output's shape.")
        if gradient.dtype != output.dtype:
            gradient = Tensor._make(gradient._data.astype(output.dtype), False, None)
        roots.append(gradient)
    return roots


def _node_of(tensor: Tensor) -> Node:
    return tensor.grad_fn if tensor.grad_fn is not None else tensor._get_accumulator()


def _count_dependencies(roots: Iterable[Node], want_consumers: bool
                        ) -> tuple[dict[Node, int], dict[Node, list[Node]]]:
    """For each reachable node, the number of edges into it (and, if asked, its consumers)."""
    dependencies: dict[Node, int] = {}
    consumers: dict[Node, list[Node]] = {}
    stack = list(dict.fromkeys(roots))
    seen = set(stack)
    while stack:
        node = stack.pop()
        for child in node._next:
            if child is None:
                continue
            if child in dependencies:
                dependencies[child] += 1
            else:
                dependencies[child] = 1
            if want_consumers:
                consumers.setdefault(child, []).append(node)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return dependencies, consumers


def _ancestors(targets: Iterable[Node], consumers: dict[Node, list[Node]]) -> set[Node]:
    """Nodes from which some target is reachable: the only ones autograd.grad must run."""
    found: set[Node] = set()
    stack = list(targets)
    while stack:
        for consumer in consumers.get(stack.pop(), ()):
            if consumer not in found:
                found.add(consumer)
                stack.append(consumer)
    return found


def _owned(gradient: Tensor, handed_out: set[int]) -> Tensor:
    """A gradient safe to store in `.grad`: not a view, not shared with another `.grad`."""
    array = gradient._data
    if array.base is not None or not array.flags.writeable or id(array) in handed_out:
        gradient = Tensor._make(array.copy(), False, None)
    handed_out.add(id(gradient._data))
    return gradient


def _accumulate(tensor: Tensor, gradient: Tensor, create_graph: bool, handed_out: set[int]) -> None:
    """tensor.grad += gradient (the first time: tensor.grad = gradient), as PyTorch does it.

    Without create_graph the sum is written into the existing `.grad` in place, so older
    references to it see the sum (also when that `.grad` carries a graph from an earlier
    create_graph=True backward); with create_graph the sum is a new, recorded tensor.
    """
    grad = tensor._grad
    if grad is None:
        # With create_graph the gradient may be part of a graph: store it as it is.
        tensor._grad = gradient if gradient.requires_grad else _owned(gradient, handed_out)
    elif create_graph or grad._data.base is not None or not grad._data.flags.writeable:
        tensor._grad = grad + gradient
    else:
        np.add(grad._data, gradient._data, out=grad._data)
        grad._version_counter[0] += 1


def _checked(gradient: Any, node: Node, index: int) -> Tensor:
    """The gradient for input `index`, checked against that input's shape and dtype."""
    if not isinstance(gradient, Tensor):
        gradient = Tensor._make(np.asarray(gradient), False, None)
    expected = node.inputs[index]
    if gradient._data.shape != expected._data.shape:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index} - got "
            f"{list(gradient.shape)} but expected shape compatible with {list(expected.shape)}")
    if gradient._data.dtype != expected._data.dtype:
        gradient = gradient.to(expected._data.dtype) if gradient.requires_grad else \
            Tensor._make(gradient._data.astype(expected._data.dtype), False, None)
    return gradient


def _run_hooks(node: Node, gradient: Tensor) -> Tensor:
    """Tensor hooks, in registration order; each may return a replacement gradient."""
    for hook in tuple(node._pre_hooks.values()):
        replaced = hook(gradient)
        if replaced is None:
            continue
        name = getattr(hook, "__name__", hook)
        if not isinstance(replaced, Tensor) or replaced.shape != gradient.shape:
            shape = getattr(replaced, "shape", type(replaced).__name__)
            raise RuntimeError(f"hook {name!r} has changed the size of value: it returned "
                               f"{shape} for a gradient of shape {gradient.shape}; a hook must "
                               "return None or a Tensor of the same shape")
        if replaced.dtype != gradient.dtype:
            raise RuntimeError(f"hook {name!r} has changed the type of value (was "
                               f"{type_name(gradient.dtype)} got {type_name(replaced.dtype)})")
        gradient = replaced
    return gradient


def _retain(node: Node, gradient: Tensor, create_graph: bool, handed_out: set[int]) -> None:
    """Store the gradient of a retain_grad() tensor whose node this is."""
    retained = node._retained()
    if retained is not None and retained.grad_fn is node:
        _accumulate(retained, gradient, create_graph, handed_out)


def _wrong_count(node: Node, input_grads: tuple) -> RuntimeError:
    return RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                        f"(expected {len(node._next)}, got {len(input_grads)})")


def run_backward(outputs: Sequence[Tensor], gradients: Sequence[Tensor], retain_graph: bool,
                 create_graph: bool, inputs: Sequence[Tensor] | None = None,
                 accumulate: bool = True) -> dict[Node, Tensor]:
    """The engine. With `inputs`, returns the gradients arriving at their nodes instead of
    running the whole graph (that is `autograd.grad`); otherwise fills `.grad` of leaves."""
    root_nodes = [_node_of(output) for output in outputs]
    dependencies, consumers = _count_dependencies(root_nodes, inputs is not None)
    capture: set[Node] | None = None
    needed: set[Node] | None = None
    if inputs is not None:
        capture = {_node_of(tensor) for tensor in inputs}
        needed = _ancestors(capture, consumers)
    pending: dict[Node, Tensor] = {}
    for node, gradient in zip(root_nodes, gradients):
        pending[node] = pending[node] + gradient if node in pending else gradient
    ready = [node for node in dict.fromkeys(root_nodes) if node not in dependencies]
    captured: dict[Node, Tensor] = {}
    handed_out: set[int] = {id(gradient._data) for gradient in gradients}

    previous_mode = GradMode.enabled
    GradMode.enabled = create_graph
    try:
        while ready:
            node = ready.pop()
            gradient = pending.pop(node, None)
            input_grads = None
            if gradient is not None:
                if node._pre_hooks:
                    gradient = _run_hooks(node, gradient)
                if capture is not None and node in capture:
                    captured[node] = gradient
                elif type(node) is AccumulateGrad:
                    if accumulate:
                        _accumulate(node.variable, gradient, create_graph, handed_out)
                    continue  # a leaf: nothing further back
                elif node._retained is not None and accumulate:
                    _retain(node, gradient, create_graph, handed_out)
                if type(node) is not AccumulateGrad and (needed is None or node in needed):
                    # The op's backward rule, then free its saved values (unless retained).
                    input_grads = node._function.backward(node, gradient)
                    if not retain_graph:
                        node._release()
                    if type(input_grads) is not tuple:
                        input_grads = (input_grads,)
                    if len(input_grads) != len(node._next):
                        raise _wrong_count(node, input_grads)
            inputs = node.inputs
            for index, child in enumerate(node._next):
                if child is None:
                    continue
                if input_grads is not None:
                    child_grad = input_grads[index]
                    if child_grad is not None and (needed is None or child in needed
                                                   or child in capture):
                        expected = inputs[index]._data
                        if type(child_grad) is not Tensor or \
                                child_grad._data.shape != expected.shape or \
                                child_grad._data.dtype != expected.dtype:
                            child_grad = _checked(child_grad, node, index)
                        earlier = pending.get(child)
                        pending[child] = child_grad if earlier is None else earlier + child_grad
                remaining = dependencies[child] - 1
                dependencies[child] = remaining
                if remaining == 0:
                    ready.append(child)
    finally:
        GradMode.enabled = previous_mode
    return captured


def backward(tensor: Tensor, gradient: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Iterable[Tensor] | None = None) -> None:
    """`tensor.backward(...)`: add d(tensor)/d(leaf) (times v) into every leaf's `.grad`."""
    gradients = _root_gradients([tensor], [gradient])
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is None:
        run_backward([tensor], gradients, retain_graph, create_graph)
        return
    inputs = _as_tensor_list(inputs, "inputs")
    captured = run_backward([tensor], gradients, retain_graph, create_graph, inputs=inputs)
    handed_out: set[int] = set()
    for tensor_input in inputs:
        node = _node_of(tensor_input)
        if node in captured:
            _accumulate(tensor_input, captured[node], create_graph, handed_out)


def grad(outputs: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor],
         grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
         retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool = False) -> tuple[Tensor | None, ...]:
    """d(outputs)/d(inputs) (times grad_outputs) as a tuple, without touching any `.grad`.

    >>> dx, = grad(y, x)           # like y.backward(); x.grad — but returned, not stored
    """
    output_list = _as_tensor_list(outputs, "outputs")
    input_list = _as_tensor_list(inputs, "inputs")
    for index, tensor_input in enumerate(input_list):
        if not isinstance(tensor_input, Tensor) or not tensor_input.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad "
                               f"(input {index}); autograd.grad can only differentiate with "
                               "respect to tensors that require grad")
    if grad_outputs is None:
        grad_list: list[Any] = [None] * len(output_list)
    else:
        grad_list = _as_tensor_list(grad_outputs, "grad_outputs")
    gradients = _root_gradients(output_list, grad_list)
    if retain_graph is None:
        retain_graph = create_graph
    captured = run_backward(output_list, gradients, retain_graph, create_graph,
                            inputs=input_list, accumulate=False)
    results = []
    for index, tensor_input in enumerate(input_list):
        result = captured.get(_node_of(tensor_input))
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
