"""Replaying a backward pass, node by node, without touching the graph's own gradients.

This is the only module of ``minigrad.viz`` that knows how the engines walk a graph; the
stepper, the trace and the frames only read the :class:`Replay` it returns.

* ``Value`` graphs: ``Value.backward`` walks ``reversed(topological_order(root))`` and runs
  each non-leaf's rule ``rule(out, grad_output)``: one step per rule (:func:`value_rule_order`;
  a leaf gets its gradient in the step of the node that uses it). We call the same
  rule on stand-ins of the parents, so each edge's share is seen on its own (``x * x`` sends
  two shares to ``x``) and no real ``.grad`` changes.
* ``Tensor`` graphs: we ask the engine for its order (``minigrad.autograd.engine.schedule``,
  read through ``next_functions``), call each node's backward with the gradient that
  arrived, and sum the results into the nodes further back. An ``AccumulateGrad`` node is
  where a leaf's gradient arrives (its ``.variable`` is the leaf). Tensor hooks are not run.

Used only: the engine's ``schedule``, ``grad_fn``, ``node.name()``, ``node.next_functions``,
``AccumulateGrad.variable``, the node's backward (:func:`_call_node_backward`); for Values:
``parents``, ``op``, the rule.
Every replay starts from zero gradients: what one ``backward()`` on a fresh graph computes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from minigrad.autograd.engine import schedule
from minigrad.scalar.value import Value, topological_order

FREED_GRAPH_HINT = (
    "the graph's saved values were freed by an earlier backward(). Replay the backward pass "
    "before calling loss.backward(), or call loss.backward(retain_graph=True) first."
)


@dataclass
class ReplayNode:
    """One node of the replayed graph.

    ``kind``: ``"value"`` (a Value with a rule), ``"leaf"`` (a Value or a tensor leaf, where
    gradient stops) or ``"function"`` (a Tensor ``grad_fn`` node). ``parents`` are indices of
    the nodes gradient is sent to (``None`` for an input that needs no gradient).
    """

    index: int
    kind: str
    label: str
    parents: list[int | None]
    data: Any = None          # the Value's number or the leaf tensor's array (None: unknown)
    shape: tuple[int, ...] | None = None
    op: str = ""              # "+", "*", "MulBackward0" …
    rule: str = ""            # the maths of the local derivatives, from the op's docstring
    source: Any = field(default=None, repr=False)  # the Value or the grad_fn node itself


@dataclass
class Send:
    """What one edge carried in one step: ``sent = local × grad_in`` (a Jacobian product for
    tensors, where ``local`` is ``None``)."""

    parent: int
    local: float | None
    sent: Any                 # float or ndarray


@dataclass
class Visit:
    """One step: the engine processes ``node`` with the gradient ``grad_in`` that arrived."""

    node: int
    grad_in: Any
    sends: list[Send]


@dataclass
class Replay:
    """Every node reachable from the root and the visits, in the engine's order."""

    nodes: list[ReplayNode]
    visits: list[Visit]
    is_tensor: bool
    root: int = 0


# ---------------------------------------------------------------------- Value graphs
class _Slot:
    """Stands in for a parent while a rule runs: the rule reads ``data`` and adds to ``grad``."""

    __slots__ = ("data", "grad")

    def __init__(self, data: float) -> None:
        self.data, self.grad = data, 0.0


class _Out:
    """Stands in for the node whose rule runs: its ``data`` and its ``parents`` (slots)."""

    __slots__ = ("data", "parents", "label", "op", "grad", "_exponent")

    def __init__(self, value: Value, parents: tuple[_Slot, ...]) -> None:
        self.data, self.parents = value.data, parents
        self.label, self.op, self.grad = value.label, value.op, value.grad
        self._exponent = value._exponent


def _value_shares(value: Value, grad_output: float) -> list[float]:
    """The share of ``grad_output`` the rule of ``value`` sends along each parent edge."""
    slots = tuple(_Slot(parent.data) for parent in value.parents)
    value._backward(_Out(value, slots), grad_output)
    return [slot.grad for slot in slots]


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0].strip() if text and text.strip() else ""


def value_rule_order(root: Value) -> list[Value]:
    """The Values whose backward rule ``root.backward()`` runs, in the order it runs them:
    reverse topological order, leaves skipped (they have no rule). A leaf root has no rule
    either; it is its own single step (the seed, grad 1)."""
    order = [value for value in reversed(topological_order(root)) if value.parents]
    return order or [root]


def step_numbers(root: Any) -> dict[int, int]:
    """Step number (1, 2, …) of each node backward runs, keyed by ``id``: a ``Value`` with a
    rule, or a Tensor graph's ``grad_fn`` node (``AccumulateGrad`` included: the engine runs
    it to write the leaf's ``.grad``). The drawing, the trace and the stepper all number their
    steps with this one function, so step 4 is the same node in all three."""
    if isinstance(root, Value):
        nodes = value_rule_order(root)
    elif getattr(root, "grad_fn", None) is not None:
        nodes = engine_order(root.grad_fn)
    else:
        return {}
    return {id(node): number for number, node in enumerate(nodes, start=1)}


