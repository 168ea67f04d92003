"""Lesson 05 exercises — layers as operators: the MLP.

Each function below is one exercise. Replace the body marked ``# YOUR CODE HERE`` and run
``check("05.N", function)`` to test it on the visible cases; the grader also runs hidden cases
on fresh random inputs. Work with ``numpy`` arrays (float64); you may use ``minigrad`` to
check yourself, but write the rules by hand.

The theme of the lesson: every layer, activation and loss follows one rule. Given
Δ = dL/d(output), a layer returns dL/d(input) = (its Jacobian)ᵀ Δ, and, if it has
parameters, dL/d(parameter) — all shaped like what they are the gradient of.
"""

from __future__ import annotations

import numpy as np


def linear_backward(x: np.ndarray, weight: np.ndarray,
                    grad_output: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exercise 05.1 — the backward pass of a Linear layer.

    The forward pass was Z = X Wᵀ + b for a batch: ``x`` is X, shape (B, d) (one example per
    row), ``weight`` is W, shape (h, d), b has shape (h,). ``grad_output`` is G = dL/dZ,
    shape (B, h). Return ``(dL/dX, dL/dW, dL/db)``, shaped (B, d), (h, d) and (h,):

        dL/dX = G W        dL/dW = Gᵀ X        dL/db = Σ over the rows of G

    b is added to every row, so its gradient sums the rows. If G came from a mean loss it
    already holds the 1/B: do not divide again.
    """
    ### BEGIN SOLUTION
    return grad_output @ weight, grad_output.T @ x, grad_output.sum(axis=0)
    ### END SOLUTION


def activation_backward(name: str, output: np.ndarray, grad_output: np.ndarray) -> np.ndarray:
    """Exercise 05.2 — an activation's backward pass, from its output alone.

    y = f(x) elementwise, with ``name`` one of "relu", "sigmoid", "tanh"; ``output`` is y and
    ``grad_output`` is dL/dy (same shape). Return dL/dx = f'(x) ⊙ dL/dy, where f' is written
    with y only (that is why these layers save their output, and why ReLU can run in place):

        relu:     f' = 1 where y > 0, else 0        (y > 0, not y ≥ 0: y is never negative)
        sigmoid:  f' = y (1 − y)                     (at most 1/4)
        tanh:     f' = 1 − y²
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
    ``(loss, dloss/dlogits)`` with the gradient of shape (B, C):

        log softmax(z)_c = z_c − m − log Σ_k e^{z_k − m}     (m = max_k z_k: no overflow)
        dloss/dlogits   = (softmax(logits) − onehot(targets)) / B          ("p − y")

    Computing it fused, from the logits, stays finite even for logits of ±1000, where a
    separate softmax would round a probability to 0 and its log to −inf.
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
                 biases: np.ndarray, lr: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Exercise 05.4 — one gradient-descent step of the 2-2-2 sigmoid network.

    ``inputs`` = (i1, i2), ``targets`` = (t1, t2), ``weights`` = (w1, …, w8),
    ``biases`` = (b1, b2). With σ(z) = 1 / (1 + e^{−z}):

        h1 = σ(w1 i1 + w2 i2 + b1)      h2 = σ(w3 i1 + w4 i2 + b1)
        o1 = σ(w5 h1 + w6 h2 + b2)      o2 = σ(w7 h1 + w8 h2 + b2)
        E  = ½ (t1 − o1)² + ½ (t2 − o2)²

    Return ``(E, dE/dw, new_weights)``: E before the step, the 8 gradients dE/dw1 … dE/dw8,
    and w − lr · dE/dw (the biases stay fixed). Work output to input: δ_o = (o − t) σ'(·)
    with σ' = o (1 − o); a hidden unit feeds *both* outputs, so its δ sums two paths.
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
    grad = np.array([delta_h1 * i1, delta_h1 * i2, delta_h2 * i1, delta_h2 * i2,
                     delta_o[0] * h1, delta_o[0] * h2, delta_o[1] * h1, delta_o[1] * h2])
    return error, grad, w - lr * grad
    ### END SOLUTION
