"""minigrad: backpropagation and autograd, built from scratch, one lesson at a time."""

import minigrad._threads  # noqa: F401  (first: thread-pool defaults before numpy loads; see that module)

from minigrad.scalar import Value
from minigrad.tensor import (
    Tensor, arange, eye, float32, float64, full, int32, int64, manual_seed, ones, ones_like,
    rand, randn, tensor, zeros, zeros_like,
)
from minigrad.tensor.dtypes import bool_ as bool  # noqa: A001  (PyTorch's name: minigrad.bool)
from minigrad.autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from minigrad import autograd
# PyTorch's functional names: minigrad.exp(x), minigrad.sum(x, dim), minigrad.cat([...]) …
from minigrad.ops.arithmetic import add, div, matmul, mul, neg, pow, sub  # noqa: A004
from minigrad.ops.combine import cat, stack, where
from minigrad.ops.reduce import max, mean, min, sum  # noqa: A004
from minigrad.ops.shape import flatten, permute, reshape, squeeze, transpose, unsqueeze
from minigrad.ops.softmax import log_softmax, softmax
from minigrad.ops.unary import abs, exp, log, relu, sigmoid, sqrt, tanh  # noqa: A004
# Tensor's methods call the op modules through the package `minigrad.ops` when they run;
# these are the ones not imported above.
from minigrad.ops import cast, index, inplace, rounding, setitem  # noqa: E402, F401
from minigrad import viz  # noqa: E402  (minigrad.viz.record(), draw_graph; light: no graphviz yet)

# `from minigrad import *` leaves out sum, max, min, abs and pow so that it never hides
# Python's built-ins; use minigrad.sum(...) etc.
__all__ = [
    "Value", "Tensor", "tensor", "float32", "float64", "int32", "int64", "bool",
    "zeros", "ones", "full", "randn", "rand", "arange", "eye", "zeros_like", "ones_like",
    "manual_seed", "no_grad", "enable_grad", "is_grad_enabled", "set_grad_enabled", "autograd",
    "add", "sub", "mul", "div", "matmul", "neg", "exp", "log", "sqrt", "tanh",
    "sigmoid", "relu", "mean", "reshape", "transpose", "permute", "flatten",
    "unsqueeze", "squeeze", "cat", "stack", "where", "softmax", "log_softmax",
]
__version__ = "0.1.0"

# The layers, optimizers and data as attributes, as in PyTorch: `minigrad.nn.Linear` works
# after `import minigrad`.
from minigrad import data, nn, optim, utils  # noqa: E402
from minigrad.utils.serialization import load, save  # noqa: E402

# The first layout's module paths (minigrad.value, minigrad.plotting, …) import until 0.2.
from minigrad import _compat  # noqa: E402

_compat.install()
