"""Initialise parameters in place (as torch.nn.init), drawing from minigrad's generator."""

from __future__ import annotations

import math

from minigrad.autograd import no_grad
from minigrad.tensor import Tensor, tensor
from minigrad.tensor.factories import generator


def _fill_from(param: Tensor, values: object) -> Tensor:
    with no_grad():
        param[...] = tensor(values, dtype=param.dtype)
    return param


def uniform_(param: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    """Fill with values drawn uniformly from [a, b)."""
    return _fill_from(param, generator().uniform(a, b, size=param.shape))


def normal_(param: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    """Fill with values drawn from N(mean, std²)."""
    return _fill_from(param, generator().normal(mean, std, size=param.shape))


def zeros_(param: Tensor) -> Tensor:
    with no_grad():
        return param.zero_()


def constant_(param: Tensor, value: float) -> Tensor:
    with no_grad():
        return param.fill_(value)


def _fan_in(param: Tensor) -> int:
    if param.ndim < 2:
        raise ValueError("Fan in can not be computed for tensor with fewer than 2 dimensions")
    return int(param.shape[1] * math.prod(param.shape[2:]))


def kaiming_uniform_(param: Tensor, a: float = 0.0, nonlinearity: str = "leaky_relu") -> Tensor:
    """He initialisation: uniform in ±gain·√(3/fan_in), gain = √(2/(1+a²)) for (leaky) ReLU.

    With a = √5 (PyTorch's default for Linear and Conv2d) the bound is exactly 1/√fan_in.
    """
    gain = math.sqrt(2.0 / (1 + a * a)) if nonlinearity == "leaky_relu" else math.sqrt(2.0)
    bound = gain * math.sqrt(3.0 / _fan_in(param))
    return uniform_(param, -bound, bound)


def xavier_uniform_(param: Tensor, gain: float = 1.0) -> Tensor:
    """Glorot initialisation: uniform in ±gain·√(6/(fan_in + fan_out))."""
    fan_out = int(param.shape[0] * math.prod(param.shape[2:]))
    bound = gain * math.sqrt(6.0 / (_fan_in(param) + fan_out))
    return uniform_(param, -bound, bound)
