"""fit / evaluate / predict on the digits, and the training plots."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim
from minigrad.data import DataLoader, TensorDataset, load_digits
from minigrad.training import History, evaluate, fit, predict
from minigrad.figures.training import (
    confusion_matrix, plot_confusion_matrix, plot_history, plot_misclassified,
)


@pytest.fixture(scope="module")
def trained():
    mg.manual_seed(0)
    train, test = load_digits("train"), load_digits("test")
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    loader = DataLoader(TensorDataset(*train), batch_size=32, shuffle=True, seed=0)
    history = fit(model, nn.CrossEntropyLoss(), optim.Adam(model.parameters(), lr=3e-3),
                  loader, epochs=4, test_data=test, progress=False)
    return model, history, test


def test_fit_records_every_epoch_and_learns(trained):
    model, history, test = trained
    assert len(history) == 4
    assert len(history.accuracy) == len(history.test_loss) == len(history.test_accuracy) == 4
    assert history.loss[-1] < history.loss[0] / 3
    assert history.test_accuracy[-1] > 0.9
    loss, accuracy = evaluate(model, test, nn.CrossEntropyLoss())
    assert accuracy == history.test_accuracy[-1] and loss == pytest.approx(history.test_loss[-1])
    assert model.training  # fit leaves the model in train mode; evaluate restores the mode


def test_predict_agrees_with_evaluate(trained):
    model, _, (images, labels) = trained
    predictions = predict(model, images)
    assert predictions.shape == (360,) and predictions.dtype == np.int64
    _, accuracy = evaluate(model, (images, labels))
    assert (predictions == labels.numpy()).mean() == accuracy


def test_fit_continues_a_history_and_shows_a_progress_bar(capsys):
    model = nn.Linear(2, 2)
    x, y = mg.randn(8, 2), mg.tensor([0, 1] * 4)
    loader = DataLoader(TensorDataset(x, y), batch_size=4)
    history = fit(model, nn.CrossEntropyLoss(), optim.SGD(model.parameters(), lr=0.1), loader, 1)
    fit(model, nn.CrossEntropyLoss(), optim.SGD(model.parameters(), lr=0.1), loader, 2,
        history=history)
    assert len(history) == 3 and history.test_loss == []
    assert "2/2" in capsys.readouterr().err  # tqdm writes to stderr


def test_confusion_matrix_counts():
    counts = confusion_matrix([0, 1, 1, 2, 2, 2], [0, 1, 2, 2, 2, 0], classes=3)
    assert counts.tolist() == [[1, 0, 0], [0, 1, 1], [1, 0, 2]]
    with pytest.raises(ValueError, match="one prediction per label"):
        confusion_matrix([0, 1], [0])


def test_plots_draw(trained):
    model, history, (images, labels) = trained
    predictions = predict(model, images)
    loss_ax, accuracy_ax = plot_history(history)
    assert len(loss_ax.get_lines()) == 2 and len(accuracy_ax.get_lines()) == 2
    ax = plot_confusion_matrix(labels.numpy(), predictions)
    assert ax.get_images()[0].get_array().sum() == 360
    figure = plot_misclassified(images.numpy(), labels.numpy(), predictions, limit=8)
    shown = [ax for ax in figure.axes if ax.get_images()]
    assert len(shown) == min(8, int((predictions != labels.numpy()).sum()))
    assert History().test_accuracy == []
