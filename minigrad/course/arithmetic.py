"""Steppers of the arithmetic itself, at a lesson's own numbers, for lessons 06 and 07.

A backward graph shows which node hands what to which; these show the sums a lecturer
writes on the board, one term at a time, as grids of numbers with the cells in play lit up:

* :func:`conv_steps` (lesson 06, section 2): x = [1 2 3; 4 5 6; 7 8 9], w = [1 2; 3 4],
  δ = ∂L/∂y = [1 2; −1 1]. One output entry, y[0,1] = Σₘₙ w[m,n]·x[m, 1+n] = 47; the four
  weight gradients ∂L/∂w[m,n] = Σᵢⱼ δ[i,j]·x[i+m, j+n] (x correlated with δ); the input
  gradient as δ padded with a ring of zeros correlated with the kernel rotated by 180°,
  ∂L/∂x[p,q] = Σₘₙ δ̃[p+m, q+n]·ŵ[m,n]; and ∂L/∂b = Σ δ.
* :func:`pool_steps` (lesson 07, section 1): 2×2 max pooling of the 4×4 plane of
  :data:`minigrad.figures.lesson07.ROUTING_INPUT`, backward with ∂L/∂y = [10 20; 30 40]: each
  window's gradient goes to its maximum, 0 to the rest.

Every number comes from minigrad: the forward values and the gradients of a real backward
pass; the terms are the products the formulas above add up.
"""

from __future__ import annotations

import html
from typing import Sequence

import numpy as np

from minigrad.course.slide_graph import SlideStep
from minigrad.course.slide_words import say

CONV_X = np.arange(1.0, 10.0).reshape(3, 3)
CONV_W = np.array([[1.0, 2.0], [3.0, 4.0]])
CONV_DELTA = np.array([[1.0, 2.0], [-1.0, 1.0]])


def _number(value: float) -> str:
    text = f"{value:g}"
    return text.replace("-", "−")


def _term(a: float, b: float) -> str:
    left = f"({_number(a)})" if a < 0 else _number(a)
    right = f"({_number(b)})" if b < 0 else _number(b)
    return f"{left}·{right}"


def _sum(values: Sequence[float]) -> str:
    """``1 + 2 − 1 + 1``: the terms of a sum, a negative one with a minus sign."""
    return " + ".join(_number(value) for value in values).replace("+ −", "− ")


def grid(array: np.ndarray, label: str, lit: Sequence[tuple[int, int]] = (),
         marked: Sequence[tuple[int, int]] = (), blank: bool | np.ndarray = False) -> str:
    """A matrix as an HTML table: ``lit`` cells orange (the terms in play), ``marked`` cells
    blue (the entry being written); ``blank`` (a mask) leaves entries not computed yet empty."""
    rows = []
    for row in range(array.shape[0]):
        cells = []
        for column in range(array.shape[1]):
            kind = ("lit" if (row, column) in lit else
                    "marked" if (row, column) in marked else "")
            hidden = blank is True or (isinstance(blank, np.ndarray) and blank[row, column])
            text = "" if hidden else _number(array[row, column])
            cells.append(f'<td class="{kind}">{text}</td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<figure class="mg-grid"><figcaption>{html.escape(say(label))}</figcaption>'
            f"<table>{''.join(rows)}</table></figure>")


def _grids(*parts: str) -> str:
    return f'<div class="mg-grids">{"".join(parts)}</div>'


def _window(top: int, left: int, size: int) -> list[tuple[int, int]]:
    return [(top + m, left + n) for m in range(size) for n in range(size)]


def conv_numbers() -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(y, ∂L/∂w, ∂L/∂x, ∂L/∂b) of the lesson 06 worked case, by minigrad's conv2d."""
    import minigrad as mg
    import minigrad.nn.functional as F

    x = mg.tensor(CONV_X[None, None], requires_grad=True)
    w = mg.tensor(CONV_W[None, None], requires_grad=True)
    b = mg.tensor(np.zeros(1), requires_grad=True)
    y = F.conv2d(x, w, b)
    y.backward(mg.tensor(CONV_DELTA[None, None]))
    return (y.numpy()[0, 0], w.grad.numpy()[0, 0], x.grad.numpy()[0, 0],
            float(b.grad.numpy()[0]))


