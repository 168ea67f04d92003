"""2-D max and average pooling over (kh, kw) windows, NCHW. No parameters.

max_pool2d:  y[n, c, oh, ow] = max over the window of x;  forward records the argmax of each
             window, backward sends the gradient there and 0 elsewhere (the gradient is
             x's shape filled by "input ⊙ mask"). Ties: the first maximum in row-major scan
             order wins, as in PyTorch.
avg_pool2d:  y = (1/(kh·kw)) Σ over the window of x (padding counts as zeros, PyTorch's
             count_include_pad=True); backward sends grad/(kh·kw) to every window pixel.

Each backward is itself an op with a backward (scatter ↔ gather, avg-pool ↔ its transpose),
so gradients of gradients work. Window arithmetic lives in `minigrad.kernels`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import kernels
from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.shape import squeeze, unsqueeze
from minigrad.ops.window import Pair, pair, require_floating, require_tensor, shape_text
from minigrad.tensor.tensor import Tensor


# ---- max pooling --------------------------------------------------------------------------
# Each backward op also takes the input x of the pooling (only its shape is used), as PyTorch's
# max_pool2d_with_indices_backward(grad, self, ...) does: so with create_graph=True the gradient
# is recorded whenever x requires grad, even if grad does not, and x is saved (and
# version-checked) as PyTorch saves it.
class MaxPool2DWithIndices(Function):
    """y = window maxima;  ∂y/∂x routes each output's gradient to its window's argmax."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, kernel: Pair, stride: Pair,
                padding: Pair) -> np.ndarray:
        values, indices = kernels.max_pool2d_forward(x, kernel, stride, padding)
        ctx.indices = indices
        ctx.save_for_backward(x, names=("self",))
        return values

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return MaxPoolScatter.apply(grad_output, x, indices=ctx.indices)


class MaxPoolScatter(Function, node_name="MaxPool2DWithIndicesBackwardBackward0"):
    """grad_x = zeros(x.shape) with g added at the recorded argmax positions (linear in g);
    its backward gathers the upstream gradient at those positions (and 0 for x)."""

    @staticmethod
    def forward(ctx: Context, g: np.ndarray, x: np.ndarray, indices: np.ndarray) -> np.ndarray:
        ctx.indices = indices
        return kernels.max_pool2d_backward(g, indices, x.shape)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_g, need_x = ctx.needs_input_grad
        return (GatherAtIndices.apply(grad_output, indices=ctx.indices) if need_g else None,
                _zeros_like(grad_output) if need_x else None)


class GatherAtIndices(Function):
    """out[n, c, oh, ow] = u[n, c].flat[indices[n, c, oh, ow]];  its backward scatters back."""

    @staticmethod
    def forward(ctx: Context, u: np.ndarray, indices: np.ndarray) -> np.ndarray:
        ctx.indices = indices
        ctx.save_for_backward(u)  # (for its shape, as x above)
        planes = u.reshape(*u.shape[:2], u.shape[2] * u.shape[3])  # (not -1: N may be 0)
        flat_indices = indices.reshape(*indices.shape[:2], indices.shape[2] * indices.shape[3])
        return np.take_along_axis(planes, flat_indices, axis=2).reshape(indices.shape)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (u,) = ctx.saved_tensors
        return MaxPoolScatter.apply(grad_output, u, indices=ctx.indices)


# ---- average pooling ----------------------------------------------------------------------
class AvgPool2D(Function):
    """y = window means (zero padding counted);  ∂y/∂x spreads grad/(kh·kw) over each window."""

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, kernel: Pair, stride: Pair,
                padding: Pair) -> np.ndarray:
        ctx.settings = (kernel, stride, padding)
        ctx.save_for_backward(x, names=("self",))
        return kernels.avg_pool2d_forward(x, kernel, stride, padding)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        kernel, stride, padding = ctx.settings
        return AvgPoolSpread.apply(grad_output, x, kernel=kernel, stride=stride, padding=padding)


class AvgPoolSpread(Function, node_name="AvgPool2DBackwardBackward0"):
    """grad_x: g/(kh·kw) added over each window of x's shape (the transpose of avg-pooling,
    linear in g); its backward is avg-pooling again (and 0 for x)."""

    @staticmethod
    def forward(ctx: Context, g: np.ndarray, x: np.ndarray, kernel: Pair, stride: Pair,
                padding: Pair) -> np.ndarray:
        ctx.settings = (kernel, stride, padding)
        return kernels.avg_pool2d_backward(g, x.shape, kernel, stride, padding)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_g, need_x = ctx.needs_input_grad
        kernel, stride, padding = ctx.settings
        return (AvgPool2D.apply(grad_output, kernel=kernel, stride=stride, padding=padding)
                if need_g else None, _zeros_like(grad_output) if need_x else None)


