"""Checks for lesson 06's exercises: visible cases, fresh random hidden cases, comparators.

The comparators recognise the lesson's typical mistakes — a kernel not rotated by 180°, a
weight gradient correlated the wrong way round, the padding not cropped or cropped at the
wrong place, δ not dilated for a stride, dL/dw and dL/db not summed over the batch — and
say so in words. To recognise them they recompute the right gradients and the mistaken ones
here, with the library's numpy reference convolution (:mod:`minigrad.kernels.im2col`: the
windows as a matrix, one matrix product, and col2im adding its rows back), an independent
method from the reference answer's full convolution.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from minigrad.exercises.mistakes import (Case, Mistake, backward_not_written, backward_raised,
                                         comparator, near)
from minigrad.exercises.spec import Comparator, Exercise, close, exact
from minigrad.kernels import im2col as conv

# The worked case of the lesson: 3×3 input, 2×2 kernel, 2×2 upstream gradient.
WORKED_X = np.arange(1.0, 10.0).reshape(3, 3)
WORKED_W = np.array([[1.0, 2.0], [3.0, 4.0]])
WORKED_DELTA = np.array([[1.0, 2.0], [-1.0, 1.0]])

# The stride-2 worked case of the reading (section 3): 5×5 input, 3×3 kernel, 2×2 δ.
STRIDED_W = np.arange(1.0, 10.0).reshape(3, 3)
STRIDED_DELTA = np.array([[1.0, 2.0], [3.0, 4.0]])

_CLOSE = close(rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------- the convolution
def padded_input_grad(delta: np.ndarray, weight: np.ndarray, padded_shape: tuple,
                      stride: int) -> np.ndarray:
    """dL/dx_p, shape (N, C, H + 2p, W + 2p): δ[n, o, i, j] · w[o, c] added onto the window
    at (s i, s j) (the input gradient of the unpadded convolution of x_p)."""
    return conv.conv2d_grad_input(np.asarray(delta, dtype=np.float64),
                                  np.asarray(weight, dtype=np.float64), tuple(padded_shape),
                                  (stride, stride), (0, 0))


def _undilated_conv(delta: np.ndarray, weight: np.ndarray, padded_shape: tuple, padding: int,
                    input_shape: tuple) -> np.ndarray:
    """The stride-1 full convolution of δ as it is (not dilated), written from the top left
    into an array of x_p's shape and cropped like the right answer: 06.5's "δ not dilated"."""
    k, (rows, columns) = weight.shape[-1], delta.shape[2:]
    full = padded_input_grad(delta, weight, (*padded_shape[:2], rows + k - 1, columns + k - 1), 1)
    placed = np.zeros(padded_shape)
    height, width = min(padded_shape[2], full.shape[2]), min(padded_shape[3], full.shape[3])
    placed[:, :, :height, :width] = full[:, :, :height, :width]
    return placed[:, :, padding:padding + input_shape[2], padding:padding + input_shape[3]]


def forward_without_bias(x: np.ndarray, weight: np.ndarray, stride: int, padding: int) -> np.ndarray:
    """Σ_c x_p[n, c] ⋆ w[o, c] with stride s, shape (N, O, OH, OW)."""
    return conv.conv2d_forward(np.asarray(x, dtype=np.float64),
                               np.asarray(weight, dtype=np.float64), (stride, stride),
                               (padding, padding))


def weight_grad_per_example(x: np.ndarray, delta: np.ndarray, k: int, stride: int,
                            padding: int) -> np.ndarray:
    """Each example's own dL/dw, shape (N, O, C, k, k); dL/dw is their sum over N."""
    x, delta = np.asarray(x, dtype=np.float64), np.asarray(delta, dtype=np.float64)
    shape = (delta.shape[1], x.shape[1], k, k)
    return np.stack([conv.conv2d_grad_weight(x[n:n + 1], delta[n:n + 1], shape,
                                             (stride, stride), (padding, padding))
                     for n in range(len(x))])


def _shape(value: Any) -> Optional[tuple]:
    try:
        return np.asarray(value, dtype=np.float64).shape
    except (TypeError, ValueError):
        return None


NOT_ROTATED = ("your dL/dx is what the kernel NOT rotated by 180° gives: rotate it "
               "(w[..., ::-1, ::-1]) before sliding it over the padded δ")


