"""minigrad.viz on tensor graphs: the torchviz-style backward graph and the forward graph."""

from __future__ import annotations

import re
import sys
import warnings
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from support.dot_parsing import PNG_MAGIC, parse_dot

import minigrad as mg
from minigrad.viz import draw_graph
from minigrad.viz.tensor_graph import function_order, op_symbol, tensor_order

def fields(record_label: str) -> list[str]:
    """The fields of a record label, whichever way they are laid out."""
    return record_label.strip("{} ").split(" | ")

# Big graphs warn that a slide will be unreadable; tests/viz/test_backward_steps.py checks that warning.
pytestmark = pytest.mark.filterwarnings("ignore:this drawing has")


def lesson03_graph():
    """x = ones(2,2) requiring grad, y = x + 2, z = y·y·3 (lesson 03, before the mean)."""
    with mg.viz.record():  # keep the tensors, for the forward graph
        x = mg.ones(2, 2, requires_grad=True)
        y = x + 2
        z = y * y * 3
    return x, y, z


def two_leaf_graph():
    """loss = (w @ a + b) * c with leaves w, b requiring grad and a, c constants."""
    w = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    a = mg.tensor([[1.0], [-1.0]])
    b = mg.tensor([[0.5], [0.25]], requires_grad=True)
    with mg.viz.record():
        out = (w @ a + b) * 2.0
    return w, a, b, out


# ---------------------------------------------------------------------- backward graph
def test_backward_graph_has_one_box_per_grad_fn_and_accumulate_grad_beside_each_leaf():
    x, _, z = lesson03_graph()
    labels, attrs, edges = parse_dot(draw_graph(z, kind="backward", names={"x": x}).source)

    functions = {node: label for node, label in labels.items() if re.fullmatch(r"f\d+", node)}
    assert sorted(functions.values()) == ["AccumulateGrad", "AddBackward0", "MulBackward0",
                                          "MulBackward0"]
    accumulate = next(node for node, label in functions.items() if label == "AccumulateGrad")
    leaf = fields(labels[f"{accumulate}_leaf"])
    assert leaf == ["x (2, 2)", "data [[1, 1], [1, 1]]", "grad None"]
    assert (accumulate, f"{accumulate}_leaf") in edges
    assert fields(labels["output"]) == ["(2, 2)", "data [[27, 27], [27, 27]]", "grad None"]
    assert ("output", "f0") in edges and functions["f0"] == z.grad_fn.name()
    assert "shape=\"record\"" in attrs["output"]


def test_backward_edges_follow_next_functions_and_skip_constants():
    w, _, b, out = two_leaf_graph()
    source = draw_graph(out, kind="backward").source
    labels, _, edges = parse_dot(source)
    order = function_order(out.grad_fn)
    node_ids = {id(node): f"f{position}" for position, node in enumerate(order)}
    for node in order:
        expected = [node_ids[id(next_node)] for next_node, _ in node.next_functions
                    if next_node is not None]
        drawn = [head for tail, head in edges if tail == node_ids[id(node)] and
                 re.fullmatch(r"f\d+", head)]
        assert drawn == expected
    # MulBackward0 has (AddBackward0, None): the Python number 2.0 is not drawn.
    assert [fn is None for fn, _ in out.grad_fn.next_functions] == [False, True]
    leaves = [fields(labels[node]) for node in labels if node.endswith("_leaf")]
    assert sorted(leaves) == sorted([["(2, 2)", "data [[1, 2], [3, 4]]", "grad None"],
                                     ["(2, 1)", "data [[0.5], [0.25]]", "grad None"]])
    assert sum(label == "AccumulateGrad" for label in labels.values()) == 2


def test_the_same_leaf_is_drawn_once_even_when_used_twice():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    labels, _, edges = parse_dot(draw_graph(y, kind="backward").source)
    assert sum(label == "AccumulateGrad" for label in labels.values()) == 1
    assert edges.count(("f0", "f1")) == 2  # two arrows: x*x receives gradient twice


def test_show_saved_draws_what_each_node_keeps_for_backward():
    x, y, z = lesson03_graph()
    labels, _, edges = parse_dot(draw_graph(z, kind="backward", show_saved=True).source)
    order = function_order(z.grad_fn)
    for position, node in enumerate(order):
        saved = node.saved_arrays()
        drawn = sorted(labels[n] for n in labels if n.startswith(f"f{position}_saved"))
        expected = sorted(f"{name}\\n{_shape_text(array.shape)}" for name, array in saved.items())
        assert drawn == expected
    assert any(label.endswith("\\n(2, 2)") for node, label in labels.items() if "saved" in node)

    z.backward(mg.ones(2, 2))  # frees what the nodes saved
    labels, _, _ = parse_dot(draw_graph(z, kind="backward", show_saved=True).source)
    assert not any("saved" in node for node in labels)


