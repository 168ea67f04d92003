"""Stochastic gradient descent, with optional momentum, Nesterov and weight decay.

PyTorch's rule, per parameter p with gradient g (λ = weight_decay, μ = momentum,
τ = dampening, η = lr):

    g ← g + λ p                          weight decay: add λp (= the gradient of λ/2 ‖p‖²)
    b ← g            (first step)        momentum buffer
    b ← μ b + (1 − τ) g   (later steps)
    g ← g + μ b  (nesterov)   or   g ← b
    p ← p − η g

Note the weight-decay line: it *adds* λp to the gradient; it does not multiply the gradient
by (1 + λ).
"""

from __future__ import annotations

from minigrad.optim.optimizer import Optimizer, ParamsT, check_hyperparameters
from minigrad.tensor import Tensor


class SGD(Optimizer):
    """p ← p − lr · (g + weight_decay · p), with momentum if momentum > 0 (see module doc)."""

    def __init__(self, params: ParamsT, lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 maximize: bool = False) -> None:
        check_hyperparameters(lr, weight_decay)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize))

    def _update(self, param: Tensor, group: dict) -> None:
        lr, momentum = group["lr"], group["momentum"]
        weight_decay, dampening = group["weight_decay"], group["dampening"]
        grad = -param.grad if group["maximize"] else param.grad
        if weight_decay != 0:
            grad = grad + weight_decay * param
        if momentum != 0:
            state = self.state[param]
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = state["momentum_buffer"] = grad.clone()
            else:
                buffer.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad + momentum * buffer if group["nesterov"] else buffer
        param.sub_(grad, alpha=lr)
