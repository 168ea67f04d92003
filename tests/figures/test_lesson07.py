"""Lesson 07's pictures draw the numbers minigrad computes (and the graph the issue asked for)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from minigrad.figures import lesson07  # noqa: E402


def test_the_routing_example_sends_each_gradient_to_its_argmax() -> None:
    y, indices, grad_x = lesson07.max_pool_example()
    assert y.tolist() == [[4.0, 5.0], [6.0, 3.0]]
    assert indices.tolist() == [[4, 6], [12, 15]]
    assert grad_x.ravel()[indices.ravel()].tolist() == [10.0, 20.0, 30.0, 40.0]
    assert np.count_nonzero(grad_x) == 4


def test_the_spread_example_adds_quarters_where_windows_overlap() -> None:
    grad_y, grad_x = lesson07.avg_pool_example()
    assert grad_x.tolist() == [[1.0, 3.0, 2.0], [4.0, 10.0, 6.0], [3.0, 7.0, 4.0]]
    assert grad_x.sum() == grad_y.sum()


def test_the_cnn_backward_graph_names_its_root_and_shows_no_empty_grads() -> None:
    source = lesson07.cnn_backward_graph().source
    assert 'label="{ loss () }"' in source and "grad None" not in source
    for node in ("MaxPool2DWithIndicesBackward0", "ReluBackward0", "ConvolutionBackward0",
                 "0.weight", "4.bias"):
        assert node in source
