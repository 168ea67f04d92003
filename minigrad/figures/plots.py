"""The course's plots: finite-difference error, a classifier's decision boundary, a loss curve,
a matrix (e.g. a Jacobian) as a heat map.

Each function draws on a matplotlib ``Axes`` (a new figure if none is given) and returns that
``Axes``, so a notebook cell can show it and :mod:`minigrad.figures` can save it. Nothing here
computes the science: the numbers come from :mod:`minigrad.scalar.numerical` and the models; these
functions only draw them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from minigrad.figures.words import N_, words

if TYPE_CHECKING:  # matplotlib is imported when a plot is drawn, not when minigrad is
    from matplotlib.axes import Axes


def _new_axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


# ------------------------------------------------------------------ finite-difference error
def fit_error_guides(eps: Sequence[float] | np.ndarray,
                     errors: Sequence[float] | np.ndarray,
                     order: int = 2) -> tuple[float, float]:
    """Fit the two straight lines of a finite-difference error curve on log–log axes.

    error(ε) ≈ C_trunc·ε^order  (truncation, right of the minimum)
             + C_round/ε          (round-off, left of the minimum).

    Each constant is the median of error/ε^order (resp. error·ε) over its side of the minimum,
    skipping zero errors. Returns ``(C_trunc, C_round)``; NaN for a side with no usable point.
    """
    eps_array, error_array = _check_curve(eps, errors)
    best = int(np.argmin(np.where(error_array > 0, error_array, np.inf)))
    usable = error_array > 0
    right = usable & (eps_array > eps_array[best])
    left = usable & (eps_array < eps_array[best])
    c_trunc = (float(np.exp(np.median(np.log(error_array[right] / eps_array[right] ** order))))
               if right.any() else float("nan"))
    c_round = (float(np.exp(np.median(np.log(error_array[left] * eps_array[left]))))
               if left.any() else float("nan"))
    return c_trunc, c_round


def plot_difference_errors(eps: Sequence[float] | np.ndarray,
                           errors: Sequence[float] | np.ndarray, *,
                           ax: Axes | None = None,
                           label: str = N_("central difference"),
                           order: int = 2,
                           guides: bool | tuple[float, float] = True,
                           title: str | None = N_("Error of a finite difference (float64)")
                           ) -> Axes:
    """Plot |estimate − exact| against ε on log–log axes: the V-shaped error curve.

    Args:
        eps, errors: equal-length 1-D arrays, e.g. from
            :func:`minigrad.scalar.numerical.difference_errors`. Zero errors (exact hits) are dropped,
            as a log axis cannot show them.
        order: the truncation order of the method, 2 for central and 1 for forward differences.
        guides: True to draw the truncation line C·ε^order and the round-off line C/ε fitted by
            :func:`fit_error_guides`; a ``(C_trunc, C_round)`` pair to draw given constants;
            False for none.

    Call it twice on the same ``ax`` to compare methods (e.g. ``order=1`` for forward).
    """
    eps_array, error_array = _check_curve(eps, errors)
    ax = _new_axes(ax, (5.5, 3.8))
    shown = error_array > 0
    ax.loglog(eps_array[shown], error_array[shown], "o-", markersize=3.5, label=words(label))
    if guides is not False:
        c_trunc, c_round = (fit_error_guides(eps_array, error_array, order)
                            if guides is True else guides)
        span = np.geomspace(eps_array[shown].min(), eps_array[shown].max(), 100)
        bottom, top = error_array[shown].min() / 10, error_array[shown].max() * 10
        if np.isfinite(c_trunc):
            truncation = c_trunc * span ** order
            keep = (truncation >= bottom) & (truncation <= top)
            power = {1: "", 2: "²", 3: "³"}.get(order, f"^{order}")
            ax.loglog(span[keep], truncation[keep], "--", color="crimson", linewidth=1.5,
                      zorder=3, label=words("truncation  ∝ ε{power}", power=power))
        if np.isfinite(c_round):
            roundoff = c_round / span
            keep = (roundoff >= bottom) & (roundoff <= top)
            ax.loglog(span[keep], roundoff[keep], "--", color="dimgray", linewidth=1.5,
                      zorder=3, label=words("round-off  ∝ 1/ε"))
    ax.set_xlabel(words("step ε"))
    ax.set_ylabel(words("absolute error"))
    if title:
        ax.set_title(words(title))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    return ax


def _check_curve(eps: object, errors: object) -> tuple[np.ndarray, np.ndarray]:
    eps_array = np.asarray(eps, dtype=np.float64).reshape(-1)
    error_array = np.asarray(errors, dtype=np.float64).reshape(-1)
    if eps_array.shape != error_array.shape:
        raise ValueError(
            f"eps and errors must have the same length, got {eps_array.size} step sizes and "
            f"{error_array.size} errors"
        )
    if eps_array.size == 0:
        raise ValueError("eps and errors are empty; pass at least one step size")
    if np.any(eps_array <= 0) or not np.all(np.isfinite(eps_array)):
        raise ValueError(f"every step size ε must be positive and finite, got {eps_array}")
    if np.any(error_array < 0) or np.any(np.isnan(error_array)):
        raise ValueError("errors must be absolute errors (≥ 0, not NaN)")
    return eps_array, error_array


# ------------------------------------------------------------------ decision boundary
def plot_decision_boundary(score: Callable[[np.ndarray], Sequence[float] | np.ndarray],
                           points: Sequence[Sequence[float]] | np.ndarray,
                           labels: Sequence[float] | np.ndarray, *,
                           ax: Axes | None = None,
                           threshold: float = 0.0,
                           resolution: int = 60,
                           margin: float = 0.5,
                           title: str | None = N_("Decision boundary")) -> Axes:
    """Shade the plane by a 2-D classifier's score and draw the data points on top.

    Args:
        score: maps an ``(N, 2)`` float array of points to ``N`` scores; a point is predicted
            as class 1 when its score is above ``threshold`` (0 for a tanh or raw output,
            0.5 for a probability). It is called once, on the whole grid.
        points: ``(n, 2)`` data points; labels: ``n`` class labels (two distinct values).
        resolution: grid points per axis (``resolution²`` calls' worth of work for ``score``).
        margin: how far the grid extends beyond the data on every side.

    The line where the score equals ``threshold`` is the decision boundary.
    """
    xy = np.asarray(points, dtype=np.float64)
    classes = np.asarray(labels).reshape(-1)
    if xy.ndim != 2 or xy.shape[1] != 2:
        raise ValueError(f"points must have shape (n, 2), got {xy.shape}")
    if classes.shape[0] != xy.shape[0]:
        raise ValueError(f"got {xy.shape[0]} points but {classes.shape[0]} labels")
    if resolution < 2:
        raise ValueError(f"resolution must be at least 2 grid points per axis, got {resolution}")
    grid_x, grid_y = np.meshgrid(
        np.linspace(xy[:, 0].min() - margin, xy[:, 0].max() + margin, resolution),
        np.linspace(xy[:, 1].min() - margin, xy[:, 1].max() + margin, resolution),
    )
    grid = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    scores = np.asarray(score(grid), dtype=np.float64).reshape(-1)
    if scores.size != grid.shape[0]:
        raise ValueError(
            f"score must return one number per point: called on {grid.shape[0]} points, "
            f"it returned {scores.size}"
        )
    scores = scores.reshape(grid_x.shape)

    ax = _new_axes(ax, (4.5, 4.0))
    ax.contourf(grid_x, grid_y, scores > threshold, levels=[-0.5, 0.5, 1.5],
                colors=["#f4c7a1", "#a9c8e8"], alpha=0.8)
    if scores.min() < threshold < scores.max():
        ax.contour(grid_x, grid_y, scores, levels=[threshold], colors="k", linewidths=1.2)
    for value, colour in zip(np.unique(classes), ("#d9631e", "#1f5fa8", "#3a9b3a")):
        ax.scatter(*xy[classes == value].T, s=14, c=colour, edgecolors="k", linewidths=0.3,
                   label=words("class {label}", label=_format_label(value)))
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_aspect("equal", adjustable="box")
    if title:
        ax.set_title(words(title))
    ax.legend(fontsize="small", loc="upper right")
    return ax


# ------------------------------------------------------------------ training curve
def plot_loss_curve(losses: Sequence[float] | np.ndarray, *,
                    ax: Axes | None = None,
                    label: str = N_("training loss"),
                    log_scale: bool = False,
                    title: str | None = N_("Training loss")) -> Axes:
    """Plot one loss value per training step (step 0 first)."""
    values = np.asarray(losses, dtype=np.float64).reshape(-1)
    if values.size == 0:
        raise ValueError("losses is empty; record one loss per step while training")
    ax = _new_axes(ax, (4.5, 3.2))
    ax.plot(np.arange(values.size), values, label=words(label))
    if log_scale:
        ax.set_yscale("log")
    ax.set_xlabel(words("step"))
    ax.set_ylabel(words("loss"))
    if title:
        ax.set_title(words(title))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return ax


# ------------------------------------------------------------------ matrix (Jacobian)
def plot_matrix(matrix: Sequence[Sequence[float]] | np.ndarray, *,
                ax: Axes | None = None,
                title: str | None = None,
                xlabel: str = N_("input j"),
                ylabel: str = N_("output i"),
                colorbar: bool = True) -> Axes:
    """Show a 2-D matrix as a heat map: entry (i, j) at row i, column j.

    The colour scale is symmetric around 0 (blue negative, white 0, red positive), so zero
    entries — the structure of a Jacobian J[i, j] = ∂y_i/∂x_j — show as white whatever the
    values. ``colorbar`` adds the scale beside the axes.
    """
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2 or values.size == 0:
        raise ValueError(f"matrix must be a non-empty 2-D array, got shape {values.shape}")
    ax = _new_axes(ax, (3.8, 3.2))
    limit = float(np.abs(values).max()) or 1.0
    image = ax.imshow(values, cmap="RdBu_r", vmin=-limit, vmax=limit)
    ax.set_xlabel(words(xlabel))
    ax.set_ylabel(words(ylabel))
    if title:
        ax.set_title(words(title))
    if colorbar:
        ax.figure.colorbar(image, ax=ax, shrink=0.8)
    return ax


def _format_label(value: object) -> str:
    try:
        return f"{float(value):g}"  # 1.0 -> "1", -1.0 -> "-1"
    except (TypeError, ValueError):
        return str(value)
