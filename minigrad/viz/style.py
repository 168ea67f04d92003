"""Colours, fonts and captions shared by every drawing, so Value and Tensor graphs match.

Colours follow torchviz, which many lecturers know: leaves light blue, the root (the output,
usually the loss) light green, operations grey. The dark theme keeps those roles with darker
fills and light text, for dark slides. Text is Helvetica (see :mod:`minigrad.viz.fonts`) at
14 pt by default: readable from the back of a lecture room.
"""

from __future__ import annotations

from dataclasses import dataclass

from minigrad.viz.dot import DotGraph
from minigrad.viz.fonts import FONT, room_for_text

DEFAULT_FONT_SIZE = 14.0


@dataclass(frozen=True)
class Theme:
    """The colours of one look: background, text, lines, and a fill per kind of box."""

    name: str
    background: str
    text: str
    line: str
    leaf_fill: str
    root_fill: str
    function_fill: str
    saved_fill: str
    box_fill: str          # a box with no role of its own (an inner Value or tensor)
    current_fill: str      # the node a backward step is processing
    current_line: str
    changed_fill: str      # nodes whose gradient that step just changed
    changed_line: str
    done_text: str         # nodes already processed


LIGHT = Theme("light", background="white", text="black", line="#333333",
              leaf_fill="#cfe8ff", root_fill="#d4f5b0", function_fill="#e4e4e4",
              saved_fill="#ffd9a8", box_fill="white", current_fill="#ffd8a8",
              current_line="#d9480f", changed_fill="#a5d8ff", changed_line="#1864ab",
              done_text="#666666")
DARK = Theme("dark", background="#1e1e1e", text="#f1f1f1", line="#c8c8c8",
             leaf_fill="#1d3d5c", root_fill="#2f4d1d", function_fill="#3a3a3a",
             saved_fill="#5c3d14", box_fill="#262626", current_fill="#7a3a0a",
             current_line="#ffa94d", changed_fill="#0b4f80", changed_line="#74c0fc",
             done_text="#a8a8a8")
THEMES = {theme.name: theme for theme in (LIGHT, DARK)}


@dataclass(frozen=True)
class Style:
    """A theme and a font size: everything about a drawing's look that a user can choose."""

    theme: Theme = LIGHT
    font_size: float = DEFAULT_FONT_SIZE

    @staticmethod
    def of(theme: str | Theme = "light", font_size: float = DEFAULT_FONT_SIZE) -> Style:
        """The style for a theme name (``"light"``, ``"dark"``) and a font size in points."""
        if isinstance(theme, str):
            if theme not in THEMES:
                raise ValueError(f"theme must be one of {', '.join(THEMES)}, got {theme!r}")
            theme = THEMES[theme]
        if isinstance(font_size, bool) or not isinstance(font_size, (int, float)) \
                or not 6 <= font_size <= 72:
            raise ValueError(f"font_size must be a number of points from 6 to 72, got "
                             f"{font_size!r}")
        return Style(theme, float(font_size))

    def size(self, scale: float = 1.0) -> str:
        return f"{self.font_size * scale:.3g}"


BACKWARD_CAPTION = (
    "backward: the numbered rules run in order, 1 = the root's rule (reverse topological order)\n"
    "arrows: the gradient flowing from the root back to the inputs"
)


def base_graph(rankdir: str, *, title: str | None = None, caption: str | None = None,
               style: Style = Style()) -> DotGraph:
    """An empty DOT graph with our fonts; ``title`` on top, ``caption`` underneath."""
    theme = style.theme
    graph_attrs = {"fontname": FONT, "fontsize": style.size(), "nodesep": "0.25",
                   "ranksep": "0.35", "bgcolor": theme.background, "fontcolor": theme.text}
    lines = tuple("\n".join(part for part in (title, caption) if part).splitlines())
    if lines:
        graph_attrs.update(labelloc="t" if title else "b", labeljust="l")
    return DotGraph(rankdir=rankdir, graph_attrs=graph_attrs, caption=lines,
                    node_attrs={"fontname": FONT, "fontsize": style.size(), "height": "0.3",
                                "color": theme.line, "fontcolor": theme.text},
                    edge_attrs={"fontname": FONT, "fontsize": style.size(0.85),
                                "arrowsize": "0.7", "color": theme.line,
                                "fontcolor": theme.text})


#: An operation's text keeps inside this share of its ellipse, so it never touches the line.
OP_TEXT_SHARE = 0.88


def op_style(label: str, style: Style = Style()) -> dict[str, str]:
    """A small circle for a symbol (``*``, ``+``, ``@``), an ellipse for a word (``tanh``).

    The shape is sized from the text itself (its widest line in the wider of Helvetica and
    DejaVu Sans, and its lines' height), so ``**2`` or ``tanh`` has air around it at every
    font size: an ellipse holds a w × h box when its half-axes are √2·w/2 and √2·h/2.
    """
    lines = label.split("\n")
    shape = "circle" if max(len(line) for line in lines) <= 2 else "ellipse"
    font_size = style.font_size * 0.9
    half_width = max(room_for_text(line, font_size) for line in lines) / 2
    half_height = len(lines) * 1.2 * font_size / 2
    width = 2 * 1.4143 * half_width / OP_TEXT_SHARE / 72.0
    height = 2 * 1.4143 * half_height / OP_TEXT_SHARE / 72.0
    if shape == "circle":
        width = height = max(width, height)
    return {"shape": shape, "fontsize": style.size(0.9), "margin": "0.02",
            "width": f"{max(width, 0.3):.3f}", "height": f"{max(height, 0.3):.3f}"}


def value_style(role: str, style: Style = Style()) -> dict[str, str]:
    """Node attributes for a Value or Tensor box: ``role`` is "leaf", "inner" or "root"."""
    theme = style.theme
    if role == "leaf":
        return {"style": "filled", "fillcolor": theme.leaf_fill}
    if role == "root":
        return {"style": "filled", "fillcolor": theme.root_fill, "penwidth": "1.6"}
    return {"style": "filled", "fillcolor": theme.box_fill}


def function_style(style: Style = Style()) -> dict[str, str]:
    """A Tensor backward node (``MulBackward0``): a grey box."""
    return {"shape": "box", "style": "filled", "fillcolor": style.theme.function_fill}


def saved_style(style: Style = Style()) -> dict[str, str]:
    """An array a node saved for backward: a small orange box."""
    return {"shape": "box", "style": "filled", "fillcolor": style.theme.saved_fill,
            "fontsize": style.size(0.75)}
