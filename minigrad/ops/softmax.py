"""softmax and log_softmax along a dim, computed without overflow.

softmax(x)_i = e^{x_i} / Σ_j e^{x_j}.  Subtracting m = max_j x_j first changes nothing
(the factor e^{-m} cancels) but keeps every exponent <= 0, so e^{x_i - m} never overflows:

    softmax(x)     = e^{x - m} / Σ e^{x - m}
    log_softmax(x) = (x - m) - log Σ e^{x - m}

Backward, with y the output and g = grad_output (sums along `dim`):

    softmax:      dy_i/dx_j = y_i (δ_ij - y_j)   =>  grad_x = y * (g - Σ g*y)
    log_softmax:  dy_i/dx_j = δ_ij - softmax_j   =>  grad_x = g - e^y * Σ g

Both backward rules are written with Tensor ops on the saved output, so they can be
differentiated again (create_graph=True).
"""

from __future__ import annotations

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.reduce import sum as reduce_sum
from minigrad.ops.shape import wrap_dim
from minigrad.ops.unary import exp
from minigrad.tensor import dtypes
from minigrad.tensor.tensor import Tensor


def _shifted(x: np.ndarray, axis: int | None) -> np.ndarray:
    """x - max(x) along axis. A slice holding inf or nan, or all -inf, becomes nan (inf - inf),
    so its softmax is nan throughout, as in PyTorch. An empty x stays empty."""
    if x.size == 0:
        return x.copy()
    peak = x.max(axis=axis, keepdims=True)
    if np.isfinite(peak).all():
        return x - peak
    with np.errstate(invalid="ignore"):  # (numpy would warn about inf - inf)
        return x - peak


class Softmax(Function):
    """y = softmax(x) along `dim`; shapes: y.shape == x.shape, each slice along dim sums to 1."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, dim: int) -> np.ndarray:
        axis = dim if x.ndim else None
        ctx.dim = dim
        exps = np.exp(_shifted(x, axis))
        with np.errstate(invalid="ignore"):  # a slice of all -inf gives nan, as in PyTorch
            result = np.asarray(exps / exps.sum(axis=axis, keepdims=True))  # 0-d stays an array
        ctx.save_for_backward(result, names=("result",))
        return result

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        weighted = reduce_sum(grad_output * result, dim=ctx.dim, keepdim=True)
        return result * (grad_output - weighted)


class LogSoftmax(Function):
    """y = log_softmax(x) along `dim`; e^y sums to 1 along dim."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, dim: int) -> np.ndarray:
        axis = dim if x.ndim else None
        ctx.dim = dim
        shifted = _shifted(x, axis)
        # Σ e^(x - max) >= 1 (the max term is e^0), so the log never sees 0; a nan slice stays
        # nan. (An empty x has no slices: the sums would be empty sums, 0.)
        result = shifted if x.size == 0 else np.asarray(
            shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True)))
        ctx.save_for_backward(result, names=("result",))
        return result

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return LogSoftmaxBackwardData.apply(grad_output, result, dim=ctx.dim)


class LogSoftmaxBackwardData(Function):
    """log_softmax's backward as one op (PyTorch's `_log_softmax_backward_data`):

        out = g - e^y · Σ g        (y = log_softmax(x), g = its grad_output, Σ along dim)

    One numpy expression instead of four recorded ops; it is differentiable itself, so
    create_graph=True works. With h = grad_output of this op:
        d/dg:  grad_g = h - Σ (h · e^y)        d/dy:  grad_y = -h · e^y · Σ g
    """

    @staticmethod
    def forward(ctx: Context, g: np.ndarray, y: np.ndarray, dim: int) -> np.ndarray:
        ctx.dim = dim
        ctx.save_for_backward(g, y, names=("grad_output", "output"))
        axis = dim if g.ndim else None
        return g - np.exp(y) * g.sum(axis=axis, keepdims=True)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        g, y = ctx.saved_tensors
        need_g, need_y = ctx.needs_input_grad
        weighted = grad_output * exp(y)
        grad_g = grad_output - reduce_sum(weighted, dim=ctx.dim, keepdim=True) if need_g else None
        grad_y = -weighted * reduce_sum(g, dim=ctx.dim, keepdim=True) if need_y else None
        return grad_g, grad_y


def check_floating(x: Tensor, name: str, dim: int) -> None:
    """PyTorch has no (log_)softmax kernel for integer or bool tensors: its
    NotImplementedError, naming the kernel for the last dim or another one."""
    if not dtypes.is_floating(x.dtype):
        kernel = "lastdim_kernel_impl" if dim in (-1, x.ndim - 1) or x.ndim == 0 else "kernel_impl"
        raise dtypes.not_implemented_for(f"{name}_{kernel}", x.dtype,
                                         f"{name} needs a floating point tensor, got "
                                         f"{dtypes.dtype_name(x.dtype)}; convert it first "
                                         "with x.float()")


def softmax(x: Tensor, dim: int) -> Tensor:
    """e^x / Σ e^x along `dim` (each slice along dim becomes a probability distribution)."""
    dim = wrap_dim(dim, x.ndim)
    check_floating(x, "softmax", dim)
    return Softmax.apply(x, dim=dim)


def log_softmax(x: Tensor, dim: int) -> Tensor:
    """log(softmax(x)) along `dim`, computed stably (never log of an underflowed 0)."""
    dim = wrap_dim(dim, x.ndim)
    check_floating(x, "log_softmax", dim)
    return LogSoftmax.apply(x, dim=dim)


__all__ = ["check_floating", "log_softmax", "softmax"]
