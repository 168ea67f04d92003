"""The pictures of lesson 06's reading.

Every number drawn is the reading's worked case: x = 1…9 (3 × 3), w = [[1, 2], [3, 4]],
δ = [[1, 2], [−1, 1]]; and for the stride, a 3 × 3 kernel 1…9 with δ = [[1, 2], [3, 4]] on a
5 × 5 input. The arrays are computed here (by the library's numpy reference convolution,
:mod:`minigrad.kernels.im2col`), not typed in, so a figure cannot disagree with the text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np

from minigrad.figures.registry import figure, save_png
from minigrad.figures.slide import enlarge_for_slide, slide_figure
from minigrad.figures.words import words

BLUE, ORANGE, GREEN, PURPLE = "#cfe8ff", "#ffd9a8", "#d4f5b0", "#e6d5f5"
HIGHLIGHT, GREY = "#c0392b", "#999999"
FONT = 13  # reads at projector size

WORKED_X = np.arange(1.0, 10.0).reshape(3, 3)
WORKED_W = np.array([[1.0, 2.0], [3.0, 4.0]])
WORKED_DELTA = np.array([[1.0, 2.0], [-1.0, 1.0]])
STRIDED_W = np.arange(1.0, 10.0).reshape(3, 3)
STRIDED_DELTA = np.array([[1.0, 2.0], [3.0, 4.0]])


def conv_plane(x: np.ndarray, w: np.ndarray, delta: np.ndarray, stride: int = 1
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y, dL/dx, dL/dw) of one plane, no bias, by the numpy reference convolution."""
    from minigrad.kernels import im2col as conv

    plane, kernel, grad = (np.asarray(a, dtype=np.float64)[None, None] for a in (x, w, delta))
    settings = (stride, stride), (0, 0)
    return (conv.conv2d_forward(plane, kernel, *settings)[0, 0],
            conv.conv2d_grad_input(grad, kernel, plane.shape, *settings)[0, 0],
            conv.conv2d_grad_weight(plane, grad, kernel.shape, *settings)[0, 0])


def draw_grid(ax: Any, array: np.ndarray, x0: float, y0: float, colour: str, label: str = "",
              window: Optional[tuple[int, int, int]] = None, faded: Optional[np.ndarray] = None,
              step: int = 1) -> None:
    """Draw ``array`` as numbered cells, top-left cell at (x0, y0); outline the ``window``
    (row, column, size) in red; draw cells where ``faded`` is True (padding, dilation zeros)
    grey. ``step`` > 1 outlines only every step-th cell of the window (a strided read)."""
    import matplotlib.pyplot as plt

    rows, columns = array.shape
    for (row, column), value in np.ndenumerate(array):
        grey = faded is not None and faded[row, column]
        ax.add_patch(plt.Rectangle((x0 + column, y0 - row), 1, 1, edgecolor="black",
                                   facecolor="#f2f2f2" if grey else colour, linewidth=0.8))
        ax.text(x0 + column + 0.5, y0 - row + 0.5, f"{value:g}", ha="center", va="center",
                fontsize=FONT, color=GREY if grey else "black")
    if window is not None:
        top, left, size = window
        ax.add_patch(plt.Rectangle((x0 + left, y0 - top - size + 1), size, size, fill=False,
                                   edgecolor=HIGHLIGHT, linewidth=3))
    if label:
        ax.text(x0 + columns / 2, y0 + 1.35, label, ha="center", va="bottom", fontsize=FONT)


def _operator(ax: Any, x: float, y: float, text: str) -> None:
    # the ⋆ glyph is drawn small in most fonts: it gets a larger size than "="
    ax.text(x, y, text, ha="center", va="center", fontsize=FONT + (20 if text == "⋆" else 7))


def _slide_operators(fig: Any) -> Any:
    """The ⋆ and = between the grids at a slide's size (twice the labels' and more)."""
    for text in fig.axes[0].texts:
        if text.get_text() in ("⋆", "="):
            text.set_fontsize(72 if text.get_text() == "⋆" else 40)
    return fig


def _finish(ax: Any, width: float, top: float, bottom: float, caption: str = "") -> None:
    if caption:
        ax.text(width / 2, bottom - 0.2, caption, ha="center", va="top", fontsize=FONT,
                color=HIGHLIGHT)
    ax.set_xlim(-0.3, width + 0.3)
    ax.set_ylim(bottom - 1.3, top + 2.4)
    ax.set_aspect("equal")
    ax.axis("off")


