"""nn.Conv2d / nn.MaxPool2d / nn.AvgPool2d and their F.* functions."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F

pytestmark = pytest.mark.usefixtures("warm_kernels")


def test_conv2d_layer_shapes_and_default_init() -> None:
    mg.manual_seed(0)
    layer = nn.Conv2d(3, 8, 5, padding=2)
    assert layer.weight.shape == (8, 3, 5, 5) and layer.bias.shape == (8,)
    assert layer.weight.dtype == mg.float32 and layer.weight.requires_grad
    bound = 1 / math.sqrt(3 * 5 * 5)
    weights = layer.weight.numpy()
    assert np.abs(weights).max() <= bound and np.abs(weights).max() > 0.9 * bound
    assert abs(weights.mean()) < 0.1 * bound  # uniform around 0
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"]
    y = layer(mg.randn(2, 3, 9, 7))
    assert y.shape == (2, 8, 9, 7)
    no_bias = nn.Conv2d(3, 4, (3, 2), stride=(2, 1), bias=False)
    assert no_bias.bias is None and len(list(no_bias.parameters())) == 1
    assert no_bias(mg.randn(1, 3, 7, 6)).shape == (1, 4, 3, 5)


def test_conv2d_layer_matches_the_functional_form_and_learns() -> None:
    mg.manual_seed(1)
    layer = nn.Conv2d(1, 2, 3)
    x = mg.randn(4, 1, 6, 6)
    expected = F.conv2d(x, layer.weight, layer.bias)
    np.testing.assert_array_equal(layer(x).numpy(), expected.numpy())
    layer(x).sum().backward()
    assert layer.weight.grad.shape == (2, 1, 3, 3)
    np.testing.assert_allclose(layer.bias.grad.numpy(), [4 * 16, 4 * 16])


def test_pool_layers() -> None:
    x = mg.tensor(np.arange(16.0).reshape(1, 1, 4, 4), dtype=mg.float32)
    np.testing.assert_array_equal(nn.MaxPool2d(2)(x).numpy()[0, 0], [[5, 7], [13, 15]])
    np.testing.assert_array_equal(nn.AvgPool2d(2)(x).numpy()[0, 0], [[2.5, 4.5], [10.5, 12.5]])
    assert nn.MaxPool2d(3, stride=1, padding=1)(x).shape == (1, 1, 4, 4)
    assert list(nn.MaxPool2d(2).parameters()) == []
    assert "kernel_size=2" in repr(nn.MaxPool2d(2))


def test_lenet_style_network_runs_forward_and_backward() -> None:
    mg.manual_seed(2)
    model = nn.Sequential(
        nn.Conv2d(1, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 2 * 2, 10))
    x = mg.randn(5, 1, 8, 8)
    loss = nn.CrossEntropyLoss()(model(x), mg.tensor([0, 1, 2, 3, 4]))
    loss.backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in model.parameters())


@pytest.mark.parametrize("bad, message", [
    (lambda: nn.Conv2d(0, 4, 3), "in_channels must be a positive int"),
    (lambda: nn.Conv2d(3, 4, 0), "kernel_size must be positive"),
])
def test_conv2d_layer_rejects_bad_sizes(bad, message) -> None:
    with pytest.raises(ValueError, match=message):
        bad()


@pytest.mark.oracle
def test_conv2d_layer_against_torch() -> None:
    torch = pytest.importorskip("torch")
    mine = nn.Conv2d(2, 3, 3, stride=2, padding=1)
    theirs = torch.nn.Conv2d(2, 3, 3, stride=2, padding=1)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(mine.weight.numpy()))
        theirs.bias.copy_(torch.tensor(mine.bias.numpy()))
    data = np.random.default_rng(0).standard_normal((2, 2, 7, 7)).astype(np.float32)
    np.testing.assert_allclose(mine(mg.tensor(data)).numpy(),
                               theirs(torch.tensor(data)).detach().numpy(), rtol=1e-5, atol=1e-5)
    assert str(mine) == str(theirs)