# ---------------------------------------------------------------------------- 06.1, 06.2, 06.4
def _last_output_only(case: Case) -> np.ndarray:
    """06.1 with `=` for `+=`: only the last output's term stays."""
    delta = np.asarray(case.delta, dtype=float)
    rows, columns = delta.shape
    k = np.shape(case.x)[0] - rows + 1, np.shape(case.x)[1] - columns + 1
    x = np.asarray(case.x, dtype=float)
    return delta[-1, -1] * x[rows - 1:rows - 1 + k[0], columns - 1:columns - 1 + k[1]]


WEIGHT_GRAD_MISTAKES = [
    Mistake("your dL/dw is the right one rotated by 180°: slide δ over x (dL/dw[m, n] pairs "
            "δ[i, j] with x[i + m, j + n]), not x over δ",
            gives=lambda case: case.expected[::-1, ::-1]),
    Mistake(lambda case: f"dL/dw has the kernel's shape {np.shape(case.expected)}: one entry "
                         "per kernel offset, each adding up what every output sends back",
            when=lambda case: _shape(case.got) not in (None, np.shape(case.expected))),
    Mistake("your dL/dw keeps only the last output's term: each output (i, j) adds its share "
            "(+=); `=` replaces what the earlier ones put there", gives=_last_output_only),
    Mistake("your dL/dw is the mean of the outputs' contributions: the kernel is shared by "
            "every output position, so their contributions add up",
            gives=lambda case: case.expected / np.size(case.delta)),
    Mistake("your dL/dw[m, n] multiplies the sum of δ by one pixel: each output (i, j) pairs its "
            "own δ[i, j] with the pixel it read through w[m, n], x[i + m, j + n]",
            gives=lambda case: np.sum(case.delta) * np.asarray(case.x, dtype=float)[
                :np.shape(case.expected)[0], :np.shape(case.expected)[1]]),
]


def _plane_input_grad(weight: np.ndarray, delta: np.ndarray, stride: int, shape: tuple) -> np.ndarray:
    return padded_input_grad(delta[None, None], weight[None, None], (1, 1, *shape), stride)[0, 0]


def _kernel_without_delta(case: Case) -> np.ndarray:
    return _plane_input_grad(np.asarray(case.weight, dtype=float),
                             np.ones(np.shape(case.delta)), 1, case.expected.shape)


INPUT_GRAD_MISTAKES = [
    Mistake("your dL/dx adds up the kernel without δ: each window sends back w times its own "
            "δ[i, j]", group="dx", gives=_kernel_without_delta),
    Mistake(NOT_ROTATED, group="dx", gives=lambda case: _plane_input_grad(
        case.weight[::-1, ::-1], case.delta, 1, case.expected.shape)),
    Mistake("dL/dx has the input's shape (R + k − 1, S + k − 1), not δ's: pad δ with k − 1 zeros "
            "on every side before sliding the kernel", group="dx",
            when=lambda case: _shape(case.got) == np.shape(case.delta)),
    Mistake("your dL/dx keeps only the last kernel offset's term: each offset (m, n) adds its "
            "share (+=); `=` replaces what the earlier ones put there", group="dx",
            gives=lambda case: _plane_input_grad(_first_weight_only(case.weight), case.delta, 1,
                                                 case.expected.shape)),
    Mistake("your kernel is transposed, not turned by 180°: turning it flips its rows and its "
            "columns", group="dx", gives=lambda case: _plane_input_grad(
                np.asarray(case.weight).T[::-1, ::-1], case.delta, 1, case.expected.shape)),
    Mistake("your kernel is flipped along one axis only: turning it by 180° flips its rows and "
            "its columns", group="dx",
            when=lambda case: any(near(case.got, _plane_input_grad(
                flipped, case.delta, 1, case.expected.shape)) for flipped in (
                    np.asarray(case.weight)[:, ::-1], np.asarray(case.weight)[::-1, :]))),
]


def _first_weight_only(weight: np.ndarray) -> np.ndarray:
    """The kernel whose full convolution is the last term of 06.2's loop alone: w[0, 0]."""
    kept = np.zeros_like(np.asarray(weight, dtype=float))
    kept[0, 0] = weight[0, 0]
    return kept


def _undilated(weight: np.ndarray, delta: np.ndarray, shape: tuple) -> np.ndarray:
    """06.2's full convolution of δ as it is (not dilated), placed in an array of x's shape."""
    k, (rows, columns) = weight.shape[0], delta.shape
    full = _plane_input_grad(weight, delta, 1, (rows + k - 1, columns + k - 1))
    placed = np.zeros(shape)
    placed[:min(shape[0], full.shape[0]), :min(shape[1], full.shape[1])] = \
        full[:shape[0], :shape[1]]
    return placed


