"""Losses fused with their last activation, for numerical stability.

Cross-entropy of logits x (N, C) with integer classes t (N,), per sample:

    ℓ_i = -log softmax(x_i)[t_i] = logsumexp(x_i) - x_i[t_i]
    dℓ_i/dx_i = softmax(x_i) - onehot(t_i)                     (p − y)

Binary cross-entropy of a logit x with a target y ∈ [0, 1], per element:

    ℓ = -[y log σ(x) + (1 - y) log(1 - σ(x))] = max(x, 0) - x·y + log(1 + e^{-|x|})
    dℓ/dx = σ(x) - y,   dℓ/dy = -x

Both are computed from the logits, never from a probability that may have rounded to 0 or
1, so logits of ±1000 give finite losses and gradients. Each op returns the per-sample
losses; the reduction (mean or sum) is a separate node, so the 1/N of a mean enters the
gradient exactly once. Backward uses Tensor ops, so it can be differentiated again.
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.shape import unsqueeze
from minigrad.ops.softmax import softmax
from minigrad.ops.unary import sigmoid
from minigrad.tensor.tensor import Tensor


class CrossEntropy(Function):
    """ℓ_i = logsumexp(x_i) − x_i[t_i];  dℓ_i/dx_i = softmax(x_i) − onehot(t_i).

    x: (N, C) logits, t: (N,) int classes; rows where t == ignore_index give 0 and no gradient.
    """

    node_name = "CrossEntropyLossBackward0"

    @staticmethod
    def forward(ctx: Context, logits: np.ndarray, target: np.ndarray,
                ignore_index: int) -> np.ndarray:
        kept = target != ignore_index
        classes = np.where(kept, target, 0)
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_norm = np.log(np.exp(shifted).sum(axis=1))
        picked = np.take_along_axis(shifted, classes[:, None], axis=1)[:, 0]
        onehot = np.zeros_like(logits)
        onehot[np.arange(len(classes)), classes] = 1
        ctx.all_kept = bool(kept.all())
        ctx.save_for_backward(logits, onehot, kept.astype(logits.dtype)[:, None],
                              names=("input", "onehot", "kept"))
        return np.where(kept, log_norm - picked, 0).astype(logits.dtype)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, None]:
        logits, onehot, kept = ctx.saved_tensors
        grad_logits = softmax(logits, dim=1) - onehot
        if not ctx.all_kept:
            grad_logits = grad_logits * kept
        return grad_logits * unsqueeze(grad_output, 1), None


class BinaryCrossEntropyWithLogits(Function):
    """ℓ = max(x,0) − x·y + log(1 + e^{−|x|});  dℓ/dx = σ(x) − y,  dℓ/dy = −x."""

    node_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx: Context, logits: np.ndarray, target: np.ndarray) -> np.ndarray:
        ctx.save_for_backward(logits, target, names=("input", "target"))
        return np.maximum(logits, 0) - logits * target + np.log1p(np.exp(-np.abs(logits)))

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        logits, target = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        grad_x = (sigmoid(logits) - target) * grad_output if need_x else None
        grad_y = -logits * grad_output if need_y else None
        return grad_x, grad_y
