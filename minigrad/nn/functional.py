"""`minigrad.nn.functional` (import as F): layers and losses as plain functions.

Same names and argument names as torch.nn.functional. The layer classes in minigrad.nn
hold parameters and call these; the maths of each op sits with its Function in minigrad.ops.

linear                                       minigrad.ops.linear
relu sigmoid tanh softmax log_softmax        minigrad.ops.unary, minigrad.ops.softmax
dropout                                      minigrad.nn.dropout
mse_loss cross_entropy
binary_cross_entropy_with_logits             minigrad.ops.loss (+ the reduction here)
conv2d max_pool2d avg_pool2d                 minigrad.ops.conv, minigrad.ops.pool
"""

from __future__ import annotations

import warnings

from minigrad.nn.cross_entropy import cross_entropy
from minigrad.nn.dropout import dropout
from minigrad.ops.conv import conv2d
from minigrad.ops.linear import linear
from minigrad.ops.loss import BinaryCrossEntropyWithLogits, MseLoss
from minigrad.ops.pool import avg_pool2d, max_pool2d
from minigrad.ops.reduce import mean as reduce_mean
from minigrad.ops.reduce import sum as reduce_sum
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
    return MseLoss.apply(input, target, reduction=reduction)


def _check_float_target(input: Tensor, target: Tensor) -> None:  # noqa: A002
    """BCE targets are 0./1. or probabilities, floats: PyTorch's words for the others."""
    hint = ("binary_cross_entropy_with_logits needs float targets (0./1. or a probability): "
            "use target.float()")
    if target.dtype == dtypes.bool_:  # PyTorch computes 1 - target, and cannot for bools
        raise dtypes.DtypeError("Subtraction, the `-` operator, with two bool tensors is not "
                                "supported. Use the `^` or `logical_xor()` operator instead. "
                                f"({hint})")
    if not dtypes.is_floating(target.dtype):
        raise dtypes.DtypeError(f"result type {dtypes.scalar_type_name(input.dtype)} can't be "
                                f"cast to the desired output type "
                                f"{dtypes.scalar_type_name(target.dtype)} ({hint})")


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,  # noqa: A002
                                     weight: Tensor | None = None,
                                     reduction: str = "mean") -> Tensor:
    """−[y log σ(x) + (1−y) log(1−σ(x))] from logits x, stably; d/dx = σ(x) − y.

    `weight` (broadcast to the input's shape) multiplies each element's loss.
    """
    _check_tensors("binary_cross_entropy_with_logits", input=input, target=target)
    _check_reduction(reduction)
    if input.shape != target.shape:
        raise ValueError(f"Target size {tuple(target.shape)} must be the same as input size "
                         f"{tuple(input.shape)}")
    if not dtypes.is_floating(input.dtype):
        raise dtypes.not_implemented_for("log_sigmoid_cpu", input.dtype,
                                         "the input holds logits: use input.float()")
    _check_float_target(input, target)
    losses = BinaryCrossEntropyWithLogits.apply(input, target)
    if weight is not None:
        weighted = losses * weight
        if weighted.shape != losses.shape:  # weight may broadcast to the input, not enlarge it
            raise RuntimeError(f"output with shape {list(losses.shape)} doesn't match the "
                               f"broadcast shape {list(weighted.shape)}")
        losses = weighted
    return _reduce(losses, reduction)


__all__ = ["avg_pool2d", "binary_cross_entropy_with_logits", "conv2d", "cross_entropy", "dropout",
           "linear", "log_softmax", "max_pool2d", "mse_loss", "relu", "sigmoid", "softmax",
           "tanh"]
