"""The pictures of lesson 08's reading.

- the backward graph of the L2 objective J = L + λ/2 (‖W1‖² + ‖W2‖²);
- train and test curves of a network that memorises 100 digits, without and with decay,
  and the final test loss over λ for each method (λ tuned per method);
- the update of SGD with L2 against AdamW (and Adam + L2) on a two-weight problem.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np

from minigrad.figures.registry import PNG_DPI, figure
from minigrad.figures.slide import enlarge_for_slide, slide_figure
from minigrad.figures.words import N_, words

#: The λ tried for each method in the overfitting experiment (each method its own range).
DECAY_GRID: dict[str, tuple[float, ...]] = {
    "SGD, weight_decay": (1e-3, 3e-3, 1e-2),
    "Adam + L2": (3e-4, 1e-3, 3e-3),
    "AdamW": (1.0, 3.0, 10.0),
}


def save_png(fig: Any, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=PNG_DPI, metadata={"Software": None})
    plt.close(fig)


# ---------------------------------------------------------------------------- the L2 graph
def l2_objective(lam: float = 0.1, backward: bool = True) -> dict[str, Any]:
    """§1's network, one example, after backward (unless ``backward=False``): the tensors by
    name (J is the root)."""
    import minigrad as mg

    rng = np.random.default_rng(0)
    W1 = mg.tensor(rng.normal(size=(4, 3)) * 0.5, dtype=mg.float64, requires_grad=True)
    W2 = mg.tensor(rng.normal(size=(2, 4)) * 0.5, dtype=mg.float64, requires_grad=True)
    x = mg.tensor(rng.normal(size=3), dtype=mg.float64)
    y = mg.tensor(rng.normal(size=2), dtype=mg.float64)
    o = W2 @ (W1 @ x).tanh()
    L = 0.5 * ((o - y) ** 2).sum()
    s = lam / 2 * ((W1 ** 2).sum() + (W2 ** 2).sum())
    J = L + s
    if backward:
        J.backward()
    return {"J": J, "L": L, "s": s, "W1": W1, "W2": W2}


@figure("lesson08_l2_graph.svg", lesson=8,
        description="backward graph of J = L + λ/2(‖W1‖² + ‖W2‖²): two paths into W1 and W2")
def _l2_graph(path: Path) -> None:
    from minigrad.viz import draw_graph

    tensors = l2_objective()
    draw_graph(tensors["J"], kind="backward", names=tensors, rankdir="TB", show_data=False,
               show_grad=False).save(path)


# ---------------------------------------------------------------------------- overfitting
def small_digits(per_class: int = 10) -> tuple:
    """The first ``per_class`` training images of each digit (flattened), and the test set."""
    import minigrad as mg
    from minigrad.data import load_digits

    images, labels = load_digits("train", as_numpy=True)
    rows = np.concatenate([np.flatnonzero(labels == d)[:per_class] for d in range(10)])
    test_images, test_labels = load_digits("test", as_numpy=True)
    return (mg.tensor(images[rows].reshape(len(rows), -1)), mg.tensor(labels[rows]),
            mg.tensor(test_images.reshape(len(test_images), -1)), mg.tensor(test_labels))


def make_optimizer(method: str, lam: float) -> Callable:
    """params -> the optimizer of ``method`` with decay λ (learning rates fixed per method)."""
    import minigrad.optim as optim

    return {"no decay": lambda p: optim.SGD(p, lr=0.1, momentum=0.9),
            "SGD, weight_decay": lambda p: optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=lam),
            "Adam + L2": lambda p: optim.Adam(p, lr=3e-3, weight_decay=lam),
            "AdamW": lambda p: optim.AdamW(p, lr=3e-3, weight_decay=lam)}[method]


def overfit_run(method: str, lam: float, data: tuple, steps: int = 200,
                every: int = 10) -> np.ndarray:
    """Full-batch training of a wide MLP (64 → 256 → 10) on 100 digits.

    Returns rows (step, train loss, test loss, test accuracy), one every ``every`` steps.
    """
    import minigrad as mg
    import minigrad.nn as nn
    import minigrad.nn.functional as F

    x, y, test_x, test_y = data
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10))
    optimizer = make_optimizer(method, lam)(model.parameters())
    rows = []
    for step in range(steps + 1):
        if step % every == 0:
            with mg.no_grad():
                scores = model(test_x)
                rows.append((step, F.cross_entropy(model(x), y).item(),
                             F.cross_entropy(scores, test_y).item(),
                             float((scores.numpy().argmax(1) == test_y.numpy()).mean())))
        if step == steps:
            break
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
    return np.array(rows)


def decay_sweep(steps: int = 200) -> dict[tuple[str, float], np.ndarray]:
    """(method, λ) -> its curves, for no decay and every λ of :data:`DECAY_GRID`."""
    data = small_digits()
    runs = {("no decay", 0.0): overfit_run("no decay", 0.0, data, steps)}
    for method, lams in DECAY_GRID.items():
        for lam in lams:
            runs[(method, lam)] = overfit_run(method, lam, data, steps)
    return runs


DECAY_COLOURS = {"no decay": "black", "SGD, weight_decay": "tab:blue",
                 "Adam + L2": "tab:orange", "AdamW": "tab:green"}


def best_decays(runs: dict[tuple[str, float], np.ndarray]) -> dict[str, float]:
    """Each method's λ with the lowest final test loss ("no decay": 0)."""
    best = {"no decay": 0.0}
    for method, lams in DECAY_GRID.items():
        best[method] = min(lams, key=lambda lam: runs[(method, lam)][-1, 2])
    return best


