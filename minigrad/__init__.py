"""minigrad: backpropagation and autograd, built from scratch, one lesson at a time."""

from minigrad.value import Value
from minigrad.tensor import (
    Tensor, arange, eye, float32, float64, full, int32, int64, manual_seed, ones, ones_like,
    rand, randn, tensor, zeros, zeros_like,
)
from minigrad.tensor.dtypes import bool_ as bool  # noqa: A001  (PyTorch's name: minigrad.bool)
from minigrad.autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from minigrad import autograd
from minigrad.ops.arithmetic import add, div, matmul, mul, neg, pow, sub  # noqa: A004

__all__ = [
    "Value", "Tensor", "tensor", "float32", "float64", "int32", "int64", "bool",
    "zeros", "ones", "full", "randn", "rand", "arange", "eye", "zeros_like", "ones_like",
    "manual_seed", "no_grad", "enable_grad", "is_grad_enabled", "set_grad_enabled", "autograd",
    "add", "sub", "mul", "div", "pow", "matmul", "neg",
]
__version__ = "0.1.0"
