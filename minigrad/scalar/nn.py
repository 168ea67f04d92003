"""A neuron, a layer and a multi-layer perceptron built from scalar :class:`Value` s.

A neuron computes a weighted sum of its inputs plus a bias and passes it through a nonlinearity:

    out = φ(w_0·x_0 + … + w_{n−1}·x_{n−1} + b),     φ = tanh, relu, or the identity ("linear").

A layer is a list of neurons that all read the same inputs; an MLP is a chain of layers. The
last layer of an MLP is linear, so its outputs are unbounded scores. Every weight is a leaf
Value: after ``loss.backward()`` its ``.grad`` holds ∂loss/∂weight, and a gradient-descent step
is ``p.data -= lr * p.grad`` for every ``p`` in ``model.parameters()``.

Weights and biases start uniform in [−1/√n, 1/√n] (n = inputs per neuron), PyTorch's
``nn.Linear`` default, drawn from a seeded ``random.Random`` so runs are reproducible. Every
constructor takes ``seed``: an int, or a ``random.Random`` to share one stream of numbers.
"""

from __future__ import annotations

import math
import random
from typing import Sequence

from minigrad.scalar.value import Value

NONLINEARITIES = ("tanh", "relu", "linear")



class Module:
    """Anything with parameters: lists them and resets their gradients."""

    def parameters(self) -> list[Value]:
        return []

    def zero_grad(self) -> None:
        """Set every parameter's ``.grad`` to 0.0 (gradients accumulate until you do)."""
        for parameter in self.parameters():
            parameter.grad = 0.0


class Neuron(Module):
    """out = φ(Σ_i w_i·x_i + b) for ``n_inputs`` inputs; φ is ``nonlinearity``."""

    def __init__(self, n_inputs: int, nonlinearity: str = "tanh",
                 seed: random.Random | int | None = 0) -> None:
        n_inputs = _check_size(n_inputs, "n_inputs")
        self.nonlinearity = _check_nonlinearity(nonlinearity)
        rng = make_rng(seed)
        bound = 1.0 / math.sqrt(n_inputs)
        self.weights = [Value(rng.uniform(-bound, bound), label="w") for _ in range(n_inputs)]
        self.bias = Value(rng.uniform(-bound, bound), label="b")

    def __call__(self, inputs: Sequence[Value | float]) -> Value:
        if len(inputs) != len(self.weights):
            raise ValueError(
                f"this neuron takes {len(self.weights)} inputs, got {len(inputs)}: {inputs!r}"
            )
        # The bias starts the sum, so a neuron with n inputs builds n products and n additions.
        total = self.bias
        for weight, x in zip(self.weights, inputs):
            total = total + weight * x
        if self.nonlinearity == "tanh":
            return total.tanh()
        if self.nonlinearity == "relu":
            return total.relu()
        return total

    def parameters(self) -> list[Value]:
        return [*self.weights, self.bias]

    def __repr__(self) -> str:
        return f"Neuron({len(self.weights)} inputs, {self.nonlinearity})"


class Layer(Module):
    """``n_outputs`` neurons reading the same ``n_inputs`` inputs; returns a list of Values."""

    def __init__(self, n_inputs: int, n_outputs: int, nonlinearity: str = "tanh",
                 seed: random.Random | int | None = 0) -> None:
        n_outputs = _check_size(n_outputs, "n_outputs")
        rng = make_rng(seed)
        self.neurons = [Neuron(n_inputs, nonlinearity, rng) for _ in range(n_outputs)]

    def __call__(self, inputs: Sequence[Value | float]) -> list[Value]:
        return [neuron(inputs) for neuron in self.neurons]

    def parameters(self) -> list[Value]:
        return [p for neuron in self.neurons for p in neuron.parameters()]

    def __repr__(self) -> str:
        first = self.neurons[0]
        return f"Layer({len(first.weights)} -> {len(self.neurons)}, {first.nonlinearity})"


class MLP(Module):
    """Layers of sizes ``n_inputs → layer_sizes[0] → … → layer_sizes[-1]``; the last is linear.

    ``MLP(2, [16, 16, 1])`` has two hidden layers of 16 neurons and one output. Calling it on
    ``n_inputs`` numbers returns a single Value when the last layer has one neuron, otherwise a
    list of Values (one score per output).
    """

    def __init__(self, n_inputs: int, layer_sizes: Sequence[int], nonlinearity: str = "tanh",
                 seed: random.Random | int | None = 0) -> None:
        n_inputs = _check_size(n_inputs, "n_inputs")
        if isinstance(layer_sizes, int) or len(layer_sizes) == 0:
            raise ValueError(
                f"layer_sizes must be a non-empty list of layer widths such as [16, 16, 1], "
                f"got {layer_sizes!r}"
            )
        _check_nonlinearity(nonlinearity)
        rng = make_rng(seed)
        sizes = [n_inputs, *layer_sizes]
        last = len(layer_sizes) - 1
        self.layers = [
            Layer(sizes[i], sizes[i + 1], "linear" if i == last else nonlinearity, rng)
            for i in range(len(layer_sizes))
        ]

    def __call__(self, inputs: Sequence[Value | float]) -> Value | list[Value]:
        outputs: Sequence[Value | float] = list(inputs)
        for layer in self.layers:
            outputs = layer(outputs)
        return outputs[0] if len(outputs) == 1 else list(outputs)

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self) -> str:
        return "MLP(" + ", ".join(repr(layer) for layer in self.layers) + ")"


def make_rng(seed: random.Random | int | None) -> random.Random:
    """A ``random.Random``: the one given, one seeded with the int ``seed``, or (None) an
    unseeded one that differs from run to run."""
    if isinstance(seed, random.Random):
        return seed
    if seed is None:
        return random.Random()
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(
            f"seed must be an int or a random.Random, got {type(seed).__name__}: {seed!r}"
        )
    return random.Random(seed)


def _check_size(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


def _check_nonlinearity(name: str) -> str:
    if name not in NONLINEARITIES:
        raise ValueError(f"nonlinearity must be one of {NONLINEARITIES}, got {name!r}")
    return name
