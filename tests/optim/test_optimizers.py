"""SGD, Adam and AdamW against trajectories worked out from PyTorch's documented update rules
(no PyTorch needed), and `Optimizer.state` as PyTorch has it.

The problem: p starts at (1, −2) and every step's gradient is g = c·p + (0.5, 0), c = (1, 0.5)
(the gradient of Σ c·p²/2 + 0.5·p₀). lr = 0.1, weight decay λ = 0.1, three steps, float64.
The expected positions were computed in numpy from the rules in torch.optim's documentation:

    SGD:   d = g + λp;  buf = d (first step), else μ·buf + (1 − τ)·d;  p ← p − lr·buf
    Adam:  g ← g + λp;  m = β₁m + (1 − β₁)g;  v = β₂v + (1 − β₂)g²;
           p ← p − lr·m̂/(√v̂ + ε),  m̂ = m/(1 − β₁ᵗ),  v̂ = v/(1 − β₂ᵗ)
    AdamW: p ← p(1 − lr·λ), then Adam's step without λ in g

Step one by hand, SGD: g = (1.5, −1), d = (1.6, −1.2), p = (1 − 0.16, −2 + 0.12) = (0.84, −1.88).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

import minigrad as mg
import minigrad.optim as optim

SCALE = np.array([1.0, 0.5])
SHIFT = np.array([0.5, 0.0])

EXPECTED = {
    "sgd": [[0.84, -1.88],
            [0.56784, -1.67048],
            [0.22167984, -1.39170608]],
    "adam": [[0.900000000625, -1.9000000008333333],
             [0.8002487733386348, -1.8001664872949483],
             [0.7009405913211053, -1.700623393832979]],
    "adamw": [[0.8900000006666666, -1.880000001],
              [0.7813706462795685, -1.7614089520966298],
              [0.6743071523449007, -1.6443686858448485]],
}


def _optimizer(name: str, params: list) -> optim.Optimizer:
    if name == "sgd":
        return optim.SGD(params, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.1)
    if name == "adam":
        return optim.Adam(params, lr=0.1, weight_decay=0.1)
    return optim.AdamW(params, lr=0.1, weight_decay=0.1)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_three_steps_follow_pytorchs_update_rule(name: str) -> None:
    p = mg.tensor([1.0, -2.0], dtype=mg.float64, requires_grad=True)
    optimizer = _optimizer(name, [p])
    positions = []
    for _ in range(3):
        p.grad = mg.tensor(SCALE * p.numpy() + SHIFT, dtype=mg.float64)
        optimizer.step()
        positions.append(p.numpy().copy())
    np.testing.assert_allclose(positions, EXPECTED[name], rtol=1e-12, atol=1e-14)


def test_state_is_a_defaultdict_of_dicts_as_in_pytorch() -> None:
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    optimizer = optim.SGD([p], lr=0.1, momentum=0.9)
    assert isinstance(optimizer.state, defaultdict)
    assert optimizer.state[p] == {}  # no KeyError before p's first step
    p.grad = mg.ones(2)
    optimizer.step()
    assert set(optimizer.state[p]) == {"momentum_buffer"}
    reloaded = optim.SGD([p], lr=0.1, momentum=0.9)
    reloaded.load_state_dict(optimizer.state_dict())
    assert isinstance(reloaded.state, defaultdict)
    assert reloaded.state[mg.zeros(1)] == {}
