"""backward_steps and trace_backward: the engine's order, its numbers, and the pictures.

Every number a frame or the trace shows is compared with what the engine itself computes;
every frame is parsed as SVG; the stepper is counted frame by frame.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg
from minigrad import Value
from minigrad.scalar.value import topological_order
from minigrad.viz import backward_steps, draw_graph, group, trace_backward
from minigrad.viz.fonts import text_width
from minigrad.viz.replay import engine_order
from minigrad.viz.style import DARK, LIGHT

SVG = "{http://www.w3.org/2000/svg}"


def lesson01() -> dict[str, Value]:
    """u = a·b, v = u + c, L = v² + u at a=2, b=3, c=1 (lesson 01's worked graph)."""
    a, b, c = Value(2.0, "a"), Value(3.0, "b"), Value(1.0, "c")
    u = a * b
    u.label = "u"
    v = u + c
    v.label = "v"
    loss = v ** 2 + u
    loss.label = "L"
    return {"a": a, "b": b, "c": c, "u": u, "v": v, "L": loss}


def mlp(seed: int = 0) -> dict[str, mg.Tensor]:
    """A 2-layer MLP built from Tensors: 4 samples, 3 → 5 (relu) → 2, mean squared output."""
    mg.manual_seed(seed)
    x = mg.randn(4, 3, dtype=mg.float64)
    W1 = mg.randn(5, 3, dtype=mg.float64, requires_grad=True)
    b1 = mg.randn(5, dtype=mg.float64, requires_grad=True)
    W2 = mg.randn(2, 5, dtype=mg.float64, requires_grad=True)
    b2 = mg.randn(2, dtype=mg.float64, requires_grad=True)
    hidden = (x @ W1.T + b1).relu()
    out = hidden @ W2.T + b2
    loss = (out * out).mean()
    return {"x": x, "W1": W1, "b1": b1, "W2": W2, "b2": b2, "hidden": hidden, "out": out,
            "loss": loss}


# ---------------------------------------------------------------------- the trace
def test_lesson01_reads_off_the_trace_line_by_line():
    nodes = lesson01()
    text = trace_backward(nodes["L"], file=open("/dev/null", "w"))
    lines = text.splitlines()
    steps = [line for line in lines if line.startswith("step ")]
    assert steps[0].startswith("step 1  L = v ** 2 + u") and "grad arriving 1" in steps[0]
    # ∂L/∂v = 2v = 14; u gets 1 directly from L, then 14 through v: 1 + 14 = 15.
    assert re.search(r"-> v\s+14 × 1 = 14\s+v\.grad = 14$", text, re.M)
    assert re.search(r"-> u\s+1 × 14 = 14\s+u\.grad = 1 \+ 14 = 15$", text, re.M)
    assert re.search(r"-> c\s+1 × 14 = 14\s+c\.grad = 14$", text, re.M)
    # ∂L/∂a = b·15 = 45, ∂L/∂b = a·15 = 30.
    assert re.search(r"-> a\s+3 × 15 = 45\s+a\.grad = 45$", text, re.M)
    assert re.search(r"-> b\s+2 × 15 = 30\s+b\.grad = 30$", text, re.M)
    assert "rule  ∂u/∂a = b,  ∂u/∂b = a" in text


def test_the_trace_shows_once_as_the_last_line_of_a_jupyter_cell(capsys):
    """It prints its text; Jupyter then shows the returned value too, which must add nothing
    (it used to repeat the whole trace as one quoted string full of \\n)."""
    from IPython.core.formatters import PlainTextFormatter

    text = trace_backward(lesson01()["L"])
    printed = capsys.readouterr().out
    assert printed == text and "\nstep 1  L = v ** 2 + u" in text and isinstance(text, str)
    assert PlainTextFormatter()(text) == ""
    assert PlainTextFormatter()(str(text)) != ""  # (a plain str would show again)


def test_replaying_changes_no_gradient_and_the_engine_agrees_afterwards():
    nodes = lesson01()
    steps = backward_steps(nodes["L"])
    assert all(value.grad == 0.0 for value in topological_order(nodes["L"]))
    nodes["L"].backward()
    final = steps[-1].grads
    for position, node in enumerate(steps.replay.nodes):
        assert final[position] == pytest.approx(node.source.grad)
    assert (nodes["a"].grad, nodes["b"].grad, nodes["c"].grad, nodes["u"].grad) == \
        (45.0, 30.0, 14.0, 15.0)


def test_a_value_used_twice_gets_one_share_per_use():
    x = Value(3.0, "x")
    y = x * x
    y.label = "y"
    text = trace_backward(y, file=open("/dev/null", "w"))
    assert re.search(r"-> x\s+3 × 1 = 3\s+x\.grad = 3$", text, re.M)
    assert re.search(r"-> x\s+3 × 1 = 3\s+x\.grad = 3 \+ 3 = 6$", text, re.M)


def test_value_steps_follow_value_backward_one_per_rule():
    nodes = lesson01()
    steps = backward_steps(nodes["L"])
    expected = [value for value in reversed(topological_order(nodes["L"])) if value.parents]
    assert [steps.replay.nodes[frame.node].source for frame in steps] == expected


# ---------------------------------------------------------------------- Tensor graphs
def _hook_order(tensors: dict[str, mg.Tensor], root: mg.Tensor) -> list[str]:
    fired: list[str] = []
    for name, tensor in tensors.items():
        if tensor.requires_grad:
            tensor.register_hook(lambda grad, name=name: fired.append(name))
    root.backward(retain_graph=True)
    return fired


def _node_of(tensor: mg.Tensor):
    return tensor.grad_fn if tensor.grad_fn is not None else tensor._get_accumulator()


def test_tensor_steps_run_in_the_order_the_engine_fires_hooks():
    nodes = mlp()
    named = {name: t for name, t in nodes.items() if name != "loss"}
    steps = backward_steps(nodes["loss"], names=named)
    by_node = {id(_node_of(t)): name for name, t in named.items() if t.requires_grad}
    replayed = [by_node[id(steps.replay.nodes[frame.node].source)] for frame in steps
                if id(steps.replay.nodes[frame.node].source) in by_node]
    assert replayed == _hook_order(named, nodes["loss"])
    assert len(steps) == len(engine_order(nodes["loss"].grad_fn))


def test_tensor_frames_end_with_the_engine_gradients_of_every_leaf():
    nodes = mlp()
    steps = backward_steps(nodes["loss"], names=nodes)
    nodes["loss"].backward()
    leaves = {"W1", "b1", "W2", "b2"}
    for position, node in enumerate(steps.replay.nodes):
        if node.op == "AccumulateGrad":
            name = node.label
            assert name in leaves
            np.testing.assert_allclose(steps[-1].grads[position], nodes[name].grad.numpy(),
                                       rtol=1e-12)
            leaves.discard(name)
    assert not leaves


def test_the_tensor_trace_shows_shapes_and_previews():
    x = mg.ones(2, 2, requires_grad=True)
    out = ((x + 2) * (x + 2) * 3).mean()  # lesson 03: out = 27, x.grad = 4.5 everywhere
    text = trace_backward(out, names={"x": x}, file=open("/dev/null", "w"))
    assert "step 1  MeanBackward0   grad arriving () 1" in text
    assert "sends (2, 2) [[0.25, 0.25], [0.25, 0.25]]" in text
    assert "x.grad = (2, 2) [[4.5, 4.5], [4.5, 4.5]]" in text or \
        "x.grad = earlier + this = (2, 2) [[4.5, 4.5], [4.5, 4.5]]" in text
    out.backward()  # the replay left the graph usable
    np.testing.assert_allclose(x.grad.numpy(), 4.5)


def test_a_non_scalar_root_needs_its_gradient_vector():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        backward_steps(y)
    steps = backward_steps(y, gradient=[3.0, 4.0], names={"x": x})
    np.testing.assert_allclose(steps[-1].grads[-1], [6.0, 16.0])  # x = [1, 2], v = [3, 4]


def test_a_freed_graph_says_how_to_keep_it():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        backward_steps(loss)


def test_something_else_than_a_value_or_tensor_is_refused():
    with pytest.raises(TypeError, match="Value or Tensor, got builtins.float"):
        backward_steps(1.5)


# ---------------------------------------------------------------------- pictures
@pytest.fixture(params=["graphviz-pure", "dot"])
def renderer(request, monkeypatch):
    """Each picture test runs with the bundled renderer and with a system Graphviz, if any."""
    import shutil
    import sys

    if request.param == "graphviz-pure":
        program = Path(sys.executable).parent / "graphviz-pure"
        found = str(program) if program.exists() else shutil.which("graphviz-pure")
    else:
        found = shutil.which("dot")
    if found is None:
        pytest.skip(f"{request.param} is not installed")
    monkeypatch.setenv("MINIGRAD_DOT", found)
    return request.param


def _svg_nodes(svg: str) -> dict[str, ElementTree.Element]:
    root = ElementTree.fromstring(svg)
    return {group_.find(f"{SVG}title").text: group_ for group_ in root.iter(f"{SVG}g")
            if "node" in (group_.get("class") or "").split()}


def _box(group_: ElementTree.Element) -> tuple[float, float] | None:
    """Left and right x of a node's outline (path, polygon or ellipse; None: plain text)."""
    ellipse = group_.find(f"{SVG}ellipse")
    if ellipse is not None:
        centre, radius = float(ellipse.get("cx")), float(ellipse.get("rx"))
        return centre - radius, centre + radius
    shape = group_.find(f"{SVG}path")
    if shape is None:
        shape = group_.find(f"{SVG}polygon")
    if shape is None:
        return None
    outline = shape.get("d") or shape.get("points")
    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", outline)]
    xs = numbers[0::2]
    return min(xs), max(xs)


@pytest.mark.parametrize("which", ["value", "tensor"])
def test_every_frame_is_svg_with_a_different_highlighted_node(which, renderer):
    if which == "value":
        steps = backward_steps(lesson01()["L"])
    else:
        nodes = mlp()
        steps = backward_steps(nodes["loss"], names=nodes)
    highlighted, layouts = [], []
    for index, frame in enumerate(steps):
        nodes_drawn = _svg_nodes(steps.svg(index, caption=False))
        current = [title for title, g in nodes_drawn.items() if "current" in g.get("class")]
        assert current == [f"n{frame.node}"]
        changed = {title for title, g in nodes_drawn.items() if "changed" in g.get("class")}
        assert changed == {f"n{parent}" for parent in frame.changed}
        highlighted.append(current[0])
        layouts.append({title: _box(g) for title, g in nodes_drawn.items()})
    assert len(set(highlighted)) == len(steps)
    assert all(layout == layouts[0] for layout in layouts)  # the picture never jumps


def _text_inside_boxes(svg: str, font_size: float) -> None:
    for group_ in _svg_nodes(svg).values():
        left, right = _box(group_)
        for text in group_.iter(f"{SVG}text"):
            width = float(text.get("textLength"))
            assert width == pytest.approx(text_width(text.text, font_size), abs=0.01)
            x = float(text.get("x"))
            start = x - width / 2 if text.get("text-anchor") == "middle" else x
            assert left - 0.01 <= start and start + width <= right + 0.01, text.text


def test_text_fits_its_box_in_drawings(renderer):
    import contextlib

    import minigrad.viz

    # An engine that keeps forward inputs only when asked needs record() for a forward drawing.
    with getattr(minigrad.viz, "record", contextlib.nullcontext)():
        nodes = mlp()
    for graph in (draw_graph(lesson01()["L"], font_size=18),
                  draw_graph(lesson01()["L"], kind="backward", rankdir="TB"),
                  draw_graph(nodes["loss"], kind="backward", names=nodes),
                  draw_graph(nodes["loss"], kind="forward", names=nodes, theme="dark")):
        svg = graph.svg()
        for group_ in _svg_nodes(svg).values():
            for text in group_.iter(f"{SVG}text"):
                size = float(text.get("font-size"))
                assert float(text.get("textLength")) == pytest.approx(
                    text_width(text.text, size), abs=0.01)
        _text_inside_records(svg)


def _text_inside_records(svg: str) -> None:
    """Every text lies within the outline of its node (records: the whole record)."""
    for group_ in _svg_nodes(svg).values():
        if _box(group_) is None:
            continue
        left, right = _box(group_)
        for text in group_.iter(f"{SVG}text"):
            width = float(text.get("textLength"))
            x = float(text.get("x"))
            start = x - width / 2 if text.get("text-anchor") == "middle" else x
            assert left - 0.5 <= start and start + width <= right + 0.5, text.text


def test_text_fits_its_box_in_every_frame(renderer):
    steps = backward_steps(lesson01()["L"], font_size=18)
    for index in range(len(steps)):
        _text_inside_boxes(steps.svg(index), 18.0)


def test_the_stepper_holds_one_frame_per_backward_step(tmp_path):
    nodes = mlp()
    steps = backward_steps(nodes["loss"], names=nodes)
    page = steps.save(tmp_path / "steps.html").read_text(encoding="utf-8")
    assert page.count('class="mg-frame') == len(steps) == len(steps.replay.visits)
    assert f'data-frames="{len(steps)}"' in page
    assert page.count("<svg") == len(steps)
    assert "http" not in re.sub(r'xmlns(:xlink)?="[^"]*"|"-//W3C[^"]*"|'
                                r'"http://www.w3.org/[^"]*"', "", page)  # nothing fetched
    inline = steps._repr_html_()
    assert inline.count('class="mg-frame') == len(steps) and "<!DOCTYPE" not in inline


def test_frames_and_animation_files(tmp_path):
    from PIL import Image

    steps = backward_steps(lesson01()["L"], theme="dark")
    svgs = steps.save_frames(tmp_path / "svg", format="svg")
    assert [p.name for p in svgs] == [f"step{i:02d}.svg" for i in range(1, len(steps) + 1)]
    for path in svgs:
        ElementTree.parse(path)
    pngs = steps.save_frames(tmp_path / "png", format="png", dpi=72)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    gif = Image.open(steps.save(tmp_path / "steps.gif", dpi=60))
    assert gif.format == "GIF" and gif.n_frames == len(steps)
    with pytest.raises(ValueError, match="not .html or .gif"):
        steps.save(tmp_path / "steps.pdf")
    with pytest.raises(ValueError, match="format must be 'svg' or 'png'"):
        steps.save_frames(tmp_path, format="jpg")


def _luminance(colour: str) -> float:
    names = {"white": "#ffffff", "black": "#000000"}
    colour = names.get(colour, colour)
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_text_is_readable_on_every_fill_of_both_themes(theme):
    """WCAG contrast of at least 4.5 between the text and each box colour."""
    fills = [theme.background, theme.leaf_fill, theme.root_fill, theme.function_fill,
             theme.box_fill, theme.current_fill, theme.changed_fill, theme.saved_fill]
    for fill in fills:
        for text in (theme.text,):
            bright, dark = sorted([_luminance(text), _luminance(fill)], reverse=True)
            assert (bright + 0.05) / (dark + 0.05) >= 4.5, (theme.name, fill)
    bright, dark = sorted([_luminance(theme.done_text), _luminance(theme.box_fill)],
                          reverse=True)
    assert (bright + 0.05) / (dark + 0.05) >= 3.0  # processed nodes: dimmer, still legible


def test_the_dark_theme_reaches_the_svg():
    svg = draw_graph(lesson01()["L"], theme="dark").svg()
    assert f'fill="{DARK.background}"' in svg and DARK.text in svg
    with pytest.raises(ValueError, match="theme must be one of light, dark"):
        draw_graph(lesson01()["L"], theme="blue")


def test_png_takes_dpi():
    graph = draw_graph(lesson01()["L"])
    low, high = graph.pipe("png", dpi=72), graph.pipe("png", dpi=144)
    width_low, width_high = (int.from_bytes(png[16:20], "big") for png in (low, high))
    assert width_high == pytest.approx(2 * width_low, rel=0.02)


# ---------------------------------------------------------------------- groups, collapse
class TinyLinear:
    """Stands in for nn.Linear: records its call as a group, as nn.Module.__call__ will."""

    def __init__(self, name: str, fan_in: int, fan_out: int) -> None:
        self.name = name
        self.weight = mg.randn(fan_out, fan_in, dtype=mg.float64, requires_grad=True)
        self.bias = mg.zeros(fan_out, dtype=mg.float64, requires_grad=True)

    def __call__(self, x: mg.Tensor) -> mg.Tensor:
        with group(self.name, x) as scope:
            out = (x @ self.weight.T + self.bias).tanh()
            scope.output(out)
        return out


def test_collapse_draws_one_box_per_layer_call():
    mg.manual_seed(1)
    layers = [TinyLinear(f"layer{i}", 3, 3) for i in range(12)]
    x = mg.randn(2, 3, dtype=mg.float64)
    for layer in layers:
        x = layer(x)
    loss = x.sum()
    with pytest.warns(UserWarning, match="collapse=True"):
        full = draw_graph(loss, kind="backward")
    assert full.node_count > 60
    collapsed = draw_graph(loss, kind="backward", collapse=True)
    labels = re.findall(r'label="(layer\d+)\\n\((\d+) nodes\)"', collapsed.source)
    assert sorted(name for name, _ in labels) == sorted(layer.name for layer in layers)
    # Each layer folds its matmul, transpose, add, tanh and both AccumulateGrad nodes.
    assert {count for _, count in labels} == {"6"}
    assert collapsed.node_count == 1 + 1 + len(layers)  # output, SumBackward0, the layers
    ElementTree.fromstring(collapsed.svg())


def test_collapse_is_for_tensor_backward_graphs_and_groups_nest():
    with pytest.raises(ValueError, match="kind='backward' with a Tensor root"):
        draw_graph(lesson01()["L"], kind="backward", collapse=True)
    x = mg.ones(2, 3, dtype=mg.float64)
    inner = TinyLinear("inner", 3, 3)
    with group("outer", x) as scope:  # a container calling a layer: the innermost group wins
        hidden = inner(x)
        out = hidden * 2
        scope.output(out)
    source = draw_graph(out.sum(), kind="backward", collapse=True).source
    assert re.search(r'label="inner\\n\(6 nodes\)"', source)
    assert re.search(r'label="outer\\n\(1 node\)"', source)  # only the MulBackward0 is left
    with pytest.raises(ValueError, match="kind='backward'"):
        draw_graph(out.sum(), kind="forward", collapse=True)


def test_a_long_backward_pass_warns_that_the_stepper_is_hard_to_follow():
    chain = Value(0.5, "x")
    for _ in range(70):
        chain = chain.tanh()
    with pytest.warns(UserWarning, match="70 steps"):  # one per tanh; the leaf x has no rule
        backward_steps(chain)


def test_a_frame_shows_each_local_derivative_times_the_arriving_gradient():
    steps = backward_steps(lesson01()["L"])
    u_step = next(frame for frame in steps if steps.replay.nodes[frame.node].label == "u")
    svg = steps.svg(u_step.step - 1)
    assert "grad 3 × 15 = 45" in svg and "grad 2 × 15 = 30" in svg  # a and b
    assert "rule: ∂u/∂a = b," in svg and "∂u/∂b = a" in svg
    v_step = next(frame for frame in steps if steps.replay.nodes[frame.node].label == "v")
    assert "grad 1 + 1 × 14 = 15" in steps.svg(v_step.step - 1)  # u: 1 from L, then 14 via v


def test_made_up_names_keep_the_brackets_the_maths_needs():
    """'e = a - b * a + b / a * b' stated other maths than ((a - b) * (a + b)) / (a * b)."""
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    text = trace_backward(((a - b) * (a + b)) / (a * b), file=open("/dev/null", "w"))
    assert "(a - b) * (a + b)" in text and "(a - b).grad" in text and "(a * b).grad" in text
    assert "a - b * a" not in text
    h = Value(0.5, label="h")
    text = trace_backward((h - 1.0) ** 2 + h * 2.0, file=open("/dev/null", "w"))
    assert "(h - 1) ** 2 + h * 2" in text


def test_brief_boxes_show_a_large_array_by_its_shape_and_keep_small_ones():
    """For slides: a 3×8 weight is its shape in the boxes; a 3-vector is still listed; the
    trace (the arithmetic beside the picture) keeps every number."""
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((1, 8)), requires_grad=True)
    weight = mg.tensor(rng.standard_normal((3, 8)), requires_grad=True)
    bias = mg.tensor(rng.standard_normal(3), requires_grad=True)
    loss = (x @ weight.T + bias).sum()
    names = {"x": x, "W": weight, "b": bias}
    brief = backward_steps(loss, names=names, brief=True)
    full = backward_steps(loss, names=names)
    last = len(brief) - 1
    assert "data (3, 8)" in brief.svg(last, caption=False)
    assert "mean" not in brief.svg(last, caption=False)
    assert "data (3, 8) mean" in full.svg(last, caption=False)
    assert "data (3,) [" in brief.svg(last, caption=False)
    assert brief.trace() == full.trace()
