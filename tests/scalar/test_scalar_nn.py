"""Neuron, Layer, MLP on Values, and training one on the moons until it separates them."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from minigrad import Value
from minigrad.data import make_moons
from minigrad.scalar.numerical import numerical_gradient
from minigrad.scalar.nn import MLP, Layer, Neuron
from minigrad.scalar.training import (
    accuracy,
    decision_grid,
    hinge_loss,
    predict_scores,
    squared_loss,
    train_classifier,
)


def test_neuron_computes_the_weighted_sum_and_its_gradients():
    neuron = Neuron(3, "tanh", seed=1)
    w = [p.data for p in neuron.weights]
    b = neuron.bias.data
    x = [0.5, -1.0, 2.0]
    out = neuron(x)
    pre_activation = sum(wi * xi for wi, xi in zip(w, x)) + b
    assert out.data == pytest.approx(math.tanh(pre_activation), rel=1e-12)
    out.backward()

    def as_function(*params):
        return math.tanh(sum(p * xi for p, xi in zip(params[:3], x)) + params[3])

    expected = numerical_gradient(as_function, [*w, b])
    assert [p.grad for p in neuron.parameters()] == pytest.approx(expected, rel=1e-7)


def test_neuron_nonlinearities():
    x = [1.0, 2.0]
    relu, linear = Neuron(2, "relu", seed=3), Neuron(2, "linear", seed=3)
    pre = sum(w.data * xi for w, xi in zip(linear.weights, x)) + linear.bias.data
    assert linear(x).data == pytest.approx(pre)
    assert relu(x).data == pytest.approx(max(pre, 0.0))
    assert linear(x).op == "+" and relu(x).op == "relu"


def test_initialisation_is_seeded_and_bounded():
    a, b, c = MLP(4, [5, 1], seed=11), MLP(4, [5, 1], seed=11), MLP(4, [5, 1], seed=12)
    values = [p.data for p in a.parameters()]
    assert values == [p.data for p in b.parameters()]
    assert values != [p.data for p in c.parameters()]
    first_layer = a.layers[0].parameters()
    assert all(abs(p.data) <= 1 / math.sqrt(4) for p in first_layer)
    assert all(abs(p.data) <= 1 / math.sqrt(5) for p in a.layers[1].parameters())
    shared = random.Random(5)
    assert [p.data for p in MLP(4, [5, 1], seed=shared).parameters()] == \
        [p.data for p in MLP(4, [5, 1], seed=random.Random(5)).parameters()]


def test_mlp_structure_and_parameter_count():
    model = MLP(2, [16, 16, 1], nonlinearity="relu", seed=0)
    assert len(model.parameters()) == (2 * 16 + 16) + (16 * 16 + 16) + (16 + 1)
    assert [layer.neurons[0].nonlinearity for layer in model.layers] == ["relu", "relu",
                                                                         "linear"]
    assert isinstance(model([0.1, 0.2]), Value)
    outputs = MLP(3, [4, 2], seed=0)([1.0, 2.0, 3.0])
    assert isinstance(outputs, list) and len(outputs) == 2
    layer_out = Layer(3, 4, seed=0)([1.0, 2.0, 3.0])
    assert isinstance(layer_out, list) and len(layer_out) == 4


def test_mlp_gradients_match_central_differences():
    model = MLP(2, [3, 1], seed=4)
    params = model.parameters()
    x = [0.7, -0.4]
    out = model(x)
    out.backward()
    backprop = [p.grad for p in params]
    initial = [p.data for p in params]

    def output_at(*values):
        for p, v in zip(params, values):
            p.data = v
        return model(x).data

    expected = numerical_gradient(output_at, initial)
    assert backprop == pytest.approx(expected, rel=1e-6, abs=1e-10)


def test_zero_grad_resets_every_parameter():
    model = MLP(2, [3, 1], seed=0)
    model([1.0, 1.0]).backward()
    assert any(p.grad != 0.0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())


def test_bad_construction_and_inputs_are_refused():
    with pytest.raises(ValueError, match="nonlinearity must be one of"):
        MLP(2, [3, 1], nonlinearity="sigmoidish")
    with pytest.raises(ValueError, match="layer_sizes must be a non-empty list"):
        MLP(2, [])
    with pytest.raises(ValueError, match="n_inputs must be a positive int"):
        Neuron(0)
    with pytest.raises(ValueError, match="takes 2 inputs, got 3"):
        Neuron(2, seed=0)([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="seed must be an int or a random.Random"):
        MLP(2, [1], seed="zero")


def test_losses_by_hand():
    scores = [Value(2.0), Value(0.5), Value(-0.25)]
    labels = [1, 1, 0]  # targets +1, +1, -1
    # hinge: max(0, 1-2)=0, max(0, 1-0.5)=0.5, max(0, 1-0.25)=0.75 → mean 1.25/3
    loss = hinge_loss(scores, labels)
    assert loss.data == pytest.approx(1.25 / 3)
    loss.backward()
    assert [s.grad for s in scores] == pytest.approx([0.0, -1 / 3, 1 / 3])
    # squared: (2-1)², (0.5-1)², (-0.25+1)² → mean (1 + 0.25 + 0.5625)/3
    assert squared_loss(scores, labels).data == pytest.approx(1.8125 / 3)
    with pytest.raises(ValueError, match="one label per score"):
        hinge_loss(scores, [1, 0])


def test_training_separates_the_moons():
    X, y = make_moons(100, noise=0.1, seed=0)
    model = MLP(2, [8, 8, 1], nonlinearity="tanh", seed=0)
    history = train_classifier(model, X, y, steps=100, learning_rate=1.0, loss="hinge")
    assert len(history.losses) == len(history.accuracies) == 100
    assert history.losses[-1] < 0.25 * history.losses[0]
    assert accuracy(model, X, y) >= 0.95
    assert history.accuracies[-1] == pytest.approx(accuracy(model, X, y), abs=0.02)
    predicted = (predict_scores(model, X) > 0).astype(int)
    assert (predicted == y).mean() >= 0.95


def test_squared_loss_minibatch_training_lowers_the_loss():
    X, y = make_moons(60, noise=0.1, seed=1)
    model = MLP(2, [6, 1], seed=1)
    history = train_classifier(model, X, y, steps=30, learning_rate=0.2, loss="squared",
                               batch_size=20, seed=0)
    assert np.mean(history.losses[-5:]) < np.mean(history.losses[:5])


def test_training_rejects_bad_input():
    X, y = make_moons(20, seed=0)
    model = MLP(2, [2, 1], seed=0)
    with pytest.raises(ValueError, match="labels must be 0 or 1"):
        train_classifier(model, X, y + 1, steps=1)
    with pytest.raises(ValueError, match=r"X of shape \(n, d\).*\(20, 2\) and \(19,\)"):
        train_classifier(model, X, y[:-1], steps=1)
    with pytest.raises(ValueError, match="loss must be one of"):
        train_classifier(model, X, y, steps=1, loss="cross-entropy")
    with pytest.raises(ValueError, match="batch_size must be between 1 and 20"):
        train_classifier(model, X, y, steps=1, batch_size=50)


def test_decision_grid_covers_the_data():
    X, _ = make_moons(20, seed=0)
    model = MLP(2, [2, 1], seed=0)
    xs, ys, scores = decision_grid(model, X, resolution=7, margin=0.5)
    assert xs.shape == ys.shape == scores.shape == (7, 7)
    assert xs.min() == pytest.approx(X[:, 0].min() - 0.5)
    assert ys.max() == pytest.approx(X[:, 1].max() + 0.5)
    assert scores[3, 4] == pytest.approx(model([xs[3, 4], ys[3, 4]]).data)


@pytest.mark.oracle
def test_mlp_matches_pytorch():
    torch = pytest.importorskip("torch")
    model = MLP(3, [4, 2], nonlinearity="tanh", seed=2)
    x = [0.3, -1.2, 0.8]
    outputs = model(x)
    (outputs[0] * 2 + outputs[1] ** 2).backward()

    hidden, last = model.layers
    w1 = torch.tensor([[w.data for w in n.weights] for n in hidden.neurons],
                      dtype=torch.float64, requires_grad=True)
    b1 = torch.tensor([n.bias.data for n in hidden.neurons], dtype=torch.float64,
                      requires_grad=True)
    w2 = torch.tensor([[w.data for w in n.weights] for n in last.neurons],
                      dtype=torch.float64, requires_grad=True)
    b2 = torch.tensor([n.bias.data for n in last.neurons], dtype=torch.float64,
                      requires_grad=True)
    out = torch.tanh(torch.tensor(x, dtype=torch.float64) @ w1.T + b1) @ w2.T + b2
    (out[0] * 2 + out[1] ** 2).backward()
    assert [o.data for o in outputs] == pytest.approx(out.tolist(), rel=1e-12)
    assert [w.grad for n in hidden.neurons for w in n.weights] == \
        pytest.approx(w1.grad.flatten().tolist(), rel=1e-10)
    assert [n.bias.grad for n in last.neurons] == pytest.approx(b2.grad.tolist(), rel=1e-10)