def test_show_order_numbers_each_node_after_all_its_consumers():
    _, _, _, out = two_leaf_graph()
    labels, _, edges = parse_dot(draw_graph(out, kind="backward", show_order=True).source)
    number = {node: int(label.split(".")[0]) for node, label in labels.items()
              if re.fullmatch(r"f\d+", node)}
    assert sorted(number.values()) == list(range(1, len(number) + 1))
    assert number["f0"] == 1
    for tail, head in edges:
        if tail in number and head in number:
            assert number[tail] < number[head]
    assert "order the engine runs them" in draw_graph(out, kind="backward", show_order=True).source


def test_leaf_and_constant_roots_are_a_single_box():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    labels, _, edges = parse_dot(draw_graph(x, kind="backward", names={"x": x}).source)
    assert list(labels) == ["output"] and edges == []
    assert fields(labels["output"]) == ["x (3,)", "data [1, 2, 3]", "grad None"]
    constant = mg.tensor(5.0)
    labels, _, _ = parse_dot(draw_graph(constant, kind="forward").source)
    assert [fields(label) for label in labels.values()] == [["()", "data 5", "grad None"]]


@pytest.mark.oracle
def test_node_names_match_pytorch():
    torch = pytest.importorskip("torch")

    def build(lib, **kwargs):
        w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True, **kwargs)
        a = lib.tensor([[1.0], [-1.0]], **kwargs)
        h = (w @ a + 1.0) * (-a)
        return ((h - 0.5) / 2.0) ** 2

    ours = [node.name() for node in function_order(build(mg).grad_fn)]
    # PyTorch spells the leaf node "torch::autograd::AccumulateGrad"; minigrad drops the prefix.
    theirs = [node.name().removeprefix("torch::autograd::")
              for node in function_order(build(torch).grad_fn)]
    assert ours == theirs
    labels, _, _ = parse_dot(draw_graph(build(mg), kind="backward").source)
    assert [labels[f"f{i}"] for i in range(len(ours))] == theirs


# ---------------------------------------------------------------------- forward graph
def test_forward_graph_has_tensors_ops_and_constants_in_argument_order():
    x, y, z = lesson03_graph()
    z.backward(mg.ones(2, 2))
    labels, attrs, edges = parse_dot(draw_graph(z, names={"x": x, "y": y}).source)
    order = tensor_order(z)
    assert len(order) == 4  # x, y, y·y, z
    records = [node for node in labels if 'shape="record"' in attrs[node]]
    assert records == ["t0", "t1", "t2", "t3"]
    assert fields(labels["t0"]) == ["x (2, 2)", "data [[1, 1], [1, 1]]",
                                    "grad [[18, 18], [18, 18]]"]
    assert fields(labels["t1"]) == ["y (2, 2)", "data [[3, 3], [3, 3]]", "grad None"]
    assert [labels[f"t{i}_op"] for i in (1, 2, 3)] == ["+", "*", "*"]
    assert labels["t1_op_c1"] == "2" and labels["t3_op_c1"] == "3"
    assert [tail for tail, head in edges if head == "t1_op"] == ["t0", "t1_op_c1"]
    assert [tail for tail, head in edges if head == "t2_op"] == ["t1", "t1"]
    assert [tail for tail, head in edges if head == "t3_op"] == ["t2", "t3_op_c1"]
    assert ("t3_op", "t3") in edges and len(edges) == 2 + 2 + 2 + 3


def test_forward_graph_marks_tensors_that_do_not_require_grad():
    w, a, b, out = two_leaf_graph()
    labels, attrs, _ = parse_dot(draw_graph(out, names=[("w", w), ("a", a)]).source)
    by_label = {fields(label)[0]: node for node, label in labels.items()}
    assert 'style="dashed"' in attrs[by_label["a (2, 1)"]]
    assert 'fillcolor' in attrs[by_label["w (2, 2)"]]
    assert labels[[n for n in labels if n.endswith("_op") and labels[n] == "@"][0]] == "@"


