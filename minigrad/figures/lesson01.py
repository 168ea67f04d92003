"""Pictures of lesson 01 (derivatives and the chain rule), drawn by the project's code.

The worked graph u = a·b, v = u + c, L = v·v + u; a small network of Values; two paths that
add up; a tangent line; the error of central and forward differences against ε. Each
``plot_*`` function draws into an ``ax`` (or makes its own figure), so a notebook can show the
picture the reading embeds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from minigrad.figures.registry import figure, save_png
from minigrad.figures.slide import enlarge_for_slide, slide_figure
from minigrad.figures.style import GREEN, GREY, RED
from minigrad.figures.words import N_, words
from minigrad.scalar.value import Value


def lesson01_graph() -> Value:
    """The worked graph of lesson 01: u = a·b, v = u + c, L = v·v + u at a=2, b=3, c=1.

    Returns L with backward already run: a.grad = 45, b.grad = 30, c.grad = 14.
    """
    a, b, c = Value(2.0, "a"), Value(3.0, "b"), Value(1.0, "c")
    u = a * b
    u.label = "u"
    v = u + c
    v.label = "v"
    v_squared = v * v
    v_squared.label = "v·v"
    loss = v_squared + u
    loss.label = "L"
    loss.backward()
    return loss


@figure("epsilon_error.png", lesson=1, words=True,
        description="error of central and forward differences of (x²+1)³ at x=1 against ε")
def _epsilon_error(path: Path) -> None:
    save_png(plot_epsilon_error().figure, path)


def plot_epsilon_error(title: str = N_("Finite-difference error, f(x) = (x²+1)³ at x = 1")
                       ) -> Any:
    """The error of central and forward differences of (x²+1)³ at x = 1 against ε (``title``
    and the legend go through :func:`minigrad.figures.words.words` in
    :func:`minigrad.figures.plots.plot_difference_errors`)."""
    from minigrad.scalar.numerical import difference_errors
    from minigrad.figures.plots import plot_difference_errors

    def f(x: float) -> float:
        return (x * x + 1.0) ** 3

    exact = 24.0  # f'(1) = 6·1·(1+1)²
    eps, central = difference_errors(f, 1.0, exact, method="central")
    _, forward = difference_errors(f, 1.0, exact, method="forward")
    ax = plot_difference_errors(eps, central, label="central difference", order=2, title=title)
    plot_difference_errors(eps, forward, ax=ax, label=N_("forward difference"), order=1,
                           guides=False, title=None)
    return ax


@figure("lesson01_graph.svg", lesson=1,
        description="u = a·b, v = u + c, L = v·v + u after backward: data and grad in each node")
def _lesson01_graph(path: Path) -> None:
    from minigrad.viz import draw_graph

    draw_graph(lesson01_graph(), kind="forward", show_data=True, show_grad=True,
               rankdir="LR").save(path)


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
            label=words("tangent at x = {at}: slope f'(x) = {slope}", at=f"{at:g}",
                      slope=f"{slope:.4g}"))
    ax.plot([at], [value], "o", color=RED)
    ax.set(xlabel="x", ylabel="f(x)", ylim=(0, 8),
           title=words("The derivative is the tangent's slope"))
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


@figure("lesson01_tangent.png", lesson=1, words=True,
        description="f(x) = (x²+1)³ and its tangent at 0.5")
def _tangent(path: Path) -> None:
    save_png(plot_tangent().figure, path)


@slide_figure("epsilon_error.png")
def _epsilon_error_slide() -> Any:
    return enlarge_for_slide(plot_epsilon_error(title=N_("f(x) = (x²+1)³ at x = 1")).figure)
