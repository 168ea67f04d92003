"""The pictures of lesson 07's reading.

Every number drawn is computed by minigrad here: the pooled values, the argmax indices and
the gradients come from ``F.max_pool2d`` / ``F.avg_pool2d`` and a real backward pass. Each
``plot_*`` function returns a matplotlib figure so that the notebook shows the picture the
reading embeds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from minigrad.figures.registry import figure, save_png
from minigrad.figures.slide import enlarge_for_slide, slide_figure
from minigrad.figures.words import words

#: The notebook's example (section 1): a 4×4 plane, 2×2 max pooling, stride 2.
ROUTING_INPUT = np.array([[1.0, 2.0, 0.0, 1.0], [4.0, 3.0, 5.0, 2.0],
                          [0.0, 1.0, 2.0, 2.0], [6.0, 0.0, 1.0, 3.0]])
ROUTING_GRAD = np.array([[10.0, 20.0], [30.0, 40.0]])
#: One colour per window, the same in every panel.
WINDOW_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")
FONT = 14


def _grid(ax: Any, array: np.ndarray, x0: float, y0: float, *, colours: Any = None,
          bold: Any = None, fmt: str = "{:g}", size: float = FONT) -> None:
    """Draw ``array`` as a table of unit cells whose top-left corner is (x0, y0), y upward."""
    import matplotlib.patheffects as effects
    import matplotlib.pyplot as plt

    for (row, column), value in np.ndenumerate(array):
        face = "white" if colours is None or colours[row][column] is None else colours[row][column]
        halo = [effects.withStroke(linewidth=4, foreground=face)]  # legible under an arrow
        ax.add_patch(plt.Rectangle((x0 + column, y0 - row - 1), 1, 1, facecolor=face,
                                   edgecolor="#888888", linewidth=1))
        strong = bold is not None and bold[row][column]
        ax.text(x0 + column + 0.5, y0 - row - 0.5, fmt.format(value), ha="center",
                va="center", fontsize=size, fontweight="bold" if strong else "normal",
                path_effects=halo, zorder=4)


def _window_outline(ax: Any, x0: float, y0: float, top: int, left: int, size: int,
                    colour: str, inset: float = 0.06) -> None:
    import matplotlib.pyplot as plt

    ax.add_patch(plt.Rectangle((x0 + left + inset, y0 - top - size + inset), size - 2 * inset,
                               size - 2 * inset, fill=False, edgecolor=colour, linewidth=3))


def _tint(colour: str, alpha: float = 0.25) -> tuple:
    from matplotlib.colors import to_rgb

    red, green, blue = to_rgb(colour)
    return (1 - alpha * (1 - red), 1 - alpha * (1 - green), 1 - alpha * (1 - blue))


def _output_colours() -> list[list[tuple]]:
    """The 2×2 output cells tinted with their window's colour."""
    return [[_tint(colour, 0.35) for colour in WINDOW_COLOURS[2 * row:2 * row + 2]]
            for row in range(2)]


