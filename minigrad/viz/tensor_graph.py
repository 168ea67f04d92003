"""Drawing a tensor graph, forward (tensors and ops) or backward (``grad_fn`` nodes).

Backward graph, as torchviz draws it: one grey box per node of the backward graph, labelled
by ``node.name()`` (``MulBackward0``); arrows follow ``next_functions``, the path gradient
takes from the output to the leaves. Each leaf that requires grad is reached through its
``AccumulateGrad`` node, with the leaf tensor (shape, name) drawn beside it; the output tensor
is the green box where the walk starts. ``show_saved=True`` adds, in orange, the arrays each
node keeps for backward (``node.saved_arrays()``): what the graph costs in memory.

Forward graph: one box per tensor (name and shape | data | grad), one small circle per op,
found through ``tensor.grad_fn.inputs``; Python numbers that entered an op are shown as
plain text, tensors that do not require grad with a dashed border. The inputs themselves
are kept only for computations run under ``minigrad.viz.record()``; otherwise a node keeps
just their shapes and dtypes, and the graph shows those, with the values of leaves and of
the root but "data not kept" for everything in between.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Mapping

import numpy as np

from minigrad.autograd.function import InputInfo
from minigrad.tensor.tensor import Tensor
from minigrad.viz.dot import DotGraph, Record
from minigrad.autograd.groups import group_members
from minigrad.viz.replay import engine_order, step_numbers
from minigrad.viz.labels import format_number, format_shape, summarize_array
from minigrad.viz.style import (Style, base_graph, function_style, op_style, saved_style,
                                value_style)

TENSOR_BACKWARD_CAPTION = (
    "backward: nodes numbered in the order the engine runs them, 1 = the output's node;\n"
    "arrows follow next_functions, from the output to the leaves"
)

# Forward-graph symbols for the ops that have one; every other op is named in snake_case.
OP_SYMBOLS = {"Add": "+", "Sub": "-", "Rsub": "-", "Mul": "*", "Div": "/", "Pow": "**",
              "Neg": "neg", "Mm": "@", "Mv": "@", "Dot": "@", "Bmm": "@", "Matmul": "@",
              "MatMul": "@", "Convolution": "conv2d", "MaxPool2DWithIndices": "max_pool2d",
              "AvgPool2D": "avg_pool2d", "CrossEntropyLoss": "cross_entropy",
              "MaxPool2DWithIndicesBackward": "max_pool2d_backward",
              "AvgPool2DBackward": "avg_pool2d_backward"}


def op_symbol(node_name: str) -> str:
    """The forward label of a node: ``MulBackward0`` → ``*``, ``ExpBackward0`` → ``exp``."""
    base = re.sub(r"Backward\d*$", "", node_name)
    if base in OP_SYMBOLS:
        return OP_SYMBOLS[base]
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", base).lower() or node_name


def tensor_graph(root: Tensor, kind: str = "backward", *, show_data: bool = True,
                 show_grad: bool = True, rankdir: str = "LR",
                 names: Mapping[str, Any] | None = None, show_saved: bool = False,
                 show_order: bool = False, digits: int = 4,
                 title: str | None = None, style: Style = Style(),
                 collapse: bool = False) -> DotGraph:
    """The DOT graph behind ``root`` (see the module docstring).

    ``collapse``: draw each recorded group (:func:`minigrad.viz.group`, e.g. one layer call)
    of the backward graph as a single node.
    """
    names_by_id = {id(tensor): name for name, tensor in (names or {}).items()}
    describe = _TensorLabeller(names_by_id, show_data, show_grad, digits, style)
    if kind == "forward":
        return _forward(root, describe, rankdir, title)
    return _backward(root, describe, rankdir, title, show_saved, show_order, collapse)


class _Unkept:
    """A tensor the graph did not keep (computed outside ``minigrad.viz.record()``): its shape
    and dtype, as the node that used it remembers them, and the node that made it (None for
    an input that needs no gradient)."""

    def __init__(self, info: InputInfo, grad_fn: Any) -> None:
        self.shape, self.dtype, self.grad_fn = tuple(info.shape), info.dtype, grad_fn
        self.requires_grad = grad_fn is not None


class _TensorLabeller:
    """The record of a tensor: ``name (shape) | data … | grad …``, one field per row
    (array summaries are long; stacked, the boxes stay narrow)."""

    def __init__(self, names_by_id: dict[int, str], show_data: bool, show_grad: bool,
                 digits: int, style: Style) -> None:
        self.names_by_id = names_by_id
        self.style = style
        self.show_data, self.show_grad, self.digits = show_data, show_grad, digits

    def __call__(self, tensor: Tensor) -> Record:
        name = self.names_by_id.get(id(tensor))
        shape = format_shape(tuple(tensor.shape))
        fields = [f"{name} {shape}" if name else shape]
        if isinstance(tensor, _Unkept):
            return Record(tuple(fields + ["data not kept"] * self.show_data), horizontal=False)
        if self.show_data:
            fields.append("data " + summarize_array(tensor.numpy(), self.digits))
        if self.show_grad:
            with warnings.catch_warnings():  # a non-leaf's .grad warns; None is the answer
                warnings.simplefilter("ignore")
                grad = tensor.grad
            text = "None" if grad is None else summarize_array(grad.numpy(), self.digits)
            fields.append("grad " + text)
        return Record(tuple(fields), horizontal=False)


def _tensor_role(tensor: Tensor, root: Tensor, style: Style) -> dict[str, str]:
    if tensor is root:
        return value_style("root", style)
    if not tensor.requires_grad:
        return {"style": "dashed"}
    return value_style("leaf" if tensor.grad_fn is None else "inner", style)


# ---------------------------------------------------------------------- forward
def tensor_order(root: Tensor, arguments: _Arguments | None = None) -> list[Tensor]:
    """Every tensor ``root`` was computed from (via ``grad_fn.inputs``), parents first; a
    tensor the graph did not keep stands in as an :class:`_Unkept`."""
    arguments = arguments or _Arguments()
    order: list[Tensor] = []
    visited = {id(root)}
    stack = [(root, iter(arguments.tensors(root)))]
    while stack:
        tensor, inputs = stack[-1]
        for parent in inputs:
            if id(parent) not in visited:
                visited.add(id(parent))
                stack.append((parent, iter(arguments.tensors(parent))))
                break
        else:
            stack.pop()
            order.append(tensor)
    return order


class _Arguments:
    """The arguments of the op that made a tensor: the tensors themselves when the graph kept
    them; otherwise the leaf (through its ``AccumulateGrad`` node), one :class:`_Unkept` per
    node for a result in between, or a new one for an input that needs no gradient."""

    def __init__(self) -> None:
        self._made_by: dict[int, _Unkept] = {}
        self._of: dict[int, list[Any]] = {}

    def of(self, tensor: Any) -> list[Any]:
        node = tensor.grad_fn
        if node is None:
            return []
        if id(node) not in self._of:
            nexts = getattr(node, "_next", ())
            self._of[id(node)] = [self._argument(value, nexts[index] if index < len(nexts) else None)
                                  for index, value in enumerate(getattr(node, "inputs", ()))]
        return self._of[id(node)]

    def tensors(self, tensor: Any) -> list[Any]:
        return [value for value in self.of(tensor) if isinstance(value, (Tensor, _Unkept))]

    def _argument(self, value: Any, producer: Any) -> Any:
        if not isinstance(value, InputInfo):
            return value  # a kept tensor, or a Python number
        if producer is None:
            return _Unkept(value, None)
        if isinstance(getattr(producer, "variable", None), Tensor):
            return producer.variable  # a leaf: its AccumulateGrad node holds it
        if id(producer) not in self._made_by:
            self._made_by[id(producer)] = _Unkept(value, producer)
        return self._made_by[id(producer)]


def _forward(root: Tensor, describe: _TensorLabeller, rankdir: str,
             title: str | None) -> DotGraph:
    dot = base_graph(rankdir, title=title, style=describe.style)
    arguments = _Arguments()
    order = tensor_order(root, arguments)
    index = {id(tensor): position for position, tensor in enumerate(order)}
    for position, tensor in enumerate(order):
        node_id = f"t{position}"
        dot.node(node_id, describe(tensor), **_tensor_role(tensor, root, describe.style))
        node = tensor.grad_fn
        if node is None:
            continue
        op_id = f"{node_id}_op"
        symbol = op_symbol(node.name())
        dot.node(op_id, symbol, ordering="in", tooltip=node.name(),
                 **op_style(symbol, describe.style))
        for argument, value in enumerate(_with_settings(node, arguments.of(tensor))):
            if isinstance(value, (Tensor, _Unkept)):
                dot.edge(f"t{index[id(value)]}", op_id)
            else:
                constant_id = f"{op_id}_c{argument}"
                dot.node(constant_id, _constant_text(value, describe.digits), shape="plaintext")
                dot.edge(constant_id, op_id, style="dashed")
        dot.edge(op_id, node_id)
    return dot


#: Numbers an op takes as a setting rather than an input, drawn as its constant operand:
#: `2 - x` (left), `2 ** x` (left), `x ** 2` (right).
_SETTINGS = {"RsubBackward1": ("other", True), "PowBackward2": ("base", True),
             "PowBackward0": ("exponent", False)}


def _with_settings(node: Any, arguments: list[Any]) -> list[Any]:
    name, left = _SETTINGS.get(node.name(), (None, False))
    if name is None or not hasattr(node, name):
        return arguments
    value = getattr(node, name)
    return [value, *arguments] if left else [*arguments, value]


def _constant_text(value: Any, digits: int) -> str:
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return format_number(value, digits)
    if isinstance(value, np.ndarray):
        return f"{format_shape(value.shape)} {summarize_array(value, digits)}"
    return str(value)


# ---------------------------------------------------------------------- backward
def function_order(root_node: Any) -> list[Any]:
    """The backward-graph nodes reachable from ``root_node`` in the order the engine runs them
    (each after all its consumers; see :func:`minigrad.viz.replay.engine_order`)."""
    return engine_order(root_node)


def _backward(root: Tensor, describe: _TensorLabeller, rankdir: str, title: str | None,
              show_saved: bool, show_order: bool, collapse: bool = False) -> DotGraph:
    caption = TENSOR_BACKWARD_CAPTION if show_order and root.grad_fn is not None else None
    style = describe.style
    dot = base_graph(rankdir, title=title, caption=caption, style=style)
    dot.node("output", describe(root), **_tensor_role(root, root, style))
    if root.grad_fn is None:
        return dot  # a leaf (or a tensor that does not require grad): nothing to walk

    order = function_order(root.grad_fn)
    steps = step_numbers(root)
    members = group_members(order) if collapse else {}
    # Each node is drawn as itself (f3) or as the box of the group it belongs to (g2_0).
    drawn_as = {id(node): members.get(id(node), (f"f{position}", ""))[0]
                for position, node in enumerate(order)}
    dot.edge("output", drawn_as[id(order[0])])
    groups_drawn: dict[str, int] = {}
    edges_drawn: set[tuple[str, str]] = set()
    for position, node in enumerate(order):
        node_id = drawn_as[id(node)]
        label = node.name()
        if id(node) in members:
            groups_drawn[node_id] = groups_drawn.get(node_id, 0) + 1
        else:
            dot.node(node_id, f"{steps[id(node)]}. {label}" if show_order else label,
                     **function_style(style))
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            edge = (node_id, drawn_as[id(next_node)])
            if id(node) in members or id(next_node) in members:
                if edge[0] == edge[1] or edge in edges_drawn:
                    continue  # inside one group, or already drawn between the same boxes
                edges_drawn.add(edge)
            dot.edge(*edge)
        variable = getattr(node, "variable", None)
        if label == "AccumulateGrad" and isinstance(variable, Tensor) and id(node) not in members:
            dot.node(f"{node_id}_leaf", describe(variable), **_tensor_role(variable, root, style))
            dot.edge(node_id, f"{node_id}_leaf", style="dashed")
        if show_saved and id(node) not in members:
            for number, (saved_name, array) in enumerate(node.saved_arrays().items()):
                saved_id = f"{node_id}_saved{number}"
                shape = format_shape(np.shape(array))
                dot.node(saved_id, f"{saved_name}\n{shape}", **saved_style(style))
                dot.edge(saved_id, node_id, style="dotted", arrowhead="none")
    names = {key: name for key, name in members.values()}
    for group_id, count in groups_drawn.items():
        nodes = f"{count} node{'s' if count > 1 else ''}"
        dot.node(group_id, f"{names[group_id]}\n({nodes})", shape="box3d", style="filled",
                 fillcolor=style.theme.leaf_fill)
    return dot
