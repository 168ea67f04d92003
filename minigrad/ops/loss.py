"""Losses as single ops: cross-entropy and binary cross-entropy fused with their last
activation, for numerical stability, and the mean squared error.

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

Mean squared error of x and y (N elements after broadcasting), with its reduction inside
the op, as PyTorch's MseLossBackward0:

    ℓ = Σ (x - y)² / N   (mean; sum: no 1/N; none: the squares)
    dℓ/dx = 2(x - y) / N,   dℓ/dy = -2(x - y) / N
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.arithmetic import broadcast_error
from minigrad.ops.broadcast import sum_to
from minigrad.ops.reduce import sum as reduce_sum
from minigrad.ops.shape import unsqueeze
from minigrad.ops.unary import exp, sigmoid
from minigrad.tensor.dtypes import not_implemented_for, promote
from minigrad.tensor.tensor import Tensor


class CrossEntropy(Function, node_name="CrossEntropyLossBackward0"):
    """ℓ_i = −y_i[t_i] with y_i = log_softmax(x_i);  dℓ_i/dx_i = e^{y_i} − onehot(t_i).

    x: (N, C) logits, t: (N,) int classes; rows where t == ignore_index give 0 and no gradient.
    `log_probs` is y, computed by the caller as a recorded tensor (ops.softmax.log_softmax).
    It is what this node saves, as PyTorch's cross-entropy saves its log-softmax, not the
    logits: the logits may change in place before backward, and a gradient of the gradient
    (create_graph=True) flows back to them through log_softmax's node.
    """

    @staticmethod
    def forward(ctx: Context, logits: np.ndarray, target: np.ndarray, ignore_index: int,
                log_probs: Tensor) -> np.ndarray:
        kept = target != ignore_index
        all_kept = bool(kept.all())
        # A copy either way: backward must use the labels of this call, even if the caller
        # reuses the target array for the next batch before calling backward.
        classes = target.copy() if all_kept else np.where(kept, target, 0)
        losses = -log_probs._data[np.arange(len(classes)), classes]
        ctx.classes = classes  # integer labels: constants, not saved tensors
        ctx.kept = None if all_kept else kept.astype(logits.dtype)
        ctx.save_for_backward(log_probs, names=("log_softmax",))
        return losses if all_kept else np.where(kept, losses, 0).astype(logits.dtype)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, None]:
        (log_probs,) = ctx.saved_tensors
        return CrossEntropyBackward.apply(grad_output, log_probs, classes=ctx.classes,
                                          kept=ctx.kept), None


class CrossEntropyBackward(Function):
    """Cross-entropy's backward as one op: out_ij = g_i · k_i · (e^{y_ij} − onehot_ij), with
    y = log_softmax of the logits, g the per-row grad_output and k_i = 0 for ignored rows.

    It is differentiable itself (create_graph=True); with h = grad_output of this op:
        d/dg_i  = k_i Σ_j h_ij (e^{y_ij} − onehot_ij)
        d/dy_ij = g_i k_i · h_ij e^{y_ij}      (log_softmax's backward takes it to the logits)
    """

    @staticmethod
    def forward(ctx: Context, g: np.ndarray, log_probs: np.ndarray, classes: np.ndarray,
                kept: np.ndarray | None) -> np.ndarray:
        ctx.classes, ctx.kept = classes, kept
        ctx.save_for_backward(g, log_probs, names=("grad_output", "log_softmax"))
        grad = np.exp(log_probs)
        grad[np.arange(len(classes)), classes] -= 1
        weight = g if kept is None else g * kept
        grad *= weight[:, None]
        return grad

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        g, log_probs = ctx.saved_tensors
        need_g, need_log_probs = ctx.needs_input_grad
        probs = exp(log_probs)
        grad_g = grad_log_probs = None
        if need_g:
            onehot = np.zeros_like(log_probs._data)
            onehot[np.arange(len(ctx.classes)), ctx.classes] = 1
            grad_g = reduce_sum(grad_output * (probs - Tensor._make(onehot, False, None)), dim=1)
            if ctx.kept is not None:
                grad_g = grad_g * Tensor._make(ctx.kept, False, None)
        if need_log_probs:
            weight = g if ctx.kept is None else g * Tensor._make(ctx.kept, False, None)
            grad_log_probs = unsqueeze(weight, 1) * grad_output * probs
        return grad_g, grad_log_probs


class BinaryCrossEntropyWithLogits(Function, node_name="BinaryCrossEntropyWithLogitsBackward0"):
    """ℓ = max(x,0) − x·y + log(1 + e^{−|x|});  dℓ/dx = σ(x) − y,  dℓ/dy = −x."""

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


class MseLoss(Function):
    """ℓ = reduce((x − y)²);  dℓ/dx = 2(x − y) · g [/ N for the mean],  dℓ/dy = −dℓ/dx.

    x and y broadcast together (N elements); `reduction` is "mean", "sum" or "none". Saved:
    x and y, as PyTorch saves them, so changing either in place before backward is refused.
    """

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, y: np.ndarray, reduction: str) -> np.ndarray:
        if x.dtype.kind != "f" and y.dtype.kind != "f":
            raise not_implemented_for("mse_cpu", np.result_type(x, y),
                                      "mse_loss needs a floating point input: use x.float()")
        try:
            difference = promote(np.subtract(x, y), x, y)
        except ValueError:
            raise broadcast_error(x, y, "mse_loss") from None
        ctx.reduction, ctx.count = reduction, difference.size
        ctx.save_for_backward(x, y, names=("self", "target"))
        squares = difference * difference
        if reduction == "none":
            return squares
        with np.errstate(invalid="ignore"):  # the mean of no elements is 0/0 = nan
            total = squares.sum()
            return np.asarray(total / ctx.count if reduction == "mean" else total)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, y = ctx.saved_tensors
        need_x, need_y = ctx.needs_input_grad
        scale = 2.0 / max(ctx.count, 1) if ctx.reduction == "mean" else 2.0
        grad = (x - y) * (grad_output * scale)
        return (sum_to(grad, x.shape) if need_x else None,
                sum_to(-grad, y.shape) if need_y else None)