def replay_value(root: Value, names: Mapping[str, Any] | None = None) -> Replay:
    """Replay ``root.backward()`` on a scalar graph (see the module docstring).

    ``names``: ``{"name": value}``, shown instead of the Value's ``label``.
    """
    order = list(reversed(topological_order(root)))
    index = {id(value): position for position, value in enumerate(order)}
    names_by_id = {id(value): name for name, value in (names or {}).items()}
    nodes = []
    for position, value in enumerate(order):
        rule = getattr(value, "_backward", None)
        nodes.append(ReplayNode(
            position, "leaf" if rule is None else "value",
            names_by_id.get(id(value), value.label),
            [index[id(parent)] for parent in value.parents] if rule is not None else [],
            data=value.data, op=value.op,
            rule=_first_line(getattr(rule, "__doc__", "")), source=value))
    grads = [0.0] * len(order)
    grads[0] = 1.0  # d(root)/d(root)
    visits = []
    steps = step_numbers(root)
    for position, value in enumerate(order):
        node = nodes[position]
        if id(value) not in steps:  # a leaf: backward runs no rule here
            continue
        if node.kind == "leaf":  # a leaf root: its only step is the seed
            visits.append(Visit(position, grads[position], []))
            continue
        locals_ = _value_shares(value, 1.0)
        shares = _value_shares(value, grads[position])
        sends = []
        for parent, local, share in zip(node.parents, locals_, shares):
            sends.append(Send(parent, local, share))
            grads[parent] += share
        visits.append(Visit(position, grads[position], sends))
    return Replay(nodes, visits, is_tensor=False)


# ---------------------------------------------------------------------- Tensor graphs
def _children(node: Any) -> list[Any]:
    return [child for child, _ in node.next_functions]


def engine_order(root_node: Any) -> list[Any]:
    """The ``grad_fn`` nodes in the order the engine runs them: its own schedule, read through
    ``next_functions`` (so a PyTorch graph is ordered alike)."""
    return schedule([root_node], next_nodes=_children)


def _call_node_backward(node: Any, grad_output: Any) -> tuple:
    """Run one node's backward rule on ``grad_output`` (a Tensor) without recording a graph."""
    import minigrad as mg

    with mg.no_grad():
        try:
            if hasattr(node, "_function"):
                result = node._function.backward(node, grad_output)
            else:  # an engine that makes nodes callable, as PyTorch's are
                result = node(grad_output)
        except RuntimeError as error:
            if "retain_graph" in str(error):
                raise RuntimeError(f"cannot replay the backward pass: {FREED_GRAPH_HINT}") from None
            raise
    return result if isinstance(result, tuple) else (result,)


def _as_array(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    return np.array(value.numpy() if hasattr(value, "numpy") else value)


def _function_rule(node: Any) -> str:
    function = getattr(node, "_function", None)
    return _first_line(getattr(function, "__doc__", "")) if function is not None else ""


def replay_tensor(root: Any, gradient: Any = None,
                  names: Mapping[str, Any] | None = None) -> Replay:
    """Replay ``root.backward(gradient)`` on a Tensor graph (see the module docstring).

    ``names``: ``{"name": tensor}``, shown for a leaf or for the node that made the tensor.
    """
    import minigrad as mg

    names = dict(names or {})
    if not root.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                           "grad_fn: there is no backward pass to replay")
    if gradient is None:
        if int(np.prod(root.shape)) != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs; pass "
                               f"gradient=<tensor of shape {tuple(root.shape)}>")
        gradient = np.ones(root.shape, dtype=root.numpy().dtype)
    gradient = _as_array(gradient)
    root_node = root.grad_fn
    if root_node is None:  # a leaf: only its own AccumulateGrad
        label = next((name for name, tensor in names.items() if tensor is root), "")
        node = ReplayNode(0, "leaf", label, [], data=root.numpy(), shape=tuple(root.shape),
                          op="AccumulateGrad", source=root)
        return Replay([node], [Visit(0, gradient, [])], is_tensor=True)

    order = engine_order(root_node)
    index = {id(node): position for position, node in enumerate(order)}
    node_names = {id(tensor.grad_fn): name for name, tensor in names.items()
                  if getattr(tensor, "grad_fn", None) is not None}
    leaf_names = {id(tensor): name for name, tensor in names.items()}
    nodes = []
    for position, node in enumerate(order):
        variable = getattr(node, "variable", None)
        parents = [None if child is None else index[id(child)] for child in _children(node)]
        if variable is not None and node.name() == "AccumulateGrad":
            nodes.append(ReplayNode(position, "leaf", leaf_names.get(id(variable), ""), parents,
                                    data=variable.numpy(), shape=tuple(variable.shape),
                                    op="AccumulateGrad", source=node))
        else:
            nodes.append(ReplayNode(position, "function", node_names.get(id(node), ""), parents,
                                    op=node.name(), rule=_function_rule(node), source=node))
    pending: dict[int, np.ndarray] = {0: gradient}
    visits = []
    for position, node in enumerate(order):
        grad_in = pending.get(position)
        if nodes[position].kind == "leaf" or grad_in is None:
            visits.append(Visit(position, grad_in, []))
            continue
        dtype = grad_in.dtype
        results = _call_node_backward(node, mg.tensor(grad_in, dtype=dtype))
        sends = []
        for parent, result in zip(nodes[position].parents, results):
            if parent is None or result is None:
                continue
            share = _as_array(result)
            sends.append(Send(parent, None, share))
            pending[parent] = share if parent not in pending else pending[parent] + share
        visits.append(Visit(position, grad_in, sends))
    return Replay(nodes, visits, is_tensor=True)


def replay(root: Any, gradient: Any = None, names: Mapping[str, Any] | None = None) -> Replay:
    """Replay the backward pass from ``root`` (a ``Value`` or a ``Tensor``)."""
    if isinstance(root, Value):
        if gradient is not None:
            raise TypeError("a Value's backward starts from grad 1; gradient= is for Tensors")
        return replay_value(root, names)
    from minigrad.tensor.tensor import Tensor

    if isinstance(root, Tensor):
        return replay_tensor(root, gradient, names)
    raise TypeError(f"expected a minigrad Value or Tensor, got "
                    f"{type(root).__module__}.{type(root).__qualname__}")
