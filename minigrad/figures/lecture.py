"""The README's figures of the lecture tools: ``minigrad graph``, the stepper and the trace.

Registered with :func:`minigrad.figures.figure` (this module is listed in
``minigrad.figures.FIGURE_MODULES``), so ``make assets`` rebuilds them.
"""

from __future__ import annotations

from pathlib import Path

from minigrad.figures.registry import figure, save_png
from minigrad.scalar.value import Value

#: The stepper frame shown in the README: u = a·b receives 1 + 14 = 15 and sends 45 and 30.
README_STEP = 4


def readme_graph(backward: bool = True) -> Value:
    """The README's first example, exactly as written there: u = a·b, v = u + c,
    L = v**2 + u at a=2, b=3, c=1 (the 2 is a constant of the ``**2`` node, not an input).
    After backward: a.grad = 45, b.grad = 30, c.grad = 14."""
    a, b, c = Value(2.0, "a"), Value(3.0, "b"), Value(1.0, "c")
    u = a * b
    u.label = "u"
    v = u + c
    v.label = "v"
    loss = v**2 + u
    loss.label = "L"
    if backward:
        loss.backward()
    return loss


def _readme_without_backward() -> Value:
    """The README graph before backward (the stepper replays backward itself)."""
    return readme_graph(backward=False)


@figure("lecture_graph_dark.svg", lesson=2,
        description="minigrad graph --theme dark: the README's graph after backward")
def _graph_dark(path: Path) -> None:
    from minigrad.viz import draw_graph

    draw_graph(readme_graph(), kind="forward", theme="dark").save(path)


@figure("lecture_backward_step.svg", lesson=2,
        description="backward_steps: step 4 of lesson 01's backward, u = a·b sends 45 and 30")
def _backward_step(path: Path) -> None:
    from minigrad.viz import backward_steps

    steps = backward_steps(_readme_without_backward())
    path.write_text(steps.svg(README_STEP - 1), encoding="utf-8")


@figure("lecture_trace.png", lesson=2,
        description="trace_backward: every local derivative and product of lesson 01's backward")
def _trace(path: Path) -> None:
    import matplotlib.pyplot as plt

    from minigrad.viz import backward_steps

    text = backward_steps(_readme_without_backward()).trace()
    lines = text.splitlines()
    fig = plt.figure(figsize=(0.082 * max(len(line) for line in lines), 0.175 * len(lines) + 0.15))
    fig.text(0.01, 0.98, text, family="DejaVu Sans Mono", fontsize=10, va="top", ha="left")
    save_png(fig, path)