def _undilated_shape(case: Case) -> tuple:
    k, (rows, columns) = case.weight.shape[0], np.shape(case.delta)
    return (rows + k - 1, columns + k - 1)


def _reached_shape(case: Case) -> tuple:
    k, (rows, columns), stride = case.weight.shape[0], np.shape(case.delta), case.stride
    return (stride * (rows - 1) + k, stride * (columns - 1) + k)


def _strided_overwritten(case: Case) -> np.ndarray:
    """06.4 with `=` for `+=`: where windows overlap, the last one's share stays."""
    weight, delta = np.asarray(case.weight, dtype=float), np.asarray(case.delta, dtype=float)
    k, s = weight.shape[0], case.stride
    grad = np.zeros(case.expected.shape)
    for i, j in np.ndindex(delta.shape):
        grad[s * i:s * i + k, s * j:s * j + k] = weight * delta[i, j]
    return grad


STRIDED_MISTAKES = [
    Mistake("your dL/dx keeps only the last window's share where windows overlap: their "
            "shares add up (+=)", group="dx", when=lambda case: case.weight.shape[0] > case.stride
            and near(case.got, _strided_overwritten(case))),
    Mistake("your dL/dx adds up the kernel without δ: each window sends back w times its own "
            "δ[i, j]", group="dx", gives=lambda case: _plane_input_grad(
                np.asarray(case.weight, dtype=float), np.ones(np.shape(case.delta)), case.stride,
                case.expected.shape)),
    Mistake(NOT_ROTATED, group="dx", gives=lambda case: _plane_input_grad(
        case.weight[::-1, ::-1], case.delta, case.stride, case.expected.shape)),
    Mistake(lambda case: f"δ was not dilated: with stride {case.stride}, output i read the window "
                         f"at {case.stride}·i, so put {case.stride - 1} zero(s) between "
                         "neighbouring entries of δ before the full convolution", group="dx",
            when=lambda case: _shape(case.got) == _undilated_shape(case) or near(
                case.got, _undilated(case.weight, case.delta, case.expected.shape))),
    Mistake(lambda case: f"dL/dx must have x's shape ({case.height}, {case.width}): the last rows "
                         "or columns no window read get gradient 0 — add them", group="dx",
            when=lambda case: _shape(case.got) == _reached_shape(case)
            and _reached_shape(case) != case.expected.shape),
]


# ---------------------------------------------------------------------------- 06.5
class _Conv:
    """What 06.5's mistakes compare with, worked out once per case (by scattering)."""

    def __init__(self, case: Case) -> None:
        x, weight, delta, stride, padding = (np.asarray(case.x, dtype=np.float64),
                                             np.asarray(case.weight, dtype=np.float64),
                                             np.asarray(case.delta, dtype=np.float64),
                                             case.stride, case.padding)
        self.batch, self.in_channels, self.height, self.width = x.shape
        self.out_channels, _, self.k, _ = weight.shape
        self.y_shape = (self.batch, self.out_channels, *delta.shape[2:])
        self.padded_shape = (self.batch, self.in_channels, self.height + 2 * padding,
                             self.width + 2 * padding)
        self.right_padded = padded_input_grad(delta, weight, self.padded_shape, stride)
        # how many windows read each pixel of x
        reads = padded_input_grad(np.ones((1, 1, *delta.shape[2:])), np.ones((1, 1, self.k, self.k)),
                                  (1, 1, *self.padded_shape[2:]), stride)
        self.windows = self.crop(reads)[0, 0]
        self.per_example_w = weight_grad_per_example(x, delta, self.k, stride, padding)
        self.per_example_b = delta.sum(axis=(2, 3))

    def crop(self, padded: np.ndarray, top: Optional[int] = None,
             left: Optional[int] = None) -> np.ndarray:
        padding = (self.padded_shape[2] - self.height) // 2
        top, left = padding if top is None else top, padding if left is None else left
        return padded[:, :, top:top + self.height, left:left + self.width]


def _conv(case: Case) -> _Conv:
    if "_conv" not in case.__dict__:
        case._conv = _Conv(case)
    return case._conv


def _forward(case: Case, weight: np.ndarray, x: Optional[np.ndarray] = None) -> np.ndarray:
    return forward_without_bias(case.x if x is None else x, weight, case.stride,
                                case.padding) + case.bias[None, :, None, None]