def test_large_tensors_are_summarised():
    mg.manual_seed(0)
    x = mg.randn(10, 10, requires_grad=True)
    with mg.viz.record():
        y = x * 2
    labels, _, _ = parse_dot(draw_graph(y).source)
    assert re.search(r"data mean -?[\d.e-]+, range \[-?[\d.e-]+, -?[\d.e-]+\]", labels["t1"])
    assert fields(labels["t0"])[0] == "(10, 10)"


def test_forward_graph_of_an_unrecorded_computation_shows_shapes():
    """Not under record(): the nodes keep only their inputs' shapes and dtypes. The forward
    graph (the default kind, as API.md promises for any Tensor root) is still drawn: the
    leaves and the root with their values, what lies between with its shape only."""
    x = mg.ones(2, requires_grad=True)
    c = mg.full((3, 2), 2.0)  # needs no gradient
    out = ((c * x).sum(dim=0) * 2 + 1).sum()
    labels, edges, _ = parse_dot(draw_graph(out, names={"x": x}).source)
    unkept = [label for label in labels.values() if "data not kept" in label]
    # c (an input with no node of its own), c * x, the sum over dim 0, * 2 and + 1:
    assert sorted(label.split(" |")[0] for label in unkept) == ["(2,)"] * 3 + ["(3, 2)"] * 2
    assert any(label.startswith("x (2,) | data [1, 1]") for label in labels.values())
    assert any(label.startswith("() | data 26") for label in labels.values())  # 2 entries of 3·2·2 + 1
    with mg.viz.record():
        kept = ((c * x).sum(dim=0) * 2 + 1).sum()
    assert "data not kept" not in draw_graph(kept).source
    assert "SumBackward0" in draw_graph(out, kind="backward").source


def test_drawing_reads_no_grad_of_a_non_leaf_with_a_warning():
    _, _, z = lesson03_graph()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        draw_graph(z)
        draw_graph(z, kind="backward")


@pytest.mark.parametrize("name, symbol", [
    ("AddBackward0", "+"), ("MulBackward0", "*"), ("MmBackward0", "@"), ("PowBackward0", "**"),
    ("LogSoftmaxBackward0", "log_softmax"), ("MeanBackward1", "mean"), ("ReluBackward0", "relu"),
    ("ConvolutionBackward0", "conv2d"), ("MaxPool2DWithIndicesBackward0", "max_pool2d"),
    ("AvgPool2DBackward0", "avg_pool2d"), ("CrossEntropyLossBackward0", "cross_entropy"),
])
def test_op_symbols(name, symbol):
    assert op_symbol(name) == symbol


# ---------------------------------------------------------------------- rendering
def test_tensor_graphs_render_to_svg_and_png(monkeypatch, tmp_path):
    if not (Path(sys.executable).parent / "graphviz-pure").exists():
        pytest.skip("graphviz-pure is not installed next to this interpreter")
    monkeypatch.setenv("PATH", str(tmp_path))  # no system dot: graphviz-pure is used
    monkeypatch.delenv("MINIGRAD_DOT", raising=False)
    w, _, _, out = two_leaf_graph()
    for kind in ("forward", "backward"):
        graph = draw_graph(out, kind=kind, names={"w": w}, show_saved=True)
        svg = graph.save(tmp_path / kind / "graph.svg").read_text()
        root = ElementTree.fromstring(svg[svg.index("<svg"):])
        assert root.tag.endswith("svg")
        assert graph.save(tmp_path / kind / "graph.png").read_bytes().startswith(PNG_MAGIC)
    assert "AccumulateGrad" in svg and "MulBackward0" in svg and "w (2, 2)" in svg


def _shape_text(shape: tuple[int, ...]) -> str:
    return f"({shape[0]},)" if len(shape) == 1 else str(tuple(shape))


def test_forward_graphs_show_the_numbers_ops_take_as_settings():
    """x ** 2 was drawn as '**' with one input and 1 - x as '-' with one (read as negation)."""
    with mg.viz.record():
        x = mg.ones(2, requires_grad=True)
        y = (1 - x) * (x ** 3) * (2 ** x)
    source = draw_graph(y.sum()).source
    for number in ("1", "3", "2"):  # 1 - x, x ** 3, 2 ** x: each number drawn, with its edge
        ids = [line.split()[0] for line in source.splitlines()
               if f'[label="{number}", shape="plaintext"]' in line]
        assert ids and any(f"{identifier} -> " in source for identifier in ids), number
    assert source.count('shape="plaintext"') == 3
