"""Pictures of lesson 03 (tensors and how an op is built): the first tensor example's graphs,
Jacobians built row by row, broadcasting forward and backward, forward against reverse mode.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from minigrad.figures.registry import figure, save_png
from minigrad.figures.slide import enlarge_for_slide, slide_figure
from minigrad.figures.style import GREEN, GREY, RED
from minigrad.figures.words import words


def lesson03_example() -> tuple:
    """The first tensor example of lesson 03, returned as ``(x, y, z, out)`` before backward.

    x = ones(2, 2) requiring grad, y = x + 2, z = y·y·3, out = mean(z) = 27;
    after ``out.backward()``, x.grad = 6(x + 2)/4 = 4.5 in every entry.
    """
    import minigrad as mg

    x = mg.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    return x, y, z, out


@figure("lesson03_backward_graph.svg", lesson=3,
        description="backward graph of out = mean(3·(x+2)²): MeanBackward0 … AccumulateGrad (x), "
                    "None for the constants 3 and 2")
def _lesson03_backward_graph(path: Path) -> None:
    x, _, _, out = lesson03_example()
    backward_graph_with_constants(out, names={"x": x, "out": out}).save(path)


@figure("lesson03_forward_graph.svg", lesson=3,
        description="forward graph of the same example after backward: data and grad of x, y, z, out")
def _lesson03_forward_graph(path: Path) -> None:
    from minigrad.viz import draw_graph

    from minigrad.viz import record

    with record():  # keep every tensor: the forward graph's boxes are the tensors themselves
        x, y, z, out = lesson03_example()
    out.backward()
    draw_graph(out, kind="forward", names={"x": x, "y": y, "z": z, "out": out}).save(path)


def lesson03_jacobian(fn: Callable, point: Iterable[float]) -> "numpy.ndarray":
    """Jacobian of ``fn`` at ``point`` (1-D, used as float64), by reverse mode: one backward per row.

    Row i is the vector-Jacobian product with the one-hot vector e_i:  e_iᵀ J = J[i, :].
    """
    import numpy as np

    import minigrad as mg

    rows = []
    size = fn(mg.tensor(point, dtype=mg.float64)).shape[0]
    for i in range(size):
        x = mg.tensor(point, dtype=mg.float64, requires_grad=True)
        one_hot = np.zeros(size)
        one_hot[i] = 1.0
        fn(x).backward(gradient=mg.tensor(one_hot, dtype=mg.float64))
        rows.append(x.grad.numpy())
    return np.stack(rows)


@figure("lesson03_jacobians.png", lesson=3, words=True,
        description="Jacobians built row by row by backward: tanh (diagonal) and softmax (dense)")
def _lesson03_jacobians(path: Path) -> None:
    import matplotlib.pyplot as plt
    import numpy as np

    from minigrad.figures.plots import plot_matrix

    point = np.linspace(-1.5, 1.5, 6)  # the notebook uses the same point
    jacobians = {
        words("Jacobian of tanh (elementwise)"): lesson03_jacobian(lambda t: t.tanh(), point),
        words("Jacobian of softmax"): lesson03_jacobian(lambda t: t.softmax(dim=0), point),
    }
    fig, axes = plt.subplots(1, 2, figsize=(7, 3.2), layout="constrained")
    for ax, (title, matrix) in zip(axes, jacobians.items()):
        plot_matrix(matrix, ax=ax, title=title)
    save_png(fig, path)
def broadcast_example() -> tuple:
    """X (2×3) + b (3,) → Y, L = Σ W⊙Y; returns (X, b, W, b.grad) with b.grad = Σ_rows W."""
    import minigrad as mg

    X = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = mg.tensor([10.0, 20.0, 30.0], requires_grad=True)
    W = mg.tensor([[1.0, -1.0, 2.0], [0.5, 3.0, -2.0]])
    ((X + b) * W).sum().backward()
    return X, b, W, b.grad


def plot_broadcast(axes: Any = None, brief: bool = False) -> Any:
    """Forward: b is copied to every row of X; backward: the rows of dL/dY are summed into b.
    ``brief``: shorter titles (a slide's)."""
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(9, 2.8), layout="constrained")
    X, b, W, b_grad = broadcast_example()
    left, right = axes

    def grid(ax: Any, array: np.ndarray, x0: float, y0: float, colour: str,
             faded_rows: Sequence[int] = ()) -> None:
        for (row, col), value in np.ndenumerate(np.atleast_2d(array)):
            alpha = 0.35 if row in faded_rows else 1.0
            ax.add_patch(plt.Rectangle((x0 + col, y0 - row), 1, 1, facecolor=colour,
                                       edgecolor="black", alpha=alpha))
            ax.text(x0 + col + 0.5, y0 - row + 0.5, f"{value:g}", ha="center", va="center")

    grid(left, X.numpy(), 0, 1, "white")
    left.text(3.5, 1.0, "+", fontsize=16, ha="center", va="center")
    grid(left, np.stack([b.detach().numpy()] * 2), 4, 1, "#cfe8ff", faded_rows=[1])
    left.text(5.5, -0.45, words("b, copied to row 2"), ha="center", fontsize=9)
    left.text(7.5, 1.0, "=", fontsize=16, ha="center", va="center")
    grid(left, (X + b).detach().numpy(), 8, 1, "#d4f5b0")
    if brief:
        left.set_title(words("forward: b copied to every row"))
        right.set_title(words("backward: the copies' gradients add up"))
    else:
        left.set_title(words("forward: broadcasting copies b to every row"))
        right.set_title(words("backward: the copies' gradients are summed"))
    grid(right, W.numpy(), 0, 1, "#ffd9a8")
    right.text(1.5, -0.45, "dL/dY", ha="center", fontsize=9)
    right.annotate("", xy=(5.2, 0.5), xytext=(3.3, 0.5),
                   arrowprops=dict(arrowstyle="->", color=RED))
    right.text(4.25, 0.75, words("sum over rows"), ha="center", fontsize=9, color=RED)
    grid(right, b_grad.numpy(), 5.5, 0, "#cfe8ff")
    right.text(7.0, -0.45, "b.grad", ha="center", fontsize=9)
    for ax, width in ((left, 11), (right, 9)):
        ax.set_xlim(-0.3, width + 0.3)
        ax.set_ylim(-0.8, 2.3)
        ax.set_aspect("equal")
        ax.axis("off")
    return axes