def _overwritten(case: Case) -> bool:
    """dL/dx wrong only at pixels that several windows read: `=` where `+=` was needed."""
    got, right = np.asarray(case.got[1], dtype=np.float64), case.expected[1]
    if got.shape != right.shape:
        return False
    wrong = ~np.isclose(got, right, rtol=1e-9, atol=1e-12)
    return bool(wrong.any() and (np.broadcast_to(_conv(case).windows, got.shape)[wrong] >= 2).all())


def _last_offset_only(case: Case) -> np.ndarray:
    """dL/dx from the full convolution's last kernel offset alone: what `=` for `+=` gives
    when the sum runs over the offsets (m, n) of the rotated kernel."""
    conv, k, stride = _conv(case), _conv(case).k, case.stride
    rows, columns = case.delta.shape[2:]
    dilated = np.zeros((conv.batch, conv.out_channels, stride * (rows - 1) + 1,
                        stride * (columns - 1) + 1))
    dilated[:, :, ::stride, ::stride] = case.delta
    full_rows, full_columns = dilated.shape[2] + k - 1, dilated.shape[3] + k - 1
    grad = np.zeros(conv.padded_shape)
    last = np.einsum("NOHW,OC->NCHW", np.pad(dilated, ((0, 0), (0, 0), (0, k - 1), (0, k - 1))),
                     case.weight[:, :, 0, 0])  # rot180 w at offset (k − 1, k − 1) is w[0, 0]
    height, width = min(full_rows, grad.shape[2]), min(full_columns, grad.shape[3])
    grad[:, :, :height, :width] = last[:, :, :height, :width]
    return conv.crop(grad)


def _all_zero(case: Case, part: int) -> bool:
    got = np.asarray(case.got[part], dtype=np.float64)
    return got.shape == np.shape(case.expected[part]) and not got.any() \
        and bool(np.any(case.expected[part]))


def _shared(case: Case) -> str:
    """Why a parameter's gradient adds up its examples', in this case's words."""
    batch = _conv(case).batch
    if batch == 1:
        return "it keeps the batch axis, of length 1 here"
    return f"the parameters are shared by all {batch} examples, so add up their gradients"


def _not_summed(name: str, part: int, per_example: str, right_shape: Callable) -> Mistake:
    def shown(case: Case) -> bool:
        values = getattr(_conv(case), per_example)
        return _shape(case.got[part]) == values.shape or (
            values.shape[0] > 1 and any(near(case.got[part], one) for one in values))
    return Mistake(lambda case: f"{name} is not summed over the batch: {_shared(case)}; "
                                f"{name} has shape {right_shape(case)}", when=shown, group=name)


def _divided_by_batch(name: str, part: int) -> Mistake:
    return Mistake(lambda case: f"{name} is the right one divided by N = {_conv(case).batch}: the "
                                "parameters are shared by the batch, so their gradient is the "
                                "sum of the examples' gradients, not their mean (a mean loss has "
                                "put its 1/N into δ already)", part=part, group=name,
                   gives=lambda case: case.expected[part] / _conv(case).batch
                   if _conv(case).batch > 1 else None)


def _missing(case: Case) -> list[str]:
    return [name for name, value in zip(("dL/dx", "dL/dw", "dL/db"), case.got[1:4])
            if value is None]


# 06.5's answer: (y, dL/dx, dL/dw, dL/db, gradcheck passed). Within a group, the first that
# the answer shows is named: the groups go from the most specific mistake to the vaguest.
def _low_precision(case: Case) -> list[str]:
    """The parts of the answer computed in fewer digits than float64 (float32, float16)."""
    names = ("y", "dL/dx", "dL/dw", "dL/db")
    return [name for name, value in zip(names, case.got)
            if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.itemsize < 8]


def _float64(compare: Comparator) -> Comparator:
    """``compare``, and an answer with a part in float32 is wrong there even where its digits
    happen to pass: its backward cannot be gradchecked, which is what 06.5 asks for."""
    def judge(expected: Any, got: Any, args: tuple = ()) -> Optional[str]:
        message = compare(expected, got, args)
        if message is None and isinstance(got, (list, tuple)):
            low = _low_precision(Case(args, expected, got))
            if low:
                return f"{' and '.join(low)} in float32"
        return message
    return judge