def max_pool_example() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(y, indices, dL/dx) of 2×2 max pooling on ROUTING_INPUT, backward with ROUTING_GRAD."""
    import minigrad as mg
    import minigrad.nn.functional as F

    x = mg.tensor(ROUTING_INPUT[None, None], requires_grad=True)
    y, indices = F.max_pool2d(x, 2, return_indices=True)
    y.backward(mg.tensor(ROUTING_GRAD[None, None]))
    return y.numpy()[0, 0], indices.numpy()[0, 0], x.grad.numpy()[0, 0]


def plot_max_pool_routing(brief: bool = False) -> Any:
    """Forward: each coloured window keeps its maximum (bold) and where it is; backward:
    each entry of dL/dy goes back to that position, every other pixel gets 0. ``brief`` (a
    slide's): y's label on two lines, no "forward" over the arrow."""
    import matplotlib.pyplot as plt

    y, indices, grad_x = max_pool_example()
    fig, ax = plt.subplots(figsize=(11, 3.9), layout="constrained")
    width = ROUTING_INPUT.shape[1]
    winners = np.zeros(ROUTING_INPUT.shape, dtype=bool)
    colours: list[list[Any]] = [[None] * 4 for _ in range(4)]
    for k, flat in enumerate(indices.ravel()):
        row, column = divmod(int(flat), width)
        winners[row, column] = True
        colours[row][column] = _tint(WINDOW_COLOURS[k], 0.35)
    # x with its windows, y, then dL/dy and dL/dx
    _grid(ax, ROUTING_INPUT, 0, 4, colours=colours, bold=winners)
    _grid(ax, y, 5.5, 3, colours=_output_colours())
    _grid(ax, ROUTING_GRAD, 10, 3, colours=_output_colours())
    _grid(ax, grad_x, 14.5, 4, colours=colours, bold=winners)
    for k in range(4):
        top, left = 2 * (k // 2), 2 * (k % 2)
        _window_outline(ax, 0, 4, top, left, 2, WINDOW_COLOURS[k])
        _window_outline(ax, 14.5, 4, top, left, 2, WINDOW_COLOURS[k])
        row, column = divmod(int(indices.ravel()[k]), width)  # dL/dy[k] → its argmax in dL/dx
        # Leave dL/dy over its cell's top edge (first row) or bottom edge (second row), so
        # that no arrow crosses another cell's number on its way out.
        first_row = top == 0
        start = (10 + left // 2 + 0.5, 3.0 if first_row else 1.0)
        end = (14.5 + column + 0.5, 4 - row - 0.5)
        ax.annotate("", xy=end, xytext=start, arrowprops=dict(
            arrowstyle="-|>", color=WINDOW_COLOURS[k], lw=2, shrinkA=0, shrinkB=10,
            connectionstyle=f"arc3,rad={-0.2 if first_row else 0.2}"), zorder=3)
    ax.annotate("", xy=(5.4, 2), xytext=(4.1, 2), arrowprops=dict(arrowstyle="-|>", lw=2))
    if brief:
        labels = ((2, 4.35, words("x (maxima in bold)")), (6.5, 3.35, "y =\nmax_pool2d(x, 2)"),
                  (16.5, 4.35, words("dL/dx (0 off the argmax)")))
    else:
        labels = ((2, 4.35, words("x (maxima in bold)")), (6.5, 3.35, "y = max_pool2d(x, 2)"),
                  (16.5, 4.35, words("dL/dx (0 off the argmax)")))
    for centre, height, text in labels:
        ax.text(centre, height, text, ha="center", fontsize=FONT)
    ax.text(9.85, 2.0, "dL/dy", ha="right", va="center", fontsize=FONT)
    if not brief:
        ax.text(4.75, 2.3, words("forward"), ha="center", fontsize=FONT - 2)
    ax.text(12.25, -0.55, words("backward: each to its argmax"), ha="center", fontsize=FONT - 2)
    ax.set_xlim(-0.2, 18.7)
    ax.set_ylim(-0.85, 4.8)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


def avg_pool_example() -> tuple[np.ndarray, np.ndarray]:
    """(dL/dy, dL/dx) of 2×2 average pooling with stride 1 on a 3×3 plane: four windows
    overlap, so the centre pixel collects a quarter of every window's gradient."""
    import minigrad as mg
    import minigrad.nn.functional as F

    grad_y = np.array([[4.0, 8.0], [12.0, 16.0]])
    x = mg.zeros(1, 1, 3, 3, requires_grad=True)
    F.avg_pool2d(x, 2, stride=1).backward(mg.tensor(grad_y[None, None]))
    return grad_y, x.grad.numpy()[0, 0]


def plot_avg_pool_spread() -> Any:
    """dL/dy of four overlapping 2×2 windows, and dL/dx written as the sum of the quarters
    each pixel receives (the centre is in all four windows)."""
    import matplotlib.pyplot as plt

    grad_y, grad_x = avg_pool_example()
    shares = grad_y / 4
    terms: list[list[list[str]]] = [[[] for _ in range(3)] for _ in range(3)]
    for (i, j), share in np.ndenumerate(shares):
        for row in (i, i + 1):
            for column in (j, j + 1):
                terms[row][column].append(f"{share:g}")
    fig, ax = plt.subplots(figsize=(9, 3.9), layout="constrained")
    _grid(ax, grad_y, 0, 2.5, colours=_output_colours())
    x0 = 5.0
    for row in range(3):
        for column in range(3):
            ax.add_patch(plt.Rectangle((x0 + 1.6 * column, 3 - 1.0 * row - 1), 1.6, 1.0,
                                       facecolor="white", edgecolor="#888888"))
            text = "+".join(terms[row][column]) + f"\n= {grad_x[row, column]:g}"
            ax.text(x0 + 1.6 * column + 0.8, 3 - row - 0.5, text, ha="center", va="center",
                    fontsize=FONT - 2)
    for k in range(4):
        i, j = divmod(k, 2)
        inset = 0.05 + 0.05 * k
        ax.add_patch(plt.Rectangle((x0 + 1.6 * j + inset, 3 - i - 2 + inset), 3.2 - 2 * inset,
                                   2 - 2 * inset, fill=False, edgecolor=WINDOW_COLOURS[k],
                                   linewidth=2.5))
    ax.annotate("", xy=(4.8, 1.5), xytext=(2.3, 1.5), arrowprops=dict(arrowstyle="-|>", lw=2))
    ax.text(3.55, 1.75, words("÷ (k·k) = ÷ 4,\nto every pixel"), ha="center", va="bottom",
            fontsize=FONT - 2)
    ax.text(1, 2.85, "dL/dy", ha="center", fontsize=FONT)
    ax.text(x0 + 2.4, 3.3, words("dL/dx: overlapping windows add"), ha="center", fontsize=FONT)
    ax.set_xlim(-0.2, x0 + 5.0)
    ax.set_ylim(-0.2, 3.8)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


def cnn_loss() -> tuple[Any, dict[str, Any]]:
    """A conv → ReLU → max-pool → Linear net on one 6×6 image (seed 1), its scalar root
    ``loss`` before backward; returns (loss, names)."""
    import minigrad as mg
    import minigrad.nn as nn

    mg.manual_seed(1)
    tiny = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(8, 1))
    loss = tiny(mg.randn(1, 1, 6, 6)).sum()
    return loss, {**dict(tiny.named_parameters()), "loss": loss}


