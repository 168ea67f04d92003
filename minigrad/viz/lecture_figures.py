"""The README's figures of the lecture tools: ``minigrad graph``, the stepper and the trace.

Registered with :func:`minigrad.figures.figure` (this module is listed in
``minigrad.figures.FIGURE_MODULES``), so ``make assets`` rebuilds them.
"""

from __future__ import annotations

from pathlib import Path

from minigrad.figures import _save_png, figure, lesson01_graph
from minigrad.value import Value

#: The stepper frame shown in the README: u = a·b receives 1 + 14 = 15 and sends 45 and 30.
README_STEP = 5


def _lesson01_without_backward() -> Value:
    """The lesson 01 graph before backward (the stepper replays backward itself)."""
    loss = lesson01_graph()
    from minigrad.value import topological_order

    for value in topological_order(loss):
        value.grad = 0.0
    return loss


@figure("lecture_graph_dark.svg", lesson=2,
        description="minigrad graph --theme dark: lesson 01's graph after backward")
def _graph_dark(path: Path) -> None:
    from minigrad.viz import draw_graph

    draw_graph(lesson01_graph(), kind="forward", theme="dark").save(path)


@figure("lecture_backward_step.svg", lesson=2,
        description="backward_steps: step 5 of lesson 01's backward, u = a·b sends 45 and 30")
def _backward_step(path: Path) -> None:
    from minigrad.viz import backward_steps

    steps = backward_steps(_lesson01_without_backward())
    path.write_text(steps.svg(README_STEP - 1), encoding="utf-8")


@figure("lecture_trace.png", lesson=2,
        description="trace_backward: every local derivative and product of lesson 01's backward")
def _trace(path: Path) -> None:
    import matplotlib.pyplot as plt

    from minigrad.viz import backward_steps

    text = backward_steps(_lesson01_without_backward()).trace()
    lines = text.splitlines()
    fig = plt.figure(figsize=(0.082 * max(len(line) for line in lines), 0.175 * len(lines) + 0.15))
    fig.text(0.01, 0.98, text, family="DejaVu Sans Mono", fontsize=10, va="top", ha="left")
    _save_png(fig, path)
