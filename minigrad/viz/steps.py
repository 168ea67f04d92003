"""``backward_steps`` and ``trace_backward``: a backward pass you can step through, or read.

    steps = mg.viz.backward_steps(loss)     # in Jupyter: a stepper (prev / next / play)
    steps.save("steps.html")                # the same stepper, one file for a browser
    steps.save("steps.gif")                 # an animation
    steps.save_frames("frames/", format="svg")
    mg.viz.trace_backward(loss)             # every local derivative and product, as text

One step per node the engine visits, in the engine's own order (see
:mod:`minigrad.viz.replay`). The graph is not changed: no ``.grad`` is written, and a Tensor
graph stays usable for ``loss.backward()`` afterwards.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any, Mapping

from minigrad.viz.draw import READABLE_NODES
from minigrad.viz.frame_drawing import FrameDrawer
from minigrad.viz.frames import Frame, build_frames
from minigrad.viz.graph import Graph
from minigrad.viz.replay import replay
from minigrad.viz.stepper import stepper_fragment, stepper_page, trace_fragment
from minigrad.viz.style import DEFAULT_FONT_SIZE, Style
from minigrad.viz.trace import trace_lines, trace_text

FRAME_FORMATS = ("svg", "png")
GIF_SECONDS_PER_FRAME = 1.5


class BackwardSteps:
    """The frames of one backward pass (see the module docstring).

    ``len(steps)`` is the number of steps; ``steps[i]`` the :class:`Frame` of step ``i + 1``;
    ``steps.svg(i)`` its drawing; ``steps.trace()`` the text of every step.
    """

    def __init__(self, root: Any, *, gradient: Any = None,
                 names: Mapping[str, Any] | None = None, theme: str = "light",
                 font_size: float = DEFAULT_FONT_SIZE, rankdir: str = "LR",
                 digits: int = 4, brief: bool = False) -> None:
        self.style = Style.of(theme, font_size)
        self.replay = replay(root, gradient, dict(names or {}))
        self.frames: list[Frame] = build_frames(self.replay)
        if len(self.frames) > READABLE_NODES:
            warnings.warn(f"this backward pass has {len(self.frames)} steps; past about "
                          f"{READABLE_NODES} nodes a stepper is hard to follow: step through a "
                          "smaller graph (one neuron, one layer)", UserWarning, stacklevel=3)
        self.digits = digits
        self.drawer = FrameDrawer(self.replay, self.frames, style=self.style, rankdir=rankdir,
                                  digits=digits, brief=brief)
        self._svgs: dict[tuple[int, bool], str] = {}

    def __len__(self) -> int:
        return len(self.frames)

    def __getitem__(self, index: int) -> Frame:
        return self.frames[index]

    def __repr__(self) -> str:
        kind = "Tensor" if self.replay.is_tensor else "Value"
        return f"<minigrad.viz.BackwardSteps: {len(self)} steps of a {kind} graph>"

    # ------------------------------------------------------------------ pictures
    def graph(self, index: int, caption: bool = True) -> Graph:
        """The drawing of step ``index + 1`` as a :class:`Graph` (``.svg()``, ``.save()``)."""
        dot = self.drawer.dot(self.frames[index], caption=caption)
        return Graph(dot.source, dot.node_count, dot.edge_count)

    def svg(self, index: int, caption: bool = True) -> str:
        """SVG text of step ``index + 1``."""
        key = (index, caption)
        if key not in self._svgs:
            self._svgs[key] = self.graph(index, caption).svg()
        return self._svgs[key]

    def trace(self) -> str:
        """Every step's arithmetic as text (what :func:`trace_backward` prints)."""
        return trace_text(self.replay, self.frames, self.digits)

    def _texts(self) -> list[str]:
        return ["\n".join(block) for block in trace_lines(self.replay, self.frames, self.digits)]

    def html(self, whole_page: bool = True) -> str:
        """The stepper: a whole HTML page, or (``whole_page=False``) a fragment."""
        svgs = [self.svg(index, caption=False) for index in range(len(self))]
        title = f"backward pass, {len(self)} steps in the engine's order"
        size = self.style.font_size  # the arithmetic grows with the drawing's text
        if whole_page:
            return stepper_page(svgs, self._texts(), title=title,
                                background=self.style.theme.background,
                                color=self.style.theme.text, font_size=size)
        return stepper_fragment(svgs, self._texts(), title=title, font_size=size)

    def _repr_html_(self) -> str:
        return self.html(whole_page=False)

    # ------------------------------------------------------------------ files
    def save(self, path: str | Path, *, dpi: float | None = None) -> Path:
        """Write the stepper (``.html``) or an animation (``.gif``); returns the path."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix in (".html", ".htm"):
            data = self.html().encode("utf-8")
        elif suffix == ".gif":
            data = self._gif(dpi)
        else:
            raise ValueError(f"cannot save backward steps as {path.name!r}: the suffix "
                             f"{path.suffix or '(none)'!r} is not .html or .gif (use "
                             "save_frames(folder, format='svg' or 'png') for pictures)")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def save_frames(self, folder: str | Path, format: str = "svg", *,  # noqa: A002
                    dpi: float | None = None) -> list[Path]:
        """Write one numbered picture per step (``step01.svg`` …) into ``folder``."""
        if format not in FRAME_FORMATS:
            raise ValueError(f"format must be 'svg' or 'png', got {format!r}")
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        digits = len(str(len(self)))
        written = []
        for index in range(len(self)):
            path = folder / f"step{index + 1:0{max(2, digits)}d}.{format}"
            if format == "svg":
                path.write_text(self.svg(index), encoding="utf-8")
            else:
                path.write_bytes(self.graph(index).pipe("png", dpi=dpi))
            written.append(path)
        return written

    def _gif(self, dpi: float | None) -> bytes:
        from PIL import Image  # Pillow comes with matplotlib

        images = [Image.open(io.BytesIO(self.graph(index).pipe("png", dpi=dpi))).convert("RGB")
                  for index in range(len(self))]
        width = max(image.width for image in images)
        height = max(image.height for image in images)
        background = self.style.theme.background
        canvas = []
        for image in images:  # captions differ in width: every frame on one canvas size
            frame = Image.new("RGB", (width, height), background)
            frame.paste(image, (0, 0))
            canvas.append(frame)
        output = io.BytesIO()
        canvas[0].save(output, format="GIF", save_all=True, append_images=canvas[1:],
                       duration=int(GIF_SECONDS_PER_FRAME * 1000), loop=0)
        return output.getvalue()


def backward_steps(root: Any, *, gradient: Any = None, names: Mapping[str, Any] | None = None,
                   theme: str = "light", font_size: float = DEFAULT_FONT_SIZE,
                   rankdir: str = "LR", digits: int = 4, brief: bool = False) -> BackwardSteps:
    """Replay the backward pass from ``root`` (a ``Value`` or a ``Tensor``) as frames.

    Args:
        root: the output (usually the loss); a non-scalar Tensor needs ``gradient``.
        gradient: the vector v of vᵀJ for a non-scalar Tensor root.
        names: ``{"x": x, "W": W}`` names for tensors (a Value's ``label`` is used otherwise).
        theme, font_size, rankdir, digits: how the frames look (as in ``draw_graph``).
        brief: in the boxes, an array too large to list by its shape alone (slides: the trace
            keeps every number), so a big graph's text stays large when it is fitted to a page.

    Returns:
        :class:`BackwardSteps`: a stepper in Jupyter; ``.save("steps.html" | "steps.gif")``,
        ``.save_frames(folder, format="svg" | "png")``, ``.trace()``.
    """
    return BackwardSteps(root, gradient=gradient, names=names, theme=theme,
                         font_size=font_size, rankdir=rankdir, digits=digits, brief=brief)


class Trace(str):
    """The text of :func:`trace_backward`; in Jupyter it shows at its ``font_size``."""

    font_size: float = DEFAULT_FONT_SIZE

    def _repr_html_(self) -> str:
        return trace_fragment(str(self), self.font_size)


class PrintedTrace(str):
    """The text :func:`trace_backward` has already printed: a plain ``str`` everywhere, but
    as the last line of a Jupyter cell it shows nothing more (the text is on the page)."""

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        pass


def trace_backward(root: Any, *, gradient: Any = None, names: Mapping[str, Any] | None = None,
                   digits: int = 4, file: Any = None,
                   font_size: float | None = None) -> str:
    """Print, step by step in the engine's order, the node, the gradient arriving, each local
    derivative and the product sent to each parent, with running sums. Returns the text.

    With ``font_size`` (points, as in ``draw_graph``) nothing is printed: the returned
    :class:`Trace` shows itself in Jupyter as text of that size, for a lecture room
    (``str(trace)`` is the plain text).
    """
    text = BackwardSteps(root, gradient=gradient, names=names, digits=digits).trace()
    if font_size is None:
        print(text, end="", file=file)
        return PrintedTrace(text)
    trace = Trace(text)
    trace.font_size = Style.of("light", font_size).font_size  # checks the range
    return trace
