"""The backward pass: walk the graph from the output back to the leaves.

Every node must receive the gradient from *all* of its consumers before it can pass its
own gradient on (fan-in adds up). So `run_backward` first counts, for each node, how many
edges point into it (`dependencies`), then runs nodes whose count has dropped to zero. This
is a topological order found without recursion, so graphs of any depth work.

At a node, `run_backward` runs the tensor hooks, hands the node's total gradient to a
`visit` function, which decides what happens there, and, if asked to go on, calls the op's
`backward` and adds what it returns into the pending gradients of the node's inputs.
- `backward()` (below) visits by storing: into `.grad` at leaves, and for retain_grad().
- `autograd.grad` (minigrad.autograd.gradients) visits by capturing the gradients of its
  inputs, and goes on only where a path leads to one of them.
The op's backward runs under `no_grad` unless `create_graph=True`, in which case the
backward pass itself is recorded (and can be differentiated again).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from minigrad.autograd.function import AccumulateGrad, Node
from minigrad.autograd.grad_mode import set_grad_enabled
from minigrad.tensor.dtypes import type_name
from minigrad.tensor.tensor import Tensor

NextNodes = Callable[[Node], Iterable[Node | None]]  # a node -> the nodes of its inputs


def _as_tensor_list(values: Any) -> list[Any]:
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
            ones = np.array(1, dtype=output._data.dtype)  # (np.ones is a slower Python function)
            gradient = Tensor._make(ones.reshape(output._data.shape), False, None)
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


def schedule(roots: Iterable[Node], next_nodes: NextNodes = attrgetter("_next")) -> Iterator[Node]:
    """Every node reachable from `roots`, once each, and each only after all its consumers:
    the order backward runs them in.

    Count the edges into each node; keep a stack of the nodes no edge points into any more
    (`ready`): pop the last one pushed, yield it, then take its edges away, pushing an input
    whose count drops to zero (in argument order). `next_nodes(node)` gives a node's inputs'
    nodes (`node._next`; a drawing of a PyTorch graph reads `next_functions`).
    """
    dependencies = _count_dependencies(roots, next_nodes)
    ready = [node for node in dict.fromkeys(roots) if node not in dependencies]
    while ready:
        node = ready.pop()
        yield node  # the caller sends the node's gradient on before its inputs count down
        for child in next_nodes(node):
            if child is not None:
                dependencies[child] -= 1
                if dependencies[child] == 0:
                    ready.append(child)


def _owner_id(array: np.ndarray) -> int:
    """Which memory an array shows: its own, or that of the array it is a view of."""
    return id(array if array.base is None else array.base)


def _owned(gradient: Tensor, handed_out: set[int]) -> Tensor:
    """A gradient safe to store in `.grad`: its memory shared with nothing user code may hold
    (`handed_out`: the gradients the user passed in, those a hook saw or returned, every
    `.grad` stored so far) and no broadcast (read-only) array. A row-major view of all of a
    fresh array (what a transpose of a transposed matmul result is) needs no copy."""
    array = gradient._data
    owner = array if array.base is None else array.base
    whole_view = array.base is None or (type(owner) is np.ndarray and owner.size == array.size
                                        and array.flags.c_contiguous)
    if not whole_view or not array.flags.writeable or id(owner) in handed_out:
        gradient = Tensor._make(array.copy(), False, None)
        owner = gradient._data
    handed_out.add(id(owner))
    return gradient


def _accumulate(tensor: Tensor, gradient: Tensor, create_graph: bool,
                handed_out: set[int]) -> None:
    """leaf.grad += gradient (the first time: leaf.grad = gradient), as PyTorch's AccumulateGrad.

    The first gradient is stored as it is only when nobody else can hold it (see `_owned`;
    PyTorch counts the references); with create_graph it is always a recorded copy
    (PyTorch's `empty_like(grad).copy_(grad)`: CopyBackwards). Later gradients are added
    into the existing `.grad` in place, so older references to it see the sum; with
    create_graph the sum is a new, recorded tensor.
    """
    grad = tensor._grad
    if grad is None:
        if create_graph and gradient.requires_grad:
            tensor._grad = Tensor._make(np.empty_like(gradient._data), False, None).copy_(gradient)
        else:
            tensor._grad = _owned(gradient, handed_out)
    elif create_graph or grad._data.base is not None or not grad._data.flags.writeable:
        tensor._grad = grad + gradient
    else:
        np.add(grad._data, gradient._data, out=grad._data)
        grad._version_counter[0] += 1


def _retain(tensor: Tensor, gradient: Tensor) -> None:
    """A retain_grad() tensor's .grad, as PyTorch keeps it: a copy of the first gradient (a
    recorded clone under create_graph), then `grad + gradient`, a new tensor each time, so
    neither what autograd.grad returned nor an earlier .grad ever changes."""
    if tensor._grad is None:
        tensor._grad = gradient.clone()
    else:
        tensor._grad = tensor._grad + gradient


def _checked(gradient: Any, expected: Any, node: Node, index: int) -> Tensor:
    """The gradient for input `index`, checked against that input's shape and dtype (called
    when they differ from the input's, or when it is not a Tensor)."""
    if not isinstance(gradient, Tensor):
        gradient = Tensor._make(np.asarray(gradient), False, None)
    if gradient._data.shape != expected.shape:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {index} - got "
            f"{list(gradient.shape)} but expected shape compatible with {list(expected.shape)}")
    if gradient._data.dtype != expected.dtype:
        gradient = gradient.to(expected.dtype) if gradient.requires_grad else \
            Tensor._make(gradient._data.astype(expected.dtype), False, None)
    return gradient


