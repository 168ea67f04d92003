"""`Conv2d`, `MaxPool2d`, `AvgPool2d`: the layers of a convolutional network (as torch.nn)."""

from __future__ import annotations

import math
from typing import Any

from minigrad.nn.init import uniform_
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.ops.conv import conv2d
from minigrad.ops.pool import avg_pool2d, max_pool2d
from minigrad.ops.window import pair
from minigrad.tensor import Tensor, dtypes, zeros


def _positive(value: Any, name: str, layer: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{layer}: {name} must be a positive int, got {value!r}")
    return value


class Conv2d(Module):
    """y = conv2d(x, W) + b over NCHW images (see minigrad.ops.conv for the maths).

    Shapes: x (N, in_channels, H, W) → y (N, out_channels, OH, OW),
    OH = (H + 2·padding - kh) // stride + 1; weight (out_channels, in_channels, kh, kw),
    bias (out_channels,).

    Initialisation as in PyTorch: weight and bias uniform in ±1/√fan_in with
    fan_in = in_channels·kh·kw, drawn from minigrad's generator (`minigrad.manual_seed`).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | tuple[int, int],
                 stride: int | tuple[int, int] = 1, padding: int | tuple[int, int] | str = 0,
                 bias: bool = True, dtype: Any = None) -> None:
        super().__init__()
        self.in_channels = _positive(in_channels, "in_channels", "Conv2d")
        self.out_channels = _positive(out_channels, "out_channels", "Conv2d")
        self.kernel_size = pair(kernel_size, "kernel_size", "Conv2d")
        self.stride = pair(stride, "stride", "Conv2d")
        self.padding = padding if isinstance(padding, str) else pair(padding, "padding", "Conv2d")
        if min(self.kernel_size) <= 0:
            raise ValueError(f"Conv2d: kernel_size must be positive, got {kernel_size!r}")
        dtype = dtypes.default_float if dtype is None else dtype
        self.weight = Parameter(zeros(out_channels, in_channels, *self.kernel_size, dtype=dtype))
        if bias:
            self.bias = Parameter(zeros(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw weight and bias uniformly from ±1/√fan_in (PyTorch's default)."""
        bound = 1 / math.sqrt(self.in_channels * self.kernel_size[0] * self.kernel_size[1])
        uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return conv2d(input, self.weight, self.bias, self.stride, self.padding)

    def extra_repr(self) -> str:
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding not in ((0, 0), "valid"):
            text += f", padding={self.padding}"
        return text + ("" if self.bias is not None else ", bias=False")


class _Pool2d(Module):
    def __init__(self, kernel_size: int | tuple[int, int],
                 stride: int | tuple[int, int] | None = None,
                 padding: int | tuple[int, int] = 0) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool2d(_Pool2d):
    """y = the maximum of each kernel_size window (stride defaults to kernel_size); the
    gradient goes to each window's argmax (the first one in a tie). No parameters."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return max_pool2d(input, self.kernel_size, self.stride, self.padding)


class AvgPool2d(_Pool2d):
    """y = the mean of each kernel_size window, zero padding counted (stride defaults to
    kernel_size); each window pixel gets grad/(kh·kw). No parameters."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return avg_pool2d(input, self.kernel_size, self.stride, self.padding)
