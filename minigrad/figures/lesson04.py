"""The pictures of lesson 04's reading.

The graphs are drawn by :func:`minigrad.viz.draw_graph` from real tensors; the view picture
reads its numbers, its storage sharing and its version counters from minigrad tensors.
Each function returns what the notebook shows (a Graph or a matplotlib figure).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from minigrad.figures.registry import figure, save_png
from minigrad.figures.slide import enlarge_for_slide, slide_figure
from minigrad.figures.words import words

FONT = 14
RED, BLUE, GREY = "#c0392b", "#1f77b4", "#666666"


LEAVES_LEGEND = ("blue: leaf that requires grad (keeps .grad)\n"
                 "dashed: leaf that needs no grad\n"
                 "white: made by an op (has a grad_fn)\n"
                 "green: the root, where backward starts")


def leaves_graph(title: str | None = LEAVES_LEGEND, **style: Any) -> Any:
    """w (a leaf that requires grad) times scaled = data·2 (a leaf: nothing was recorded,
    since data does not require grad), summed: mixed and loss are non-leaves. ``style``:
    draw_graph's options (a slide's font size, direction and theme)."""
    import minigrad as mg
    from minigrad.viz import draw_graph

    w = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    data = mg.ones(3)
    with mg.viz.record():
        scaled = data * 2
        mixed = w * scaled
        loss = mixed.sum()
    assert w.is_leaf and scaled.is_leaf and not mixed.is_leaf and not scaled.requires_grad
    return draw_graph(loss, kind="forward", show_data=False, show_grad=False,
                      names={"w": w, "scaled": scaled, "mixed": mixed, "loss": loss},
                      title=title, **style)


def detach_example() -> tuple[Any, dict[str, Any]]:
    """loss = Σ x·detach(x) at x = [1, 2], before backward; returns (loss, names)."""
    import minigrad as mg

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x.detach()).sum()
    return loss, {"x": x, "loss": loss}


def detach_graph() -> Any:
    """The backward graph of loss = Σ x·detach(x): MulBackward0 has one path to x and a
    None where the detached copy was — dL/dx = x, not 2x."""
    from minigrad.figures.lesson03 import backward_graph_with_constants

    loss, names = detach_example()
    return backward_graph_with_constants(loss, names=names)


def view_example() -> dict[str, Any]:
    """b = a·2 (2×3), its row view b[0], c = b·b (saves b); then b[0].mul_(2) in place.

    Returns b's numbers before and after (the write through the view changed b), the
    versions of b and of the view before and after, whether the view's base is b, and the
    error backward then raises."""
    import minigrad as mg

    a = mg.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
    b = a * 2
    row = b[0]
    c = b * b
    before = b.detach().numpy().copy()
    versions_before = (b._version, row._version)
    row.mul_(2)
    versions_after = (b._version, row._version)
    try:
        c.sum().backward()
        error = ""
    except RuntimeError as raised:
        error = str(raised)
    return {"before": before, "after": b.detach().numpy().copy(),
            "versions_before": versions_before, "versions_after": versions_after,
            "row_base_is_b": row._base is b, "error": error}


def plot_view_and_version() -> Any:
    """One storage, two tensors: b (2×3) and its view b[0] (the first three numbers). An
    in-place write through the view changes b and bumps the version counter they share,
    so the b that c = b·b saved at version 0 is refused by backward."""
    import matplotlib.pyplot as plt

    example = view_example()
    fig, axes = plt.subplots(2, 1, figsize=(10, 4.9), layout="constrained")
    steps = ((words("b = a * 2;  row = b[0];  c = b * b   (c saves b at version 0)"),
              example["before"], example["versions_before"], ""),
             (words("row.mul_(2)   (in place, through the view)"),
              example["after"], example["versions_after"],
              words("c.sum().backward() → RuntimeError: b was saved at version 0, is now at "
                    "version 1")))
    for ax, (title, values, versions, note) in zip(axes, steps):
        flat = values.ravel()
        for k, value in enumerate(flat):
            face = "#cfe8ff" if k < 3 else "white"
            ax.add_patch(plt.Rectangle((k, 0), 1, 1, facecolor=face, edgecolor="#444444"))
            ax.text(k + 0.5, 0.5, f"{value:g}", ha="center", va="center", fontsize=FONT)
        ax.text(-0.2, 0.5, words("storage"), ha="right", va="center", fontsize=FONT - 2, color=GREY)
        ax.annotate("", xy=(0, 1.25), xytext=(3, 1.25),
                    arrowprops=dict(arrowstyle="|-|", color=BLUE, lw=1.8))
        ax.text(1.5, 1.45, words("row = b[0]  (a view)"), ha="center", va="bottom",
                fontsize=FONT - 1,
                color=BLUE)
        ax.annotate("", xy=(0, -0.25), xytext=(6, -0.25),
                    arrowprops=dict(arrowstyle="|-|", color="black", lw=1.2))
        ax.text(3, -0.75, words("b  (2×3, the base)"), ha="center", fontsize=FONT - 1)
        ax.add_patch(plt.Rectangle((7.2, 0.05), 3.4, 0.9, facecolor="#fff3c4",
                                   edgecolor="#444444"))
        ax.text(8.9, 0.5, words("version {number}", number=versions[0]), ha="center", va="center",
                fontsize=FONT, fontweight="bold")
        ax.text(8.9, 1.25, words("one counter, shared by b and row"), ha="center",
                fontsize=FONT - 3,
                color=GREY)
        ax.set_title(title, fontsize=FONT - 1, loc="left")
        if note:
            ax.text(-1.3, -1.35, note, fontsize=FONT - 2, color=RED)
        ax.set_xlim(-1.4, 10.8)
        ax.set_ylim(-1.5, 2.0)
        ax.set_aspect("equal")
        ax.axis("off")
    return fig


@figure("lesson04_leaves.svg", lesson=4,
        description="leaves and non-leaves: w requires grad, scaled = data·2 is a leaf too")
def _leaves(path: Path) -> None:
    leaves_graph().save(path)


@figure("lesson04_view_version.png", lesson=4, words=True,
        description="a view and its base share storage and one version counter")
def _view_version(path: Path) -> None:
    save_png(plot_view_and_version(), path)


@figure("lesson04_detach.svg", lesson=4,
        description="backward graph of Σ x·detach(x): one path to x, None for the detached copy")
def _detach(path: Path) -> None:
    detach_graph().save(path)


@slide_figure("lesson04_view_version.png")
def _view_version_slide() -> Any:
    return enlarge_for_slide(plot_view_and_version())