def plot_sliding_window(ax: Any = None, brief: bool = False) -> Any:
    """The forward pass: the kernel on the window of output (0, 1) of the worked case.
    ``brief``: the caption's sum only (a slide's)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3.4), layout="constrained")
    y, _, _ = conv_plane(WORKED_X, WORKED_W, WORKED_DELTA)
    draw_grid(ax, WORKED_X, 0, 0, BLUE, words("input x"), window=(0, 1, 2))
    _operator(ax, 4.0, -0.5, "⋆")
    draw_grid(ax, WORKED_W, 5, 0, ORANGE, words("kernel w"), window=(0, 0, 2))
    _operator(ax, 8.0, -0.5, "=")
    draw_grid(ax, y, 9, 0, GREEN, words("output y"), window=(0, 1, 1))
    if brief:
        _finish(ax, 11, 0, -2, f"y[0, 1] = 1·2 + 2·3 + 3·5 + 4·6 = {y[0, 1]:g}")
    else:
        _finish(ax, 11, 0, -2, words("y[0, 1] = 1·2 + 2·3 + 3·5 + 4·6 = {value}: the kernel "
                                      "slides one pixel, the weights stay the same",
                                      value=f"{y[0, 1]:g}"))
    return ax


def plot_weight_gradient(ax: Any = None) -> Any:
    """∂L/∂w = x ⋆ δ: δ slides over x like a kernel; entry (0, 1) is its window at (0, 1)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3.4), layout="constrained")
    _, _, grad_w = conv_plane(WORKED_X, WORKED_W, WORKED_DELTA)
    draw_grid(ax, WORKED_X, 0, 0, BLUE, words("input x"), window=(0, 1, 2))
    _operator(ax, 4.0, -0.5, "⋆")
    draw_grid(ax, WORKED_DELTA, 5, 0, PURPLE, "δ = ∂L/∂y", window=(0, 0, 2))
    _operator(ax, 8.0, -0.5, "=")
    draw_grid(ax, grad_w, 9, 0, ORANGE, "∂L/∂w", window=(0, 1, 1))
    _finish(ax, 11, 0, -2, words("∂L/∂w[0, 1] = 1·2 + 2·3 − 1·5 + 1·6 = {value}: δ plays the "
                                  "kernel",
                                  value=f"{grad_w[0, 1]:g}"))
    return ax


def plot_full_convolution(ax: Any = None) -> Any:
    """∂L/∂x: δ padded with k − 1 zeros, the kernel rotated by 180°, entry (1, 1)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 3.9), layout="constrained")
    _, grad_x, _ = conv_plane(WORKED_X, WORKED_W, WORKED_DELTA)
    padded = np.pad(WORKED_DELTA, 1)
    zeros = np.pad(np.zeros_like(WORKED_DELTA, dtype=bool), 1, constant_values=True)
    draw_grid(ax, padded, 0, 0, PURPLE, words("δ padded with k − 1 = 1 zero"), window=(1, 1, 2),
              faded=zeros)
    _operator(ax, 5.0, -1.0, "⋆")
    draw_grid(ax, WORKED_W[::-1, ::-1], 6, -0.5, ORANGE, words("w rotated 180°"), window=(0, 0, 2))
    _operator(ax, 9.0, -1.0, "=")
    draw_grid(ax, grad_x, 10, 0, BLUE, "∂L/∂x", window=(1, 1, 1))
    _finish(ax, 13, 0, -3, words("∂L/∂x[1, 1] = 1·4 + 2·3 − 1·2 + 1·1 = {value}: the full "
                                  "convolution gives x's shape back", value=f"{grad_x[1, 1]:g}"))
    return ax


def plot_stride_dilation(ax: Any = None, brief: bool = False) -> Any:
    """Stride 2: δ dilated with one zero between entries, padded by k − 1 = 2, then the
    stride-1 rule; here the window of ∂L/∂x[2, 2]. ``brief``: "dilate" under its arrow, the
    caption's sum only (a slide's)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(13, 4.6), layout="constrained")
    _, grad_x, _ = conv_plane(np.zeros((5, 5)), STRIDED_W, STRIDED_DELTA, stride=2)
    dilated = np.zeros((3, 3))
    dilated[::2, ::2] = STRIDED_DELTA
    inserted = np.ones((3, 3), dtype=bool)
    inserted[::2, ::2] = False
    padded = np.pad(dilated, 2)
    faded = np.pad(inserted, 2, constant_values=True)
    draw_grid(ax, STRIDED_DELTA, 0, -2.5, PURPLE, words("δ (stride 2)"))
    ax.annotate("", xy=(3.6, -2.0), xytext=(2.3, -2.0),
                arrowprops=dict(arrowstyle="->", color="black", linewidth=1.5))
    if brief:
        ax.text(2.95, -2.2, words("dilate"), ha="center", va="top")
    else:
        ax.text(2.95, -1.5, words("dilate"), ha="center", fontsize=FONT - 1)
    draw_grid(ax, padded, 4, 0, PURPLE,
              words("δ dilated (1 zero between), padded by k − 1 = 2"),
              window=(2, 2, 3), faded=faded)
    _operator(ax, 12.0, -2.5, "⋆")
    draw_grid(ax, STRIDED_W[::-1, ::-1], 13, -1.0, ORANGE, words("w rotated 180°"),
              window=(0, 0, 3))
    _operator(ax, 17.0, -2.5, "=")
    draw_grid(ax, grad_x, 18, 0, BLUE, words("∂L/∂x (5 × 5)"), window=(2, 2, 1))
    if brief:
        _finish(ax, 23, 0, -6, f"∂L/∂x[2, 2] = 1·9 + 2·7 + 3·3 + 4·1 = {grad_x[2, 2]:g}")
    else:
        _finish(ax, 23, 0, -6, words("∂L/∂x[2, 2] = 1·9 + 2·7 + 3·3 + 4·1 = {value}: four "
                                      "windows overlap on this pixel", value=f"{grad_x[2, 2]:g}"))
    return ax


