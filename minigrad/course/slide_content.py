"""What each lesson's slide deck shows, as data: one small table per lesson.

A deck is the lesson's title slide, then these slides in order, then the reading's summary.
Each slide names the reading's section its speaker notes come from (``notes="3."`` is the
section whose heading starts ``## 3.``); the notes are that section's prose, not a copy.

- :class:`Picture`: a figure of the registry (``minigrad/figures``), by its reading file's
  name; the deck shows its slide drawing (:mod:`minigrad.figures.slide`), inline SVG whose
  labels are text at 20 pt or more.
- :class:`Numbers`: the lesson's worked numbers (the syllabus' numbers, recomputed in float64),
  one line each, in plain Unicode maths.
- :class:`Drawing`: a graph drawn for the slide by ``draw(font_size, rankdir, theme)`` (a
  :class:`minigrad.viz.Graph`); the deck picks the direction that fits at 20 pt, and shows
  ``legend`` beside it.
- :class:`Code`: what the lesson builds, as code; ``source`` returns its text.
- :class:`Arithmetic`: the lesson's sums as a stepper of number grids
  (:mod:`minigrad.course.arithmetic`); ``build`` returns the steps.
- :class:`Steps`: the lesson's central backward graph as a stepper of focus drawings
  (:mod:`minigrad.course.slide_graph`, laid out ``rankdir``); ``build`` returns
  ``(root, names)`` from the lesson's figure module, before any backward that would free it.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Picture:
    figure: str            # a file name of minigrad.figures.FIGURES
    title: str
    notes: str = ""        # the reading's section, e.g. "3."


@dataclass(frozen=True)
class Numbers:
    title: str
    lines: tuple[str, ...]
    notes: str = ""


@dataclass(frozen=True)
class Drawing:
    title: str
    draw: Callable[[float, str, str], Any]
    notes: str = ""
    legend: tuple[str, ...] = ()


@dataclass(frozen=True)
class Code:
    title: str
    source: Callable[[], str]
    notes: str = ""


@dataclass(frozen=True)
class Arithmetic:
    title: str
    build: Callable[[], list[Any]]
    notes: str = ""


@dataclass(frozen=True)
class Steps:
    title: str
    build: Callable[[], tuple[Any, dict[str, Any]]]
    notes: str = ""
    rankdir: str = "TB"


Slide = Picture | Numbers | Drawing | Code | Arithmetic | Steps


# ---------------------------------------------------------------------- the central graphs
def _lesson01() -> tuple[Any, dict[str, Any]]:
    from minigrad.figures.lesson01 import lesson01_graph

    return lesson01_graph(), {}


def _lesson02() -> tuple[Any, dict[str, Any]]:
    from minigrad.figures.lesson02 import neuron

    return neuron(), {}


def _lesson03() -> tuple[Any, dict[str, Any]]:
    from minigrad.figures.lesson03 import lesson03_example

    x, _, _, out = lesson03_example()
    return out, {"x": x, "out": out}


def _lesson04() -> tuple[Any, dict[str, Any]]:
    from minigrad.figures.lesson04 import detach_example

    return detach_example()


def _lesson05() -> tuple[Any, dict[str, Any]]:
    from minigrad.figures.lesson05 import mlp_loss

    return mlp_loss()


def _lesson06() -> tuple[Any, dict[str, Any]]:
    from minigrad.figures.lesson06 import conv_pool_net_loss

    return conv_pool_net_loss()


def _lesson07() -> tuple[Any, dict[str, Any]]:
    from minigrad.figures.lesson07 import cnn_loss

    return cnn_loss()


def _lesson08() -> tuple[Any, dict[str, Any]]:
    from minigrad.figures.lesson08 import l2_objective

    tensors = l2_objective(backward=False)
    return tensors["J"], tensors


# ---------------------------------------------------------------------- graphs drawn for a slide
def _two_paths(font_size: float, rankdir: str, theme: str) -> Any:
    from minigrad.figures.lesson01 import two_paths
    from minigrad.viz import draw_graph

    return draw_graph(two_paths(), kind="forward", rankdir=rankdir, theme=theme,
                      font_size=font_size)


def _leaves(font_size: float, rankdir: str, theme: str) -> Any:
    from minigrad.figures.lesson04 import leaves_graph

    return leaves_graph(title=None, rankdir=rankdir, theme=theme, font_size=font_size)


def _detach(font_size: float, rankdir: str, theme: str) -> Any:
    from minigrad.figures.lesson04 import detach_example
    from minigrad.viz import draw_graph

    loss, names = detach_example()
    return draw_graph(loss, kind="backward", names=names, rankdir=rankdir, theme=theme,
                      font_size=font_size)


# ---------------------------------------------------------------------- code
def source_of(function: Callable) -> str:
    """A function's source as the lesson's file has it, without its docstring."""
    text = textwrap.dedent(inspect.getsource(function))
    return re.sub(r'\n\s*"""(?:.|\n)*?"""\n', "\n", text, count=1)


def _mul_backward() -> str:
    from minigrad.scalar.value import Value

    return (source_of(Value._mul_backward) + "\n# a * b makes its output with the rule beside it:\n"
            'Value(a.data * b.data, "", (a, b), "*", Value._mul_backward)')


def _backward() -> str:
    from minigrad.scalar.value import Value

    return source_of(Value.backward)


def _topological_order() -> str:
    from minigrad.scalar.value import topological_order

    return source_of(topological_order)


def _conv_arithmetic() -> list[Any]:
    from minigrad.course.arithmetic import conv_steps

    return conv_steps()


def _pool_arithmetic() -> list[Any]:
    from minigrad.course.arithmetic import pool_steps

    return pool_steps()


# ---------------------------------------------------------------------- the decks
SLIDES: dict[int, tuple[Slide, ...]] = {
    1: (
        Drawing("Several paths add: u = x², v = 3x, L = u·v", _two_paths, notes="2."),
        Numbers("A worked graph: u = a·b, v = u + c, L = v² + u", (
            "at a = 2, b = 3, c = 1:   u = 6,  v = 7,  L = 49 + 6 = 55",
            "∂L/∂v = 2v = 14",
            "∂L/∂u = 14 · 1 (via v) + 1 (direct) = 15",
            "∂L/∂a = 15 · b = 45",
            "∂L/∂b = 15 · a = 30",
            "∂L/∂c = 14 · 1 = 14",
        ), notes="3."),
        Steps("Backward, step by step", _lesson01, notes="3."),
        Numbers("A small network, symbolically", (
            "b = w1·a,  c = w2·a,  d = w3·b + w4·c,  L = 10 − d",
            "∂L/∂w1 = −w3 · a",
            "∂L/∂a = −(w3·w1 + w4·w2)   (two paths add)",
        ), notes="4."),
        Picture("epsilon_error.png", "Central differences: a V-shaped error", notes="5."),
    ),
    2: (
        Code("A local rule: Value._mul_backward", _mul_backward, notes="1."),
        Code("Backward: one pass in reverse topological order", _backward, notes="2."),
        Code("The order: a depth-first search with a stack", _topological_order, notes="2."),
        Numbers("Gradients add, never assign", (
            "y = x · x:  x gets 2x (one share per use)",
            "w = 2;  (w·3).backward();  (w·4).backward()  →  w.grad = 7",
            "after w.grad = 0:  (w·4).backward()  →  w.grad = 4",
        ), notes="4."),
        Picture("lesson02_gates.png", "Gate patterns: add distributes, mul swaps, max routes",
                notes="3."),
        Numbers("A neuron: o = tanh(w1·x1 + w2·x2 + b)", (
            "x = (2, −1),  w = (−0.5, 1.5),  b = 0.8",
            "n = w1·x1 + w2·x2 + b = −1.7,  o = tanh(n) ≈ −0.9354",
            "∂o/∂n = 1 − o² ≈ 0.125",
            "∂o/∂w1 = 0.125 · x1 ≈ 0.25,  ∂o/∂x1 = 0.125 · w1 ≈ −0.0625",
        ), notes="6."),
        Steps("A neuron, step by step", _lesson02, notes="6."),
        Picture("moons_boundary.png", "A tiny MLP of Values learns two moons", notes="6."),
    ),
    3: (
        Numbers("A first tensor computation", (
            "x = ones(2, 2), requires_grad;  y = x + 2;  z = y·y·3;  out = z.mean()",
            "out = 27",
            "∂out/∂x = 6(x + 2)/4 = 4.5 in every entry",
            "x = [1, 2],  y = x²,  v = [3, 4]:  Jᵀv = [6, 16]",
        ), notes="1."),
        Steps("The backward graph, step by step: grad_fn, next_functions", _lesson03,
              notes="2."),
        Numbers("Why the Jacobian is never built", (
            "a 32×32×128 feature map to itself:",
            "(32·32·128)² ≈ 1.7·10¹⁰ entries ≈ 68 GB in float32",
            "backward computes Jᵀv directly, never J",
        ), notes="4."),
        Picture("lesson03_broadcast.png", "Broadcasting: copies in forward, sums in backward",
                notes="5."),
        Picture("lesson03_modes.png", "Forward mode (Ju) and reverse mode (Jᵀv)", notes="8."),
    ),
    4: (
        Drawing("Leaves and requires_grad", _leaves, notes="1.", legend=(
            "blue: a leaf that requires grad (keeps .grad)",
            "dashed: a leaf that needs no grad",
            "white: made by an op (has a grad_fn)",
            "green: the root, where backward starts")),
        Numbers("Graph lifetime: create_graph", (
            "y = x³ at x = 2",
            "first derivative: 3x² = 12",
            "second derivative (create_graph=True): 6x = 12",
            "a second backward without retain_graph: an error",
        ), notes="3."),
        Drawing("Blocking gradients: x · detach(x)", _detach, notes="4."),
        Steps("Backward, step by step: Σ x · detach(x)", _lesson04, notes="4."),
        Picture("lesson04_view_version.png", "Views share storage and a version counter",
                notes="6."),
    ),
    5: (
        Picture("lesson05_linear_shapes.png", "Linear backward as matrix shapes", notes="2."),
        Numbers("Check: Linear(4→2), W = 1, b = 0", (
            "x = ones(1, 4),  loss = ‖y‖²",
            "y = [4, 4]",
            "∂loss/∂y = 2y = [8, 8]",
            "∂loss/∂W = (∂loss/∂y)ᵀ x = 8 everywhere",
        ), notes="2."),
        Picture("lesson05_network.png", "The 2-2-2 network", notes="5."),
        Numbers("The 2-2-2 network, by hand", (
            "h1 = 0.593269992,  h2 = 0.596884378",
            "o1 = 0.751365070,  o2 = 0.772928465,  E = 0.298371109",
            "∂E/∂w5 = 0.741365070 × 0.186815602 × 0.593269992 = 0.082167041",
            "∂E/∂w1 = 0.000438568   (sums both output paths)",
        ), notes="5."),
        Steps("Backward, step by step: the MLP", _lesson05, notes="6.", rankdir="TB"),
    ),
    6: (
        Picture("lesson06_sliding_window.png", "Forward: the kernel slides", notes="1."),
        Numbers("The worked case: 3×3 input, 2×2 kernel", (
            "y[i,j] = Σₘ Σₙ w[m,n] · x[i+m, j+n] + b   →  a 2×2 output",
            "four weight gradients:  ∂L/∂w = x ⋆ δ",
            "nine input gradients:  ∂L/∂x = full(δ, rot180 w)",
            "∂L/∂b = Σ δ",
        ), notes="2."),
        Arithmetic("The worked case, step by step: y, ∂L/∂w, ∂L/∂x, ∂L/∂b", _conv_arithmetic,
                   notes="2."),
        Picture("lesson06_weight_gradient.png", "∂L/∂w = x ⋆ δ", notes="2."),
        Picture("lesson06_full_convolution.png", "∂L/∂x: the full convolution", notes="2."),
        Picture("lesson06_stride_dilation.png", "Stride 2: δ dilated with zeros", notes="3."),
        Steps("Backward, step by step: conv + pool", _lesson06, notes="6.", rankdir="TB"),
    ),
    7: (
        Picture("lesson07_max_pool_routing.png", "Max pooling routes the gradient", notes="1."),
        Arithmetic("Max pooling's backward, window by window", _pool_arithmetic, notes="1."),
        Numbers("Pooling's backward", (
            "max pooling: each window's gradient goes to its argmax, 0 elsewhere",
            "a tie: the first maximum, row by row, gets it all",
            "average pooling: g / (k·k) to every pixel of the window",
            "overlapping windows add",
        ), notes="2."),
        Picture("lesson07_avg_pool_spread.png", "Average pooling spreads it", notes="2."),
        Steps("Backward, step by step: a tiny CNN", _lesson07, notes="3.", rankdir="TB"),
        Picture("lesson07_filters.png", "What the network learned", notes="4."),
    ),
    8: (
        Numbers("The L2 objective", (
            "z = W1 x,  h = φ(z),  o = W2 h,  L = l(o, y),  J = L + λ/2 (‖W1‖² + ‖W2‖²)",
            "∂J/∂W2 = (∂J/∂o) hᵀ + λ W2",
            "∂J/∂h = W2ᵀ ∂J/∂o,   ∂J/∂z = ∂J/∂h ⊙ φ′(z)",
            "∂J/∂W1 = (∂J/∂z) xᵀ + λ W1",
        ), notes="1."),
        Steps("Backward, step by step: J = L + s", _lesson08, notes="1.", rankdir="TB"),
        Picture("lesson08_decay_curves.png", "Why decay: 100 digits memorised", notes="2."),
        Picture("lesson08_sgd_vs_adamw.png", "Adam with L2 is not AdamW", notes="4."),
    ),
}