def plot_modes(ax: Any = None, inputs: int = 4, outputs: int = 1, brief: bool = False) -> Any:
    """Forward mode pushes one input direction u per pass (Ju); reverse mode pulls one output
    weighting v per pass (Jᵀv). For a loss (1 output, n inputs): n passes against 1.
    ``brief``: each mode's text in two short lines (a slide's)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.0), layout="constrained")
    steps = ["x", "h₁ = f₁(x)", "h₂ = f₂(h₁)", "L = f₃(h₂)"]
    for k, name in enumerate(steps):
        ax.add_patch(plt.Rectangle((3 * k, -0.4), 2, 0.8, facecolor="#e4e4e4",
                                   edgecolor="black"))
        ax.text(3 * k + 1, 0, name, ha="center", va="center", fontsize=10)
    for k in range(len(steps) - 1):
        ax.annotate("", xy=(3 * k + 3, 0.75), xytext=(3 * k + 2, 0.75),
                    arrowprops=dict(arrowstyle="->", color=GREEN))
        ax.annotate("", xy=(3 * k + 2, -0.75), xytext=(3 * k + 3, -0.75),
                    arrowprops=dict(arrowstyle="->", color=RED))
    if brief:
        ax.text(5.5, 1.1, words("forward mode: u → J₁u → J₂J₁u → Ju\n"
                                "one pass per input: {inputs} passes", inputs=inputs),
                ha="center", va="bottom", color=GREEN)
        ax.text(5.5, -1.1, words("reverse mode: Jᵀv ← J₂ᵀJ₃ᵀv ← J₃ᵀv ← v\n"
                                 "one pass per output: {outputs} for a loss", outputs=outputs),
                ha="center", va="top", color=RED)
        ax.set_xlim(-0.5, 11.5)
        ax.set_ylim(-2.9, 2.9)
        ax.axis("off")
        return ax
    ax.text(5.5, 1.25, words("forward mode: u → J₁u → J₂J₁u → Ju  (one pass per input direction: "
                             "{inputs} passes for {inputs} inputs)", inputs=inputs),
            ha="center", color=GREEN, fontsize=9.5)
    ax.text(5.5, -1.4, words("reverse mode: Jᵀv ← J₂ᵀJ₃ᵀv ← J₃ᵀv ← v  (one pass per output: "
                             "{outputs} pass for a scalar loss)", outputs=outputs),
            ha="center", color=RED, fontsize=9.5)
    ax.set_xlim(-0.5, 11.5)
    ax.set_ylim(-1.8, 1.7)
    ax.axis("off")
    return ax


@figure("lesson03_broadcast.png", lesson=3, words=True,
        description="broadcast in forward (b copied to every row), sum in backward")
def _broadcast(path: Path) -> None:
    save_png(plot_broadcast()[0].figure, path)


@figure("lesson03_modes.png", lesson=3, words=True,
        description="forward mode (Ju, one pass per input) against reverse mode (Jᵀv)")
def _modes(path: Path) -> None:
    save_png(plot_modes().figure, path)


def backward_graph_with_constants(root: Any, names: dict | None = None) -> Any:
    """``draw_graph(root, kind="backward")`` plus one small ``None`` box per constant input.

    ``next_functions`` lists ``None`` where an op's input needs no gradient (a Python number,
    a tensor that does not require grad); torchviz leaves those out, the lesson shows them.
    """
    from minigrad.viz.graph import Graph
    from minigrad.viz.tensor_graph import function_order, tensor_graph

    dot = tensor_graph(root, "backward", show_data=True, show_grad=False, rankdir="LR",
                       names=names or {}, show_saved=False, show_order=False, digits=4,
                       title=None)
    for position, node in enumerate(function_order(root.grad_fn)):
        for slot, (next_node, _) in enumerate(node.next_functions):
            if next_node is None:
                none_id = f"none{position}_{slot}"
                dot.node(none_id, "None", shape="plaintext", fontcolor=GREY, fontsize="10")
                dot.edge(f"f{position}", none_id, style="dashed", color=GREY)
    return Graph(dot.source, dot.node_count, dot.edge_count)


@slide_figure("lesson03_broadcast.png")
def _broadcast_slide() -> Any:
    import matplotlib.pyplot as plt

    _, axes = plt.subplots(2, 1, layout="constrained")
    return enlarge_for_slide(plot_broadcast(axes, brief=True)[0].figure)


@slide_figure("lesson03_modes.png")
def _modes_slide() -> Any:
    return enlarge_for_slide(plot_modes(brief=True).figure)
