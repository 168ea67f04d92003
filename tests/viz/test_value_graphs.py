"""minigrad.viz on scalar graphs: the DOT it writes, the files it renders, its limits."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from support.dot_parsing import PNG_MAGIC, parse_dot

from minigrad import Value
from minigrad.scalar.value import topological_order
from minigrad.viz import (Graph, GraphTooLargeError, RenderError, RendererNotFoundError,
                          draw_graph, find_renderer)
from minigrad.viz import render
from minigrad.viz.dot import escape_record_field, escape_text
from minigrad.viz.labels import format_number, format_shape, summarize_array

def lesson01_graph() -> dict[str, Value]:
    """u = a·b, v = u + c, L = v² + u at a=2, b=3, c=1, after L.backward()."""
    a, b, c = Value(2.0, "a"), Value(3.0, "b"), Value(1.0, "c")
    u = a * b
    u.label = "u"
    v = u + c
    v.label = "v"
    square = v ** 2
    loss = square + u
    loss.label = "L"
    loss.backward()
    return {"a": a, "b": b, "c": c, "u": u, "v": v, "square": square, "L": loss}

# Big graphs warn that a slide will be unreadable; tests/viz/test_backward_steps.py checks that warning.
pytestmark = pytest.mark.filterwarnings("ignore:this drawing has")


@pytest.fixture
def only_graphviz_pure(monkeypatch, tmp_path):
    """PATH without any Graphviz: the renderer must be found next to sys.executable."""
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    monkeypatch.delenv("MINIGRAD_DOT", raising=False)
    expected = Path(sys.executable).parent / "graphviz-pure"
    if not expected.exists():
        pytest.skip("graphviz-pure is not installed next to this interpreter")
    return expected


# ---------------------------------------------------------------------- forward graph
def test_forward_graph_of_lesson01_has_one_record_per_value_and_one_op_per_non_leaf():
    nodes = lesson01_graph()
    order = topological_order(nodes["L"])
    labels, attrs, edges = parse_dot(draw_graph(nodes["L"]).source)

    records = [node for node in labels if 'shape="record"' in attrs[node]]
    ops = [node for node in labels if node.endswith("_op")]
    assert len(records) == len(order) == 7  # a, b, u, c, v, v², L: the 2 is the op's own
    assert len(ops) == 4
    assert sorted(labels[op] for op in ops) == sorted(["*", "+", "**2", "+"])
    assert len(edges) == sum(len(value.parents) for value in order) + len(ops) == 11

    # Every number comes from the engine: data and grad of the worked example.
    assert labels["v0"] == "{ a | data 2 | grad 45 }"
    assert labels["v1"] == "{ b | data 3 | grad 30 }"
    assert "{ u | data 6 | grad 15 }" in labels.values()
    assert "{ c | data 1 | grad 14 }" in labels.values()
    assert "{ v | data 7 | grad 14 }" in labels.values()
    assert "{ L | data 55 | grad 1 }" in labels.values()


def test_forward_edges_go_from_parents_in_argument_order_through_the_op():
    nodes = lesson01_graph()
    order = topological_order(nodes["L"])
    position = {id(value): index for index, value in enumerate(order)}
    _, _, edges = parse_dot(draw_graph(nodes["L"]).source)
    for value in order:
        if not value.parents:
            continue
        node_id = f"v{position[id(value)]}"
        into_op = [tail for tail, head in edges if head == f"{node_id}_op"]
        assert into_op == [f"v{position[id(parent)]}" for parent in value.parents]
        assert (f"{node_id}_op", node_id) in edges
    assert not any(head == "v0" for _, head in edges)  # a leaf has no incoming edge


def test_a_value_used_twice_by_one_op_gets_two_edges():
    x = Value(3.0, "x")
    y = x * x
    _, _, edges = parse_dot(draw_graph(y).source)
    assert edges.count(("v0", "v1_op")) == 2


def test_show_data_and_show_grad_switch_the_fields_off():
    loss = lesson01_graph()["L"]
    labels, _, _ = parse_dot(draw_graph(loss, show_data=False).source)
    assert labels["v0"] == "{ a | grad 45 }"
    labels, _, _ = parse_dot(draw_graph(loss, show_grad=False).source)
    assert labels["v0"] == "{ a | data 2 }"
    labels, _, _ = parse_dot(draw_graph(loss, show_data=False, show_grad=False).source)
    assert labels["v0"] == "{ a }"
    assert not any("data" in label or "grad" in label for label in labels.values())


def test_names_override_labels_and_rankdir_tb_lays_records_out_flat():
    nodes = lesson01_graph()
    source = draw_graph(nodes["L"], rankdir="TB", names={"alpha": nodes["a"]}).source
    labels, _, _ = parse_dot(source)
    assert 'rankdir="TB"' in source
    assert labels["v0"] == "alpha | data 2 | grad 45"  # no braces: fields side by side in TB


def test_node_ids_follow_the_traversal_and_the_source_is_reproducible():
    loss = lesson01_graph()["L"]
    first, second = draw_graph(loss).source, draw_graph(loss).source
    assert first == second
    labels, _, _ = parse_dot(first)
    records = sorted((node for node in labels if not node.endswith("_op")),
                     key=lambda node: int(node[1:]))
    assert records == [f"v{i}" for i in range(len(topological_order(loss)))]


# ---------------------------------------------------------------------- backward graph
def test_backward_graph_reverses_every_edge():
    loss = lesson01_graph()["L"]
    forward = parse_dot(draw_graph(loss).source)[2]
    backward = parse_dot(draw_graph(loss, kind="backward").source)[2]
    assert len(backward) == len(forward) == 11
    assert sorted(backward) == sorted((head, tail) for tail, head in forward)
    assert ("v6", "v6_op") in backward  # the root sends gradient first


def test_backward_numbers_the_rules_in_the_order_backward_runs_them():
    nodes = lesson01_graph()
    loss = nodes["L"]
    order = topological_order(loss)
    position = {id(value): index for index, value in enumerate(order)}

    # Record the order in which Value.backward really calls each rule.
    visited = []
    for value in order:
        if value._backward is not None:
            rule = value._backward

            def recording(node, grad_output, rule=rule):
                visited.append(id(node))
                rule(node, grad_output)

            value._backward = recording
    loss.backward()
    assert len(visited) == 4

    labels, _, _ = parse_dot(draw_graph(loss, kind="backward").source)
    for step, value_id in enumerate(visited, start=1):
        op_label = labels[f"v{position[value_id]}_op"]
        assert op_label.endswith(f"\\n{step}"), (step, op_label)
    # The worked example: L's "+" first, then v², then v = u + c, then u = a·b.
    expected = [("L", "+"), ("square", "**2"), ("v", "+"), ("u", "*")]
    for step, (name, op) in enumerate(expected, start=1):
        assert labels[f"v{position[id(nodes[name])]}_op"] == f"{op}\\n{step}"


def test_backward_graph_has_a_caption_explaining_the_numbers():
    loss = lesson01_graph()["L"]
    backward = draw_graph(loss, kind="backward").source
    assert "numbered" in backward and "reverse topological order" in backward
    unnumbered = draw_graph(loss, kind="backward", show_order=False).source
    assert "numbered" not in unnumbered
    assert all("\\n" not in label for node, label in parse_dot(unnumbered)[0].items()
               if node.endswith("_op"))


# ---------------------------------------------------------------------- labels and escaping
@pytest.mark.parametrize("number, text", [
    (55.0, "55"), (0.593269992, "0.5933"), (-0.000438568, "-0.0004386"), (123456.0, "1.235e5"),
    (1e-7, "1e-7"), (-0.0, "0"), (float("nan"), "nan"), (float("-inf"), "-inf"), (14.0, "14"),
])
def test_numbers_keep_four_significant_digits(number, text):
    assert format_number(number) == text


def test_array_summaries_list_small_arrays_and_summarise_large_ones():
    import numpy as np

    assert summarize_array(np.array([[1.0, 2.0], [3.0, 4.5]])) == "[[1, 2], [3, 4.5]]"
    assert summarize_array(np.float32(27.0)) == "27"
    assert summarize_array(np.arange(10.0)) == "mean 4.5, range [0, 9]"
    assert summarize_array(np.array([1.0, np.nan] * 4)) == "mean 1, range [1, 1], 4 nan/inf"
    assert format_shape((2, 3)) == "(2, 3)" and format_shape((4,)) == "(4,)"
    assert format_shape(()) == "()"


def test_record_fields_and_text_are_escaped():
    assert escape_record_field('a|b {x} <y> "q" \\') == 'a\\|b \\{x\\} \\<y\\> \\"q\\" \\\\'
    assert escape_record_field("two\nlines") == "two\\nlines"
    assert escape_text('say "hi"\n\\N') == 'say \\"hi\\"\\n\\\\N'


def test_awkward_labels_render_as_written(only_graphviz_pure):
    tricky = 'w|b {x} <y> "q" \\ end'
    value = Value(1.5, tricky) * Value(2.0, "line one\nline two")
    labels, _, _ = parse_dot(draw_graph(value).source)
    assert labels["v0"] == "{ " + escape_record_field(tricky) + " | data 1.5 | grad 0 }"
    svg = draw_graph(value).svg()
    texts = ["".join(element.itertext()) for element in ElementTree.fromstring(_strip(svg)).iter()
             if element.tag.endswith("text")]
    assert tricky.replace("  ", " ") in texts
    assert "line one" in texts and "line two" in texts


# ---------------------------------------------------------------------- rendering
def test_svg_png_and_dot_files_without_a_system_dot(only_graphviz_pure, tmp_path):
    assert find_renderer() == only_graphviz_pure
    graph = draw_graph(lesson01_graph()["L"], kind="backward")

    svg_path = graph.save(tmp_path / "deep" / "folder" / "graph.svg")
    root = ElementTree.fromstring(_strip(svg_path.read_text()))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "grad 45" in svg_path.read_text()

    png_path = graph.save(tmp_path / "graph.PNG", dpi=150)
    png = png_path.read_bytes()
    assert png.startswith(PNG_MAGIC)
    width = int.from_bytes(png[16:20], "big")
    assert width > int.from_bytes(graph.pipe("png")[16:20], "big")  # 150 dpi > default 96

    dot_path = graph.save(tmp_path / "graph.dot")
    assert dot_path.read_text() == graph.source
    assert graph._repr_svg_() == graph.svg()
    bundle = graph._repr_mimebundle_()
    assert bundle["image/svg+xml"] == graph.svg()
    # Jupyter shows the HTML: the same drawing, shrunk to fit the output area.
    assert "max-width: 100%" in bundle["text/html"] and "<svg" in bundle["text/html"]


def test_saving_with_an_unknown_suffix_is_a_clear_error(tmp_path):
    graph = draw_graph(lesson01_graph()["L"])
    for name in ("graph.pdf", "graph", "graph.svgz"):
        with pytest.raises(ValueError, match=r"suffix .* is not one of \.svg, \.png, \.dot"):
            graph.save(tmp_path / "out" / name)
    assert not (tmp_path / "out").exists()
    with pytest.raises(ValueError, match="unknown format 'jpeg'"):
        graph.pipe("jpeg")


def test_without_any_renderer_the_error_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("MINIGRAD_DOT", raising=False)
    monkeypatch.setattr(render.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(render.sysconfig, "get_path", lambda *args, **kwargs: str(tmp_path))
    graph = draw_graph(lesson01_graph()["L"])
    with pytest.raises(RendererNotFoundError, match="pip install graphviz-pure"):
        graph.svg()
    assert graph._repr_svg_() is None
    assert "graphviz" in graph._repr_mimebundle_()["text/plain"]
    assert graph.save(tmp_path / "still.dot").read_text() == graph.source


def test_bad_arguments_are_named():
    loss = lesson01_graph()["L"]
    with pytest.raises(TypeError, match="Value or Tensor, got builtins.float"):
        draw_graph(3.0)
    with pytest.raises(ValueError, match="kind must be 'forward' or 'backward'"):
        draw_graph(loss, kind="sideways")
    with pytest.raises(ValueError, match="rankdir"):
        draw_graph(loss, rankdir="diagonal")
    with pytest.raises(ValueError, match="dpi must be a positive number"):
        draw_graph(loss).pipe("png", dpi=0)


# ---------------------------------------------------------------------- large graphs
def tanh_chain(length: int) -> Value:
    value = Value(0.5, "x")
    for _ in range(length - 1):
        value = value.tanh()
    return value


def balanced_sum(leaf_count: int) -> Value:
    level = [Value(float(i)) for i in range(leaf_count)]
    while len(level) > 1:
        paired = [level[i] + level[i + 1] for i in range(0, len(level) - 1, 2)]
        level = paired + level[len(paired) * 2:]
    return level[0]


@pytest.mark.parametrize("build, value_count, op_count", [
    (lambda: tanh_chain(2500), 2500, 2499),
    (lambda: balanced_sum(1250), 2499, 1249),
], ids=["chain", "sum-tree"])
def test_graphs_of_2500_values_render(only_graphviz_pure, build, value_count, op_count):
    root = build()
    root.backward()
    graph = draw_graph(root, kind="backward")
    assert len(topological_order(root)) == value_count
    assert graph.node_count == value_count + op_count
    svg = graph.svg()  # the renderer runs under a timeout, so this cannot hang
    assert svg.count('class="node"') == graph.node_count


def test_a_graph_beyond_max_nodes_fails_fast_but_keeps_its_source(tmp_path, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("a graph over max_nodes must be refused before rendering")

    monkeypatch.setattr(render, "run_renderer", never)  # failing fast = no layout attempted
    root = sum(Value(float(i)) for i in range(5000))  # 10 001 Values, 15 001 drawn nodes
    graph = draw_graph(root)
    with pytest.raises(GraphTooLargeError, match=r"15001 nodes, more than max_nodes=10000"):
        graph.svg()
    with pytest.raises(GraphTooLargeError, match=r"\.save\('graph\.dot'\)"):
        graph.save(tmp_path / "big.png")
    assert not (tmp_path / "big.png").exists()
    assert graph.source.count("_op [") == 5000
    assert graph.save(tmp_path / "big.dot").stat().st_size > 0
    assert graph._repr_svg_() is None
    assert "max_nodes" in graph._repr_mimebundle_()["text/plain"]


def test_a_deep_graph_builds_without_recursion():
    graph = draw_graph(tanh_chain(20_000))
    assert graph.node_count == 39_999


def test_a_png_of_a_long_chain_is_scaled_to_a_sane_size(only_graphviz_pure):
    png = draw_graph(tanh_chain(2500)).pipe("png")
    assert png.startswith(PNG_MAGIC)
    width, height = (int.from_bytes(png[offset:offset + 4], "big") for offset in (16, 20))
    assert width <= render.MAX_PNG_SIDE and width * height <= render.MAX_PNG_PIXELS


def test_a_renderer_that_runs_too_long_is_stopped(only_graphviz_pure):
    graph = draw_graph(balanced_sum(1000), timeout=0.001)
    with pytest.raises(RenderError, match="did not finish within 0.001 s"):
        graph.svg()


@pytest.mark.parametrize("label", ["a\x00b", "a\udcffb", "\ud800"])
def test_a_label_graphviz_cannot_take_is_drawn_with_a_replacement_character(label):
    svg = draw_graph(Value(2.0, label) * 3).svg()
    ElementTree.fromstring(svg)
    assert "\ufffd" in svg


@pytest.mark.parametrize("timeout", [-1, 0, float("nan"), "10"])
def test_a_timeout_that_is_not_a_positive_number_is_refused(timeout):
    graph = draw_graph(Value(2.0, "a") * 3, timeout=timeout)
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        graph.svg()


def test_png_resolution_is_capped_for_huge_drawings():
    small = '<svg width="720pt" height="144pt"'
    assert render.png_dpi(small) == 96
    assert render.png_dpi(small, 300) == 300
    huge = '<svg width="600000pt" height="30000pt"'
    dpi = render.png_dpi(huge, 300)
    width, height = 600000 / 72 * dpi, 30000 / 72 * dpi
    assert width <= render.MAX_PNG_SIDE + 1 and width * height <= render.MAX_PNG_PIXELS * 1.001


def test_graph_repr_is_short():
    graph = draw_graph(lesson01_graph()["L"])
    assert isinstance(graph, Graph)
    assert repr(graph) == "<minigrad.viz.Graph: 11 nodes, 11 edges>"


def _strip(svg: str) -> str:
    """ElementTree refuses the DOCTYPE's external DTD; drop the prolog."""
    return svg[svg.index("<svg"):]


def test_names_that_are_not_a_mapping_of_labels_are_refused_clearly():
    import minigrad as mg

    x = mg.ones(2, requires_grad=True)
    loss = (x * 2).sum()
    with pytest.raises(TypeError, match=r"names must map labels .* got int"):
        draw_graph(loss, kind="backward", names=5)
    with pytest.raises(TypeError, match="got the label 3"):
        draw_graph(loss, kind="backward", names={3: x})


def test_dot_text_of_a_label_with_a_lone_surrogate_is_written():
    value = Value(2.0, label="a\udcff") * 2
    assert "\ufffd" in draw_graph(value).pipe("dot").decode("utf-8")
