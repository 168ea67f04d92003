"""`Dropout`: during training, zero each element with probability p and scale the rest by
1/(1 − p), so the expected output equals the input; in eval mode, do nothing.

    y = x ⊙ m / (1 − p),   m_i ~ Bernoulli(1 − p)     ⇒   dL/dx = dL/dy ⊙ m / (1 − p)

The mask is drawn from minigrad's generator (`minigrad.manual_seed` makes it reproducible).
"""

from __future__ import annotations

import numpy as np

from minigrad.nn.module import Module
from minigrad.tensor import Tensor
from minigrad.tensor.factories import generator


def dropout(input: Tensor, p: float = 0.5, training: bool = True) -> Tensor:  # noqa: A002
    """F.dropout: x ⊙ mask / (1 − p) when training, x unchanged otherwise."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = generator().random(input.shape) >= p
    return input * Tensor(keep.astype(input.dtype) / np.asarray(1 - p, dtype=input.dtype))


class Dropout(Module):
    """Zero elements with probability p during training (see the module docstring)."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return dropout(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace=False"
