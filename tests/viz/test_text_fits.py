"""Graph text fits its boxes when drawn with DejaVu Sans (the usual Linux font, and the widest
common sans face), whichever renderer laid the graph out: graphviz-pure and, when installed, a
system `dot`. Text widths are measured with matplotlib's own copy of DejaVu Sans, or taken from
the SVG's textLength where it fixes the drawn width."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

import minigrad as mg
from minigrad import Value
from minigrad.viz import draw_graph

font_manager = pytest.importorskip("matplotlib.font_manager")
textpath = pytest.importorskip("matplotlib.textpath")

_GROUP = re.compile(r'<g id="node\d+" class="node">(.*?)</g>', re.DOTALL)
_TEXT = re.compile(r'<text([^>]*)>(.*?)</text>')
_SIZE = re.compile(r'font-size="([\d.]+)"')
_LENGTH = re.compile(r'textLength="([\d.]+)"')
_POLYGON = re.compile(r'<polygon[^>]*points="([^"]+)"')
_ELLIPSE = re.compile(r'<ellipse[^>]*rx="([\d.]+)"')


def _text_width(text: str, size: float) -> float:
    text = (text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
            .replace("&#45;", "-").replace("&#160;", " "))
    font = font_manager.FontProperties(family="DejaVu Sans", size=size)
    return textpath.TextPath((0, 0), text, prop=font).get_extents().width


def _overflows(svg: str) -> list[str]:
    problems = []
    for group in _GROUP.findall(svg):
        polygon, ellipse = _POLYGON.search(group), _ELLIPSE.search(group)
        if polygon:
            xs = [float(point.split(",")[0]) for point in polygon.group(1).split()]
            box = max(xs) - min(xs)
        elif ellipse:
            box = 2 * float(ellipse.group(1))
        else:
            continue
        for attributes, text in _TEXT.findall(group):
            # A viewer draws text exactly textLength wide when the SVG says so (a fitting
            # step may set it); otherwise as wide as DejaVu Sans makes it.
            length = _LENGTH.search(attributes)
            width = float(length.group(1)) if length else \
                _text_width(text, float(_SIZE.search(attributes).group(1)))
            if width > box + 0.5:
                problems.append(f"{text!r}: {width:.1f}pt of text in a {box:.1f}pt box")
    return problems


def _graphs() -> list:
    a, b, c = Value(2.0, "a"), Value(3.0, "b"), Value(1.0, "c")
    u = a * b
    loss = (u + c) * (u + c) + u
    loss.label = "loss"
    loss.backward()
    x = mg.ones(2, 2, requires_grad=True)
    with mg.viz.record():  # keep the tensors: the forward drawing shows them
        out = ((x + 2) * (x + 2) * 3).mean()
    out.backward()
    return [draw_graph(loss), draw_graph(loss, kind="backward"),
            draw_graph(out, kind="forward", names={"x": x, "out": out}),
            draw_graph(out, kind="backward", names={"x": x}, show_saved=True)]


def _renderers() -> list:
    found = [Path(sys.executable).parent / "graphviz-pure"]
    system_dot = shutil.which("dot")
    if system_dot:
        found.append(Path(system_dot))
    return [path for path in found if path.exists()]


@pytest.mark.parametrize("renderer", _renderers(), ids=lambda path: path.name)
def test_every_label_fits_its_box_in_dejavu_sans(renderer: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MINIGRAD_DOT", str(renderer))
    for graph in _graphs():
        assert _overflows(graph.svg()) == []


def test_the_check_catches_helvetica_metrics_with_graphviz_pure(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # What the drawings did before: boxes measured with Helvetica, text drawn in DejaVu Sans.
    from minigrad.viz.render import run_renderer

    pure = Path(sys.executable).parent / "graphviz-pure"
    if not pure.exists():
        pytest.skip("graphviz-pure is not installed next to this Python")
    monkeypatch.setenv("MINIGRAD_DOT", str(pure))
    problems = [problem for graph in _graphs()
                for problem in _overflows(run_renderer(
                    graph.source.replace("DejaVu Sans", "Helvetica"), "svg").decode())]
    assert problems, "Helvetica metrics should overflow once the text is drawn in DejaVu Sans"
