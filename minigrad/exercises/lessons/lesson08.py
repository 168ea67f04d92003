"""Lesson 08 exercises — weight decay, optimizers, and what can be optimized.

Each function below is one exercise. Replace the body marked ``# YOUR CODE HERE`` and run
``check("08.N", function)`` to test it on the visible cases; the grader also runs hidden cases
on fresh random inputs. Work with ``numpy`` arrays (float64); you may use ``minigrad`` to
check yourself, but write the rules by hand.

The theme of the lesson: an optimizer is a rule that turns a gradient into an update of a
leaf tensor. Weight decay *adds* λw to the gradient (SGD), or shrinks the weight directly
(AdamW) — it never multiplies the gradient by (1 + λ).
"""

from __future__ import annotations

import numpy as np


def sgd_step(weight: np.ndarray, grad: np.ndarray, buffer: np.ndarray, lr: float,
             momentum: float, weight_decay: float) -> tuple[np.ndarray, np.ndarray]:
    """Exercise 08.1 — one step of SGD with momentum and weight decay (PyTorch's rule).

    ``weight`` is w, ``grad`` is g = dL/dw, ``buffer`` is the momentum buffer b from the
    previous step (zeros before the first step). Return ``(new weight, new buffer)``:

        d = g + λ w                 (weight decay: add λ w — the gradient of λ/2 ‖w‖²)
        b = μ b + d                 (momentum μ; with μ = 0 this is just d)
        w = w − lr · b

    Do not change the arrays you are given; return new ones.
    """
    ### BEGIN SOLUTION
    direction = grad + weight_decay * weight
    new_buffer = momentum * buffer + direction
    return weight - lr * new_buffer, new_buffer
    ### END SOLUTION


def l2_objective_gradients(w1: np.ndarray, w2: np.ndarray, x: np.ndarray, y: np.ndarray,
                           lam: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Exercise 08.2 — the gradients of an L2-regularised one-hidden-layer network.

    One example x (d,), target y (k,), weights W1 (h, d) and W2 (k, h), no biases, φ = tanh:

        z = W1 x,  h = tanh(z),  o = W2 h,  L = ½ ‖o − y‖²,
        s = λ/2 (‖W1‖²_F + ‖W2‖²_F),  J = L + s.

    Return ``(J, dJ/dW1, dJ/dW2)``. Backward, from the output down:

        dJ/do = o − y
        dJ/dW2 = (dJ/do) hᵀ + λ W2       (an outer product, plus the decay term)
        dJ/dh = W2ᵀ (dJ/do)
        dJ/dz = dJ/dh ⊙ (1 − h²)
        dJ/dW1 = (dJ/dz) xᵀ + λ W1
    """
    ### BEGIN SOLUTION
    z = w1 @ x
    h = np.tanh(z)
    o = w2 @ h
    objective = 0.5 * np.sum((o - y) ** 2) + lam / 2 * (np.sum(w1 ** 2) + np.sum(w2 ** 2))
    grad_o = o - y
    grad_w2 = np.outer(grad_o, h) + lam * w2
    grad_z = (w2.T @ grad_o) * (1 - h ** 2)
    grad_w1 = np.outer(grad_z, x) + lam * w1
    return float(objective), grad_w1, grad_w2
    ### END SOLUTION


def accumulate_microbatches(grads: list[np.ndarray], counts: list[int]) -> np.ndarray:
    """Exercise 08.3 — the gradient of a large batch from micro-batches of unequal size.

    A batch of N = Σ n_i examples was split into micro-batches; ``grads[i]`` is the gradient
    of the *mean* loss over micro-batch i, which held ``counts[i]`` = n_i examples. Return
    the gradient of the mean loss over the whole batch:

        g = Σ_i n_i g_i / Σ_i n_i

    (Averaging the g_i with equal weights is right only when every n_i is the same.)
    """
    ### BEGIN SOLUTION
    total = sum(counts)
    return sum(n * g for n, g in zip(counts, grads)) / total
    ### END SOLUTION


def adamw_step(weight: np.ndarray, grad: np.ndarray, exp_avg: np.ndarray,
               exp_avg_sq: np.ndarray, step: int, lr: float, beta1: float, beta2: float,
               eps: float, weight_decay: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exercise 08.4 — one step of AdamW (decoupled weight decay), as PyTorch computes it.

    ``exp_avg`` (m) and ``exp_avg_sq`` (v) are the running averages before this step;
    ``step`` is t, the number of this step (1 for the first). Return
    ``(new weight, new m, new v)``:

        w ← w (1 − lr λ)                          decay the weight itself, first
        m ← β₁ m + (1 − β₁) g
        v ← β₂ v + (1 − β₂) g²
        w ← w − lr / (1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + ε)

    The gradient g is *not* changed by the decay: that is the difference from Adam with L2.
    """
    ### BEGIN SOLUTION
    decayed = weight * (1 - lr * weight_decay)
    m = beta1 * exp_avg + (1 - beta1) * grad
    v = beta2 * exp_avg_sq + (1 - beta2) * grad * grad
    step_size = lr / (1 - beta1 ** step)
    denominator = np.sqrt(v) / np.sqrt(1 - beta2 ** step) + eps
    return decayed - step_size * m / denominator, m, v
    ### END SOLUTION