def conv_pool_net_loss() -> tuple[Any, dict[str, Any]]:
    """A conv + ReLU + max-pool + Linear net on one 6 × 6 image; returns (loss, names)."""
    import minigrad as mg
    import minigrad.nn as nn
    import minigrad.nn.functional as F

    mg.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(2 * 2 * 2, 3))
    image = mg.randn(1, 1, 6, 6)
    loss = F.cross_entropy(net(image), mg.tensor([1]))
    return loss, {**{f"net.{name}": p for name, p in net.named_parameters()}, "loss": loss}


@figure("lesson06_sliding_window.png", lesson=6, words=True,
        description="the kernel slides over the input: y[0, 1] from its window")
def _sliding_window(path: Path) -> None:
    save_png(plot_sliding_window().figure, path)


@figure("lesson06_weight_gradient.png", lesson=6, words=True,
        description="∂L/∂w = x ⋆ δ: δ slides over the input like a kernel")
def _weight_gradient(path: Path) -> None:
    save_png(plot_weight_gradient().figure, path)


@figure("lesson06_full_convolution.png", lesson=6, words=True,
        description="∂L/∂x: δ padded with k − 1 zeros, correlated with the rotated kernel")
def _full_convolution(path: Path) -> None:
    save_png(plot_full_convolution().figure, path)


@figure("lesson06_stride_dilation.png", lesson=6, words=True,
        description="stride 2: δ dilated with zeros, padded, correlated with the rotated kernel")
def _stride_dilation(path: Path) -> None:
    save_png(plot_stride_dilation().figure, path)


@figure("lesson06_backward_graph.svg", lesson=6,
        description="the backward graph of a conv + ReLU + max-pool + Linear net")
def _backward_graph(path: Path) -> None:
    from minigrad.viz import draw_graph

    loss, names = conv_pool_net_loss()
    draw_graph(loss, kind="backward", show_data=False, show_grad=False, names=names,
               rankdir="TB").save(path)


@slide_figure("lesson06_sliding_window.png")
def _sliding_window_slide() -> Any:
    return _slide_operators(enlarge_for_slide(plot_sliding_window(brief=True).figure))


@slide_figure("lesson06_weight_gradient.png")
def _weight_gradient_slide() -> Any:
    return _slide_operators(enlarge_for_slide(plot_weight_gradient().figure))


@slide_figure("lesson06_full_convolution.png")
def _full_convolution_slide() -> Any:
    return _slide_operators(enlarge_for_slide(plot_full_convolution().figure))


@slide_figure("lesson06_stride_dilation.png")
def _stride_dilation_slide() -> Any:
    return _slide_operators(enlarge_for_slide(plot_stride_dilation(brief=True).figure))
