"""A backward pass drawn for a slide: each step as a focus view, at a size a hall can read.

A whole backward graph shrunk onto a 1280 × 720 slide sets a conv net's text at 9–15 px; the
back of a hall needs 20 pt (26.7 px). So each step of a deck's stepper draws only

* the node the step processes (orange),
* the nodes its gradient came from (the nodes that used it in the forward pass), and
* the nodes it sends gradient to (blue, with their running sums),

with the box texts of :class:`minigrad.viz.frame_drawing.FrameDrawer` (brief: a large array
by its shape) at :data:`SLIDE_GRAPH_PT` points. The deck shows each drawing at its natural
size, never shrunk (1 pt of the drawing is 4/3 CSS px, and a 1280 × 720 slide is shown at
1280 × 720 CSS px on a 1280 × 720 screen), and the step's caption (what arrives, where it
goes, the rule) as text beside or under it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from minigrad.viz.frame_drawing import FrameDrawer
from minigrad.viz.frames import Frame

SLIDE_GRAPH_PT = 21.0  # a little over 20 pt, so rounding in the browser stays above it
BOX_LINE_CHARS = 22    # a box's line longer than this shows an array by its shape alone


@dataclass(frozen=True)
class SlideStep:
    """One step of a deck's stepper: its picture (a focus drawing's SVG text, or HTML such as
    the number grids of :mod:`minigrad.course.arithmetic`) and its caption lines."""

    picture: str
    caption: tuple[str, ...]


class SlideDrawer(FrameDrawer):
    """Box texts for a slide: an array's preview goes to the caption, its shape stays."""

    def lines(self, frame: Frame, index: int) -> list[str]:
        return [line.split(" [", 1)[0] if len(line) > BOX_LINE_CHARS and " [" in line
                else line for line in super().lines(frame, index)]


def focus(replay: Any, node_index: int) -> set[int]:
    """The node ``node_index``, the nodes it sends gradient to, and the nodes that send to it."""
    node = replay.nodes[node_index]
    near = {node_index} | {parent for parent in node.parents if parent is not None}
    near |= {other.index for other in replay.nodes if node_index in other.parents}
    return near


def slide_steps(root: Any, names: dict[str, Any] | None = None, *, rankdir: str = "TB",
                theme: str = "light") -> list[SlideStep]:
    """Every step of ``root``'s backward pass as a focus drawing at slide size."""
    from minigrad.viz import Graph, backward_steps

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a conv net's many steps: on purpose
        steps = backward_steps(root, names=names, font_size=SLIDE_GRAPH_PT, rankdir=rankdir,
                               brief=True, theme=theme)
    drawer = SlideDrawer(steps.replay, steps.frames, style=steps.style,
                         rankdir=rankdir, digits=steps.digits, brief=True)
    drawn = []
    for frame in steps.frames:
        dot = drawer.dot(frame, caption=False, only=focus(steps.replay, frame.node))
        dot.graph_attrs.update(ranksep="0.35")
        svg = Graph(dot.source, dot.node_count, dot.edge_count).svg()
        drawn.append(SlideStep(svg, tuple(drawer.caption(frame).splitlines())))
    return drawn
