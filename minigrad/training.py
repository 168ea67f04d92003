"""Training a Tensor model: the loop every PyTorch user writes, once, with a progress bar.

    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()                 # gradients accumulate: start from none
            loss = loss_fn(model(x), y)           # forward
            loss.backward()                       # backward: dloss/dp for every parameter
            optimizer.step()                      # update the parameters in place
        model.eval(); evaluate(...)               # loss and accuracy per epoch

`fit` runs exactly that and records, per epoch, the mean training loss, the training
accuracy (over the batches as they were seen) and, given test data, the test loss and
accuracy. The progress bar is tqdm's (its notebook widget in Jupyter).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from minigrad.autograd import no_grad
from minigrad.data.loader import DataLoader, TensorDataset
from minigrad.nn.module import Module
from minigrad.optim.optimizer import Optimizer
from minigrad.tensor import Tensor

Batches = Iterable[tuple[Tensor, Tensor]]


@dataclass
class History:
    """Per-epoch records of `fit` (lists of floats, one entry per epoch)."""

    loss: list[float] = field(default_factory=list)
    accuracy: list[float] = field(default_factory=list)
    test_loss: list[float] = field(default_factory=list)
    test_accuracy: list[float] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.loss)


def _batches(data: Batches | tuple[Tensor, Tensor], batch_size: int) -> Batches:
    """A DataLoader, any iterable of (x, y) batches, or a pair (x, y) batched in order."""
    if isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], Tensor):
        return DataLoader(TensorDataset(*data), batch_size=batch_size)
    return data


def _correct(scores: Tensor, labels: Tensor) -> int:
    """How many rows of scores (N, C) have their largest entry at the label."""
    return int((np.asarray(scores).argmax(axis=1) == np.asarray(labels)).sum())


def evaluate(model: Module, data: Batches | tuple[Tensor, Tensor],
             loss_fn: Callable[[Tensor, Tensor], Tensor] | None = None,
             batch_size: int = 512) -> tuple[float, float]:
    """(mean loss, accuracy) of a classifier on `data`, without building a graph.

    `data` is a DataLoader or a pair (images, labels). The loss is NaN when loss_fn is None.
    The model is put in eval mode and back in the mode it was in.
    """
    was_training = model.training
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with no_grad():
        for x, y in _batches(data, batch_size):
            scores = model(x)
            if loss_fn is not None:
                total_loss += loss_fn(scores, y).item() * len(y)
            correct += _correct(scores, y)
            count += len(y)
    model.train(was_training)
    if count == 0:
        raise ValueError("evaluate(): the data holds no samples")
    return (total_loss / count if loss_fn is not None else float("nan")), correct / count


def predict(model: Module, images: Tensor, batch_size: int = 512) -> np.ndarray:
    """The predicted class of every image (argmax of the scores), as an int64 array."""
    was_training = model.training
    model.eval()
    with no_grad():
        predictions = [np.asarray(model(x)).argmax(axis=1)
                       for (x,) in DataLoader(TensorDataset(images), batch_size=batch_size)]
    model.train(was_training)
    return np.concatenate(predictions).astype(np.int64)


def fit(model: Module, loss_fn: Callable[[Tensor, Tensor], Tensor], optimizer: Optimizer,
        train_loader: Batches, epochs: int, test_data: Any = None,
        progress: bool = True, history: History | None = None) -> History:
    """Train for `epochs` passes over `train_loader`; returns the per-epoch History.

    Args:
        model, loss_fn, optimizer: what to train, the loss (scores, labels) → scalar, the
            optimizer built on model.parameters().
        train_loader: a DataLoader (or any iterable) of (x, y) batches.
        test_data: a DataLoader or (images, labels) to evaluate after every epoch.
        progress: show a tqdm bar (batches of the current epoch, with loss and accuracy).
        history: continue filling an existing History (to train some more epochs).
    """
    history = history if history is not None else History()
    batches = _length(train_loader)
    bar = _progress_bar(epochs * batches if batches is not None else None, progress)
    for epoch in range(epochs):
        model.train()
        total_loss, correct, count = 0.0, 0, 0
        for x, y in train_loader:
            optimizer.zero_grad()
            scores = model(x)
            loss = loss_fn(scores, y)
            loss.backward()
            optimizer.step()
            total_loss += loss.item() * len(y)
            correct += _correct(scores, y)
            count += len(y)
            if bar is not None:
                bar.update(1)
        history.loss.append(total_loss / count)
        history.accuracy.append(correct / count)
        summary = {"epoch": len(history), "loss": f"{history.loss[-1]:.4f}",
                   "acc": f"{history.accuracy[-1]:.3f}"}
        if test_data is not None:
            test_loss, test_accuracy = evaluate(model, test_data, loss_fn)
            history.test_loss.append(test_loss)
            history.test_accuracy.append(test_accuracy)
            summary["test_acc"] = f"{test_accuracy:.3f}"
        if bar is not None:
            bar.set_postfix(summary)
    if bar is not None:
        bar.close()
    return history


def _length(loader: Batches) -> int | None:
    try:
        return len(loader)  # type: ignore[arg-type]
    except TypeError:
        return None


def _progress_bar(total: int | None, show: bool) -> Any:
    if not show:
        return None
    try:  # tqdm's notebook widget needs ipywidgets; without it, the text bar (no warning)
        import ipywidgets  # noqa: F401
        from tqdm.auto import tqdm
    except ImportError:
        from tqdm import tqdm

    return tqdm(total=total, unit="batch", leave=True)
