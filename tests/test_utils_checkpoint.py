"""checkpoint recomputes a segment in backward with the same gradients; saved_bytes measures."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck
from minigrad.utils import checkpoint, saved_bytes


def deep_model(depth=6, width=16, seed=0):
    mg.manual_seed(seed)
    blocks = [nn.Sequential(nn.Linear(width, width, dtype=mg.float64), nn.Tanh())
              for _ in range(depth)]
    return blocks, nn.Linear(width, 3, dtype=mg.float64)


def run(blocks, head, x, y, use_checkpoint):
    h = x
    for block in blocks:
        h = checkpoint(block, h) if use_checkpoint else block(h)
    return F.cross_entropy(head(h), y)


def test_checkpointed_gradients_equal_plain_ones():
    x = mg.randn(5, 16, dtype=mg.float64, requires_grad=True)
    y = mg.tensor([0, 1, 2, 1, 0])
    blocks, head = deep_model()
    params = [p for b in blocks for p in b.parameters()] + list(head.parameters())
    run(blocks, head, x, y, False).backward()
    plain = [p.grad.numpy() for p in params] + [x.grad.numpy()]
    for p in params:
        p.grad = None
    x.grad = None
    loss = run(blocks, head, x, y, True)
    assert loss.grad_fn.next_functions[0][0].name() == "CrossEntropyLossBackward0"
    loss.backward()
    again = [p.grad.numpy() for p in params] + [x.grad.numpy()]
    for a, b in zip(plain, again):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def test_checkpoint_gives_parameters_gradients_even_when_the_input_needs_none():
    blocks, head = deep_model(depth=2)
    x = mg.randn(4, 16, dtype=mg.float64)  # data: no grad needed
    run(blocks, head, x, mg.tensor([0, 1, 2, 0]), True).backward()
    assert all(p.grad is not None for b in blocks for p in b.parameters())


def test_checkpoint_of_a_function_with_explicit_parameters_gradchecks():
    w = mg.randn(3, 3, dtype=mg.float64, requires_grad=True)

    def segment(h):
        return (h @ w).tanh() * h

    def through_checkpoint(x, w):
        return checkpoint(segment, x, parameters=[w]).sum()

    x = mg.randn(2, 3, dtype=mg.float64, requires_grad=True)
    assert gradcheck(through_checkpoint, [x, w])


def test_checkpointing_segments_keeps_only_their_inputs():
    blocks, head = deep_model(depth=8, width=64)
    x = mg.randn(256, 64, dtype=mg.float64, requires_grad=True)
    y = mg.tensor(np.arange(256) % 3)
    activation = 256 * 64 * 8
    plain = saved_bytes(run(blocks, head, x, y, False))
    assert plain >= 8 * activation          # one (shared) activation per layer, at least
    segments = [nn.Sequential(*blocks[:4]), nn.Sequential(*blocks[4:])]
    kept = saved_bytes(run(segments, head, x, y, True))
    assert kept <= plain - 6 * activation    # two segment inputs instead of eight activations


def test_saved_bytes_counts_activations_not_parameters_and_drops_to_zero():
    layer = nn.Linear(10, 20, dtype=mg.float64)
    x = mg.randn(7, 10, dtype=mg.float64)
    out = layer(x).relu().sum()
    # Linear saves x (7×10) and W (a parameter, excluded); ReLU saves its output (7×20).
    assert saved_bytes(out) == (7 * 10 + 7 * 20) * 8
    out.backward()
    assert saved_bytes(out) == 0
    assert saved_bytes(mg.ones(3)) == 0


def test_checkpoint_rejects_non_tensors():
    with pytest.raises(TypeError, match="input 0 must be a Tensor"):
        checkpoint(lambda a: a, [1.0])
    with pytest.raises(TypeError, match="must return a Tensor"):
        checkpoint(lambda a: 1.0, mg.ones(1))
