"""The pictures of lesson 05's reading.

- the 2-2-2 network with w1…w8 on its wires, and the two paths from w1 to E;
- the Linear layer's backward as matrix shapes: dX = G W, dW = Gᵀ X, db = Σ_rows G;
- the backward graph of a small MLP, drawn by ``minigrad.viz``.

Each ``plot_*`` / ``*_graph`` function returns the object, so the notebook shows the same
picture that ``minigrad figures`` writes into ``assets/``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from minigrad.figures.registry import figure, save_png
from minigrad.figures.slide import enlarge_for_slide, slide_figure
from minigrad.figures.words import words

# Positions of the units of the 2-2-2 network (x: layer, y: unit), and its wires.
_UNITS = {"i1": (0.0, 1.0), "i2": (0.0, 0.0), "h1": (1.0, 1.0), "h2": (1.0, 0.0),
          "o1": (2.0, 1.0), "o2": (2.0, 0.0)}
_WIRES = [("w1", "i1", "h1"), ("w2", "i2", "h1"), ("w3", "i1", "h2"), ("w4", "i2", "h2"),
          ("w5", "h1", "o1"), ("w6", "h2", "o1"), ("w7", "h1", "o2"), ("w8", "h2", "o2")]
_WEIGHTS = dict(zip([name for name, _, _ in _WIRES],
                    (0.15, 0.20, 0.25, 0.30, 0.40, 0.45, 0.50, 0.55)))
_PATH_COLOURS = {"o1": "#1f77b4", "o2": "#d62728"}  # the two paths from h1 to E


def plot_network(brief: bool = False) -> Any:
    """The 2-2-2 sigmoid network of §5: units, biases, w1…w8 on the wires, and the two
    paths by which w1 reaches E (through o1 and through o2), in two colours. ``brief``: the
    wires carry their names only (a slide's; the values are on the next slide)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.4, 4.4), layout="constrained")
    radius = 0.17
    for name, source, target in _WIRES:
        (x0, y0), (x1, y1) = _UNITS[source], _UNITS[target]
        colour, width = "0.45", 1.6
        if source == "h1":  # h1 → o1 and h1 → o2: the two paths of w1
            colour, width = _PATH_COLOURS[target], 3.0
        elif name == "w1":
            colour, width = "black", 3.0
        ax.annotate("", xy=(x1 - radius, y1 + (y0 - y1) * radius), xytext=(x0 + radius,
                    y0 + (y1 - y0) * radius),
                    arrowprops=dict(arrowstyle="-|>", color=colour, lw=width, shrinkA=0,
                                    shrinkB=0))
        # The label runs along its own wire, just above it and near its source, so that it
        # never sits on the wire that crosses it.
        share = 0.31 if y0 != y1 else 0.5
        length = math.hypot(x1 - x0, y1 - y0)
        normal = (-(y1 - y0) / length, (x1 - x0) / length)
        lx = x0 + (x1 - x0) * share + 0.075 * normal[0]
        ly = y0 + (y1 - y0) * share + 0.075 * normal[1]
        ax.text(lx, ly, name if brief else f"{name} = {_WEIGHTS[name]:.2f}", ha="center",
                va="center",
                fontsize=12 if y0 == y1 else 11, color=colour if width > 2 else "black",
                rotation=math.degrees(math.atan2(y1 - y0, x1 - x0)), rotation_mode="anchor")
    for name, (x, y) in _UNITS.items():
        ax.add_patch(plt.Circle((x, y), radius, fc="#f2f2f2", ec="black", lw=1.5, zorder=3))
        ax.text(x, y, name, ha="center", va="center", fontsize=15, zorder=4)
    for x, text in ((0.0, words("inputs\n0.05, 0.10")), (1.0, words("hidden: σ\nbias b1 = 0.35")),
                    (2.0, words("output: σ\nbias b2 = 0.60"))):
        ax.text(x, 1.25, text, ha="center", va="bottom", fontsize=12)
    for unit, target in (("o1", "t1 = 0.01"), ("o2", "t2 = 0.99")):
        x, y = _UNITS[unit]
        ax.annotate("", xy=(2.62, 0.5), xytext=(x + radius, y),
                    arrowprops=dict(arrowstyle="-|>", color=_PATH_COLOURS[unit], lw=3.0))
        ax.text(x + 0.5, y + (0.12 if unit == "o1" else -0.12), target, fontsize=12,
                ha="left", va="center")
    ax.text(2.68, 0.5, "E", fontsize=18, va="center")
    if brief:
        ax.text(1.35, -0.55, words("w1 reaches E by two paths: their terms add"), ha="center")
    else:
        ax.text(1.35, -0.55, words("w1 reaches E by two paths, h1 → o1 → E and h1 → o2 → E: "
                                   "their terms add"), ha="center", fontsize=12)
    ax.set_xlim(-0.35, 3.25)
    ax.set_ylim(-0.7, 1.75)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


def _matrix(ax: Any, x: float, y: float, rows: int, cols: int, label: str, shape: str,
            colour: str, cell: float = 0.32) -> float:
    """A rows × cols grid with its bottom left at (x, y); returns its right edge."""
    import matplotlib.pyplot as plt

    for r in range(rows):
        for c in range(cols):
            ax.add_patch(plt.Rectangle((x + c * cell, y + (rows - 1 - r) * cell), cell, cell,
                                       fc=colour, ec="white", lw=1.5))
    middle = x + cols * cell / 2
    ax.text(middle, y + rows * cell + 0.12, label, ha="center", va="bottom", fontsize=14)
    ax.text(middle, y - 0.12, shape, ha="center", va="top", fontsize=11, color="0.3")
    return x + cols * cell


def plot_linear_shapes(batch: int = 4, d: int = 3, h: int = 2, spread: float = 1.0) -> Any:
    """Linear backward as shapes, for Z = X Wᵀ + b with X (B, d), W (h, d), G = dL/dZ (B, h):
    one row per gradient, each a product (or a sum) whose shapes fit. ``spread``: the gaps
    between the matrices of a row, times this (a slide's larger labels need more)."""
    import matplotlib.pyplot as plt

    colours = {"G": "#f4a582", "W": "#92c5de", "X": "#a6dba0", "out": "#bababa"}
    fig, ax = plt.subplots(figsize=(8.6, 6.6), layout="constrained")
    rows = [("dL/dX", (batch, d), [("G", (batch, h), "G"), ("W", (h, d), "W")], "(B, h) @ (h, d)"),
            ("dL/dW", (h, d), [("Gᵀ", (h, batch), "G"), ("X", (batch, d), "X")],
             words("(h, B) @ (B, d): a sum over the batch")),
            ("dL/db", (1, h), [("Σ_rows G", (batch, h), "G")],
             words("(B, h) → (h,): b was copied to every row"))]
    top = 0.0
    for name, shape, factors, note in rows:
        height = max(shape[0], *(f[1][0] for f in factors)) * 0.32
        y = top - height
        right = _matrix(ax, 0.0, y + height - shape[0] * 0.32, *shape, name,
                        f"{shape if name != 'dL/db' else (h,)}", colours["out"])
        ax.text(right + 0.3 * spread, y + height / 2, "=", fontsize=20, va="center")
        x = right + 0.7 * spread
        for index, (label, (r, c), kind) in enumerate(factors):
            if index:
                ax.text(x + 0.15 * spread, y + height / 2, "@", fontsize=16, va="center")
                x += 0.6 * spread
            x = _matrix(ax, x, y + height - r * 0.32, r, c, label, f"({r}, {c})",
                        colours[kind])
        ax.text(x + 0.35 * spread, y + height / 2, note, fontsize=11, va="center",
                color="0.25")
        top = y - 1.0
    ax.text(0.0, 0.75, words("Z = X Wᵀ + b with B = {batch}, d = {d}, h = {h}; G = dL/dZ",
                             batch=batch, d=d, h=h), fontsize=13)
    ax.set_xlim(-0.2, 8.4 + 2 * (spread - 1))
    ax.set_ylim(top + 0.6, 1.1)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


def mlp_loss() -> tuple[Any, dict[str, Any]]:
    """Linear(4, 3) → Tanh → Linear(3, 2) → cross-entropy on a batch of 5 (seed 0), before
    backward; returns (loss, names): ``loss``, ``x`` and the parameters (``0.weight`` …)."""
    import minigrad as mg
    import minigrad.nn as nn
    import minigrad.nn.functional as F

    mg.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
    x = mg.randn(5, 4)
    labels = mg.tensor([0, 1, 1, 0, 1])
    loss = F.cross_entropy(mlp(x), labels)
    return loss, {"loss": loss, "x": x, **dict(mlp.named_parameters())}


def mlp_backward_graph() -> Any:
    """The backward graph of :func:`mlp_loss`, drawn by minigrad.viz: no gradients are shown
    (backward has not run), the root is named ``loss``."""
    from minigrad.viz import draw_graph

    loss, names = mlp_loss()
    return draw_graph(loss, kind="backward", show_grad=False, names=names, rankdir="TB",
                      font_size=14)


@figure("lesson05_network.png", lesson=5, words=True,
        description="the 2-2-2 network with w1…w8 on its wires and w1's two paths to E")
def _network(path: Path) -> None:
    save_png(plot_network(), path)


@figure("lesson05_linear_shapes.png", lesson=5, words=True,
        description="Linear backward as matrix shapes: dX = G W, dW = Gᵀ X, db = Σ_rows G")
def _linear_shapes(path: Path) -> None:
    save_png(plot_linear_shapes(), path)


@figure("lesson05_mlp_backward.svg", lesson=5,
        description="the backward graph of Linear → Tanh → Linear → cross-entropy")
def _mlp_backward(path: Path) -> None:
    mlp_backward_graph().save(path)


@slide_figure("lesson05_network.png")
def _network_slide() -> Any:
    return enlarge_for_slide(plot_network(brief=True))


@slide_figure("lesson05_linear_shapes.png")
def _linear_shapes_slide() -> Any:
    return enlarge_for_slide(plot_linear_shapes(spread=1.8))
