"""minigrad: backpropagation and autograd, built from scratch, one lesson at a time."""

from minigrad.value import Value

__all__ = ["Value"]
__version__ = "0.1.0"
