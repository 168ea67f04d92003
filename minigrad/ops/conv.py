"""2-D convolution (really cross-correlation, as in every deep-learning library), NCHW.

    y[n, o, oh, ow] = b[o] + Σ_c Σ_i Σ_j w[o, c, i, j] · x[n, c, oh·sh - ph + i, ow·sw - pw + j]

    x (N, C, H, W), w (O, C, kh, kw), b (O,)  ->  y (N, O, OH, OW),
    OH = (H + 2·ph - kh) // sh + 1  (likewise OW).

Backward, for an upstream gradient δ = ∂L/∂y:

    ∂L/∂x = conv_transpose(δ, w)  — δ spread back over the windows (for stride 1, the "full"
                                    correlation of δ with the kernel rotated by 180°);
    ∂L/∂w = correlate(x, δ)       — the input correlated with δ (δ plays the kernel);
    ∂L/∂b = Σ_n,oh,ow δ.

Both gradients are linear in δ and in the other operand, and each is itself a differentiable
op whose backward is made of these three again (`ConvBackwardInput`, `ConvBackwardWeight`,
`Convolution`), so gradients of gradients (double backward) work; so is ∂L/∂b
(`ConvBackwardBias`).

The arithmetic lives in `minigrad.kernels` (plain arrays, numba or numpy); this module only
checks the arguments and wires forward and backward together.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import kernels
from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.arithmetic import broadcast_to
from minigrad.ops.shape import reshape, squeeze, unsqueeze
from minigrad.ops.window import Pair, pair, require_floating, require_tensor, shape_text
from minigrad.tensor.tensor import Tensor


class Convolution(Function, node_name="ConvolutionBackward0"):
    """y = conv2d(x, w) + b;  ∂y/∂x: transposed conv,  ∂y/∂w: correlation with x,  ∂y/∂b: Σ.

    Inputs x (N, C, H, W), w (O, C, kh, kw), b (O,) or the number 0 (no bias).
    """

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, w: np.ndarray, b: Any, stride: Pair,
                padding: Pair) -> np.ndarray:
        # Both, whichever gradients are needed, as PyTorch's convolution saves them: so an
        # in-place change of either before backward is refused in the same cases.
        ctx.save_for_backward(x, w,
                              names=("input", "weight"))
        ctx.shapes = (x.shape, w.shape)
        ctx.stride, ctx.padding = stride, padding
        # Where the weight's gradient will be needed, the kernels may leave their packed
        # input windows here for it (a small layer's: see `kernels.conv2d_forward`).
        ctx.packed = {} if ctx.needs_input_grad[1] else None
        return kernels.conv2d_forward(x, w, stride, padding,
                                      bias=b if isinstance(b, np.ndarray) else None,
                                      packed=ctx.packed)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        x, w = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        x_shape, w_shape = ctx.shapes
        settings = {"stride": ctx.stride, "padding": ctx.padding}
        # Each gradient also takes the convolution's other input (unused, gradient None), as
        # PyTorch's double-backward node does: under create_graph, grad_w is then recorded
        # when w requires grad even if x and grad_output do not, and grad_x likewise.
        grad_x = (ConvBackwardInput.apply(grad_output, w, x, shape=x_shape, **settings)
                  if need_x else None)
        packed, ctx.packed = ctx.packed, None  # used once (a second backward packs again)
        grad_w = (ConvBackwardWeight.apply(x, grad_output, w, shape=w_shape, packed=packed,
                                           **settings)
                  if need_w else None)
        grad_b = ConvBackwardBias.apply(grad_output) if need_b else None
        return grad_x, grad_w, grad_b


class ConvBackwardBias(Function, node_name="SumBackward1"):  # the node a sum over (0, 2, 3) records
    """grad_b = Σ_n,oh,ow g (shape (O,)), the same sum as `sum(g, (0, 2, 3))`, through the
    kernels' quicker reduction; its own backward spreads an upstream u (O,) back over g."""

    @staticmethod
    def forward(ctx: Context, g: np.ndarray) -> np.ndarray:
        ctx.g_shape = g.shape
        return kernels.conv2d_grad_bias(g)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return broadcast_to(reshape(grad_output, (1, -1, 1, 1)), ctx.g_shape)


class ConvBackwardInput(Function, node_name="ConvolutionBackwardBackward0"):
    """grad_x = conv_transpose(g, w), shape `shape` (the input's); linear in g and in w.

    Its own backward: for an upstream u (shaped like x), ∂/∂g = conv2d(u, w) and
    ∂/∂w = correlate(u, g), because <u, conv_transpose(g, w)> = <conv2d(u, w), g>.
    """

    @staticmethod
    def forward(ctx: Context, g: np.ndarray, w: np.ndarray, link: Any, shape: tuple,
                stride: Pair, padding: Pair) -> np.ndarray:
        need_g, need_w, _ = ctx.needs_input_grad
        ctx.save_for_backward(g if need_w else None, w if need_g else None)
        ctx.w_shape, ctx.stride, ctx.padding = w.shape, stride, padding
        return kernels.conv2d_grad_input(g, w.astype(g.dtype, copy=False), shape, stride, padding)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        g, w = ctx.saved_tensors
        need_g, need_w, _ = ctx.needs_input_grad
        settings = {"stride": ctx.stride, "padding": ctx.padding}
        grad_g = Convolution.apply(grad_output, w, 0, **settings) if need_g else None
        grad_w = (ConvBackwardWeight.apply(grad_output, g, 0, shape=ctx.w_shape, **settings)
                  if need_w else None)
        return grad_g, grad_w, None