def cnn_backward_graph() -> Any:
    """The backward graph of :func:`cnn_loss` (before backward: no box shows a grad)."""
    from minigrad.viz import draw_graph

    loss, names = cnn_loss()
    return draw_graph(loss, kind="backward", show_data=False, show_grad=False, rankdir="TB",
                      names=names)


def plot_filters(before: np.ndarray, after: np.ndarray, vector: bool = False) -> Any:
    """The first layer's 3×3 filters (16, 3, 3) at initialisation and after training, on one
    colour scale per row (red positive, blue negative), and the change between them.
    ``vector``: each weight a drawn square, not an image's pixel (a slide's SVG)."""
    import matplotlib.pyplot as plt

    count = before.shape[0]
    fig, axes = plt.subplots(3, count, figsize=(12, 3.0), layout="constrained")
    rows = ((words("before"), before), (words("after"), after),
            (words("change"), after - before))
    scale = max(np.abs(before).max(), np.abs(after).max())
    for axes_row, (name, filters) in zip(axes, rows):
        for k, ax in enumerate(axes_row):
            if vector:
                ax.pcolormesh(filters[k], cmap="RdBu_r", vmin=-scale, vmax=scale)
                ax.set(aspect="equal", ylim=(filters[k].shape[0], 0))
            else:
                ax.imshow(filters[k], cmap="RdBu_r", vmin=-scale, vmax=scale)
            ax.set_xticks([])
            ax.set_yticks([])
        axes_row[0].set_ylabel(name, fontsize=FONT - 1, rotation=0, ha="right", va="center")
    fig.suptitle(words("first-layer 3×3 filters, one colour scale (red +, blue −)"),
                 fontsize=FONT)
    return fig


def trained_filters() -> tuple[np.ndarray, np.ndarray]:
    """(before, after): the first layer's filters of the lesson's CNN (seed 0) at
    initialisation and after the notebook's 20 epochs of Adam (12 at 3e-3, 8 at 3e-4)."""
    import minigrad as mg
    import minigrad.nn as nn
    import minigrad.optim as optim
    from minigrad.data import DataLoader, TensorDataset, load_digits
    from minigrad.training import fit

    images, labels = load_digits("train")
    mg.manual_seed(0)
    cnn = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10))
    before = cnn[0].weight.numpy()[:, 0].copy()
    loader = DataLoader(TensorDataset(images, labels), batch_size=32, shuffle=True, seed=0)
    optimizer = optim.Adam(cnn.parameters(), lr=3e-3)
    fit(cnn, nn.CrossEntropyLoss(), optimizer, loader, epochs=12, progress=False)
    for group in optimizer.param_groups:
        group["lr"] = 3e-4
    fit(cnn, nn.CrossEntropyLoss(), optimizer, loader, epochs=8, progress=False)
    return before, cnn[0].weight.numpy()[:, 0].copy()


@figure("lesson07_max_pool_routing.png", lesson=7, words=True,
        description="max pooling: windows, their argmax, and each dL/dy routed back to it")
def _max_pool_routing(path: Path) -> None:
    save_png(plot_max_pool_routing(), path)


@figure("lesson07_avg_pool_spread.png", lesson=7, words=True,
        description="average pooling: each window's gradient split in k·k shares, overlaps add")
def _avg_pool_spread(path: Path) -> None:
    save_png(plot_avg_pool_spread(), path)


@figure("lesson07_cnn_backward.svg", lesson=7,
        description="the backward graph of conv → ReLU → max pool → Linear, root named loss")
def _cnn_backward(path: Path) -> None:
    cnn_backward_graph().save(path)


@figure("lesson07_filters.png", lesson=7, words=True,
        description="the CNN's first-layer filters at initialisation, after training, the change")
def _filters(path: Path) -> None:
    save_png(plot_filters(*trained_filters()), path)


@slide_figure("lesson07_max_pool_routing.png")
def _max_pool_routing_slide() -> Any:
    return enlarge_for_slide(plot_max_pool_routing(brief=True))


@slide_figure("lesson07_avg_pool_spread.png")
def _avg_pool_spread_slide() -> Any:
    return enlarge_for_slide(plot_avg_pool_spread())


@slide_figure("lesson07_filters.png")
def _filters_slide() -> Any:
    before, after = trained_filters()
    return enlarge_for_slide(plot_filters(before[:8], after[:8], vector=True))  # 8 of 16: larger
