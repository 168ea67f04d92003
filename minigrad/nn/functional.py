"""`minigrad.nn.functional` (import as F): layers and losses as plain functions.

Same names and argument names as torch.nn.functional. The layer classes in minigrad.nn
hold parameters and call these; the maths of each op sits with its Function in minigrad.ops.

linear                                       minigrad.ops.linear
relu sigmoid tanh softmax log_softmax        minigrad.ops.unary, minigrad.ops.softmax
mse_loss cross_entropy
binary_cross_entropy_with_logits             minigrad.ops.loss (+ the reduction here)
conv2d max_pool2d avg_pool2d                 (lessons 06–07)
"""

from __future__ import annotations

import warnings

import numpy as np

from minigrad.ops.linear import linear
from minigrad.ops.loss import BinaryCrossEntropyWithLogits, CrossEntropy
from minigrad.ops.reduce import mean as reduce_mean
from minigrad.ops.reduce import sum as reduce_sum
from minigrad.ops.shape import permute, reshape
from minigrad.ops.softmax import log_softmax as _log_softmax
from minigrad.ops.softmax import softmax as _softmax
from minigrad.ops.unary import relu as _relu
from minigrad.ops.unary import sigmoid, tanh
from minigrad.tensor import Tensor, dtypes

REDUCTIONS = ("mean", "sum", "none")


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """max(x, 0); derivative 1 where x > 0, else 0."""
    if inplace:
        raise NotImplementedError("relu(inplace=True) is not supported; use relu(x)")
    return _relu(input)


def softmax(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    """e^x / Σ e^x along dim (`dim` is required, as PyTorch recommends)."""
    return _softmax(input, dim)


def log_softmax(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    """x − logsumexp(x) along dim, computed stably."""
    return _log_softmax(input, dim)


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return reduce_mean(losses)
    if reduction == "sum":
        return reduce_sum(losses)
    return losses


def _check_reduction(reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction; "
                         f"use one of {REDUCTIONS}")


def _check_tensors(name: str, **tensors: object) -> None:
    for arg, value in tensors.items():
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' must be a Tensor, "
                            f"not {type(value).__name__}")


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Mean (or sum) of (input − target)²; d/d input = 2(input − target) [/ N for the mean]."""
    _check_tensors("mse_loss", input=input, target=target)
    _check_reduction(reduction)
    if input.shape != target.shape:
        warnings.warn(f"Using a target size {tuple(target.shape)} that is different to the "
                      f"input size {tuple(input.shape)}. This will likely lead to incorrect "
                      "results due to broadcasting. Please ensure they have the same size.",
                      UserWarning, stacklevel=2)
    difference = input - target
    return _reduce(difference * difference, reduction)


def cross_entropy(input: Tensor, target: Tensor, reduction: str = "mean",  # noqa: A002
                  ignore_index: int = -100) -> Tensor:
    """Softmax cross-entropy of logits `input` against classes `target`.

    Shapes: input (N, C) or (C,) or (N, C, d1, ...); target int64 (N,), () or (N, d1, ...)
    holding class indices in [0, C) — or, as in PyTorch, a float tensor of class
    probabilities with input's shape. Gradient w.r.t. the logits: softmax − onehot
    (divided by the number of counted samples for reduction="mean").
    """
    _check_tensors("cross_entropy", input=input, target=target)
    _check_reduction(reduction)
    if not dtypes.is_floating(input.dtype):
        raise TypeError(f"cross_entropy(): input must hold float logits, got {input.dtype}")
    if dtypes.is_floating(target.dtype):
        return _cross_entropy_probabilities(input, target, reduction)
    if input.ndim == 1:  # one sample: logits (C,) and a 0-d target
        one_target = reshape(target, (1,))
        losses = cross_entropy(reshape(input, (1, -1)), one_target, "none", ignore_index)
        if reduction == "none":
            return reshape(losses, ())
        return _reduce_counted(losses, one_target, ignore_index, reduction)
    if input.ndim > 2:  # (N, C, d1, ...): move C last and treat every position as a sample
        classes = input.shape[1]
        moved = permute(input, (0, *range(2, input.ndim), 1))
        losses = cross_entropy(reshape(moved, (-1, classes)), reshape(target, (-1,)), "none",
                               ignore_index)
        if reduction == "none":
            return reshape(losses, tuple(target.shape))
        return _reduce_counted(losses, target, ignore_index, reduction)
    _check_targets(input, target, ignore_index)
    losses = CrossEntropy.apply(input, target, ignore_index=ignore_index)
    return _reduce_counted(losses, target, ignore_index, reduction)


def _reduce_counted(losses: Tensor, target: Tensor, ignore_index: int, reduction: str) -> Tensor:
    """Mean over the samples whose target is not ignore_index (as PyTorch does)."""
    if reduction != "mean":
        return _reduce(losses, reduction)
    counted = int((np.asarray(target) != ignore_index).sum())
    if counted == losses.numel():
        return reduce_mean(losses)
    return reduce_sum(losses) / counted  # all ignored: 0/0 = nan, as in PyTorch


def _check_targets(input: Tensor, target: Tensor, ignore_index: int) -> None:  # noqa: A002
    if target.ndim != 1 or target.shape[0] != input.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0] if target.ndim else 'a 0-d target'}): "
                         f"input {tuple(input.shape)} needs target ({input.shape[0]},) of class "
                         f"indices, got {tuple(target.shape)}")
    values = np.asarray(target)
    bad = values[(values != ignore_index) & ((values < 0) | (values >= input.shape[1]))]
    if bad.size:
        raise IndexError(f"Target {int(bad[0])} is out of bounds. Classes must lie in "
                         f"[0, {input.shape[1]}) for {input.shape[1]} logits per sample.")


def _cross_entropy_probabilities(input: Tensor, target: Tensor,  # noqa: A002
                                 reduction: str) -> Tensor:
    if input.shape != target.shape:
        raise ValueError(f"cross_entropy(): probability targets must have the input's shape "
                         f"{tuple(input.shape)}, got {tuple(target.shape)}")
    class_dim = 1 if input.ndim > 1 else 0
    losses = -reduce_sum(_log_softmax(input, class_dim) * target, dim=class_dim)
    return _reduce(losses, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                     reduction: str = "mean") -> Tensor:
    """−[y log σ(x) + (1−y) log(1−σ(x))] from logits x, stably; d/dx = σ(x) − y."""
    _check_tensors("binary_cross_entropy_with_logits", input=input, target=target)
    _check_reduction(reduction)
    if input.shape != target.shape:
        raise ValueError(f"Target size {tuple(target.shape)} must be the same as input size "
                         f"{tuple(input.shape)}")
    if not dtypes.is_floating(target.dtype):
        raise TypeError(f"binary_cross_entropy_with_logits(): target must be float (0./1. or a "
                        f"probability), got {target.dtype}; use target.float()")
    losses = BinaryCrossEntropyWithLogits.apply(input, target)
    return _reduce(losses, reduction)


__all__ = ["binary_cross_entropy_with_logits", "cross_entropy", "linear", "log_softmax",
           "mse_loss", "relu", "sigmoid", "softmax", "tanh"]
