"""Figures drawn for a slide: the readings' pictures at 1280 × 720, every label at 20 pt or more.

A reading's figure (a PNG of :mod:`minigrad.figures.registry`) is sized for a page; fitted to
a slide, its text shrinks below what a hall reads. Each figure a deck shows has a slide
drawing as well, registered with :func:`slide_figure` under the reading figure's file name: a
function that returns a matplotlib figure of the slide's own size (:data:`SLIDE_FIGSIZE`),
drawn by the same ``plot_*`` function with slide parameters (larger fonts, briefer labels).

:func:`slide_svg` saves it as SVG with ``svg.fonttype = 'none'``: every label stays a
``<text>`` element, which the deck inlines and the browser measures like all other text. A
slide drawing shows at its natural size, 1 pt of the figure = 1 pt of the 1280 × 720 slide,
so a label set at ``f`` points reads at ``f`` points; :func:`slide_problems` refuses a
drawing with a label under :data:`SLIDE_PT`, a label in maths mode (its sub- and superscripts
are set at 70 %), two labels on top of each other, a label outside the picture, or a picture
bigger than the slide's room.

A drawing is made in the current language (:func:`minigrad.i18n.current`): its labels go
through :func:`minigrad.figures.words.words`, and in Chinese the bundled CJK font is matplotlib's
fallback from the start, so the check measures the Chinese labels in the font that draws them
(a deck names that font in its own CSS, :func:`minigrad.course.slide_words.deck_font_css`).
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any, Callable

from minigrad.figures.registry import find_figures

#: The smallest text on a slide, in points of the 1280 × 720 slide.
SLIDE_PT = 20.0
#: The room a picture has under a slide's title (deck.html: 1280 × 720 less the paddings and
#: the title), in CSS px; 96 px is an inch.
SLIDE_ROOM_PX = (1168.0, 560.0)
#: A slide drawing's size in inches: the whole room.
SLIDE_FIGSIZE = (SLIDE_ROOM_PX[0] / 96, SLIDE_ROOM_PX[1] / 96)

#: reading figure's file name -> the function that draws it for a slide.
SLIDE_FIGURES: dict[str, Callable[[], Any]] = {}

#: matplotlib settings of every slide drawing: text at SLIDE_PT and up, labels as text.
SLIDE_RC = {"font.size": SLIDE_PT, "axes.titlesize": SLIDE_PT + 4, "axes.labelsize": SLIDE_PT,
            "xtick.labelsize": SLIDE_PT, "ytick.labelsize": SLIDE_PT,
            "legend.fontsize": SLIDE_PT, "legend.title_fontsize": SLIDE_PT,
            "figure.titlesize": SLIDE_PT + 4, "axes.formatter.use_mathtext": False,
            "svg.fonttype": "none", "svg.hashsalt": "minigrad", "lines.linewidth": 2.5,
            "lines.markersize": 7, "axes.linewidth": 1.2}

_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def slide_figure(filename: str) -> Callable[[Callable[[], Any]], Callable[[], Any]]:
    """Register ``draw()`` (returning a matplotlib figure) as the slide drawing of the
    reading figure ``filename``."""

    def register(draw: Callable[[], Any]) -> Callable[[], Any]:
        if filename in SLIDE_FIGURES:
            raise ValueError(f"slide figure {filename!r} is registered twice")
        SLIDE_FIGURES[filename] = draw
        return draw

    return register


def power_of_ten(value: float, _position: Any = None) -> str:
    """A log axis' tick label as plain text, ``10⁻⁸`` (not maths mode)."""
    import math

    if value <= 0:
        return ""
    exponent = math.log10(value)
    if abs(exponent - round(exponent)) > 1e-9:
        return ""
    return "10" + str(int(round(exponent))).translate(_SUPERSCRIPTS)


