"""Adam and AdamW: per-parameter step sizes from running averages of g and g².

PyTorch's rule, at step t for parameter p with gradient g (η = lr, β₁, β₂ = betas):

    g ← g + λ p                    Adam's weight_decay: the L2 term, inside the averages
    m ← β₁ m + (1 − β₁) g          first moment (mean of g)
    v ← β₂ v + (1 − β₂) g²         second moment (mean of g²)
    p ← p − η/(1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + ε)

AdamW instead decays the weights directly, outside the averages ("decoupled"):

    p ← p (1 − η λ)                then the Adam step without the L2 line.

With Adam, the L2 gradient λp is divided by √v like any other gradient, so weights with
large gradients are barely decayed; AdamW decays every weight at the same rate η λ.

amsgrad=True divides by the largest v seen so far instead of the current one (v_max ←
max(v_max, v)), so the step size of a weight never grows back.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.optim.optimizer import Optimizer, ParamsT, check_hyperparameters, written_in_place
from minigrad.tensor import Tensor, zeros_like


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2015) with PyTorch's update and L2 weight decay (see module doc)."""

    decoupled_weight_decay = False

    def __init__(self, params: ParamsT, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False,
                 maximize: bool = False) -> None:
        check_hyperparameters(lr, weight_decay)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not (hasattr(betas, "__len__") and len(betas) == 2):
            raise TypeError(f"betas must be a pair (beta1, beta2), got {betas!r}")
        for index in (0, 1):
            if not 0.0 <= betas[index] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {index}: {betas[index]}")
        super().__init__(params, dict(lr=lr, betas=(float(betas[0]), float(betas[1])),
                                      eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize))

    def _update(self, param: Tensor, group: dict) -> None:
        lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
        beta1, beta2 = group["betas"]
        state = self.state[param]
        if not state:
            state["step"] = 0
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(param)
        state["step"] += 1
        step = state["step"]
        # The rule on the tensors' arrays: about ten elementwise operations a parameter, which
        # as Tensor ops would cost a small network's step more than their arithmetic does.
        weights, exp_avg, exp_avg_sq = written_in_place(param, state["exp_avg"],
                                                        state["exp_avg_sq"])
        grad = -param.grad._data if group["maximize"] else param.grad._data

        if weight_decay != 0:
            if self.decoupled_weight_decay:
                weights *= 1 - lr * weight_decay
            else:
                grad = grad + weight_decay * weights
        exp_avg *= beta1
        exp_avg += grad * (1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += (grad * grad) * (1 - beta2)

        if group["amsgrad"]:
            largest, = written_in_place(state["max_exp_avg_sq"])
            np.maximum(largest, exp_avg_sq, out=largest)
            exp_avg_sq = largest
        step_size = lr / (1 - beta1 ** step)
        denominator = np.sqrt(exp_avg_sq) / math.sqrt(1 - beta2 ** step) + eps
        weights -= (exp_avg / denominator) * step_size


class AdamW(Adam):
    """Adam with decoupled weight decay: p ← p(1 − lr·λ), then the plain Adam step."""

    decoupled_weight_decay = True

    def __init__(self, params: ParamsT, lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False,
                 maximize: bool = False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)
