"""Pictures of lesson 02 (a scalar autograd engine): a neuron, an MLP, gate patterns, the
backward order of lesson 01's graph, and a Value MLP trained on two moons.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from minigrad.figures.lesson01 import lesson01_graph
from minigrad.figures.registry import figure, save_png
from minigrad.figures.slide import enlarge_for_slide, slide_figure
from minigrad.figures.style import GREEN, GREY, RED
from minigrad.figures.words import N_, words
from minigrad.scalar.value import Value


@figure("lesson02_backward_order.svg", lesson=2,
        description="the backward graph of the lesson 01 example, in the order backward visits")
def _lesson02_backward_order(path: Path) -> None:
    from minigrad.viz import draw_graph

    draw_graph(lesson01_graph(), kind="backward", show_data=False, show_grad=True,
               rankdir="LR").save(path)


#: The training run shown in lesson 02 (the notebook uses the same settings).
MOONS_SETTINGS = dict(points=60, noise=0.1, layer_sizes=[8, 8, 1], steps=100,
                      learning_rate=1.0, seed=0)


@figure("moons_boundary.png", lesson=2, words=True,
        description="a Value MLP 2-8-8-1 trained on two moons: decision boundary and loss")
def _moons_boundary(path: Path) -> None:
    save_png(plot_moons_boundary(), path)


def plot_moons_boundary(figsize: tuple[float, float] = (8.5, 3.6),
                        loss_label: str = N_("hinge loss + weight penalty")) -> Any:
    """The MLP of :data:`MOONS_SETTINGS` trained on two moons: its decision boundary and its
    training loss (``loss_label`` goes through :func:`minigrad.figures.words.words` in
    :func:`minigrad.figures.plots.plot_loss_curve`)."""
    import matplotlib.pyplot as plt

    from minigrad.data import make_moons
    from minigrad.figures.plots import plot_decision_boundary, plot_loss_curve
    from minigrad.scalar.nn import MLP
    from minigrad.scalar.training import accuracy, predict_scores, train_classifier

    settings = MOONS_SETTINGS
    X, y = make_moons(settings["points"], noise=settings["noise"], seed=settings["seed"])
    model = MLP(2, settings["layer_sizes"], seed=settings["seed"])
    history = train_classifier(model, X, y, steps=settings["steps"],
                               learning_rate=settings["learning_rate"])
    fig, (left, right) = plt.subplots(1, 2, figsize=figsize, layout="constrained",
                                      width_ratios=[1.1, 1])
    plot_decision_boundary(lambda grid: predict_scores(model, grid), X, y, ax=left,
                           resolution=50,
                           title=words("MLP 2-8-8-1, accuracy {accuracy}",
                                       accuracy=f"{accuracy(model, X, y):.0%}"))
    plot_loss_curve(history.losses, ax=right, label=loss_label, title="Training loss")
    return fig


def neuron(x: Sequence[float] = (2.0, -1.0), w: Sequence[float] = (-0.5, 1.5),
           bias: float = 0.8) -> Value:
    """Lesson 02 §6: o = tanh(w1·x1 + w2·x2 + b), after backward."""
    xs = [Value(value, f"x{k}") for k, value in enumerate(x, start=1)]
    ws = [Value(value, f"w{k}") for k, value in enumerate(w, start=1)]
    total = Value(bias, "b")
    for weight, value in zip(ws, xs):
        total = weight * value + total
    total.label = "n"
    out = total.tanh()
    out.label = "o"
    out.backward()
    return out


def plot_mlp(sizes: Sequence[int] = (2, 8, 8, 1), ax: Any = None) -> Any:
    """An MLP as layers of neurons, every neuron wired to every neuron of the next layer."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 3.4), layout="constrained")
    tallest = max(sizes)
    positions = [[(layer, (size - 1) / 2 - k) for k in range(size)]
                 for layer, size in enumerate(sizes)]
    for left, right in zip(positions, positions[1:]):
        for x0, y0 in left:
            for x1, y1 in right:
                ax.plot([x0, x1], [y0, y1], color="#bbbbbb", linewidth=0.6, zorder=1)
    names = ([words("input")] + [words("hidden {k} (tanh)", k=k) for k in range(1, len(sizes) - 1)]
             + [words("output (linear)")])
    for layer, (column, name) in enumerate(zip(positions, names)):
        xs, ys = zip(*column)
        colour = "#cfe8ff" if layer == 0 else ("#d4f5b0" if layer == len(sizes) - 1 else "white")
        ax.scatter(xs, ys, s=160, color=colour, edgecolor="black", zorder=2)
        ax.text(layer, -(tallest + 1) / 2, f"{name}\n{len(column)}", ha="center", va="top",
                fontsize=9)
    weights = sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))
    ax.set_title(words("MLP {sizes}: {weights} parameters (weights + biases)",
                       sizes="-".join(map(str, sizes)), weights=weights))
    ax.set_xlim(-0.5, len(sizes) - 0.5)
    ax.set_ylim(-(tallest + 3) / 2, (tallest + 1) / 2)
    ax.axis("off")
    return ax