def _zeros_like(grad: Tensor) -> Tensor:
    """d(gradient)/dx = 0: a constant, as PyTorch's zeros_like(self)."""
    return Tensor._make(np.zeros_like(grad._data), False, None)


# ---- arguments ----------------------------------------------------------------------------
def _settings(op: str, x: Any, kernel_size: Any, stride: Any, padding: Any) -> tuple:
    require_tensor(x, "input", op)
    kernel = pair(kernel_size, "kernel_size", op)
    stride = kernel if stride is None or stride == [] or stride == () else pair(stride, "stride", op)
    padding = pair(padding, "padding", op)
    if 0 in stride:
        raise RuntimeError("stride should not be zero")
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} "
                           f"kW: {kernel[1]}")
    if min(stride) < 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} "
                           f"dW: {stride[1]}")
    if x.ndim not in (3, 4) and op == "max_pool2d":
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if x.ndim not in (3, 4) or 0 in x.shape[-3:]:  # an empty batch (N = 0) is allowed
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                           f"for input, but got:{shape_text(x.shape)}")
    if min(padding) < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(padding)}")
    for pad, size in zip(padding, kernel):
        if pad > size // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pad}, kernel_size={size} and dilation=1")
    require_floating(x, op)
    height, width = x.shape[-2:]
    out_height = kernels.output_size(height, kernel[0], stride[0], padding[0])
    out_width = kernels.output_size(width, kernel[1], stride[1], padding[1])
    if out_height < 1 or out_width < 1:
        channels = x.shape[-3]
        raise RuntimeError(f"Given input size: ({channels}x{height}x{width}). Calculated output "
                           f"size: ({channels}x{out_height}x{out_width}). Output size is too small")
    return kernel, stride, padding


def _unsupported(op: str, **options: Any) -> None:
    for name, (value, default) in options.items():
        if value != default:
            raise NotImplementedError(f"{op}: {name}={value!r} is not supported by minigrad "
                                      f"(only {name}={default!r})")


def max_pool2d(input: Tensor, kernel_size: int | tuple[int, int],  # noqa: A002
               stride: int | tuple[int, int] | None = None, padding: int | tuple[int, int] = 0,
               dilation: int = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """Maximum over each kernel_size window of `input` (N, C, H, W) or (C, H, W); stride
    defaults to kernel_size. With return_indices=True also returns the argmax of each window
    as a flat index h·W + w into its input plane (int64), as torch.nn.functional.max_pool2d."""
    _unsupported("max_pool2d", dilation=(dilation, 1), ceil_mode=(ceil_mode, False))
    kernel, stride, padding = _settings("max_pool2d", input, kernel_size, stride, padding)
    if input.ndim == 3:
        result = max_pool2d(unsqueeze(input, 0), kernel, stride, padding,
                            return_indices=return_indices)
        if return_indices:
            return squeeze(result[0], 0), squeeze(result[1], 0)
        return squeeze(result, 0)
    values = MaxPool2DWithIndices.apply(input, kernel=kernel, stride=stride, padding=padding)
    if not return_indices:
        return values
    node = values.grad_fn
    indices = node.indices if node is not None else kernels.max_pool2d_forward(
        input._data, kernel, stride, padding)[1]
    return values, Tensor(indices)


def avg_pool2d(input: Tensor, kernel_size: int | tuple[int, int],  # noqa: A002
               stride: int | tuple[int, int] | None = None, padding: int | tuple[int, int] = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """Mean over each kernel_size window of `input` (N, C, H, W) or (C, H, W), zero padding
    included in the count; stride defaults to kernel_size. As torch.nn.functional.avg_pool2d."""
    _unsupported("avg_pool2d", ceil_mode=(ceil_mode, False),
                 count_include_pad=(count_include_pad, True),
                 divisor_override=(divisor_override, None))
    kernel, stride, padding = _settings("avg_pool2d", input, kernel_size, stride, padding)
    if input.ndim == 3:
        return squeeze(avg_pool2d(unsqueeze(input, 0), kernel, stride, padding), 0)
    return AvgPool2D.apply(input, kernel=kernel, stride=stride, padding=padding)
