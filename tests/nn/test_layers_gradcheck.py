"""Finite-difference checks (float64) of every nn op: linear, the losses, their double backward."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck

RNG = np.random.default_rng(7)


def leaf(*shape, scale=1.0):
    return mg.tensor(RNG.standard_normal(shape) * scale, dtype=mg.float64, requires_grad=True)


def test_linear_with_and_without_bias():
    x, w, b = leaf(4, 3), leaf(2, 3), leaf(2)
    assert gradcheck(lambda x, w, b: F.linear(x, w, b), [x, w, b])
    assert gradcheck(lambda x, w: F.linear(x, w), [x, w])
    assert gradcheck(lambda x, w, b: F.linear(x, w, b), [leaf(2, 5, 3), w, b])


def test_linear_second_derivative():
    x, w, b = leaf(4, 3), leaf(2, 3), leaf(2)

    def grad_norm(x, w, b):
        (gx,) = mg.autograd.grad((F.linear(x, w, b).tanh()).sum(), [x], create_graph=True)
        return (gx * gx).sum()

    assert gradcheck(grad_norm, [x, w, b])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy(reduction):
    classes = mg.tensor(RNG.integers(0, 4, 5))
    assert gradcheck(lambda x: F.cross_entropy(x, classes, reduction=reduction), [leaf(5, 4)])


def test_cross_entropy_second_derivative():
    classes = mg.tensor(RNG.integers(0, 4, 5))

    def grad_norm(x):
        (g,) = mg.autograd.grad(F.cross_entropy(x, classes), [x], create_graph=True)
        return (g * g).sum()

    assert gradcheck(grad_norm, [leaf(5, 4)])


def test_cross_entropy_backward_is_differentiable_in_both_its_inputs():
    """CrossEntropyBackward (one op) against finite differences: in the incoming per-row
    gradient v and in the logits, with an ignored row."""
    classes = mg.tensor(np.array([0, 3, -100, 1, 2]))

    def input_gradient(x, v):
        losses = F.cross_entropy(x, classes, reduction="none")
        (g,) = mg.autograd.grad(losses, [x], grad_outputs=[v], create_graph=True)
        return g

    assert gradcheck(input_gradient, [leaf(5, 4), leaf(5)])


def test_cross_entropy_backward_uses_the_labels_of_its_own_call():
    """A training loop may refill the target tensor for the next batch before backward runs;
    the gradient must still be softmax - onehot of the labels the loss was computed with."""
    target = mg.tensor(np.array([0, 3, 1]))
    x = leaf(3, 4)
    loss = F.cross_entropy(x, target, reduction="sum")
    target[:] = 2  # the same tensor, refilled in place
    loss.backward()
    probs = np.exp(x.numpy()) / np.exp(x.numpy()).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(x.grad.numpy(), probs - np.eye(4)[[0, 3, 1]], rtol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_both_inputs(reduction):
    target = mg.tensor(RNG.random((3, 2)), dtype=mg.float64, requires_grad=True)
    assert gradcheck(lambda x, y: F.binary_cross_entropy_with_logits(x, y, reduction=reduction),
                     [leaf(3, 2, scale=3), target])


def test_mse_loss_both_inputs():
    assert gradcheck(lambda x, y: F.mse_loss(x, y), [leaf(3, 2), leaf(3, 2)])