def gate_examples() -> list[tuple[str, list[float], list[float]]]:
    """(gate, input values, input gradients) for add, mul and max with an upstream grad of 2.

    add and mul are run through Value's own backward; max(x, y) sends the gradient to the
    larger input (Value has relu = max(a, 0); the two-input max follows the same rule).
    """
    upstream = 2.0
    examples = []
    for symbol, op in (("+", lambda a, b: a + b), ("×", lambda a, b: a * b)):
        a, b = Value(3.0), Value(-1.0)
        out = op(a, b)
        out.grad = upstream
        out._backward(out, upstream)
        examples.append((symbol, [a.data, b.data], [a.grad, b.grad]))
    x, y = 3.0, -1.0
    examples.append(("max", [x, y], [upstream if x >= y else 0.0, upstream if y > x else 0.0]))
    return examples


def plot_gate_patterns(axes: Any = None) -> Any:
    """CS231n's three patterns: add distributes the gradient, mul swaps the inputs, max routes.

    Forward values are green (above the wires), gradients red (below); the output's gradient
    is 2 in every panel.
    """
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(1, 3, figsize=(9, 2.6), layout="constrained")
    captions = {"+": words("add distributes"), "×": words("mul swaps"),
                "max": words("max routes")}
    ops = {"+": lambda a, b: a + b, "×": lambda a, b: a * b, "max": max}
    for ax, (symbol, values, grads) in zip(axes, gate_examples()):
        for (value, grad), y in zip(zip(values, grads), (0.6, -0.6)):
            ax.annotate("", xy=(0, 0), xytext=(-1.6, y),
                        arrowprops=dict(arrowstyle="-", color="black"))
            ax.text(-1.5, y + 0.12, f"{value:g}", color=GREEN, fontsize=11)
            ax.text(-1.5, y - 0.32, f"{grad:g}", color=RED, fontsize=11)
        ax.add_patch(plt.Circle((0, 0), 0.32, facecolor="#e4e4e4", edgecolor="black", zorder=3))
        ax.text(0, 0, symbol, ha="center", va="center", fontsize=12 if symbol != "max" else 9,
                zorder=4)
        ax.annotate("", xy=(1.6, 0), xytext=(0.32, 0), arrowprops=dict(arrowstyle="->"))
        ax.text(0.6, 0.12, f"{ops[symbol](*values):g}", color=GREEN, fontsize=11)
        ax.text(0.6, -0.32, "2", color=RED, fontsize=11)
        ax.set_title(captions[symbol])
        ax.set_xlim(-1.8, 1.8)
        ax.set_ylim(-1.1, 1.1)
        ax.set_aspect("equal")
        ax.axis("off")
    return axes


@figure("lesson02_neuron.svg", lesson=2, description="o = tanh(w1·x1 + w2·x2 + b) after backward")
def _neuron(path: Path) -> None:
    from minigrad.viz import draw_graph

    draw_graph(neuron(), kind="forward").save(path)


@figure("lesson02_mlp.png", lesson=2, words=True,
        description="the MLP 2-8-8-1 of lesson 02, layer by layer")
def _mlp(path: Path) -> None:
    save_png(plot_mlp().figure, path)


@figure("lesson02_gates.png", lesson=2, words=True,
        description="gate patterns: add distributes, mul swaps, max routes (values and grads)")
def _gates(path: Path) -> None:
    save_png(plot_gate_patterns()[0].figure, path)


@slide_figure("moons_boundary.png")
def _moons_boundary_slide() -> Any:
    fig = plot_moons_boundary(loss_label=N_("hinge + penalty"))
    fig.axes[0].set(xlabel="x₁", ylabel="x₂")  # text, not maths mode, whose scripts shrink
    return enlarge_for_slide(fig)


@slide_figure("lesson02_gates.png")
def _gates_slide() -> Any:
    return enlarge_for_slide(plot_gate_patterns()[0].figure)
