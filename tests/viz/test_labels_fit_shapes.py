"""Operation labels fit inside their ellipses and circles at every font size, with air around
them: each line's box (its measured width, ascender to descender) lies within the shape shrunk
by a margin, as drawn by graphviz-pure (the renderer every install has)."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import pytest

from minigrad import Value
from minigrad.viz import draw_graph
from minigrad.viz.fonts import room_for_text

_GROUP = re.compile(r'<g id="node\d+" class="node">(.*?)</g>', re.S)
_ELLIPSE = re.compile(r'<ellipse[^>]*cx="([-\d.]+)" cy="([-\d.]+)" rx="([\d.]+)" ry="([\d.]+)"')
_TEXT = re.compile(r'<text[^>]*x="([-\d.]+)" y="([-\d.]+)"[^>]*font-size="([\d.]+)"[^>]*>'
                   r'(.*?)</text>')
MARGIN = 0.92  # the text's corners stay inside 92 % of the shape: never touching its line


def graph() -> Value:
    x, y = Value(1.5, "x"), Value(-0.5, "y")
    out = ((x * y + x) ** 2).tanh() + (x / y).exp() - (x ** y).relu()
    out.label = "out"
    return out


def _cramped(svg: str) -> list[str]:
    problems = []
    for group in _GROUP.findall(svg):
        shape = _ELLIPSE.search(group)
        if not shape:
            continue
        cx, cy, rx, ry = map(float, shape.groups())
        for x, y, size, text in _TEXT.findall(group):
            x, y, size = float(x), float(y), float(size)
            half = room_for_text(html.unescape(text), size) / 2
            for dx in (x - half - cx, x + half - cx):
                for dy in (y - 0.75 * size - cy, y + 0.22 * size - cy):
                    if (dx / rx) ** 2 + (dy / ry) ** 2 > MARGIN ** 2:
                        problems.append(f"{text!r} at {size}pt in rx={rx:.1f}, ry={ry:.1f}")
                        break
                else:
                    continue
                break
    return problems


@pytest.mark.parametrize("font_size", [8, 14, 20, 28, 40])
@pytest.mark.parametrize("kind", ["forward", "backward"])
def test_op_labels_fit_their_shapes(font_size: float, kind: str,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pure = Path(sys.executable).parent / "graphviz-pure"
    if not pure.exists():
        pytest.skip("graphviz-pure is not installed next to this Python")
    monkeypatch.setenv("MINIGRAD_DOT", str(pure))
    svg = draw_graph(graph(), kind=kind, font_size=font_size).svg()
    assert _cramped(svg) == []
