"""`Flatten`: merge dims start_dim..end_dim into one (images (N, C, H, W) → rows (N, C·H·W))."""

from __future__ import annotations

from minigrad.nn.module import Module
from minigrad.ops.shape import flatten
from minigrad.tensor import Tensor


class Flatten(Module):
    """y = x.flatten(start_dim, end_dim); backward reshapes the gradient back to x's shape."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
