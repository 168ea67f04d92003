"""Plots of a training run: loss and accuracy per epoch, a confusion matrix, the mistakes.

Each function draws on matplotlib Axes it is given (or on a new figure) and returns them;
the numbers come from `minigrad.training` (History, predict), never from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from minigrad.figures.words import words

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from minigrad.training import History


def _axes(ax: Any, count: int, figsize: tuple[float, float]) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, axes = plt.subplots(1, count, figsize=figsize, layout="constrained")
    return axes


def plot_history(history: History, axes: Sequence[Axes] | None = None) -> Sequence[Axes]:
    """Two panels: loss per epoch and accuracy per epoch, train and (if recorded) test."""
    loss_ax, accuracy_ax = _axes(axes, 2, (9, 3.2))
    epochs = np.arange(1, len(history.loss) + 1)
    loss_ax.plot(epochs, history.loss, "o-", label=words("train"))
    accuracy_ax.plot(epochs, history.accuracy, "o-", label=words("train"))
    if history.test_loss:
        loss_ax.plot(epochs, history.test_loss, "s--", label=words("test"))
        accuracy_ax.plot(epochs, history.test_accuracy, "s--", label=words("test"))
    loss_ax.set(xlabel=words("epoch"), ylabel=words("loss"), yscale="log", title=words("loss"))
    accuracy_ax.set(xlabel=words("epoch"), ylabel=words("accuracy"), title=words("accuracy"))
    for ax in (loss_ax, accuracy_ax):
        ax.legend()
        ax.grid(alpha=0.3)
    return loss_ax, accuracy_ax


def confusion_matrix(labels: Any, predictions: Any, classes: int | None = None) -> np.ndarray:
    """counts[i, j] = how many samples of true class i were predicted as class j."""
    labels, predictions = np.asarray(labels).ravel(), np.asarray(predictions).ravel()
    if labels.shape != predictions.shape:
        raise ValueError(f"confusion_matrix: {labels.size} labels but {predictions.size} "
                         "predictions; pass one prediction per label")
    classes = classes or int(max(labels.max(initial=0), predictions.max(initial=0))) + 1
    counts = np.zeros((classes, classes), dtype=np.int64)
    np.add.at(counts, (labels, predictions), 1)
    return counts


def plot_confusion_matrix(labels: Any, predictions: Any, ax: Axes | None = None,
                          classes: int | None = None) -> Axes:
    """The confusion matrix as a heat map with the count in every non-empty cell."""
    counts = confusion_matrix(labels, predictions, classes)
    ax = _axes(ax, 1, (4.5, 4))
    ax.imshow(counts, cmap="Blues")
    for (i, j), n in np.ndenumerate(counts):
        if n:
            colour = "white" if n > counts.max() / 2 else "black"
            ax.text(j, i, str(n), ha="center", va="center", color=colour, fontsize=8)
    ticks = np.arange(len(counts))
    ax.set(xticks=ticks, yticks=ticks, xlabel=words("predicted"), ylabel=words("true"),
           title=words("accuracy {accuracy}", accuracy=f"{np.trace(counts) / counts.sum():.1%}"))
    return ax


def plot_misclassified(images: Any, labels: Any, predictions: Any, limit: int = 16,
                       columns: int = 8) -> Any:
    """The first `limit` images whose prediction is wrong, titled "true→predicted"."""
    import matplotlib.pyplot as plt

    images = np.asarray(images)
    labels, predictions = np.asarray(labels), np.asarray(predictions)
    wrong = np.flatnonzero(labels != predictions)[:limit]
    rows = max(1, -(-len(wrong) // columns))
    figure, axes = plt.subplots(rows, columns, figsize=(1.2 * columns, 1.4 * rows),
                                layout="constrained", squeeze=False)
    for ax in axes.ravel():
        ax.axis("off")
    for ax, index in zip(axes.ravel(), wrong):
        ax.imshow(images[index].reshape(images.shape[-2:]), cmap="gray_r")
        ax.set_title(f"{labels[index]}→{predictions[index]}", fontsize=9)
    figure.suptitle(words("{count} misclassified (true→predicted)",
                          count=len(np.flatnonzero(labels != predictions))), fontsize=10)
    return figure
