"""`Linear`: the fully connected layer, y = x Wᵀ + b."""

from __future__ import annotations

import math
from typing import Any

from minigrad.nn.init import uniform_
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.ops.linear import linear
from minigrad.tensor import Tensor, dtypes, zeros


class Linear(Module):
    """y = x Wᵀ + b, applied to the last dim of x.

    Shapes: x (*, in_features) → y (*, out_features); weight (out_features, in_features),
    bias (out_features,).

    Backward, with G = dL/dy and the batch rows of x stacked (B, in):

        dL/dx = G W        dL/dW = Gᵀ x        dL/db = Σ_rows G

    Initialisation as in PyTorch: weight and bias uniform in ±1/√in_features (kaiming-uniform
    with a = √5), drawn from minigrad's generator, so `minigrad.manual_seed(n)` first makes
    them reproducible.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 dtype: Any = None) -> None:
        super().__init__()
        for name, value in (("in_features", in_features), ("out_features", out_features)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"Linear: {name} must be a non-negative int, got {value!r}")
        self.in_features = in_features
        self.out_features = out_features
        dtype = dtypes.default_float if dtype is None else dtype
        self.weight = Parameter(zeros(out_features, in_features, dtype=dtype))
        if bias:
            self.bias = Parameter(zeros(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw weight and bias uniformly from ±1/√in_features (PyTorch's default)."""
        bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
        uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
