"""Activation layers: elementwise functions with no parameters.

Each derivative can be computed from the layer's output y alone, which is why autograd
saves the output, not the input:

    ReLU     y = max(x, 0)               dy/dx = 1 where x > 0 (y > 0), else 0
    Sigmoid  y = 1 / (1 + e^{−x})        dy/dx = y (1 − y)        (at most 1/4)
    Tanh     y = tanh x                  dy/dx = 1 − y²           (at most 1)

Backward multiplies the incoming gradient elementwise: dL/dx = f'(x) ⊙ dL/dy (the Jacobian
is diagonal, so Jᵀv is a product, never a matrix).
"""

from __future__ import annotations

from minigrad.nn import functional as F
from minigrad.nn.module import Module
from minigrad.tensor import Tensor


class ReLU(Module):
    """y = max(x, 0);  dL/dx = dL/dy where x > 0, else 0."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.relu(input)


class Sigmoid(Module):
    """y = 1 / (1 + e^{−x});  dL/dx = dL/dy · y(1 − y)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.sigmoid(input)


class Tanh(Module):
    """y = tanh x;  dL/dx = dL/dy · (1 − y²)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.tanh(input)


class Softmax(Module):
    """y = e^x / Σ e^x along `dim`;  dL/dx = y ⊙ (g − Σ g·y)."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"