def enlarge_for_slide(fig: Any, figsize: tuple[float, float] = SLIDE_FIGSIZE) -> Any:
    """A reading's figure made a slide's: ``figsize`` inches (at most the room), every label
    under :data:`SLIDE_PT` raised to it (tick labels too), a log axis' labels as plain text
    (``10⁻⁸``). The layout is the figure's own (constrained layout makes room for the larger
    labels); :func:`slide_problems` says if labels then collide."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    fig.set_size_inches(figsize)
    for text in _texts(fig):
        if text.get_fontsize() < SLIDE_PT:
            text.set_fontsize(SLIDE_PT)
    for ax in fig.axes:
        for which in ("major", "minor"):
            for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
                ticks = axis.get_major_ticks() if which == "major" else axis.get_minor_ticks()
                size = max([tick.label1.get_fontsize() for tick in ticks[:1]] + [SLIDE_PT])
                ax.tick_params(axis=name, which=which, labelsize=size)
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "log":
                axis.set_major_locator(LogLocator(numticks=6))
                axis.set_major_formatter(FuncFormatter(power_of_ten))
                axis.set_minor_formatter(NullFormatter())
        legend = ax.get_legend()
        if legend is not None:
            for text in legend.get_texts():
                text.set_fontsize(max(text.get_fontsize(), SLIDE_PT))
    return fig


def _texts(fig: Any) -> list[Any]:
    """Every label ``fig`` draws: its texts, and the tick labels of the axes it shows."""
    from matplotlib.text import Text

    ticks = {id(label) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)
             for tick in axis.get_major_ticks() + axis.get_minor_ticks()
             for label in (tick.label1, tick.label2)}
    shown = [text for text in fig.findobj(Text) if id(text) not in ticks]
    for ax in fig.axes:
        if not ax.axison:
            continue
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis._update_ticks():  # the ticks inside the view, as drawn
                shown += [tick.label1, tick.label2]
    return [text for text in shown if text.get_visible() and text.get_text().strip()]


def slide_problems(fig: Any) -> list[str]:
    """What keeps ``fig`` off a slide: labels under :data:`SLIDE_PT`, maths-mode labels, labels
    that overlap or leave the picture, a picture bigger than :data:`SLIDE_ROOM_PX`."""
    problems = []
    width, height = fig.get_size_inches()
    if width * 96 > SLIDE_ROOM_PX[0] + 0.5 or height * 96 > SLIDE_ROOM_PX[1] + 0.5:
        problems.append(f"the picture is {width * 96:.0f} × {height * 96:.0f} px, the room "
                        f"{SLIDE_ROOM_PX[0]:.0f} × {SLIDE_ROOM_PX[1]:.0f}")
    renderer = fig.canvas.get_renderer()
    for _ in range(2):  # the layout settles in its second pass after labels grew
        fig.draw_without_rendering()
    texts = _texts(fig)
    boxes = []
    for text in texts:
        label = text.get_text()
        if text.get_fontsize() < SLIDE_PT - 1e-9:
            problems.append(f"{label!r} is set at {text.get_fontsize():g} pt, under {SLIDE_PT:g}")
        if re.search(r"(?<!\\)\$", label):
            problems.append(f"{label!r} is maths mode (its scripts shrink): write it in Unicode")
        box = text.get_window_extent(renderer)
        boxes.append((label, box))
        if (box.x0 < -1 or box.y0 < -1 or box.x1 > fig.bbox.width + 1
                or box.y1 > fig.bbox.height + 1):
            problems.append(f"{label!r} leaves the picture")
    for first in range(len(boxes)):
        for second in range(first + 1, len(boxes)):
            (name_a, a), (name_b, b) = boxes[first], boxes[second]
            overlap_x = min(a.x1, b.x1) - max(a.x0, b.x0)
            overlap_y = min(a.y1, b.y1) - max(a.y0, b.y0)
            if overlap_x > 1 and overlap_y > 1:
                problems.append(f"{name_a!r} and {name_b!r} overlap")
    return problems


def draw_slide_figure(filename: str) -> Any:
    """The slide drawing of the reading figure ``filename`` (checked), as a matplotlib figure,
    its labels in the current language. It is drawn on white for both themes: on a dark slide
    it is a white card."""
    import matplotlib

    from minigrad.figures.words import use_cjk_font
    from minigrad.i18n.language import current

    matplotlib.use("Agg")
    (reading,) = find_figures([filename])  # imports every lesson's module, registering these
    if reading.filename not in SLIDE_FIGURES:
        raise ValueError(f"the figure {reading.filename!r} has no slide drawing; register one "
                         "with minigrad.figures.slide.slide_figure")
    with matplotlib.rc_context(SLIDE_RC):
        if current() != "en":  # before the figure exists: its texts take the font when made
            use_cjk_font()
        fig = SLIDE_FIGURES[reading.filename]()
        problems = slide_problems(fig)
    if problems:
        import matplotlib.pyplot as plt

        plt.close(fig)
        raise ValueError(f"the slide drawing of {reading.filename} does not read from the back "
                         f"of a hall: {'; '.join(problems)}")
    return fig


def slide_svg(filename: str, transparent: bool = False) -> str:
    """The slide drawing of ``filename`` as an SVG document whose labels are ``<text>``
    elements (``svg.fonttype = 'none'``), reproducible (no date, fixed ids), its ids prefixed
    with the figure's name; ``transparent``: no white ground (for a dark deck, which shows
    the drawing with its colours inverted)."""
    import matplotlib
    import matplotlib.pyplot as plt

    fig = draw_slide_figure(filename)
    out = io.StringIO()
    with matplotlib.rc_context(SLIDE_RC):
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None},
                    transparent=transparent)
    plt.close(fig)
    text = out.getvalue()
    return _own_ids(text[text.find("<svg"):], Path(filename).stem)


def _own_ids(svg: str, prefix: str) -> str:
    """The SVG with every ``id`` (and each reference to one) prefixed, so that several
    drawings inlined in one page (a deck) share no id."""
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', svg)
    return re.sub(r'(url\(#|href="#)([^)"]+)', rf'\1{prefix}-\2', svg)
