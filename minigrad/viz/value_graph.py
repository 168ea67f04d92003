"""Drawing a scalar graph: one box per `Value`, one small circle per operation.

Forward graph: arrows follow the computation, from the inputs (leaves) to the root::

    [a | data 2 | grad 45] --\
                              (*) --> [u | data 6 | grad 15] ...
    [b | data 3 | grad 30] --/

Backward graph: the same boxes and circles with every arrow reversed, because gradient flows
from the root back to the leaves. Each circle is numbered in the order ``root.backward()`` runs
its rule: reverse topological order, the root's rule first (1), a node only after every
consumer has sent it gradient — the numbers of :func:`minigrad.viz.replay.step_numbers`, which
the stepper and the trace use too.
"""

from __future__ import annotations

from typing import Mapping

from minigrad.scalar.value import Value, topological_order
from minigrad.viz.replay import step_numbers
from minigrad.viz.dot import DotGraph, Record
from minigrad.viz.labels import format_number
from minigrad.viz.style import BACKWARD_CAPTION, Style, base_graph, op_style, value_style


def value_graph(root: Value, kind: str = "forward", *, show_data: bool = True,
                show_grad: bool = True, rankdir: str = "LR",
                names: Mapping[str, Value] | None = None, show_order: bool = True,
                digits: int = 4, title: str | None = None, style: Style = Style()) -> DotGraph:
    """The DOT graph of everything ``root`` depends on (see the module docstring).

    Node ids follow the topological order: ``v{i}`` is the i-th Value (parents first, the root
    last) and ``v{i}_op`` the operation that produced it.
    """
    order = topological_order(root)
    steps = step_numbers(root) if kind == "backward" and show_order else {}
    names_by_id = {id(value): name for name, value in (names or {}).items()}
    caption = BACKWARD_CAPTION if steps else None
    dot = base_graph(rankdir, title=title, caption=caption, style=style)
    index = {id(value): position for position, value in enumerate(order)}

    for position, value in enumerate(order):
        node_id = f"v{position}"
        label = names_by_id.get(id(value), value.label)
        fields = [label] if label else []
        if show_data:
            fields.append(f"data {format_number(value.data, digits)}")
        if show_grad:
            fields.append(f"grad {format_number(value.grad, digits)}")
        role = "root" if value is root else ("leaf" if not value.parents else "inner")
        dot.node(node_id, Record(tuple(fields) or (label,)), **value_style(role, style))
        if not value.parents:
            continue

        op_id = f"{node_id}_op"
        op_label = f"{value.op or '?'}\n{steps[id(value)]}" if steps else (value.op or "?")
        parent_ids = [f"v{index[id(parent)]}" for parent in value.parents]
        if kind == "forward":
            # ordering=in keeps the parents in argument order (a - b, a ** b read correctly).
            dot.node(op_id, op_label, ordering="in", **op_style(op_label, style))
            for parent_id in parent_ids:
                dot.edge(parent_id, op_id)
            dot.edge(op_id, node_id)
        else:
            dot.node(op_id, op_label, ordering="out", **op_style(op_label, style))
            dot.edge(node_id, op_id)
            for parent_id in parent_ids:
                dot.edge(op_id, parent_id)
    return dot