def conv_steps() -> list[SlideStep]:
    """Lesson 06's arithmetic: one output entry, ∂L/∂w as a correlation, ∂L/∂x with the
    rotated kernel, ∂L/∂b."""
    y, grad_w, grad_x, grad_b = conv_numbers()
    x, w, delta = CONV_X, CONV_W, CONV_DELTA
    k = w.shape[0]
    steps = []
    terms = [_term(w[m, n], x[m, 1 + n]) for m in range(k) for n in range(k)]
    steps.append(SlideStep(
        _grids(grid(x, "x", lit=_window(0, 1, k)), grid(w, "w", lit=_window(0, 0, k)),
               grid(y, "y", marked=[(0, 1)])),
        ("Forward: the kernel on the window at row 0, column 1:",
         f"y[0,1] = Σₘₙ w[m,n]·x[m, 1+n] = {' + '.join(terms)} = {_number(y[0, 1])}")))
    done = np.ones_like(grad_w, dtype=bool)
    for m in range(k):
        for n in range(k):
            done[m, n] = False
            terms = [_term(delta[i, j], x[i + m, j + n])
                     for i in range(delta.shape[0]) for j in range(delta.shape[1])]
            steps.append(SlideStep(
                _grids(grid(x, "x", lit=_window(m, n, delta.shape[0])),
                       grid(delta, "δ = ∂L/∂y", lit=_window(0, 0, delta.shape[0])),
                       grid(grad_w, "∂L/∂w", marked=[(m, n)], blank=done.copy())),
                ("∂L/∂w = x ⋆ δ: δ slides over x like a kernel.",
                 f"∂L/∂w[{m},{n}] = Σᵢⱼ δ[i,j]·x[i+{m}, j+{n}] = {' + '.join(terms)} "
                 f"= {_number(grad_w[m, n])}")))
    padded = np.pad(delta, k - 1)
    rotated = w[::-1, ::-1]
    shown = np.ones_like(grad_x, dtype=bool)
    for p, q in ((0, 0), (1, 1), (2, 0)):
        shown[p, q] = False
        terms = [_term(padded[p + m, q + n], rotated[m, n]) for m in range(k) for n in range(k)]
        steps.append(SlideStep(
            _grids(grid(padded, "δ padded", lit=_window(p, q, k)),
                   grid(rotated, "w rotated 180°", lit=_window(0, 0, k)),
                   grid(grad_x, "∂L/∂x", marked=[(p, q)], blank=shown.copy())),
            ("∂L/∂x = full(δ, rot180 w): δ padded with k − 1 = 1 ring of zeros, "
             "correlated with the kernel turned by 180°.",
             f"∂L/∂x[{p},{q}] = {' + '.join(terms)} = {_number(grad_x[p, q])}")))
    steps.append(SlideStep(
        _grids(grid(delta, "δ = ∂L/∂y"), grid(grad_x, "∂L/∂x"), grid(grad_w, "∂L/∂w")),
        ("All nine input gradients: corners feed one output, the centre all four.",
         f"∂L/∂b = Σ δ = {_sum(delta.ravel())} = {_number(grad_b)}")))
    return steps


def pool_steps() -> list[SlideStep]:
    """Lesson 07's max-pool routing: each window's gradient to its maximum, 0 elsewhere."""
    from minigrad.figures.lesson07 import ROUTING_GRAD, ROUTING_INPUT, max_pool_example

    y, indices, grad_x = max_pool_example()
    x = ROUTING_INPUT
    width = x.shape[1]
    steps = [SlideStep(
        _grids(grid(x, "x"), grid(y, "y = max per 2×2 window")),
        ("Forward: each 2×2 window keeps its maximum, and where it was (the index r·W + c).",
         "y = " + "; ".join(", ".join(_number(v) for v in row) for row in y)))]
    pending = np.ones_like(grad_x, dtype=bool)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            row, column = divmod(int(indices[i, j]), width)
            window = _window(2 * i, 2 * j, 2)
            for cell in window:
                pending[cell] = False
            steps.append(SlideStep(
                _grids(grid(x, "x", lit=[cell for cell in window if cell != (row, column)],
                            marked=[(row, column)]),
                       grid(ROUTING_GRAD, "∂L/∂y", lit=[(i, j)]),
                       grid(grad_x, "∂L/∂x", marked=[(row, column)], blank=pending.copy())),
                (f"Window ({i},{j}): its maximum {_number(x[row, column])} is x[{row},{column}] "
                 f"(index {int(indices[i, j])}).",
                 f"∂L/∂x[{row},{column}] = ∂L/∂y[{i},{j}] = {_number(ROUTING_GRAD[i, j])}; "
                 "the other three pixels of the window get 0.")))
    return steps
