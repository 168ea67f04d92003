"""`cross_entropy` with PyTorch's options: class weights, ignore_index, label smoothing,
integer or probability targets, (N, C), (C,) and (N, C, d1, …) inputs.

For logits x_i (one row per sample) and class t_i, with p_i = softmax(x_i):

    ℓ_i = −w[t_i] · log p_i[t_i]                         (w = class weights, default 1)
    label smoothing ε:  ℓ_i ← (1 − ε) ℓ_i + ε/C · Σ_c −w[c] · log p_i[c]
    mean = Σ_i ℓ_i / Σ_i w[t_i]    (samples whose target is ignore_index left out)

The common case (no weights, no smoothing) is one fused node, CrossEntropyLoss, whose
gradient is p − onehot(t) (minigrad.ops.loss); the options are composed from Tensor ops.
"""

from __future__ import annotations

import numpy as np

from minigrad.ops.loss import CrossEntropy
from minigrad.ops.reduce import mean as reduce_mean
from minigrad.ops.reduce import sum as reduce_sum
from minigrad.ops.shape import permute, reshape
from minigrad.ops.softmax import check_floating, log_softmax
from minigrad.tensor import Tensor, dtypes

REDUCTIONS = ("mean", "sum", "none")


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                  *, ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Softmax cross-entropy of logits `input` against `target` (see the module docstring).

    Shapes: input (N, C), (C,) or (N, C, d1, ...); target int64 (N,), () or (N, d1, ...)
    holding class indices in [0, C) — or a float tensor of class probabilities with the
    input's shape. `weight`: (C,). Gradient w.r.t. the logits: (softmax − onehot) / N for
    the plain mean.
    """
    for name, value in (("input", input), ("target", target)):
        if not isinstance(value, Tensor):
            raise TypeError(f"cross_entropy(): argument '{name}' must be a Tensor, "
                            f"not {type(value).__name__}")
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction; "
                         f"use one of {REDUCTIONS}")
    check_floating(input, "log_softmax", 1 if input.ndim > 1 else 0)  # logits, not classes
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    if weight is not None and tuple(weight.shape) != (classes,):
        raise ValueError(f"cross_entropy(): weight must have shape ({classes},), one per class, "
                         f"got {tuple(weight.shape)}")
    if target.shape == input.shape:  # PyTorch's rule: a target of the input's shape
        return _probability_targets(input, target, weight, reduction, label_smoothing)
    _check_target_kind(input, target)

    # Every layout becomes rows (samples) × C, and the per-row losses go back to target's shape.
    if input.ndim == 1:
        rows, row_targets = reshape(input, (1, -1)), reshape(target, (1,))
    elif input.ndim > 2:
        rows = reshape(permute(input, (0, *range(2, input.ndim), 1)), (-1, classes))
        row_targets = reshape(target, (-1,))
    else:
        rows, row_targets = input, target
    all_kept = _check_targets(input, target, row_targets, classes, ignore_index)
    losses, counted = _row_losses(rows, row_targets, weight, ignore_index, label_smoothing,
                                  all_kept)
    if reduction == "none":
        return reshape(losses, tuple(target.shape))
    if reduction == "sum":
        return reduce_sum(losses)
    if counted is None:
        return reduce_mean(losses)
    if isinstance(counted, int) and counted == 0:
        # Every target ignored: PyTorch's loss is 0/0 = nan, but its gradient is 0, not nan.
        return reduce_sum(losses) * 0.0 + float("nan")
    return reduce_sum(losses) / counted


def _row_losses(rows: Tensor, targets: Tensor, weight: Tensor | None, ignore_index: int,
                smoothing: float, all_kept: bool) -> tuple[Tensor, Tensor | int | None]:
    """Per-row losses (B,) and the mean's denominator (None: a plain mean over B rows)."""
    log_probs = log_softmax(rows, 1)  # what the loss saves for backward (see CrossEntropy)
    losses = CrossEntropy.apply(rows, targets, ignore_index=ignore_index, log_probs=log_probs)
    if all_kept and weight is None and smoothing == 0:
        return losses, None  # the common case
    labels = np.asarray(targets)
    kept = labels != ignore_index
    denominator: Tensor | int | None = None if all_kept else int(kept.sum())
    if weight is not None:
        picked = weight[Tensor(np.where(kept, labels, 0))] * Tensor(kept.astype(weight.dtype))
        losses = losses * picked
        denominator = reduce_sum(picked) if kept.any() else 0  # (0: every target ignored)
    if smoothing > 0:
        if weight is not None:
            log_probs = log_probs * weight
        spread = -reduce_sum(log_probs, dim=1) * Tensor(kept.astype(rows.dtype))
        losses = losses * (1 - smoothing) + spread * (smoothing / rows.shape[1])
    return losses, denominator


def _check_target_kind(input: Tensor, target: Tensor) -> None:  # noqa: A002
    """Class indices: int64 (or uint8), one per sample, in PyTorch's words and order."""
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported "
                           f"(input {tuple(input.shape)} takes one class index per sample, "
                           f"got a target of shape {tuple(target.shape)})")
    if target.dtype not in (np.int64, np.uint8):
        raise dtypes.DtypeError(
            f"expected target dtype to be Long or Byte, but got "
            f"{dtypes.scalar_type_name(target.dtype)} (a target of another shape than the "
            f"input {tuple(input.shape)} holds class indices, int64: target.long(); "
            "class probabilities have the input's shape)")


def _check_targets(input: Tensor, target: Tensor, row_targets: Tensor,  # noqa: A002
                   classes: int, ignore_index: int) -> bool:
    """Check the targets' shape and range; True if no target is ignore_index."""
    expected = (input.shape[0], *input.shape[2:]) if input.ndim > 1 else ()
    if tuple(target.shape) != expected:
        batch = target.shape[0] if target.ndim else "a 0-d target"
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({batch}): input {tuple(input.shape)} needs a target of "
                         f"shape {expected} holding class indices, got {tuple(target.shape)}")
    values = row_targets._data
    if values.size and 0 <= values.min() and values.max() < classes \
            and not 0 <= ignore_index < classes:
        return True  # the common case, in two reductions: every target a class, none ignored
    bad = values[(values != ignore_index) & ((values < 0) | (values >= classes))]
    if bad.size:
        raise IndexError(f"Target {int(bad[0])} is out of bounds. Classes must lie in "
                         f"[0, {classes}) for {classes} logits per sample.")
    return not (values == ignore_index).any()


def _probability_targets(input: Tensor, target: Tensor, weight: Tensor | None,  # noqa: A002
                         reduction: str, smoothing: float) -> Tensor:
    if not dtypes.is_floating(target.dtype):
        raise dtypes.DtypeError(
            f"Expected floating point type for target with class probabilities, got "
            f"{dtypes.scalar_type_name(target.dtype)} (a target of the input's shape "
            f"{tuple(input.shape)} holds probabilities; class indices have one dim less)")
    class_dim = 1 if input.ndim > 1 else 0
    classes = input.shape[class_dim]
    if smoothing > 0:
        target = target * (1 - smoothing) + smoothing / classes
    log_probs = log_softmax(input, class_dim)
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = classes
        log_probs = log_probs * reshape(weight, tuple(shape))
    losses = -reduce_sum(log_probs * target, dim=class_dim)
    if reduction == "mean":
        return reduce_mean(losses)  # PyTorch: divided by the number of samples, weights or not
    return reduce_sum(losses) if reduction == "sum" else losses
