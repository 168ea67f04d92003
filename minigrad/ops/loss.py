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
from minigrad.ops.reduce import sum as reduce_sum
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
        all_kept = bool(kept.all())
        # A copy either way: backward must use the labels of this call, even if the caller
        # reuses the target array for the next batch before calling backward.
        classes = target.copy() if all_kept else np.where(kept, target, 0)
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_norm = np.log(np.exp(shifted).sum(axis=1))
        losses = log_norm - shifted[np.arange(len(classes)), classes]
        ctx.classes = classes  # integer labels: constants, not saved tensors
        ctx.kept = None if all_kept else kept.astype(logits.dtype)
        ctx.save_for_backward(logits, names=("input",))
        return losses if all_kept else np.where(kept, losses, 0).astype(logits.dtype)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, None]:
        (logits,) = ctx.saved_tensors
        return CrossEntropyBackward.apply(grad_output, logits, classes=ctx.classes,
                                          kept=ctx.kept), None


class CrossEntropyBackward(Function):
    """Cross-entropy's backward as one op: out_ij = g_i · k_i · (p_ij − onehot_ij), with
    p = softmax(x) along each row, g the per-row grad_output and k_i = 0 for ignored rows.

    It is differentiable itself (create_graph=True); with h = grad_output of this op:
        d/dg_i  = k_i Σ_j h_ij (p_ij − onehot_ij)
        d/dx_ij = g_i k_i · p_ij (h_ij − Σ_l h_il p_il)        (softmax's Jacobian)
    """

    @staticmethod
    def forward(ctx: Context, g: np.ndarray, logits: np.ndarray, classes: np.ndarray,
                kept: np.ndarray | None) -> np.ndarray:
        ctx.classes, ctx.kept = classes, kept
        ctx.save_for_backward(g, logits, names=("grad_output", "input"))
        exps = np.exp(logits - logits.max(axis=1, keepdims=True))
        grad = exps / exps.sum(axis=1, keepdims=True)
        grad[np.arange(len(classes)), classes] -= 1
        weight = g if kept is None else g * kept
        grad *= weight[:, None]
        return grad

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        g, logits = ctx.saved_tensors
        need_g, need_logits = ctx.needs_input_grad
        probs = softmax(logits, dim=1)
        weight = g if ctx.kept is None else g * Tensor._make(ctx.kept, False, None)
        grad_g = grad_logits = None
        if need_g:
            onehot = np.zeros_like(logits._data)
            onehot[np.arange(len(ctx.classes)), ctx.classes] = 1
            grad_g = reduce_sum(grad_output * (probs - Tensor._make(onehot, False, None)), dim=1)
            if ctx.kept is not None:
                grad_g = grad_g * Tensor._make(ctx.kept, False, None)
        if need_logits:
            centred = grad_output - reduce_sum(grad_output * probs, dim=1, keepdim=True)
            grad_logits = unsqueeze(weight, 1) * probs * centred
        return grad_g, grad_logits


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