def plot_decay_sweep(runs: dict[tuple[str, float], np.ndarray], brief: bool = False) -> Any:
    """Left: training loss; middle: test loss, without decay and with each method's best λ
    (the gap between the two is the overfitting). Right: the final test loss over λ.
    ``brief`` (a slide's): the two loss panels only, one legend under them."""
    import matplotlib.pyplot as plt

    if brief:
        return _decay_curves_brief(runs)

    fig, (train, test, sweep) = plt.subplots(1, 3, figsize=(14, 4.2), layout="constrained")
    best = best_decays(runs)
    for method, lam in best.items():
        rows = runs[(method, lam)]
        label = (words(method) if method == "no decay" else
                 words("{method}, λ = {lam}", method=words(method), lam=f"{lam:g}"))
        train.plot(rows[:, 0], rows[:, 1], color=DECAY_COLOURS[method], lw=2, label=label)
        test.plot(rows[:, 0], rows[:, 2], color=DECAY_COLOURS[method], lw=2, label=label)
    train.set(xlabel=words("step (full batch of 100 images)"), ylabel=words("cross-entropy"),
              yscale="log", title=words("training loss"))
    test.set(xlabel=words("step"), ylabel=words("cross-entropy"), ylim=(0.5, 1.0),
             title=words("test loss (360 images)"))
    test.legend(fontsize=10)
    for method, lams in DECAY_GRID.items():
        sweep.plot(lams, [runs[(method, lam)][-1, 2] for lam in lams], "o-",
                   color=DECAY_COLOURS[method], lw=2, label=words(method))
    sweep.axhline(runs[("no decay", 0.0)][-1, 2], color="black", ls="--",
                  label=words("no decay"))
    sweep.set(xscale="log", xlabel=words("λ (each method its own range)"),
              ylabel=words("test loss after 200 steps"), title=words("test loss over λ"))
    sweep.legend(fontsize=10)
    for ax in (train, test, sweep):
        ax.title.set_fontsize(13)
        ax.xaxis.label.set_fontsize(12)
        ax.yaxis.label.set_fontsize(12)
    return fig


@figure("lesson08_decay_curves.png", lesson=8, words=True,
        description="100 digits memorised: train/test loss without and with decay, test loss "
                    "over λ per method")
def _decay_curves(path: Path) -> None:
    save_png(plot_decay_sweep(decay_sweep()), path)


def _decay_curves_brief(runs: dict[tuple[str, float], np.ndarray]) -> Any:
    import matplotlib.pyplot as plt

    fig, (train, test) = plt.subplots(1, 2, layout="constrained")
    best = best_decays(runs)
    for method, lam in best.items():
        rows = runs[(method, lam)]
        train.plot(rows[:, 0], rows[:, 1], color=DECAY_COLOURS[method], lw=3, label=words(method))
        test.plot(rows[:, 0], rows[:, 2], color=DECAY_COLOURS[method], lw=3)
    train.set(xlabel=words("step"), ylabel=words("cross-entropy"), yscale="log",
              title=words("training loss"))
    test.set(xlabel=words("step"), ylim=(0.5, 1.0), title=words("test loss"))
    fig.legend(loc="outside lower center", ncols=2, frameon=False)
    return fig


