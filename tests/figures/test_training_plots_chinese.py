"""The training plots a notebook draws (minigrad.figures.training: loss and accuracy per epoch,
the confusion matrix, the misclassified digits) carry Chinese labels in the Chinese course, in
the bundled CJK font with no missing glyph, and stay English in the English one."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from minigrad import i18n  # noqa: E402
from minigrad.figures.registry import _language  # noqa: E402
from minigrad.figures.training import (plot_confusion_matrix, plot_history,  # noqa: E402
                                       plot_misclassified)
from minigrad.training import History  # noqa: E402

LABELS = np.array([0, 1, 2, 2])
PREDICTIONS = np.array([0, 2, 2, 2])
IMAGES = np.zeros((4, 8, 8))


def _texts() -> list[str]:
    history = History(loss=[2.0, 1.0], accuracy=[0.5, 0.75], test_loss=[2.5, 1.5],
                      test_accuracy=[0.4, 0.7])
    loss, accuracy = plot_history(history)
    matrix = plot_confusion_matrix(LABELS, PREDICTIONS)
    mistakes = plot_misclassified(IMAGES, LABELS, PREDICTIONS)
    texts = [loss.get_title(), loss.get_xlabel(), loss.get_ylabel(), accuracy.get_title(),
             accuracy.get_ylabel(), *(t.get_text() for t in loss.get_legend().get_texts()),
             matrix.get_title(), matrix.get_xlabel(), matrix.get_ylabel(),
             mistakes.get_suptitle()]
    for figure in (loss.figure, matrix.figure, mistakes):
        figure.canvas.draw()
    plt.close("all")
    return texts


def test_the_training_plots_are_english_in_english() -> None:
    i18n.use("en")
    try:
        assert _texts() == ["loss", "epoch", "loss", "accuracy", "accuracy", "train", "test",
                            "accuracy 75.0%", "predicted", "true",
                            "1 misclassified (true→predicted)"]
    finally:
        i18n.use(None)


def test_the_training_plots_are_chinese_in_chinese_with_every_glyph() -> None:
    with _language("zh"), warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*missing from font.*")
        assert _texts() == ["损失", "轮（epoch）", "损失", "准确率", "准确率", "训练", "测试",
                            "准确率 75.0%", "预测类别", "真实类别",
                            "1 个误分类样本（真实→预测）"]
