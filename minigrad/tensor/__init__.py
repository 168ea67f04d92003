"""The Tensor: a numpy array that records the operations applied to it."""

from minigrad.tensor.tensor import Tensor, tensor  # noqa: I001  (Tensor first: ops build on it)
from minigrad.tensor.dtypes import float32, float64, int32, int64, bool_
from minigrad.tensor.factories import (
    arange, eye, full, manual_seed, ones, ones_like, rand, randn, zeros, zeros_like,
)

__all__ = ["Tensor", "tensor", "float32", "float64", "int32", "int64", "bool_", "arange", "eye",
           "full", "manual_seed", "ones", "ones_like", "rand", "randn", "zeros", "zeros_like"]
