"""Lesson 05 exercises — layers as operators: the MLP.

Each function below is one exercise. Replace the body marked ``# YOUR CODE HERE`` and run
``check("05.N", function)`` to test it on the visible cases; the grader also runs hidden cases
on fresh random inputs. Arrays come in and go out as ``numpy`` arrays (float64).

The theme of the lesson: every layer, activation and loss follows one rule. Given
Δ = dL/d(output), a layer returns dL/d(input) = (its Jacobian)ᵀ Δ, and, if it has
parameters, dL/d(parameter) — all shaped like what they are the gradient of.

Exercises 05.1, 05.5 and 05.6 are one thread: you write ``Linear`` as a ``Function`` (05.1),
then as a ``Module`` whose forward calls your Function (05.5), then the training loop that
trains an MLP made of your Module (05.6). Each later exercise gets the earlier class by calling
the earlier exercise function with no arguments (``linear_function()`` returns your Function
class), so a fix in 05.1 is a fix everywhere; while an earlier one is not written, a later one
says so (``earlier_exercise``). ``run_linear_function``, ``run_linear_module``,
``load_parameters`` and ``earlier_exercise`` are given: they run your classes as the grader does.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Optional

import numpy as np

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.autograd import Function, gradcheck
from minigrad.nn import Module, Parameter
from minigrad.tensor import Tensor
from minigrad.exercises.harness import as_array, float64_leaf, run_linear_function  # given


def run_linear_module(module: type, function: type, x: np.ndarray, weight: np.ndarray,
                      bias: np.ndarray, grad_output: np.ndarray, seed: int) -> tuple:
    """Given (not an exercise): build ``module(in_features, out_features)`` and run it.

    Returns ``(parameters, init, graph, output, [dL/dx, dL/dW, dL/db])``:
    ``parameters`` lists the registered parameters by name and shape; ``init`` says whether
    the fresh weights look like PyTorch's (uniform in ±1/√in_features, bias too); then the
    given ``weight`` and ``bias`` replace them (float64) and x goes forward: ``graph`` names
    the node of the output (your Function's), and the gradients are the ``.grad`` of x and of
    the two parameters after ``output.backward(grad_output)`` (None where none arrived).
    """
    out_features, in_features = weight.shape
    mg.manual_seed(seed)
    layer = module(in_features, out_features)
    named = dict(layer.named_parameters())
    parameters = sorted([name, list(p.shape)] for name, p in named.items())
    init = _init_verdict(named, in_features)
    if init == "like PyTorch":  # and a wide layer, whose 64 biases show the range they come from
        init = _init_verdict(dict(module(4, 64).named_parameters()), 4, wide=True)
    with mg.no_grad():
        for name, value in (("weight", weight), ("bias", bias)):
            if name in named:
                setattr(layer, name, Parameter(mg.tensor(value, dtype=mg.float64)))
    x_leaf = float64_leaf(x)
    output = layer(x_leaf)
    if not isinstance(output, Tensor):
        kind = f"{type(output).__module__}.{type(output).__qualname__}".removeprefix("builtins.")
        return (parameters, init, f"no graph: forward returned a {kind}, not a Tensor",
                as_array(output), [None, None, None])
    if output.grad_fn is None:
        return (parameters, init, "no graph: the output has no grad_fn", as_array(output),
                [None, None, None])
    try:
        output.backward(mg.tensor(grad_output, dtype=mg.float64))
    except Exception as error:  # most often a wrong gradient shape from the Function
        raise RuntimeError(f"backward through your layer failed: {type(error).__name__}: "
                           f"{error} (05.5 runs your LinearFunction of 05.1: check that one "
                           "first)") from None
    own = type(output.grad_fn) is function._node_class
    graph = "your Function" if own else output.grad_fn.name()
    grads = [x_leaf.grad] + [getattr(getattr(layer, name, None), "grad", None)
                             for name in ("weight", "bias")]
    return (parameters, init, graph, output.numpy(), [as_array(g) for g in grads])


def _init_verdict(named: dict, in_features: int, wide: bool = False) -> str:
    """"like PyTorch" when weight and bias are uniform in ±1/√in_features; otherwise why not.
    A ``wide`` layer has enough biases to tell their range too."""
    bound = 1 / math.sqrt(in_features)
    for name in ("weight", "bias"):
        if name not in named:
            return f"no parameter named {name!r}"
        values = named[name].detach().numpy().astype(np.float64)
        largest = float(np.abs(values).max())
        if largest > bound * (1 + 1e-6):
            return (f"{name} reaches {largest:.3g}, beyond 1/√in_features = {bound:.3g}")
        if not np.any(values):
            return f"{name} is all zeros"
        if (name == "weight" or wide) and largest < bound / 2:
            return (f"{name} stays within ±{largest:.3g}, far inside ±1/√in_features = "
                    f"{bound:.3g}: draw from the whole range" + (
                        " (is it drawn from ±1/√out_features?)" if name == "bias" else ""))
    return "like PyTorch"


def load_parameters(layers: list, weights: list[np.ndarray]) -> None:
    """Given (not an exercise): set each layer's weight and bias to the given arrays (float64).

    ``weights`` is ``[W1, b1, W2, b2, …]``, one pair per layer, in order.
    """
    for index, layer in enumerate(layers):
        layer.weight = Parameter(mg.tensor(weights[2 * index], dtype=mg.float64))
        layer.bias = Parameter(mg.tensor(weights[2 * index + 1], dtype=mg.float64))


def earlier_exercise(cls: type, exercise_id: str) -> type:
    """Given (not an exercise): your class of exercise ``exercise_id``, handed to a later one.

    Where it still raises ``NotImplementedError``, the later exercise stops with an error
    that says so: the later exercise is written, only the one it builds on is not.
    """
    def guarded(method: Any) -> Any:
        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return method(*args, **kwargs)
            except NotImplementedError:
                raise RuntimeError(f"this exercise builds on your exercise {exercise_id}, which "
                                   "is not written yet (it raises NotImplementedError): write "
                                   f"{exercise_id} first") from None
        return call

    members = {}
    for name in ("__init__", "forward", "backward"):
        member = cls.__dict__.get(name)
        if isinstance(member, staticmethod):
            members[name] = staticmethod(guarded(member.__func__))
        elif member is not None:
            members[name] = guarded(member)
    return type(cls.__name__, (cls,), {**members, "__qualname__": cls.__qualname__})


def linear_function(x: Optional[np.ndarray] = None, weight: Optional[np.ndarray] = None,
                    bias: Optional[np.ndarray] = None,
                    grad_output: Optional[np.ndarray] = None) -> Any:
    """Exercise 05.1 — Linear as a Function: Z = X Wᵀ + b, forward and backward.

    ``forward(ctx, x, weight, bias)`` gets numpy arrays: X of shape (B, d), one example per
    row; W of shape (h, d); b of shape (h,). It returns Z, shape (B, h), and keeps what
    backward needs (``ctx.save_for_backward``). ``backward(ctx, grad_output)`` gets
    G = dL/dZ (a Tensor, shape (B, h); ``.numpy()`` gives the array) and returns
    ``(dL/dX, dL/dW, dL/db)``, each exactly the shape of its input. Work them out from
    Z_bj = Σ_k X_bk W_jk + b_j: which entries of Z does W_jk touch, which does b_j touch?

    Called with a case, this function runs your class (``run_linear_function``) and returns
    ``(Z, dL/dX, dL/dW, dL/db, gradcheck's verdict)``; called with no arguments it returns the
    class, for 05.5.
    """
    class LinearFunction(Function):
        @staticmethod
        def forward(ctx, x, weight, bias):
            ### BEGIN SOLUTION
            ctx.save_for_backward(x, weight)
            return x @ weight.T + bias
            ### END SOLUTION

        @staticmethod
        def backward(ctx, grad_output):
            ### BEGIN SOLUTION
            x, weight = (t.numpy() for t in ctx.saved_tensors)
            g = grad_output.numpy()
            return g @ weight, g.T @ x, g.sum(axis=0)
            ### END SOLUTION

    if x is None:
        return earlier_exercise(LinearFunction, "05.1")
    return run_linear_function(LinearFunction, x, weight, bias, grad_output)


def activation_backward(name: str, output: np.ndarray, grad_output: np.ndarray) -> np.ndarray:
    """Exercise 05.2 — an activation's backward pass, from its output alone.

    y = f(x) elementwise, with ``name`` one of "relu", "sigmoid", "tanh"; ``output`` is y and
    ``grad_output`` is dL/dy (same shape). Return dL/dx, shape of y. You are not given x: write
    each derivative f'(x) as a function of y (that is why these nodes save their output).
    Mind ReLU at y = 0 (PyTorch's convention: the slope there is 0).
    """
    ### BEGIN SOLUTION
    if name == "relu":
        return grad_output * (output > 0)
    if name == "sigmoid":
        return grad_output * output * (1 - output)
    if name == "tanh":
        return grad_output * (1 - output * output)
    raise ValueError(f"unknown activation {name!r}")
    ### END SOLUTION


def softmax_cross_entropy(logits: np.ndarray,
                          targets: list[int]) -> tuple[float, np.ndarray]:
    """Exercise 05.3 — softmax + cross-entropy, fused: loss and gradient.

    ``logits`` has shape (B, C): B examples, C classes; ``targets`` holds B class indices.
    The loss is the mean over the batch of −log softmax(logits_b)[targets_b]. Return
    ``(loss, dloss/dlogits)``, the gradient of shape (B, C).

    Compute it from the logits, fused: it must stay finite for logits of ±1000, where a
    separate softmax rounds a probability to 0 and its log to −inf. Derive the gradient of one
    example's loss with respect to its logits first; then remember which 1/B the mean adds.
    """
    ### BEGIN SOLUTION
    batch = logits.shape[0]
    rows = np.arange(batch)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -log_probs[rows, targets].mean()
    grad = np.exp(log_probs)
    grad[rows, targets] -= 1.0
    return float(loss), grad / batch
    ### END SOLUTION


def network_step(inputs: np.ndarray, targets: np.ndarray, weights: np.ndarray,
                 biases: np.ndarray, lr: float) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Exercise 05.4 — one gradient-descent step of the 2-2-2 sigmoid network.

    ``inputs`` = (i1, i2), ``targets`` = (t1, t2), ``weights`` = (w1, …, w8),
    ``biases`` = (b1, b2). With σ(z) = 1 / (1 + e^{−z}):

        h1 = σ(w1 i1 + w2 i2 + b1)      h2 = σ(w3 i1 + w4 i2 + b1)
        o1 = σ(w5 h1 + w6 h2 + b2)      o2 = σ(w7 h1 + w8 h2 + b2)
        E  = ½ (t1 − o1)² + ½ (t2 − o2)²

    Return ``(E, dE/dw1…w4, dE/dw5…w8, new_weights)``: E before the step, the gradients of the
    hidden layer's four weights and of the output layer's four (arrays of 4), and the eight
    weights after one step of gradient descent with learning rate ``lr`` (the biases stay
    fixed). Work from the outputs back to the inputs, one δ = dE/d(net input) per unit.
    """
    ### BEGIN SOLUTION
    w = np.asarray(weights, dtype=np.float64)
    i1, i2 = inputs
    b1, b2 = biases

    def sigmoid(z: float) -> float:
        return 1.0 / (1.0 + np.exp(-z))

    h1 = sigmoid(w[0] * i1 + w[1] * i2 + b1)
    h2 = sigmoid(w[2] * i1 + w[3] * i2 + b1)
    o = np.array([sigmoid(w[4] * h1 + w[5] * h2 + b2), sigmoid(w[6] * h1 + w[7] * h2 + b2)])
    error = float(0.5 * ((np.asarray(targets) - o) ** 2).sum())
    delta_o = (o - targets) * o * (1 - o)                      # dE/d(net input of o1, o2)
    delta_h1 = (delta_o[0] * w[4] + delta_o[1] * w[6]) * h1 * (1 - h1)  # both paths
    delta_h2 = (delta_o[0] * w[5] + delta_o[1] * w[7]) * h2 * (1 - h2)
    hidden = np.array([delta_h1 * i1, delta_h1 * i2, delta_h2 * i1, delta_h2 * i2])
    output = np.array([delta_o[0] * h1, delta_o[0] * h2, delta_o[1] * h1, delta_o[1] * h2])
    return error, hidden, output, w - lr * np.concatenate([hidden, output])
    ### END SOLUTION


def linear_module(x: Optional[np.ndarray] = None, weight: Optional[np.ndarray] = None,
                  bias: Optional[np.ndarray] = None, grad_output: Optional[np.ndarray] = None,
                  seed: int = 0) -> Any:
    """Exercise 05.5 — Linear as a Module that uses your Function.

    ``Linear(in_features, out_features)`` must look like PyTorch's ``nn.Linear`` from outside:
    two ``Parameter``s named ``weight`` (out_features, in_features) and ``bias``
    (out_features,), both drawn uniformly from ±1/√in_features (``nn.init.uniform_`` or
    ``mg.rand`` will do), and a ``forward(x)`` that returns the Tensor your
    ``LinearFunction.apply`` gives — not ``F.linear``, not a numpy array, nothing detached: the
    gradients reach the parameters only through the graph your Function records.

    Called with a case, this function builds your layer, checks its parameters, then sets
    weight and bias to the given arrays and runs it forward and backward
    (``run_linear_module``); called with no arguments it returns your class, for 05.6.
    """
    LinearFunction = linear_function()  # your Function from 05.1

    class Linear(Module):
        def __init__(self, in_features, out_features):
            ### BEGIN SOLUTION
            super().__init__()
            bound = 1 / math.sqrt(in_features)
            self.weight = Parameter(mg.rand(out_features, in_features) * 2 * bound - bound)
            self.bias = Parameter(mg.rand(out_features) * 2 * bound - bound)
            ### END SOLUTION

        def forward(self, x):
            ### BEGIN SOLUTION
            return LinearFunction.apply(x, self.weight, self.bias)
            ### END SOLUTION

    if x is None:
        return earlier_exercise(Linear, "05.5")
    return run_linear_module(Linear, LinearFunction, x, weight, bias, grad_output, seed)


def train_mlp(images: np.ndarray, labels: np.ndarray, weights: list[np.ndarray], lr: float,
              steps: int) -> tuple[list[float], float]:
    """Exercise 05.6 — your training loop, on an MLP made of your Linear.

    ``images`` (N, D) are inputs, one per row (flattened 8×8 digits, or 2-D points),
    ``labels`` (N,) their classes, ``weights`` = [W1, b1, W2, b2] the starting parameters of
    Linear(D, H) → ReLU → Linear(H, C), with (H, D) = W1.shape and C = W2.shape[0]. Build that
    network from your Linear (05.5), give it these weights with
    ``load_parameters([first, second], weights)`` (given), and run ``steps`` steps of plain
    gradient descent on the whole set. Each step:

        zero the gradients → forward → loss = F.cross_entropy(logits, labels) (the mean)
        → loss.backward() → every parameter p ← p − lr · p.grad (inside ``mg.no_grad()``)

    Return ``(losses, accuracy)``: the loss of each step (before its update, ``loss.item()``)
    and the fraction of the inputs classified right after the last step.
    """
    Linear = linear_module()  # your Module from 05.5
    x = mg.tensor(images, dtype=mg.float64)
    y = mg.tensor(labels)
    ### BEGIN SOLUTION
    (hidden, inputs), classes = weights[0].shape, weights[2].shape[0]
    first, second = Linear(inputs, hidden), Linear(hidden, classes)
    load_parameters([first, second], weights)
    parameters = [*first.parameters(), *second.parameters()]
    losses = []
    for _ in range(steps):
        for p in parameters:
            p.grad = None
        loss = F.cross_entropy(second(first(x).relu()), y)
        loss.backward()
        with mg.no_grad():
            for p in parameters:
                p -= lr * p.grad
        losses.append(loss.item())
    with mg.no_grad():
        predicted = second(first(x).relu()).numpy().argmax(axis=1)
    return losses, float((predicted == labels).mean())
    ### END SOLUTION