CONV_MISTAKES = [
    Mistake(lambda case: f"your {' and '.join(_low_precision(case))} "
                         f"{'is' if len(_low_precision(case)) == 1 else 'are'} float32, about 7 "
                         "digits: too few for gradcheck's finite differences and for these "
                         "checks. Keep every array float64, as the inputs are",
            when=lambda case: bool(_low_precision(case))),
    backward_not_written(4, "y"),
    backward_raised(4, "each gradient must come out with the shape of its input"),
    Mistake(lambda case: f"backward returned {len(case.got) - 2} gradient(s): it must return "
                         "three, dL/dx, dL/dw and dL/db, one per input of forward",
            when=lambda case: len(case.got) != 5, group="backward raised"),
    Mistake(lambda case: f"backward returned None for {', '.join(_missing(case))}: every input "
                         "of forward needs its gradient",
            when=lambda case: bool(_missing(case)), group="backward raised"),
    # y
    Mistake(lambda case: f"y has shape {_shape(case.got[0])}, expected {_conv(case).y_shape}: "
                         "along each axis ⌊(H + 2p − k)/s⌋ + 1 outputs",
            when=lambda case: _shape(case.got[0]) not in (None, _conv(case).y_shape), group="y"),
    Mistake("y lacks the bias: add b[o] to every output of channel o", part=0, group="y",
            gives=lambda case: forward_without_bias(case.x, case.weight, case.stride,
                                                    case.padding)),
    Mistake("y flips the kernel (the mathematicians' convolution): deep-learning libraries slide "
            "w as it is, y = Σ w[m, n]·x[s i + m, s j + n]", part=0, group="y",
            gives=lambda case: _forward(case, case.weight[:, :, ::-1, ::-1])
            if _conv(case).k > 1 else None),
    Mistake(lambda case: f"y uses one input channel only: output channel o reads all "
                         f"{_conv(case).in_channels} input channels, each through its own kernel "
                         "w[o, c], and adds them up", group="y",
            when=lambda case: _conv(case).in_channels > 1 and any(
                near(case.got[0], _forward(case, case.weight[:, c:c + 1], case.x[:, c:c + 1]))
                for c in range(_conv(case).in_channels))),
    # dL/dx
    Mistake(lambda case: f"dL/dx still has the padding: crop {case.padding} row(s) and column(s) "
                         f"from each side, back to x's shape {case.x.shape}", group="dL/dx",
            when=lambda case: case.padding > 0
            and _shape(case.got[1]) == _conv(case).padded_shape),
    Mistake(NOT_ROTATED, part=1, group="dL/dx",
            gives=lambda case: _conv(case).crop(padded_input_grad(
                case.delta, case.weight[:, :, ::-1, ::-1], _conv(case).padded_shape,
                case.stride))),
    Mistake(lambda case: f"dL/dx is cropped at the wrong place: the padding is {case.padding} on "
                         f"every side, so keep rows and columns {case.padding} … "
                         f"{case.padding} + H − 1", group="dL/dx",
            when=lambda case: case.padding > 0 and not near(case.got[1], case.expected[1])
            and any(near(case.got[1], _conv(case).crop(_conv(case).right_padded, top, left))
                    for top in range(2 * case.padding + 1)
                    for left in range(2 * case.padding + 1))),
    Mistake(lambda case: f"δ was not dilated: with stride {case.stride} put {case.stride - 1} "
                         "zero(s) between neighbouring entries of δ before the full convolution",
            group="dL/dx",
            when=lambda case: case.stride > 1 and not near(case.got[1], case.expected[1]) and (
                _shape(case.got[1]) is not None and len(_shape(case.got[1])) == 4
                and _shape(case.got[1])[2] - case.delta.shape[2] - _conv(case).k + 1
                in (-2 * case.padding, 0)
                or near(case.got[1], _undilated_conv(case.delta, case.weight,
                                                         _conv(case).padded_shape, case.padding,
                                                         case.x.shape)))),
    Mistake(lambda case: f"dL/dx must have x's shape {case.x.shape}, got {_shape(case.got[1])} "
                         "(rows no window read get gradient 0)", group="dL/dx",
            when=lambda case: _shape(case.got[1]) not in (None, case.x.shape)),
    Mistake(lambda case: f"dL/dx holds one output channel's share only: x[n, c] feeds all "
                         f"{_conv(case).out_channels} output channels, so its gradient adds up "
                         "what comes back from each of them", group="dL/dx",
            when=lambda case: _conv(case).out_channels > 1
            and not near(case.got[1], case.expected[1]) and any(
                near(case.got[1], _conv(case).crop(padded_input_grad(
                    case.delta[:, o:o + 1], case.weight[o:o + 1], _conv(case).padded_shape,
                    case.stride)))
                for o in range(_conv(case).out_channels))),
    Mistake("your dL/dx keeps only the last kernel offset's term: each offset (m, n) adds its "
            "share into dL/dx (+=); `=` replaces what the earlier offsets put there", part=1,
            gives=_last_offset_only, group="dL/dx"),
    Mistake("your dL/dx is wrong only at pixels that several overlapping windows read: there "
            "the gradients of the windows add up (+=); `=` keeps only the last one",
            when=_overwritten, group="dL/dx"),
    # dL/dw
    Mistake("your dL/dw is all zeros: nothing was added into it — dL/dw[o, c, m, n] adds "
            "δ[n, o, i, j]·x_p[n, c, s·i + m, s·j + n] over the batch and every output",
            when=lambda case: _all_zero(case, 2), group="dL/dw"),
    _not_summed("dL/dw", 2, "per_example_w", lambda case: case.weight.shape),
    _divided_by_batch("dL/dw", 2),
    Mistake("dL/dw is rotated by 180°: slide δ over x, not x over δ", part=2, group="dL/dw",
            gives=lambda case: case.expected[2][:, :, ::-1, ::-1]),
    # dL/db
    Mistake("your dL/db is all zeros: b[o] was added to every output of channel o, so "
            "dL/db[o] is the sum of δ[n, o, i, j] over the batch and every position",
            when=lambda case: _all_zero(case, 3), group="dL/db"),
    _not_summed("dL/db", 3, "per_example_b", lambda case: (_conv(case).out_channels,)),
    _divided_by_batch("dL/db", 3),
    Mistake(lambda case: f"dL/db has shape {_shape(case.got[3])}, expected "
                         f"{(_conv(case).out_channels,)}: b[o] was added to every output of "
                         "channel o, in every image, and nowhere else", group="dL/db",
            when=lambda case: _shape(case.got[3]) not in (None, (_conv(case).out_channels,))),
    Mistake("dL/db sums the wrong entries of δ: b[o] was added to every output of channel o, in "
            "every image, and nowhere else", group="dL/db",
            when=lambda case: not near(case.got[3], case.expected[3])),
]
CONV_OTHERWISE = [
    Mistake("gradcheck failed: your backward does not agree with finite differences of your "
            "forward", when=lambda case: case.got[4] is False),
]


