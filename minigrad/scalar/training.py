"""Training a scalar MLP as a binary classifier: loss, gradient descent, accuracy.

The whole loop, written out once so a lesson can call it in one line:

    for step in range(steps):
        scores = [model(x) for x in X]              # forward: one Value per point
        loss = data_loss(scores, y) + λ/2·Σ p²      # one Value for the whole batch
        model.zero_grad(); loss.backward()          # ∂loss/∂p for every parameter p
        for p in model.parameters():                # gradient descent
            p.data -= learning_rate * p.grad

Labels are 0/1; the model outputs one unbounded score s per point and predicts class 1 when
s > 0. Internally the labels become t = ±1 (t = 2y − 1), the usual convention of both losses:

    hinge:    mean(max(0, 1 − t·s))      — zero once every point is on the right side by 1
    squared:  mean((s − t)²)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from minigrad.scalar.nn import MLP, make_rng
from minigrad.scalar.value import Value

LOSSES = ("hinge", "squared")


@dataclass
class TrainingHistory:
    """What :func:`train_classifier` saw: the loss and the training accuracy after each step."""

    losses: list[float] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)


def hinge_loss(scores: Sequence[Value], labels: Sequence[int]) -> Value:
    """mean_i max(0, 1 − t_i·s_i) with t_i = 2·y_i − 1 ∈ {−1, +1}."""
    targets = _signs(labels, len(scores))
    terms = [(1 - target * score).relu() for score, target in zip(scores, targets)]
    return sum(terms, Value(0.0)) * (1.0 / len(terms))


def squared_loss(scores: Sequence[Value], labels: Sequence[int]) -> Value:
    """mean_i (s_i − t_i)² with t_i = 2·y_i − 1 ∈ {−1, +1}."""
    targets = _signs(labels, len(scores))
    terms = [(score - target) ** 2 for score, target in zip(scores, targets)]
    return sum(terms, Value(0.0)) * (1.0 / len(terms))


def predict_scores(model: MLP, X: np.ndarray) -> np.ndarray:
    """The model's score for every row of ``X`` (shape (n, d)) as a float64 array of shape (n,)."""
    X = np.asarray(X, dtype=np.float64)
    return np.array([model(row.tolist()).data for row in X], dtype=np.float64)


def accuracy(model: MLP, X: np.ndarray, y: np.ndarray) -> float:
    """Fraction of points whose predicted class (score > 0 → 1, else 0) equals ``y``."""
    predicted = predict_scores(model, X) > 0
    return float(np.mean(predicted == (np.asarray(y) == 1)))


def train_classifier(model: MLP, X: np.ndarray, y: np.ndarray, steps: int = 100,
                     learning_rate: float = 1.0, loss: str = "hinge",
                     weight_decay: float = 1e-4, batch_size: int | None = None,
                     seed: random.Random | int | None = 0) -> TrainingHistory:
    """Train ``model`` (one output) on points ``X`` (n, d) with 0/1 labels ``y`` (n,).

    Each step: forward on a batch (all points, or ``batch_size`` drawn without replacement),
    loss = data loss + weight_decay/2·Σ p², backward, then p ← p − lr·∂loss/∂p with the learning
    rate decayed linearly from ``learning_rate`` to 10% of it. Returns the loss and the training
    accuracy (on the batch, measured in the same forward pass) after every step.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(
            f"expected X of shape (n, d) and y of shape (n,), got {X.shape} and {y.shape}"
        )
    if not np.isin(y, (0, 1)).all():
        raise ValueError(f"labels must be 0 or 1, got the values {sorted(set(y.tolist()))}")
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    if batch_size is not None and not 1 <= batch_size <= len(y):
        raise ValueError(f"batch_size must be between 1 and {len(y)} (n), got {batch_size!r}")
    data_loss = hinge_loss if loss == "hinge" else squared_loss
    rng = make_rng(seed)
    rows, labels = X.tolist(), y.tolist()
    parameters = model.parameters()
    history = TrainingHistory()
    for step in range(steps):
        if batch_size is None:
            batch = range(len(rows))
        else:
            batch = rng.sample(range(len(rows)), batch_size)
        batch_rows = [rows[i] for i in batch]
        batch_labels = [labels[i] for i in batch]
        scores = [model(row) for row in batch_rows]
        total = data_loss(scores, batch_labels)
        if weight_decay:
            penalty = sum((p * p for p in parameters), Value(0.0))
            total = total + (weight_decay / 2) * penalty
        model.zero_grad()
        total.backward()
        rate = learning_rate * (1.0 - 0.9 * step / steps)
        for p in parameters:
            p.data -= rate * p.grad
        correct = sum((s.data > 0) == (t == 1) for s, t in zip(scores, batch_labels))
        history.losses.append(total.data)
        history.accuracies.append(correct / len(batch_labels))
    return history


def decision_grid(model: MLP, X: np.ndarray, resolution: int = 60,
                  margin: float = 0.5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The model's scores on a grid covering ``X`` (n, 2), for drawing the decision boundary.

    Returns ``(xs, ys, scores)``: xs and ys of shape (resolution, resolution) from ``np.meshgrid``
    and the scores at those points, same shape; the boundary is the contour ``scores = 0``.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"decision_grid needs 2-D points, X of shape (n, 2); got {X.shape}")
    low, high = X.min(axis=0) - margin, X.max(axis=0) + margin
    xs, ys = np.meshgrid(np.linspace(low[0], high[0], resolution),
                         np.linspace(low[1], high[1], resolution))
    scores = predict_scores(model, np.column_stack([xs.ravel(), ys.ravel()]))
    return xs, ys, scores.reshape(xs.shape)


def _signs(labels: Sequence[int], count: int) -> list[float]:
    if len(labels) != count or count == 0:
        raise ValueError(f"need one label per score and at least one, got {len(labels)} "
                         f"labels for {count} scores")
    return [1.0 if label == 1 else -1.0 for label in labels]
