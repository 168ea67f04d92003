"""The explanatory pictures of lessons 01–03, drawn by the project's code.

Graphs of Values and Tensors come from :func:`minigrad.viz.draw_graph`; schematic pictures
(a tangent line, an MLP, gate patterns, broadcasting, forward vs reverse mode) are matplotlib
figures whose every number is computed here, by minigrad, not typed in. Each ``plot_*``
function draws into an ``ax`` (or makes its own figure) so the notebooks can show the same
picture the readings embed; ``minigrad figures`` writes them all into ``assets/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from minigrad.figures import _save_png, figure
from minigrad.value import Value

GREEN, RED, GREY = "#2a7d2a", "#c0392b", "#666666"


# ------------------------------------------------------------------ lesson 01
def small_network(a: float = 2.0, w: Sequence[float] = (0.5, -1.5, 3.0, 0.25)) -> Value:
    """Lesson 01 §4: b = w1·a, c = w2·a, d = w3·b + w4·c, L = 10 − d, after backward."""
    node_a = Value(a, "a")
    w1, w2, w3, w4 = (Value(value, f"w{k}") for k, value in enumerate(w, start=1))
    b = w1 * node_a
    c = w2 * node_a
    b.label, c.label = "b", "c"
    d = w3 * b + w4 * c
    d.label = "d"
    loss = 10 - d
    loss.label = "L"
    loss.backward()
    return loss


def two_paths(x: float = 1.5) -> Value:
    """Lesson 01 §2: u = x², v = 3x, L = u·v — x reaches L along two paths (dL/dx = 9x²)."""
    node_x = Value(x, "x")
    u = node_x * node_x
    v = 3 * node_x
    u.label, v.label = "u", "v"
    loss = u * v
    loss.label = "L"
    loss.backward()
    return loss


def plot_tangent(ax: Any = None, at: float = 0.5) -> Any:
    """f(x) = (x²+1)³ and its tangent line at ``at``, slope f'(at) = 6x(x²+1)² (chain rule)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5, 3.4), layout="constrained")
    xs = np.linspace(-1.3, 1.3, 200)
    f = (xs ** 2 + 1) ** 3
    value = (at ** 2 + 1) ** 3
    slope = 6 * at * (at ** 2 + 1) ** 2
    ax.plot(xs, f, color="black", label="f(x) = (x²+1)³")
    near = np.linspace(at - 0.6, at + 0.6, 2)
    ax.plot(near, value + slope * (near - at), color=RED,
            label=f"tangent at x = {at:g}: slope f'(x) = {slope:.4g}")
    ax.plot([at], [value], "o", color=RED)
    ax.set(xlabel="x", ylabel="f(x)", ylim=(0, 8), title="The derivative is the tangent's slope")
    ax.legend(loc="upper center", frameon=False)
    return ax


@figure("lesson01_small_network.svg", lesson=1,
        description="b = w1·a, c = w2·a, d = w3·b + w4·c, L = 10 − d after backward")
def _small_network(path: Path) -> None:
    from minigrad.viz import draw_graph

    draw_graph(small_network(), kind="forward").save(path)


@figure("lesson01_two_paths.svg", lesson=1,
        description="u = x², v = 3x, L = u·v: two paths from x to L, their gradients add")
def _two_paths(path: Path) -> None:
    from minigrad.viz import draw_graph

    draw_graph(two_paths(), kind="forward").save(path)


@figure("lesson01_tangent.png", lesson=1, description="f(x) = (x²+1)³ and its tangent at 0.5")
def _tangent(path: Path) -> None:
    _save_png(plot_tangent().figure, path)


# ------------------------------------------------------------------ lesson 02
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
    names = (["input"] + [f"hidden {k} (tanh)" for k in range(1, len(sizes) - 1)]
             + ["output (linear)"])
    for layer, (column, name) in enumerate(zip(positions, names)):
        xs, ys = zip(*column)
        colour = "#cfe8ff" if layer == 0 else ("#d4f5b0" if layer == len(sizes) - 1 else "white")
        ax.scatter(xs, ys, s=160, color=colour, edgecolor="black", zorder=2)
        ax.text(layer, -(tallest + 1) / 2, f"{name}\n{len(column)}", ha="center", va="top",
                fontsize=9)
    weights = sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))
    ax.set_title(f"MLP {'-'.join(map(str, sizes))}: {weights} parameters (weights + biases)")
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
    captions = {"+": "add distributes", "×": "mul swaps", "max": "max routes"}
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


