"""Every figure the readings show, regenerated from the project's code: ``minigrad figures``.

A figure is a function that writes one file; the :func:`figure` decorator registers it under
its file name, so adding one is a few lines anywhere in this module (or in a module listed in
:data:`FIGURE_MODULES`)::

    @figure("lesson03_jacobian.svg", lesson=3, description="…")
    def _lesson03_jacobian(path: Path) -> None:
        draw_graph(...).save(path)

``minigrad figures --to assets`` writes them all; ``--only epsilon_error`` (the file name,
with or without its suffix; repeatable) writes a few. The readings embed ``../assets/<file>``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from minigrad.value import Value

if TYPE_CHECKING:  # numpy and matplotlib load only when a figure is made
    import numpy

#: Other modules whose import registers more figures (each uses :func:`figure`).
FIGURE_MODULES: tuple[str, ...] = (
    "minigrad.lesson_pictures", "minigrad.viz.lecture_figures",
    *(f"minigrad.pictures.lesson{number:02d}" for number in range(4, 9)))

#: Resolution of PNG figures: sharp on a slide, small in the repository.
PNG_DPI = 100


@dataclass(frozen=True)
class Figure:
    """One registered figure: the file it writes and the function that writes it."""

    filename: str
    lesson: int
    description: str
    draw: Callable[[Path], None]

    @property
    def name(self) -> str:
        """The file name without its suffix, e.g. ``epsilon_error``."""
        return Path(self.filename).stem


#: file name -> Figure, in registration order.
FIGURES: dict[str, Figure] = {}


def figure(filename: str, *, lesson: int, description: str
           ) -> Callable[[Callable[[Path], None]], Callable[[Path], None]]:
    """Register ``draw(path)`` as the function that writes ``filename`` (``.png`` or ``.svg``)."""
    if Path(filename).suffix not in (".png", ".svg"):
        raise ValueError(f"a figure must be a .png or .svg file, got {filename!r}")

    def register(draw: Callable[[Path], None]) -> Callable[[Path], None]:
        if filename in FIGURES:
            raise ValueError(f"figure {filename!r} is registered twice")
        FIGURES[filename] = Figure(filename, lesson, description, draw)
        return draw

    return register


def find_figures(names: Iterable[str] | None = None) -> list[Figure]:
    """The registered figures named in ``names`` (file name or stem), or all of them."""
    for module in FIGURE_MODULES:
        importlib.import_module(module)
    if names is None:
        return list(FIGURES.values())
    by_name = {**{f.name: f for f in FIGURES.values()}, **FIGURES}
    chosen = []
    for name in names:
        if name not in by_name:
            known = ", ".join(f.name for f in FIGURES.values())
            raise ValueError(f"no figure named {name!r}; the figures are: {known}")
        if by_name[name] not in chosen:
            chosen.append(by_name[name])
    return chosen


def make_figures(folder: str | Path, only: Iterable[str] | None = None) -> list[Path]:
    """Write the chosen figures (all by default) into ``folder``; return the paths written."""
    chosen = find_figures(only)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for fig in chosen:
        path = folder / fig.filename
        fig.draw(path)
        if not path.is_file() or path.stat().st_size == 0:
            raise RuntimeError(f"figure {fig.filename!r} did not write {path}")
        written.append(path)
    return written


# ------------------------------------------------------------------ command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--to", default="assets", metavar="DIR",
                        help="folder to write the figures into (default: assets)")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="write only this figure (file name, suffix optional); repeatable")
    parser.add_argument("--list", action="store_true", help="list the figures and exit")


def run(args: argparse.Namespace) -> int:
    if args.list:
        for fig in find_figures():
            print(f"lesson {fig.lesson:02d}  {fig.filename:<32} {fig.description}")
        return 0
    try:
        chosen = find_figures(args.only)
    except ValueError as error:
        print(f"minigrad figures: {error}", file=sys.stderr)
        return 2
    for path in make_figures(args.to, [fig.filename for fig in chosen]):
        print(f"wrote {path}  ({path.stat().st_size // 1024 or 1} KB)")
    return 0


# ------------------------------------------------------------------ helpers
def _save_png(fig: object, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=PNG_DPI, metadata={"Software": None})  # type: ignore[attr-defined]
    plt.close(fig)  # type: ignore[arg-type]


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


# ------------------------------------------------------------------ lesson 01
@figure("epsilon_error.png", lesson=1,
        description="error of central and forward differences of (x²+1)³ at x=1 against ε")
def _epsilon_error(path: Path) -> None:
    from minigrad.numerical import difference_errors
    from minigrad.plotting import plot_difference_errors

    def f(x: float) -> float:
        return (x * x + 1.0) ** 3

    exact = 24.0  # f'(1) = 6·1·(1+1)²
    eps, central = difference_errors(f, 1.0, exact, method="central")
    _, forward = difference_errors(f, 1.0, exact, method="forward")
    ax = plot_difference_errors(eps, central, label="central difference", order=2,
                                title="Finite-difference error, f(x) = (x²+1)³ at x = 1")
    plot_difference_errors(eps, forward, ax=ax, label="forward difference", order=1,
                           guides=False, title=None)
    _save_png(ax.figure, path)


@figure("lesson01_graph.svg", lesson=1,
        description="u = a·b, v = u + c, L = v·v + u after backward: data and grad in each node")
def _lesson01_graph(path: Path) -> None:
    from minigrad.viz import draw_graph

    draw_graph(lesson01_graph(), kind="forward", show_data=True, show_grad=True,
               rankdir="LR").save(path)


# ------------------------------------------------------------------ lesson 02
@figure("lesson02_backward_order.svg", lesson=2,
        description="the backward graph of the lesson 01 example, in the order backward visits")
def _lesson02_backward_order(path: Path) -> None:
    from minigrad.viz import draw_graph

    draw_graph(lesson01_graph(), kind="backward", show_data=False, show_grad=True,
               rankdir="LR").save(path)


#: The training run shown in lesson 02 (the notebook uses the same settings).
MOONS_SETTINGS = dict(points=60, noise=0.1, layer_sizes=[8, 8, 1], steps=100,
                      learning_rate=1.0, seed=0)


@figure("moons_boundary.png", lesson=2,
        description="a Value MLP 2-8-8-1 trained on two moons: decision boundary and loss")
def _moons_boundary(path: Path) -> None:
    import matplotlib.pyplot as plt

    from minigrad.data import make_moons
    from minigrad.plotting import plot_decision_boundary, plot_loss_curve
    from minigrad.scalar_nn import MLP
    from minigrad.scalar_training import accuracy, predict_scores, train_classifier

    settings = MOONS_SETTINGS
    X, y = make_moons(settings["points"], noise=settings["noise"], seed=settings["seed"])
    model = MLP(2, settings["layer_sizes"], seed=settings["seed"])
    history = train_classifier(model, X, y, steps=settings["steps"],
                               learning_rate=settings["learning_rate"])
    fig, (left, right) = plt.subplots(1, 2, figsize=(8.5, 3.6), layout="constrained",
                                      width_ratios=[1.1, 1])
    plot_decision_boundary(lambda grid: predict_scores(model, grid), X, y, ax=left,
                           resolution=50,
                           title=f"MLP 2-8-8-1, accuracy {accuracy(model, X, y):.0%}")
    plot_loss_curve(history.losses, ax=right, label="hinge loss + weight penalty",
                    title="Training loss")
    _save_png(fig, path)


# ------------------------------------------------------------------ lesson 03
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
    from minigrad.lesson_pictures import backward_graph_with_constants

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


@figure("lesson03_jacobians.png", lesson=3,
        description="Jacobians built row by row by backward: tanh (diagonal) and softmax (dense)")
def _lesson03_jacobians(path: Path) -> None:
    import matplotlib.pyplot as plt
    import numpy as np

    from minigrad.plotting import plot_matrix

    point = np.linspace(-1.5, 1.5, 6)  # the notebook uses the same point
    jacobians = {
        "tanh (elementwise)": lesson03_jacobian(lambda t: t.tanh(), point),
        "softmax": lesson03_jacobian(lambda t: t.softmax(dim=0), point),
    }
    fig, axes = plt.subplots(1, 2, figsize=(7, 3.2), layout="constrained")
    for ax, (title, matrix) in zip(axes, jacobians.items()):
        plot_matrix(matrix, ax=ax, title=f"Jacobian of {title}")
    _save_png(fig, path)
