"""Drawing one step of a backward pass: the graph with that step's node and edges lit up.

Every frame draws the same boxes, laid out as the forward graph (inputs on the left), with
arrows pointing the way gradient flows (towards the inputs):

* the node being processed: orange, thick border (SVG class ``current``);
* the nodes whose gradient that step changed: blue (class ``changed``), with the running sum
  ``grad 1 + 14 = 15`` (class ``changed``), and the edges that carried it in orange;
* nodes already processed: grey text (class ``done``).

So that a stepper can flip between frames without the picture jumping, every box has a fixed
size (``fixedsize=true``): wide enough for its widest text over *all* frames in Helvetica or in
DejaVu Sans (whichever face the renderer measures with), so Graphviz lays out every frame
identically.
"""

from __future__ import annotations

from typing import Any

from minigrad.viz.dot import DotGraph
from minigrad.viz.fonts import room_for_text
from minigrad.viz.frames import Frame, definition, describe, is_scalar, node_names, rule_text
from minigrad.viz.labels import format_number
from minigrad.viz.replay import Replay
from minigrad.viz.style import Style, base_graph

_BOX_MARGIN_PT = 18.0  # Graphviz's default margin of a box, both sides, plus a little air


class FrameDrawer:
    """Writes the DOT text of any frame of one replay, all with the same box sizes."""

    def __init__(self, replay: Replay, frames: list[Frame], *, style: Style = Style(),
                 rankdir: str = "LR", digits: int = 4, brief: bool = False) -> None:
        self.replay, self.frames, self.style = replay, frames, style
        self.rankdir, self.digits, self.brief = rankdir, digits, brief
        self.names = node_names(replay)
        self.steps = {frame.node: frame.step for frame in frames}
        widest = [0.0] * len(replay.nodes)
        line_counts = [1] * len(replay.nodes)
        measured: dict[str, float] = {}
        for frame in frames:
            for index in range(len(replay.nodes)):
                lines = self.lines(frame, index)
                line_counts[index] = len(lines)
                for line in lines:
                    if line not in measured:
                        measured[line] = room_for_text(line, style.font_size)
                    widest[index] = max(widest[index], measured[line])
        # Sizes in inches; Graphviz sets lines 1.2 font sizes apart.
        self.widths = [(width + _BOX_MARGIN_PT) / 72.0 for width in widest]
        self.heights = [(count * 1.2 * style.font_size + _BOX_MARGIN_PT * 0.6) / 72.0
                        for count in line_counts]

    # ------------------------------------------------------------------ text
    def lines(self, frame: Frame, index: int) -> list[str]:
        """The lines of node ``index``'s box in ``frame``."""
        node = self.replay.nodes[index]
        grad = frame.grads[index]
        if index in frame.before:  # it just received gradient: show the running sum
            grad_text = self._running_sum(frame, index)
        elif grad is None:
            grad_text = "grad -"
        else:
            grad_text = f"grad {describe(grad, self.digits, self.brief)}"
        step = f"{self.steps[index]}. " if index in self.steps else ""
        if node.kind == "function":  # numbered by its step, so "#3" is not needed
            name = f"{node.label} ({node.op})" if node.label else node.op
            return [f"{step}{name}", grad_text]
        data = node.data
        data_text = "data " + (format_number(data, self.digits) if not self.replay.is_tensor
                               else describe(data, self.digits, self.brief))
        name = definition(node, self.names)
        if data_text == f"data {name}":  # an unnamed constant such as 2: its name is its data
            return [name, grad_text]
        return [f"{step}{name}", data_text, grad_text]

    def _running_sum(self, frame: Frame, index: int) -> str:
        """``grad 1 + 1 × 14 = 15``: what it had, plus local derivative × arriving gradient."""
        previous = frame.before[index]
        sends = [send for send in frame.sends if send.parent == index]
        total = frame.grads[index]
        if all(is_scalar(send.sent) and send.local is not None for send in sends) \
                and is_scalar(total):
            number = lambda value: format_number(value, self.digits)  # noqa: E731
            terms = [number(previous)] if previous is not None else []
            terms += [f"{number(send.local)} × {number(frame.grad_in)}" for send in sends]
            return f"grad {' + '.join(terms)} = {number(total)}"
        return f"grad {describe(total, self.digits, self.brief)}"

    def caption(self, frame: Frame) -> str:
        """One line saying what the step does, e.g. ``step 4/8: v = u + c, grad 14 arrives``."""
        node = self.replay.nodes[frame.node]
        what = definition(node, self.names)
        grad = describe(frame.grad_in, self.digits)
        if node.kind == "leaf":
            return f"step {frame.step}/{len(self.frames)}: {what} is a leaf, grad {grad}"
        targets = ", ".join(self.names[i] for i in frame.changed) or "nothing"
        text = (f"step {frame.step}/{len(self.frames)}: {what}, grad {grad} arrives; "
                f"sends to {targets}")
        return f"{text}\nrule: {rule_text(node, self.names)}" if node.rule else text

    # ------------------------------------------------------------------ DOT
    def dot(self, frame: Frame, caption: bool = True,
            only: set[int] | None = None) -> DotGraph:
        """The DOT graph of ``frame`` (with its caption underneath, unless ``caption=False``);
        ``only``: draw just these nodes and the edges between them (a focus view)."""
        theme = self.style.theme
        dot = base_graph(self.rankdir, caption=self.caption(frame) if caption else None,
                         style=self.style)
        dot.graph_attrs.update(ranksep="0.5", nodesep="0.3")
        shown = [node for node in self.replay.nodes if only is None or node.index in only]
        for node in shown:
            index = node.index
            attrs: dict[str, Any] = {"shape": "box", "style": "rounded,filled",
                                     "width": f"{self.widths[index]:.3f}",
                                     "height": f"{self.heights[index]:.3f}",
                                     "fixedsize": "true",
                                     "fillcolor": self._fill(node.kind, index)}
            if index == frame.node:
                attrs.update({"class": "current", "fillcolor": theme.current_fill,
                              "color": theme.current_line, "penwidth": "3"})
            elif index in frame.before:
                attrs.update({"class": "changed", "fillcolor": theme.changed_fill,
                              "color": theme.changed_line, "penwidth": "2.5"})
            elif index in frame.done:
                attrs.update({"class": "done", "fontcolor": theme.done_text})
            dot.node(f"n{index}", "\n".join(self.lines(frame, index)), **attrs)
        for node in shown:
            for parent in node.parents:
                if parent is None or (only is not None and parent not in only):
                    continue
                attrs = {"dir": "back"}  # drawn parent -> child, arrow at the parent
                if node.index == frame.node:
                    attrs.update({"color": theme.current_line, "penwidth": "2.5",
                                  "class": "sending"})
                dot.edge(f"n{parent}", f"n{node.index}", **attrs)
        return dot

    def _fill(self, kind: str, index: int) -> str:
        theme = self.style.theme
        if index == self.replay.visits[0].node:
            return theme.root_fill
        if kind == "leaf":
            return theme.leaf_fill
        return theme.function_fill if kind == "function" else theme.box_fill