# ---------------------------------------------------------------------------- 06.3
def _positions(size: int, kernel: int, stride: int, padding: float, up: bool = False) -> int:
    """Window positions along an axis padded with ``padding`` zeros in all (both ends
    together: 2·p for the right count); ``up`` rounds a window that sticks out in."""
    room = size + padding - kernel
    return int(-(-room // stride) if up else room // stride) + 1


SIZE_MISTAKES = [
    Mistake("you padded one end only: the padding goes on both ends of the axis, 2·padding "
            "in all", gives=lambda c: _positions(c.size, c.kernel, c.stride, c.padding)),
    Mistake("you left the padding out: the window slides over the padded axis",
            gives=lambda c: _positions(c.size, c.kernel, c.stride, 0)),
    Mistake("you counted as if the stride were 1: the window moves stride pixels at a time",
            gives=lambda c: _positions(c.size, c.kernel, 1, 2 * c.padding)),
    Mistake("you rounded up: a window that would stick out past the end is not counted",
            gives=lambda c: _positions(c.size, c.kernel, c.stride, 2 * c.padding, up=True)),
    Mistake("one short: the window at position 0 counts too",
            gives=lambda c: c.expected - 1),
    Mistake("one too many: the last window must still fit entirely inside the padded axis",
            gives=lambda c: c.expected + 1),
]


# ---------------------------------------------------------------------------- cases
def _weight_case(rng: np.random.Generator) -> tuple:
    k = int(rng.integers(2, 5))
    height, width = (int(v) for v in rng.integers(k, k + 5, size=2))
    return (rng.normal(size=(height, width)), rng.normal(size=(height - k + 1, width - k + 1)))


def _input_case(rng: np.random.Generator) -> tuple:
    k = int(rng.integers(2, 5))
    rows, columns = (int(v) for v in rng.integers(1, 6, size=2))
    # Not symmetric: an unrotated kernel gives a different answer.
    return (rng.normal(size=(k, k)), rng.normal(size=(rows, columns)))


def _strided_case(rng: np.random.Generator, skipped_rows: bool = False) -> tuple:
    k, stride = int(rng.integers(2, 4)), int(rng.integers(2, 4))
    rows, columns = (int(v) for v in rng.integers(2, 5, size=2))
    extra = int(rng.integers(1, stride)) if skipped_rows else 0  # rows no window reads
    height = stride * (rows - 1) + k + extra
    width = stride * (columns - 1) + k + int(rng.integers(0, stride))
    return (rng.normal(size=(k, k)), rng.normal(size=(rows, columns)), stride, height, width)


def _size_cases(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for _ in range(5):
        kernel, stride, padding = int(rng.integers(1, 6)), int(rng.integers(1, 4)), int(rng.integers(0, 3))
        cases.append((int(rng.integers(max(1, kernel - 2 * padding), 30)), kernel, stride, padding))
    return cases


def conv2d_case(rng: np.random.Generator, batch: int, in_channels: int, out_channels: int,
                height: int, width: int, k: int, stride: int, padding: int) -> tuple:
    """Arguments of 06.5: x, weight, bias, δ (shaped like y), stride, padding."""
    rows = (height + 2 * padding - k) // stride + 1
    columns = (width + 2 * padding - k) // stride + 1
    return (rng.normal(size=(batch, in_channels, height, width)),
            rng.normal(size=(out_channels, in_channels, k, k)), rng.normal(size=out_channels),
            rng.normal(size=(batch, out_channels, rows, columns)), stride, padding)


def _conv2d_visible() -> list[tuple]:
    rng = np.random.default_rng(6)
    return [
        # the worked case: one image, one channel, bias 0.5
        (WORKED_X[None, None], WORKED_W[None, None], np.array([0.5]), WORKED_DELTA[None, None], 1, 0),
        conv2d_case(rng, 2, 2, 2, 5, 5, 3, 1, 1),   # channels, a batch, padding 1
        conv2d_case(rng, 2, 1, 2, 6, 7, 3, 2, 1),   # stride 2: (6 + 2 − 3) mod 2 = 1 row unread
        conv2d_case(rng, 3, 2, 1, 5, 5, 2, 2, 0),   # stride 2, kernel 2, no padding
    ]


def _conv2d_hidden(rng: np.random.Generator) -> list[tuple]:
    def draw(low: int, high: int) -> int:
        return int(rng.integers(low, high + 1))

    cases = []
    for number in range(4):
        k = draw(2, 3) if number < 2 else draw(1, 3)
        stride = 2 if number == 0 else draw(1, 2)
        padding = draw(1, min(2, k)) if number == 1 else draw(0, min(2, k))
        batch = draw(2, 3) if number == 1 else draw(1, 3)
        # padded planes of at most 7 × 7 (8 for the extra row below): gradcheck costs one
        # backward per output entry, and the grader's time limit covers every case
        smallest, largest = max(1, k - 2 * padding), 7 - 2 * padding
        height, width = draw(smallest, largest), draw(smallest, largest)
        if number == 0 and (height + 2 * padding - k) % 2 == 0:
            height += 1  # a row no window reads
        cases.append(conv2d_case(rng, batch, draw(1, 3), draw(1, 3), height, width, k, stride,
                                 padding))
    return cases


EXERCISES = [
    Exercise(
        id="06.1", function="conv_weight_grad", points=3,
        title="The weight gradient: input correlated with δ",
        reading="2. The worked case: a 3×3 input and a 2×2 kernel",
        idea="w[m, n] touched one pixel in every window: which pixel, in the window of output "
             "(i, j)? Add up δ times that pixel over all outputs.",
        hint="dL/dw[m, n] = Σ_i Σ_j δ[i, j] · x[i + m, j + n].",
        visible=lambda: [(WORKED_X, WORKED_DELTA),
                         (np.arange(16.0).reshape(4, 4), np.ones((2, 2))),
                         (np.eye(4), np.array([[1.0, 0.0, -1.0]]).T @ np.ones((1, 2)))],
        hidden=lambda rng: [_weight_case(rng) for _ in range(3)],
        compare=comparator(WEIGHT_GRAD_MISTAKES, names=("x", "delta"), compare=_CLOSE),
    ),
    Exercise(
        id="06.2", function="conv_input_grad", points=3,
        title="The input gradient: full convolution with the kernel rotated 180°",
        reading="2. The worked case: a 3×3 input and a 2×2 kernel",
        idea="Follow one input pixel forward: which outputs did it reach, and through which "
             "weight each time? Or run it backwards: each δ[i, j] sends δ[i, j]·w back onto "
             "its own window.",
        hint="dL/dx[p, q] = Σ_i Σ_j δ[i, j] · w[p − i, q − j]: δ padded by k − 1 "
             "zeros on every side, correlated with the kernel rotated by 180°.",
        visible=lambda: [(WORKED_W, WORKED_DELTA),
                         (np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([[1.0]])),
                         (np.arange(9.0).reshape(3, 3), np.array([[1.0, -1.0]]))],
        hidden=lambda rng: [_input_case(rng) for _ in range(3)],
        compare=comparator(INPUT_GRAD_MISTAKES, names=("weight", "delta"), compare=_CLOSE),
    ),
    Exercise(
        id="06.3", function="conv_output_size", points=2,
        title="Output size for stride and padding",
        reading="3. Stride, padding, and the transposed convolution",
        idea="Count the positions where a window can start: the first at 0, the last as far "
             "right as it still fits, steps of `stride`.",
        hint="⌊(size + 2·padding − kernel_size) / stride⌋ + 1: a window that does "
             "not fit entirely is not counted.",
        visible=lambda: [(3, 2, 1, 0), (28, 3, 1, 1), (28, 5, 2, 2), (7, 3, 3, 0), (5, 3, 2, 1)],
        hidden=_size_cases,
        compare=comparator(SIZE_MISTAKES, names=("size", "kernel", "stride", "padding"),
                           compare=exact(), first_only=True),
    ),
    Exercise(
        id="06.4", function="strided_input_grad", points=3,
        title="The input gradient with a stride",
        reading="3. Stride, padding, and the transposed convolution",
        idea="Output (i, j) read the window that starts at (s·i, s·j). What would δ look like "
             "if the layer had had stride 1 and you had simply kept every s-th output?",
        hint="δ dilated (s − 1 zeros between neighbours), then 06.2's full "
             "convolution; rows and columns it does not reach get 0. Equivalently "
             "dL/dx[s·i + m, s·j + n] += w[m, n]·δ[i, j].",
        visible=lambda: [(STRIDED_W, STRIDED_DELTA, 2, 5, 5),
                         (WORKED_W, WORKED_DELTA, 2, 5, 4),  # a row no window read
                         (np.array([[1.0, -2.0], [0.5, 3.0]]), np.array([[1.0, 2.0, -1.0]]), 3, 2, 9)],
        hidden=lambda rng: [_strided_case(rng), _strided_case(rng, skipped_rows=True),
                            _strided_case(rng, skipped_rows=True)],
        compare=comparator(STRIDED_MISTAKES, names=("weight", "delta", "stride", "height",
                                                    "width"), compare=_CLOSE),
    ),
    Exercise(
        id="06.5", function="conv2d_function", points=5,
        title="Your own Conv2d Function: batch, channels, stride, padding",
        reading="3. Stride, padding, and the transposed convolution",
        idea="Forward: pad, then for each kernel offset (m, n) take the strided slice of every "
             "image that offset reads and mix its channels with w[:, :, m, n]. Backward: the "
             "same three rules as 06.1, 06.2 and 06.4, with Σ over the channels a weight "
             "connects and over the batch that shares it.",
        hint="dL/db[o] = Σ_{n,i,j} δ[n, o, i, j]; dL/dw[o, c, m, n] = Σ_{n,i,j} δ[n, "
             "o, i, j] · x_p[n, c, s·i + m, s·j + n]; dL/dx_p[n, c] = Σ_o "
             "full(dilated δ[n, o], rot180 w[o, c]), then p rows and columns cropped "
             "from each side.",
        visible=_conv2d_visible,
        hidden=_conv2d_hidden,
        compare=comparator(CONV_MISTAKES, names=("x", "weight", "bias", "delta", "stride",
                                          "padding"),
                           compare=_float64(_CLOSE), otherwise=CONV_OTHERWISE),
        parts=("y", "dL/dx", "dL/dw", "dL/db", "gradcheck"),
        weights=(1, 2, 2, 1, 2),  # the point: the backward (dL/dx, dL/dw, and gradcheck's word)
        # A student's first Conv2d is seven nested Python loops, and run_conv2d gradchecks it
        # (two forwards per input entry). Such a Conv2d took 2.6-12 s for all 8 cases on most
        # seeds and 21 s on the costliest of 2000 (3 × 3 channels, a 7 × 7 plane) on a
        # 2-core machine at load 12: the run's 10 s would fail a right answer for being slow.
        timeout=40.0,
    ),
]