class ConvBackwardWeight(Function, node_name="ConvolutionBackwardBackward0"):
    """grad_w = correlate(x, g), shape `shape` (the weight's); linear in x and in g.

    Its own backward: for an upstream u (shaped like w), ∂/∂x = conv_transpose(g, u) and
    ∂/∂g = conv2d(x, u), because <u, correlate(x, g)> = <conv2d(x, u), g>.
    """

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, g: np.ndarray, link: Any, shape: tuple,
                stride: Pair, padding: Pair, packed: dict | None = None) -> np.ndarray:
        need_x, need_g, _ = ctx.needs_input_grad
        ctx.save_for_backward(x if need_g else None, g if need_x else None)
        ctx.x_shape, ctx.stride, ctx.padding = x.shape, stride, padding
        return kernels.conv2d_grad_weight(x, g.astype(x.dtype, copy=False), shape, stride, padding,
                                          packed=packed)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple:
        x, g = ctx.saved_tensors
        need_x, need_g, _ = ctx.needs_input_grad
        settings = {"stride": ctx.stride, "padding": ctx.padding}
        grad_x = (ConvBackwardInput.apply(g, grad_output, 0, shape=ctx.x_shape, **settings)
                  if need_x else None)
        grad_g = Convolution.apply(x, grad_output, 0, **settings) if need_g else None
        return grad_x, grad_g, None


def _padding(padding: Any, kernel: Pair, stride: Pair) -> Pair:
    """padding as a pair; also PyTorch's strings "valid" (0) and "same" (odd kernels)."""
    if isinstance(padding, str):
        if padding == "valid":
            return 0, 0
        if padding != "same":
            raise ValueError(f"Invalid padding string '{padding}', should be one of "
                             "('valid', 'same')")
        if stride != (1, 1):
            raise ValueError("padding='same' is not supported for strided convolutions")
        if kernel[0] % 2 == 0 or kernel[1] % 2 == 0:
            raise NotImplementedError(
                f"padding='same' with an even kernel size {kernel} needs uneven padding, which "
                "minigrad does not do; pad the input yourself or use an odd kernel")
        return kernel[0] // 2, kernel[1] // 2
    return pair(padding, "padding", "convolution")


def _check(x: Tensor, w: Tensor, bias: Tensor | None, stride: Pair, padding: Pair) -> None:
    if w.ndim != 4:
        raise RuntimeError(f"conv2d: weight must be 4-dimensional (out_channels, in_channels, "
                           f"kH, kW), but got weight of size {shape_text(w.shape)}")
    if x.ndim != 4:
        raise RuntimeError("Expected 3D (unbatched) or 4D (batched) input to conv2d, but got "
                           f"input of size: {shape_text(x.shape)}")
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    if x.shape[1] != w.shape[1]:
        raise RuntimeError(
            f"Given groups=1, weight of size {shape_text(w.shape)}, expected "
            f"input{shape_text(x.shape)} to have {w.shape[1]} channels, but got {x.shape[1]} "
            "channels instead")
    require_floating(x, "conv2d")
    if w.dtype != x.dtype:
        raise RuntimeError(f"expected scalar type {_scalar(x.dtype)} but found {_scalar(w.dtype)} "
                           f"(input is {x.dtype}, weight is {w.dtype})")
    if bias is not None:
        if bias.ndim != 1 or bias.shape[0] != w.shape[0]:
            raise RuntimeError(
                f"Given weight of size {shape_text(w.shape)}, expected bias to be 1-dimensional "
                f"with {w.shape[0]} elements, but got bias of size {shape_text(bias.shape)} "
                "instead")
        if bias.dtype != x.dtype:
            raise RuntimeError(f"Input type ({_short(x.dtype)}) and bias type "
                               f"({_short(bias.dtype)}) should be the same")
    padded = (x.shape[2] + 2 * padding[0], x.shape[3] + 2 * padding[1])
    if padded[0] < w.shape[2] or padded[1] < w.shape[3]:
        raise RuntimeError(
            f"Calculated padded input size per channel: ({padded[0]} x {padded[1]}). Kernel "
            f"size: ({w.shape[2]} x {w.shape[3]}). Kernel size can't be greater than actual "
            "input size")


def _scalar(dtype: np.dtype) -> str:
    return {"float32": "Float", "float64": "Double"}.get(str(dtype), str(dtype))


def _short(dtype: np.dtype) -> str:
    return {"float32": "float", "float64": "double"}.get(str(dtype), str(dtype))


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
           stride: int | tuple[int, int] = 1, padding: int | tuple[int, int] | str = 0,
           dilation: int | tuple[int, int] = 1, groups: int = 1) -> Tensor:
    """2-D convolution of `input` (N, C, H, W) — or (C, H, W), one image — with `weight`
    (O, C, kh, kw), plus `bias` (O,) if given; result (N, O, OH, OW). As torch.nn.functional.conv2d;
    dilation and groups other than 1 are not supported."""
    if pair(dilation, "dilation", "convolution") != (1, 1) or groups != 1:
        raise NotImplementedError(f"conv2d: dilation={dilation!r}, groups={groups!r} are not "
                                  "supported by minigrad (only dilation=1, groups=1)")
    require_tensor(input, "input", "conv2d")
    require_tensor(weight, "weight", "conv2d")
    if bias is not None:
        require_tensor(bias, "bias", "conv2d")
    stride = pair(stride, "stride", "convolution")
    kernel = tuple(weight.shape[2:4]) if weight.ndim == 4 else (1, 1)
    padding = _padding(padding, kernel, stride)
    if input.ndim == 3:  # one image: add, then remove, a batch axis of 1
        return squeeze(conv2d(unsqueeze(input, 0), weight, bias, stride, padding), 0)
    _check(input, weight, bias, stride, padding)
    return Convolution.apply(input, weight, 0 if bias is None else bias, stride=stride,
                             padding=padding)