@figure("lesson02_mlp.png", lesson=2, description="the MLP 2-8-8-1 of lesson 02, layer by layer")
def _mlp(path: Path) -> None:
    _save_png(plot_mlp().figure, path)


@figure("lesson02_gates.png", lesson=2,
        description="gate patterns: add distributes, mul swaps, max routes (values and grads)")
def _gates(path: Path) -> None:
    _save_png(plot_gate_patterns()[0].figure, path)


# ------------------------------------------------------------------ lesson 03
def broadcast_example() -> tuple:
    """X (2×3) + b (3,) → Y, L = Σ W⊙Y; returns (X, b, W, b.grad) with b.grad = Σ_rows W."""
    import minigrad as mg

    X = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = mg.tensor([10.0, 20.0, 30.0], requires_grad=True)
    W = mg.tensor([[1.0, -1.0, 2.0], [0.5, 3.0, -2.0]])
    ((X + b) * W).sum().backward()
    return X, b, W, b.grad


def plot_broadcast(axes: Any = None) -> Any:
    """Forward: b is copied to every row of X; backward: the rows of dL/dY are summed into b."""
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
    left.text(5.5, -0.45, "b, copied to row 2", ha="center", fontsize=9)
    left.text(7.5, 1.0, "=", fontsize=16, ha="center", va="center")
    grid(left, (X + b).detach().numpy(), 8, 1, "#d4f5b0")
    left.set_title("forward: broadcasting copies b to every row")
    right.set_title("backward: the copies' gradients are summed")
    grid(right, W.numpy(), 0, 1, "#ffd9a8")
    right.text(1.5, -0.45, "dL/dY", ha="center", fontsize=9)
    right.annotate("", xy=(5.2, 0.5), xytext=(3.3, 0.5),
                   arrowprops=dict(arrowstyle="->", color=RED))
    right.text(4.25, 0.75, "sum over rows", ha="center", fontsize=9, color=RED)
    grid(right, b_grad.numpy(), 5.5, 0, "#cfe8ff")
    right.text(7.0, -0.45, "b.grad", ha="center", fontsize=9)
    for ax, width in ((left, 11), (right, 9)):
        ax.set_xlim(-0.3, width + 0.3)
        ax.set_ylim(-0.8, 2.3)
        ax.set_aspect("equal")
        ax.axis("off")
    return axes


def plot_modes(ax: Any = None, inputs: int = 4, outputs: int = 1) -> Any:
    """Forward mode pushes one input direction u per pass (Ju); reverse mode pulls one output
    weighting v per pass (Jᵀv). For a loss (1 output, n inputs): n passes against 1."""
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
    ax.text(5.5, 1.25, f"forward mode: u → J₁u → J₂J₁u → Ju  (one pass per input direction: "
            f"{inputs} passes for {inputs} inputs)", ha="center", color=GREEN, fontsize=9.5)
    ax.text(5.5, -1.4, f"reverse mode: Jᵀv ← J₂ᵀJ₃ᵀv ← J₃ᵀv ← v  (one pass per output: "
            f"{outputs} pass for a scalar loss)", ha="center", color=RED, fontsize=9.5)
    ax.set_xlim(-0.5, 11.5)
    ax.set_ylim(-1.8, 1.7)
    ax.axis("off")
    return ax


@figure("lesson03_broadcast.png", lesson=3,
        description="broadcast in forward (b copied to every row), sum in backward")
def _broadcast(path: Path) -> None:
    _save_png(plot_broadcast()[0].figure, path)


@figure("lesson03_modes.png", lesson=3,
        description="forward mode (Ju, one pass per input) against reverse mode (Jᵀv)")
def _modes(path: Path) -> None:
    _save_png(plot_modes().figure, path)


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
