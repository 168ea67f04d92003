"""A network written down as data, and the grader's own forward pass through it.

The capstone (08.5) returns its trained network as a list of layers, each a tuple::

    ("conv", weight, bias, stride, padding)   weight (O, C, k, k), bias (O,): cross-correlation,
                                              out[n,o] = Σ_c x[n,c] ⋆ w[o,c] + b[o] (PyTorch's);
                                              padding 0 … k − 1
    ("linear", weight, bias)                  weight (out, in), bias (out,): y = x Wᵀ + b
    ("maxpool", k) / ("avgpool", k)           k×k windows, stride k (a partial edge is dropped)
    ("relu",) / ("tanh",)                     elementwise
    ("flatten",)                              (N, C, H, W) → (N, C·H·W), in that order

:func:`read_layers` checks such a list against fixed limits (sizes, kinds, finite weights) and
:func:`forward` runs it in float64 with numpy alone (convolutions by the library's numpy
reference, :mod:`minigrad.kernels.im2col`). The grader scores the capstone by running
the student's weights through this pass on images the student's process never receives: the
answers come from a network, whatever the student's code did with its own copy of the images.
Its limits (layers, parameters, values and multiply-adds per image, scratch memory per batch)
keep one pass over a few thousand 8×8 images near a second and under 64 MB of scratch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from minigrad.kernels import im2col as conv

#: Limits on a network the grader will run (the capstone's reference has 6 090 parameters).
MAX_LAYERS = 16
MAX_PARAMETERS = 50_000
MAX_VALUES_PER_IMAGE = 8_192    # of any layer's output (the reference's largest: 1 024)
MAX_PRODUCTS_PER_IMAGE = 1_000_000  # multiply-adds of the whole network (the reference: 85 K)
BATCH_BYTES = 64 << 20  # the largest scratch array of one batch, windows included
MAX_KERNEL, MAX_STRIDE, MAX_PADDING, MAX_POOL = 7, 4, 3, 4
ELEMENTWISE = {"relu": lambda x: np.maximum(x, 0.0), "tanh": np.tanh}
KINDS = ("conv", "linear", "maxpool", "avgpool", "flatten", *ELEMENTWISE)


class NetworkError(ValueError):
    """A layer list the grader cannot run; the message names the layer and what is wrong."""


@dataclass(frozen=True)
class Layer:
    kind: str
    weight: Optional[np.ndarray] = None
    bias: Optional[np.ndarray] = None
    size: int = 0      # pooling window
    stride: int = 1
    padding: int = 0


def read_layers(layers: Any, input_shape: tuple[int, int, int], outputs: int) -> list[Layer]:
    """``layers`` checked: every layer known and well formed, shapes that chain from
    ``input_shape`` (C, H, W) to ``outputs`` scores, within the limits above."""
    if not isinstance(layers, (list, tuple)) or not layers:
        raise NetworkError(f"layers must be a non-empty list of tuples, got "
                           f"{type(layers).__name__}")
    if len(layers) > MAX_LAYERS:
        raise NetworkError(f"layers has {len(layers)} entries; at most {MAX_LAYERS}")
    shape: tuple[int, ...] = tuple(input_shape)
    read, parameters, products = [], 0, 0
    for index, entry in enumerate(layers):
        where = f"layer {index}"
        if not isinstance(entry, (list, tuple)) or not entry or entry[0] not in KINDS:
            raise NetworkError(f"{where}: expected a tuple starting with one of "
                               f"{', '.join(map(repr, KINDS))}, got {_short(entry)}")
        layer = _read_layer(entry, where)
        shape = _output_shape(layer, shape, where)
        if layer.weight is not None:  # one multiply-add per output value and weight it sees
            products += int(np.prod(shape)) * int(np.prod(layer.weight.shape[1:]))
        if int(np.prod(shape)) > MAX_VALUES_PER_IMAGE:
            raise NetworkError(f"{where} ({layer.kind}) outputs {int(np.prod(shape))} values per "
                               f"image; at most {MAX_VALUES_PER_IMAGE}")
        parameters += sum(int(a.size) for a in (layer.weight, layer.bias) if a is not None)
        read.append(layer)
    if parameters > MAX_PARAMETERS:
        raise NetworkError(f"the network has {parameters} parameters; at most {MAX_PARAMETERS}")
    if products > MAX_PRODUCTS_PER_IMAGE:
        raise NetworkError(f"the network does {products} multiply-adds per image; at most "
                           f"{MAX_PRODUCTS_PER_IMAGE}")
    if shape != (outputs,):
        raise NetworkError(f"the network ends with shape {shape} per image; it must end with "
                           f"{outputs} scores (a linear layer after a flatten)")
    return read


def forward(layers: list[Layer], images: np.ndarray) -> np.ndarray:
    """The scores of ``images`` (N, C, H, W) through ``layers`` (from :func:`read_layers`), in
    float64, in batches small enough that no array of a batch exceeds ``BATCH_BYTES``."""
    batch = max(1, BATCH_BYTES // (8 * _largest_per_image(layers, images.shape[1:])))
    return np.concatenate([_forward(layers, images[start:start + batch].astype(np.float64))
                           for start in range(0, len(images), batch)])


def _largest_per_image(layers: list[Layer], shape: tuple[int, ...]) -> int:
    """The most values any step of :func:`_forward` holds for one image (a conv's windows)."""
    largest = int(np.prod(shape))
    for index, layer in enumerate(layers):
        after = _output_shape(layer, shape, f"layer {index}")
        if layer.kind == "conv":  # its padded input, and its windows
            channels, height, width = shape
            padded = channels * (height + 2 * layer.padding) * (width + 2 * layer.padding)
            largest = max(largest, padded, int(np.prod(after)) // layer.weight.shape[0]
                          * int(np.prod(layer.weight.shape[1:])))
        shape = after
        largest = max(largest, int(np.prod(shape)))
    return largest


def _forward(layers: list[Layer], x: np.ndarray) -> np.ndarray:
    for layer in layers:
        x = _layer_forward(layer, x)
    return x


def _layer_forward(layer: Layer, x: np.ndarray) -> np.ndarray:
    if layer.kind == "conv":
        return conv.conv2d_forward(x, layer.weight, *_settings(layer), bias=layer.bias)
    if layer.kind == "linear":
        return x @ layer.weight.T + layer.bias
    if layer.kind in ("maxpool", "avgpool"):
        cells = _cells(x, layer.size)
        return cells.max(axis=-1) if layer.kind == "maxpool" else cells.mean(axis=-1)
    if layer.kind == "flatten":
        return x.reshape(len(x), -1)
    return ELEMENTWISE[layer.kind](x)


def _settings(layer: Layer) -> tuple[tuple[int, int], tuple[int, int]]:
    """A conv layer's (stride, padding) as the kernels take them: (height, width) pairs."""
    return (layer.stride, layer.stride), (layer.padding, layer.padding)


def _cells(x: np.ndarray, k: int) -> np.ndarray:
    """(N, C, H, W) → (N, C, H//k, W//k, k·k): each pooling window's values, in scan order
    (a partial edge dropped)."""
    n, c, h, w = x.shape
    cells = x[:, :, :h // k * k, :w // k * k].reshape(n, c, h // k, k, w // k, k)
    return cells.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h // k, w // k, k * k)



# ---------------------------------------------------------------------------- gradients
def gradients(layers: list[Layer], images: np.ndarray,
              grad_scores: np.ndarray) -> list[np.ndarray]:
    """∂L/∂θ for every weight and bias of ``layers``, in the order they appear, for a loss L
    whose gradient with respect to the scores of ``images`` is ``grad_scores`` (N, outputs):
    backpropagation in float64, in batches sized as :func:`forward`'s (their shares add)."""
    per_image = 3 * _largest_per_image(layers, images.shape[1:])  # (input, output, gradient)
    batch = max(1, BATCH_BYTES // (8 * per_image))
    total: list[np.ndarray] = []
    for start in range(0, len(images), batch):
        part = _batch_gradients(layers, images[start:start + batch].astype(np.float64),
                                grad_scores[start:start + batch].astype(np.float64))
        total = part if not total else [a + b for a, b in zip(total, part)]
    return total


def _batch_gradients(layers: list[Layer], x: np.ndarray,
                     grad: np.ndarray) -> list[np.ndarray]:
    inputs = []
    for layer in layers:
        inputs.append(x)
        x = _layer_forward(layer, x)
    found: list[np.ndarray] = []
    for layer, x in zip(reversed(layers), reversed(inputs)):
        grad, own = _layer_backward(layer, x, grad)
        found = own + found
    return found


def _layer_backward(layer: Layer, x: np.ndarray,
                    grad: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """(∂L/∂x, [∂L/∂weight, ∂L/∂bias] or []) from ∂L/∂output = ``grad``."""
    if layer.kind == "conv":
        grad_x = conv.conv2d_grad_input(grad, layer.weight, x.shape, *_settings(layer))
        grad_weight = conv.conv2d_grad_weight(x, grad, layer.weight.shape, *_settings(layer))
        return grad_x, [grad_weight, grad.sum(axis=(0, 2, 3))]
    if layer.kind == "linear":
        return grad @ layer.weight, [grad.T @ x, grad.sum(axis=0)]
    if layer.kind in ("maxpool", "avgpool"):
        k = layer.size
        n, c, h, w = x.shape
        cells = _cells(x, k)
        if layer.kind == "maxpool":  # to each window's first maximum
            spread = np.zeros_like(cells)
            np.put_along_axis(spread, cells.argmax(axis=-1)[..., None], grad[..., None], -1)
        else:
            spread = np.repeat(grad[..., None] / (k * k), k * k, axis=-1)
        grad_x = np.zeros_like(x)
        grad_x[:, :, :h // k * k, :w // k * k] = spread.reshape(
            n, c, h // k, w // k, k, k).transpose(0, 1, 2, 4, 3, 5).reshape(
            n, c, h // k * k, w // k * k)
        return grad_x, []
    if layer.kind == "flatten":
        return grad.reshape(x.shape), []
    if layer.kind == "relu":
        return grad * (x > 0), []
    return grad * (1.0 - np.tanh(x) ** 2), []  # tanh


# ---------------------------------------------------------------------------- one layer
def _read_layer(entry: tuple, where: str) -> Layer:
    kind, rest = entry[0], tuple(entry[1:])
    if kind == "conv":
        if len(rest) != 4:
            raise NetworkError(f"{where}: expected ('conv', weight, bias, stride, padding)")
        weight, bias = _array(rest[0], 4, f"{where} weight"), _array(rest[1], 1, f"{where} bias")
        if weight.shape[2] != weight.shape[3] or not 1 <= weight.shape[2] <= MAX_KERNEL:
            raise NetworkError(f"{where}: the kernel must be square, 1×1 to "
                               f"{MAX_KERNEL}×{MAX_KERNEL}; weight has shape {weight.shape}")
        stride = _integer(rest[2], 1, MAX_STRIDE, f"{where} stride")
        # (a padding of k or more only adds rows of zeros that no window of the image reaches)
        padding = _integer(rest[3], 0, min(MAX_PADDING, weight.shape[2] - 1), f"{where} padding")
        if bias.shape != weight.shape[:1]:
            raise NetworkError(f"{where}: bias has shape {bias.shape}, expected "
                               f"({weight.shape[0]},) for weight {weight.shape}")
        return Layer(kind, weight, bias, stride=stride, padding=padding)
    if kind == "linear":
        if len(rest) != 2:
            raise NetworkError(f"{where}: expected ('linear', weight, bias)")
        weight, bias = _array(rest[0], 2, f"{where} weight"), _array(rest[1], 1, f"{where} bias")
        if bias.shape != weight.shape[:1]:
            raise NetworkError(f"{where}: bias has shape {bias.shape}, expected "
                               f"({weight.shape[0]},) for weight {weight.shape} (out, in)")
        return Layer(kind, weight, bias)
    if kind in ("maxpool", "avgpool"):
        if len(rest) != 1:
            raise NetworkError(f"{where}: expected ({kind!r}, window size)")
        return Layer(kind, size=_integer(rest[0], 2, MAX_POOL, f"{where} window size"))
    if rest:
        raise NetworkError(f"{where}: expected ({kind!r},), got {len(rest)} more item(s)")
    return Layer(kind)


def _output_shape(layer: Layer, shape: tuple[int, ...], where: str) -> tuple[int, ...]:
    if layer.kind in ("conv", "maxpool", "avgpool") and len(shape) != 3:
        raise NetworkError(f"{where} ({layer.kind}) needs images (C, H, W); its input is "
                           f"{shape} per image (a flatten came before it?)")
    if layer.kind == "conv":
        channels, height, width = shape
        out_channels, in_channels, k, _ = layer.weight.shape
        if in_channels != channels:
            raise NetworkError(f"{where} (conv): weight {layer.weight.shape} takes {in_channels} "
                               f"channel(s); its input has {channels}")
        size = [(side + 2 * layer.padding - k) // layer.stride + 1 for side in (height, width)]
        if min(size) < 1:
            raise NetworkError(f"{where} (conv): a {k}×{k} kernel does not fit a "
                               f"{height}×{width} input with padding {layer.padding}")
        return (out_channels, *size)
    if layer.kind in ("maxpool", "avgpool"):
        channels, height, width = shape
        if min(height, width) < layer.size:
            raise NetworkError(f"{where} ({layer.kind}): a {layer.size}×{layer.size} window does "
                               f"not fit a {height}×{width} input")
        return (channels, height // layer.size, width // layer.size)
    if layer.kind == "flatten":
        return (int(np.prod(shape)),)
    if layer.kind == "linear":
        if len(shape) != 1 or shape[0] != layer.weight.shape[1]:
            raise NetworkError(f"{where} (linear): weight {layer.weight.shape} takes "
                               f"{layer.weight.shape[1]} features; its input is {shape} per "
                               f"image{' (flatten first)' if len(shape) != 1 else ''}")
        return (layer.weight.shape[0],)
    return shape


def _array(value: Any, ndim: int, what: str) -> np.ndarray:
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu":
        raise NetworkError(f"{what}: expected a numpy array of numbers, got {_short(value)}")
    if value.ndim != ndim or 0 in value.shape:
        raise NetworkError(f"{what}: expected {ndim} dimensions, got shape {value.shape}")
    if value.size > MAX_PARAMETERS:
        raise NetworkError(f"{what}: {value.size} values; the network may have at most "
                           f"{MAX_PARAMETERS} parameters")
    array = value.astype(np.float64)
    if not np.isfinite(array).all():
        raise NetworkError(f"{what} holds NaN or infinite values")
    return array


def _integer(value: Any, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or not low <= int(value) <= high:
        raise NetworkError(f"{what}: expected an integer from {low} to {high}, got "
                           f"{_short(value)}")
    return int(value)


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, np.ndarray) else f"an array {value.shape}"
    return text if len(text) <= 60 else text[:57] + "..."
