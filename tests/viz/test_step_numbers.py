"""One step numbering for the backward drawing, the trace and the stepper (all three ask
minigrad.viz.replay.step_numbers), and a trace notation that no variable name can clash with."""

from __future__ import annotations

import re

import minigrad as mg
from minigrad import Value
from minigrad.viz import backward_steps, draw_graph, trace_backward
from minigrad.viz.replay import step_numbers
from minigrad.figures.lecture import readme_graph


def _drawn_value_steps(root: Value) -> dict[str, int]:
    """Step number of each op circle of the backward drawing, keyed by the Value's label."""
    source = draw_graph(root, kind="backward").source
    labels = {node: label.strip() for node, label in
              re.findall(r'^\s*(v\d+) \[label="\{ ([^|]*)\|', source, re.M)}
    numbers = re.findall(r'^\s*(v\d+)_op \[label="[^"\\]*\\n(\d+)"', source, re.M)
    return {labels[node]: int(number) for node, number in numbers}


def test_the_drawing_the_trace_and_the_stepper_number_the_same_steps() -> None:
    root = readme_graph(backward=False)
    drawn = _drawn_value_steps(root)
    assert (drawn["L"], drawn["v"], drawn["u"]) == (1, 3, 4)
    traced = {match[1]: int(match[0]) for match in
              re.findall(r"^step (\d+)  (\w+)", trace_backward(root, file=open("/dev/null", "w")),
                         re.M)}
    steps = backward_steps(root)
    stepped = {steps.replay.nodes[frame.node].label: frame.step for frame in steps}
    for label in ("L", "v", "u"):
        assert drawn[label] == traced[label] == stepped[label], label
    assert len(steps) == len(step_numbers(root)) == 4  # one step per rule; leaves have none
    # the stepper's own pictures carry the same numbers: "4. u = a * b"
    assert "4. u = a * b" in steps.svg(3)


def test_tensor_drawings_and_steppers_number_the_engine_nodes_alike() -> None:
    x = mg.ones(2, 2, requires_grad=True)
    out = ((x + 2) * (x + 2) * 3).mean()
    drawn = re.findall(r'label="(\d+)\. (\w+)"', draw_graph(out, kind="backward",
                                                            show_order=True).source)
    steps = backward_steps(out, names={"x": x})
    stepped = [(str(frame.step), steps.replay.nodes[frame.node].op) for frame in steps]
    assert sorted(drawn, key=lambda pair: int(pair[0])) == stepped


def test_the_rule_is_written_with_the_graphs_own_names() -> None:
    b, a = Value(2.0, "b"), Value(3.0, "a")  # named against the docstring's a and b
    product = b * a
    product.label = "p"
    text = trace_backward(product, file=open("/dev/null", "w"))
    assert "rule  ∂p/∂b = a,  ∂p/∂a = b" in text
    assert "d(out)" not in text
    text = trace_backward(readme_graph(backward=False), file=open("/dev/null", "w"))
    assert "∂L/∂(v ** 2) = 1,  ∂L/∂u = 1" in text
    assert "∂(v ** 2)/∂v = 2v" in text  # the constant exponent, not a 'b'
