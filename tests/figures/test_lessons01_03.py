"""The lesson pictures show numbers computed by minigrad; these tests pin those numbers."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.figures import lesson01, lesson02, lesson03
from minigrad.figures.lesson03 import lesson03_example
from minigrad.scalar.value import topological_order


def test_gate_patterns_distribute_swap_and_route() -> None:
    (add, add_in, add_grad), (mul, mul_in, mul_grad), (top, max_in, max_grad) = \
        lesson02.gate_examples()
    assert (add, mul, top) == ("+", "×", "max")
    assert add_grad == [2.0, 2.0]                                 # add: the same to both
    assert mul_grad == [2.0 * mul_in[1], 2.0 * mul_in[0]]         # mul: the other input
    assert max_grad == [2.0, 0.0] and max_in[0] > max_in[1]       # max: all to the larger


def _by_label(root):  # type: ignore[no-untyped-def]
    return {node.label: node for node in topological_order(root) if node.label}


def test_two_paths_add_up_to_nine_x_squared() -> None:
    nodes = _by_label(lesson01.two_paths(1.5))
    assert nodes["x"].grad == pytest.approx(9 * 1.5 ** 2)


def test_small_network_gradients_match_lesson_01() -> None:
    nodes = _by_label(lesson01.small_network(2.0, (0.5, -1.5, 3.0, 0.25)))
    assert nodes["w1"].grad == -3.0 * 2.0                         # −w3·a
    assert nodes["a"].grad == -(3.0 * 0.5 + 0.25 * -1.5)          # −(w3·w1 + w4·w2)


def test_neuron_gradient_is_one_minus_o_squared_times_x() -> None:
    out = lesson02.neuron()
    nodes = _by_label(out)
    assert nodes["w1"].grad == pytest.approx((1 - out.data ** 2) * nodes["x1"].data)


def test_broadcast_gradient_is_the_column_sum() -> None:
    _, b, W, b_grad = lesson03.broadcast_example()
    np.testing.assert_array_equal(b_grad.numpy(), W.numpy().sum(axis=0))
    assert b_grad.shape == b.shape


def test_the_backward_graph_shows_the_two_constants_as_none() -> None:
    x, _, _, out = lesson03_example()
    source = lesson03.backward_graph_with_constants(out, names={"x": x}).source
    assert source.count('label="None"') == 2                      # the 3 of y·y·3 and the 2 of x + 2
    assert "AccumulateGrad" in source and "MeanBackward0" in source


def test_mlp_picture_counts_the_parameters() -> None:
    ax = lesson02.plot_mlp((2, 8, 8, 1))
    assert "105 parameters" in ax.get_title()
