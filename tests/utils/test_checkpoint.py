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


def test_second_derivatives_through_a_checkpoint_reach_its_input():
    """As torch.utils.checkpoint (use_reentrant=False): d²/dx² of Σ x³ is 6x."""
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=mg.float64, requires_grad=True)
    y = checkpoint(lambda t: (t * t * t).sum(dim=1), x)
    first, = mg.autograd.grad(y.sum(), x, create_graph=True)
    second, = mg.autograd.grad(first.sum(), x)
    np.testing.assert_allclose(first.numpy(), 3 * x.numpy() ** 2)
    np.testing.assert_allclose(second.numpy(), 6 * x.numpy())


def test_dropout_inside_a_checkpoint_draws_the_same_mask_twice():
    segment = nn.Sequential(nn.Linear(6, 6), nn.Dropout(0.5))
    x = mg.randn(5, 6, requires_grad=True)
    results = []
    for use in (True, False):
        x.grad = None
        segment.zero_grad()
        mg.manual_seed(3)
        out = checkpoint(segment, x) if use else segment(x)
        (out * out).sum().backward()
        results.append((out.numpy(), x.grad.numpy(), segment[0].weight.grad.numpy(),
                        mg.rand(1).item()))  # the generator is left where one forward leaves it
    (out_a, gx_a, gw_a, next_a), (out_b, gx_b, gw_b, next_b) = results
    np.testing.assert_array_equal(out_a, out_b)
    np.testing.assert_allclose(gx_a, gx_b, rtol=1e-6)
    np.testing.assert_allclose(gw_a, gw_b, rtol=1e-6)
    assert next_a == next_b