# ---------------------------------------------------------------------------- SGD vs AdamW
#: Curvatures of the two-weight problem: the data care a lot about w1, little about w2.
CURVATURE = np.array([4.0, 0.25])
OPTIMUM = np.array([1.0, 1.0])


def two_weight_paths(steps: int = 400, lam: float = 0.5) -> dict[str, np.ndarray]:
    """Paths of SGD + L2, Adam + L2 and AdamW on L(w) = ½ Σ c_i (w_i − 1)², from (−0.5, 2)."""
    import minigrad as mg
    import minigrad.optim as optim

    makers = {N_("SGD + L2 (= SGD weight_decay)"): lambda p: optim.SGD(p, lr=0.1, weight_decay=lam),
              "Adam + L2": lambda p: optim.Adam(p, lr=0.02, weight_decay=lam),
              "AdamW": lambda p: optim.AdamW(p, lr=0.02, weight_decay=lam)}
    paths = {}
    for name, make in makers.items():
        w = mg.tensor([-0.5, 2.0], dtype=mg.float64, requires_grad=True)
        optimizer = make([w])
        path = [w.numpy()]
        for _ in range(steps):
            optimizer.zero_grad()
            (0.5 * (mg.tensor(CURVATURE) * (w - mg.tensor(OPTIMUM)) ** 2).sum()).backward()
            optimizer.step()
            path.append(w.numpy())
        paths[name] = np.array(path)
    return paths


def plot_two_weight_paths(lam: float = 0.5, paths: dict[str, np.ndarray] | None = None,
                          ax: Any = None) -> Any:
    """The paths (``two_weight_paths(lam=lam)`` unless given) on the contours of the data
    loss, with the minimiser of L + λ/2‖w‖² (on ``ax`` if given); returns the figure."""
    import matplotlib.pyplot as plt

    paths = two_weight_paths(lam=lam) if paths is None else paths
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 5.5), layout="constrained")
    fig = ax.figure
    grid = np.linspace(-0.7, 2.2, 200)
    w1, w2 = np.meshgrid(grid, grid)
    loss = 0.5 * (CURVATURE[0] * (w1 - 1) ** 2 + CURVATURE[1] * (w2 - 1) ** 2)
    ax.contour(w1, w2, loss, levels=12, colors="0.8")
    for (name, path), colour in zip(paths.items(), ("tab:blue", "tab:orange", "tab:green")):
        ax.plot(path[:, 0], path[:, 1], color=colour, lw=2, label=words(name))
        ax.plot(*path[-1], "o", color=colour, ms=8)
    l2_minimum = CURVATURE * OPTIMUM / (CURVATURE + lam)
    ax.plot(*OPTIMUM, "k*", ms=14, label=words("minimum of L (no decay)"))
    ax.plot(*l2_minimum, "kx", ms=12, mew=3, label=words("minimum of L + λ/2‖w‖²"))
    ax.set(xlabel=words("w1 (curvature 4: the data care)"), ylabel=words("w2 (curvature 0.25)"),
           title=words("same λ = {lam}, where each one ends", lam=f"{lam:g}"), aspect="equal")
    ax.legend(fontsize=10, loc="lower right")
    return fig


@figure("lesson08_sgd_vs_adamw.png", lesson=8, words=True,
        description="SGD + L2, Adam + L2 and AdamW on a two-weight quadratic: where each ends")
def _sgd_vs_adamw(path: Path) -> None:
    save_png(plot_two_weight_paths(), path)


@slide_figure("lesson08_decay_curves.png")
def _decay_curves_slide() -> Any:
    return enlarge_for_slide(plot_decay_sweep(decay_sweep(), brief=True))


@slide_figure("lesson08_sgd_vs_adamw.png")
def _sgd_vs_adamw_slide() -> Any:
    import matplotlib.pyplot as plt

    fig, (ax, side) = plt.subplots(1, 2, layout="constrained", width_ratios=(1, 1))
    plot_two_weight_paths(ax=ax)
    handles, labels = ax.get_legend_handles_labels()
    ax.get_legend().remove()  # beside the paths, not over them
    side.legend(handles, labels, loc="center left", frameon=False)
    side.axis("off")
    return enlarge_for_slide(fig)