def _run_hooks(node: Node, gradient: Tensor) -> Tensor:
    """Tensor hooks, in registration order; each may return a replacement gradient."""
    for hook in tuple(node._pre_hooks.values()):
        replaced = hook(gradient)
        if replaced is None:
            continue
        name = getattr(hook, "__name__", hook)
        if not isinstance(replaced, Tensor):
            kind = type(replaced)
            qualified = kind.__name__ if kind.__module__ == "builtins" else \
                f"{kind.__module__}.{kind.__name__}"
            raise TypeError(f"expected Variable, but hook returned '{qualified}' (hook "
                            f"{name!r} must return None or a Tensor shaped like its gradient)")
        if replaced.shape != gradient.shape:
            raise RuntimeError(f"hook {name!r} has changed the size of value: it returned "
                               f"{replaced.shape} for a gradient of shape {gradient.shape}; a "
                               "hook must return None or a Tensor of the same shape")
        if replaced.dtype != gradient.dtype:
            raise RuntimeError(f"hook {name!r} has changed the type of value (was "
                               f"{type_name(gradient.dtype)} got {type_name(replaced.dtype)})")
        gradient = replaced
    return gradient


def _call_backward(node: Node, gradient: Tensor, retain_graph: bool) -> tuple:
    """The op's backward rule: one gradient (or None) per input; then free its saved values."""
    input_grads = node._function.backward(node, gradient)
    if not retain_graph:
        node._release()
    if type(input_grads) is not tuple:
        input_grads = (input_grads,)
    if len(input_grads) != len(node._next):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(node._next)}, got {len(input_grads)})")
    return input_grads


def run_backward(roots: Sequence[Node], gradients: Sequence[Tensor], retain_graph: bool,
                 create_graph: bool, visit: Callable[[Node, Tensor], bool],
                 handed_out: set[int] | None = None) -> None:
    """The engine: send `gradients` back from the `roots` through every node, once each.

    `visit(node, gradient)` receives a node's total gradient; it returns True to go on
    through the node's backward (see the module docstring). The memory of every gradient a
    hook saw or returned is added to `handed_out` (a leaf's .grad must not share it).
    """
    pending: dict[Node, Tensor] = {}
    for node, gradient in zip(roots, gradients):
        _add(pending, node, gradient)
    with set_grad_enabled(create_graph):
        for node in schedule(roots):
            gradient = pending.pop(node, None)
            if gradient is None:
                continue
            if node._pre_hooks:
                gradient = _run_hooks(node, gradient)
                if handed_out is not None:
                    handed_out.add(_owner_id(gradient._data))
            if not visit(node, gradient):
                continue
            input_grads = _call_backward(node, gradient, retain_graph)
            for index, child in enumerate(node._next):
                child_grad = input_grads[index]
                if child is None or child_grad is None:
                    continue
                expected = node.inputs[index]
                if type(child_grad) is not Tensor or child_grad._data.shape != expected.shape \
                        or child_grad._data.dtype != expected.dtype:
                    child_grad = _checked(child_grad, expected, node, index)
                _add(pending, child, child_grad)


def _add(pending: dict[Node, Tensor], node: Node, gradient: Tensor) -> None:
    """Fan-in: the gradients a node receives from its consumers add up."""
    earlier = pending.get(node)
    pending[node] = gradient if earlier is None else earlier + gradient


def store_retained(node: Node, gradient: Tensor) -> None:
    """If `node` made a tensor marked retain_grad(), add `gradient` into that tensor's .grad
    (in backward() and in autograd.grad alike, as PyTorch does)."""
    if node._retained is not None:
        retained = node._retained()
        if retained is not None and retained.grad_fn is node:
            _retain(retained, gradient)


def backward(tensor: Tensor, gradient: Any = None, retain_graph: bool | None = None,
             create_graph: bool = False, inputs: Iterable[Tensor] | None = None) -> None:
    """`tensor.backward(...)`: add d(tensor)/d(leaf) (times v) into every leaf's `.grad`.

    With `inputs`, only those tensors' `.grad` receive a gradient (as in PyTorch).
    """
    gradients = _root_gradients([tensor], [gradient])
    if retain_graph is None:
        retain_graph = create_graph
    handed_out = {_owner_id(root._data) for root in gradients}
    if inputs is not None:
        from minigrad.autograd.gradients import capture

        inputs = _as_tensor_list(inputs)
        captured = capture([tensor], gradients, inputs, retain_graph, create_graph, handed_out)
        for tensor_input in inputs:
            if _node_of(tensor_input) in captured:
                _accumulate(tensor_input, captured[_node_of(tensor_input)], create_graph,
                            handed_out)
        return

    def store(node: Node, node_gradient: Tensor) -> bool:
        if type(node) is AccumulateGrad:  # a leaf: add into .grad; nothing further back
            _accumulate(node.variable, node_gradient, create_graph, handed_out)
            return False
        store_retained(node, node_gradient)
        return True

    run_backward([_node_of(tensor)], gradients, retain_graph, create_graph, store, handed_out)
