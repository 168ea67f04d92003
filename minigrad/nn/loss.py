"""Loss layers: each compares a prediction with a target and returns one number
(reduction="mean" or "sum") or one loss per element ("none").

    MSELoss            ℓ = (x − y)²                        dℓ/dx = 2(x − y)
    CrossEntropyLoss   ℓ = −log softmax(x)[t]              dℓ/dx = softmax(x) − onehot(t)
    BCEWithLogitsLoss  ℓ = −[y log σ(x) + (1−y) log(1−σ(x))]   dℓ/dx = σ(x) − y

With reduction="mean" each gradient is divided by the number of elements (samples) once,
in the loss; the layers below never divide again.
"""

from __future__ import annotations

from minigrad.nn import functional as F
from minigrad.nn.module import Module
from minigrad.tensor import Tensor


class _Loss(Module):
    def __init__(self, *, reduction: str = "mean") -> None:
        super().__init__()
        F._check_reduction(reduction)
        self.reduction = reduction

    def extra_repr(self) -> str:
        return "" if self.reduction == "mean" else f"reduction={self.reduction}"


class MSELoss(_Loss):
    """Mean squared error: mean((input − target)²);  d/d input = 2(input − target)/N."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    """Softmax + negative log-likelihood of logits (N, C) for integer classes (N,).

    d/d logits = (softmax(logits) − onehot(target)) / N for the mean. Samples whose target
    equals ignore_index are left out (of the loss and of N); `weight` (C,) weighs classes;
    `label_smoothing` ε mixes the target with the uniform distribution (see F.cross_entropy).
    """

    def __init__(self, weight: Tensor | None = None, *, ignore_index: int = -100,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        super().__init__(reduction=reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy on logits (sigmoid fused in, stable);  d/dx = (σ(x) − y)/N.

    `weight` (broadcast to the input's shape) multiplies each element's loss.
    """

    def __init__(self, weight: Tensor | None = None, *, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)
        self.register_buffer("weight", weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  reduction=self.reduction)
