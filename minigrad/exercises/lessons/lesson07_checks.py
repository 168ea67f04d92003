"""Checks for lesson 07's exercises: visible cases, fresh random hidden cases, comparators.

The comparators recognise the lesson's typical mistakes from the case's arguments and say
so in words: the gradient routed to the *last* maximum of a tie (or to every maximum, or
shared among them),
``=`` where overlapping windows must add (``+=``), average pooling without its 1/(k·k), a
pooled output of the wrong shape, and the ReLU erratum (passing the gradient where z = 0).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from minigrad.exercises.mistakes import (Case, Mistake, backward_not_written, backward_raised,
                                         comparator, near)
from minigrad.exercises.spec import Comparator, Exercise, close
from minigrad.kernels import im2col as conv


# ---------------------------------------------------------------------------- pooling by rule
def _windows(shape: tuple, kernel: int, stride: int):
    """(i, j, row slice, column slice) of every window of a pooling over the last two axes."""
    rows = (shape[-2] - kernel) // stride + 1
    columns = (shape[-1] - kernel) // stride + 1
    for i in range(rows):
        for j in range(columns):
            yield (i, j, slice(i * stride, i * stride + kernel),
                   slice(j * stride, j * stride + kernel))


def _max_routing(x: np.ndarray, g: np.ndarray, kernel: int, stride: int, last: bool = False,
                 overwrite: bool = False) -> np.ndarray:
    """dL/dx of max pooling over the last two axes of x (any leading axes), the first
    maximum of a tie winning — or, to recognise mistakes, the last one (``last``), or each
    window overwriting instead of adding (``overwrite``, windows taken row by row)."""
    x3 = np.asarray(x, dtype=float).reshape(-1, *np.shape(x)[-2:])
    g3 = np.asarray(g, dtype=float).reshape(x3.shape[0], *np.shape(g)[-2:])
    grad = np.zeros_like(x3)
    for plane in range(x3.shape[0]):
        for i, j, rows, columns in _windows(x3.shape, kernel, stride):
            flat = x3[plane, rows, columns].ravel()
            where = flat.size - 1 - int(np.argmax(flat[::-1])) if last else int(np.argmax(flat))
            r, c = rows.start + where // kernel, columns.start + where % kernel
            if overwrite:
                grad[plane, r, c] = g3[plane, i, j]
            else:
                grad[plane, r, c] += g3[plane, i, j]
    return grad.reshape(np.shape(x))


def _every_maximum_routing(x: np.ndarray, g: np.ndarray, kernel: int,
                           stride: int) -> np.ndarray:
    """The mistake of sending a tied window's gradient to each of its maxima (a mask)."""
    x3 = np.asarray(x, dtype=float).reshape(-1, *np.shape(x)[-2:])
    g3 = np.asarray(g, dtype=float).reshape(x3.shape[0], *np.shape(g)[-2:])
    grad = np.zeros_like(x3)
    for plane in range(x3.shape[0]):
        for i, j, rows, columns in _windows(x3.shape, kernel, stride):
            window = x3[plane, rows, columns]
            grad[plane, rows, columns] += g3[plane, i, j] * (window == window.max())
    return grad.reshape(np.shape(x))


def _max_indices(x: np.ndarray, kernel: int, stride: int, last: bool) -> np.ndarray:
    """The flat argmax r·W + c of every window of one plane (first or last of a tie)."""
    rows = (x.shape[0] - kernel) // stride + 1
    columns = (x.shape[1] - kernel) // stride + 1
    indices = np.zeros((rows, columns), dtype=np.int64)
    for i, j, row_slice, column_slice in _windows(x.shape, kernel, stride):
        flat = x[row_slice, column_slice].ravel()
        where = flat.size - 1 - int(np.argmax(flat[::-1])) if last else int(np.argmax(flat))
        indices[i, j] = (row_slice.start + where // kernel) * x.shape[1] + \
            column_slice.start + where % kernel
    return indices


def _window_count(shape: tuple, kernel: int, stride: int) -> np.ndarray:
    """How many windows each pixel of one plane lies in."""
    count = np.zeros(shape[-2:])
    for _, _, rows, columns in _windows(shape, kernel, stride):
        count[rows, columns] += 1
    return count


def _wins(x: np.ndarray, kernel: int, stride: int) -> np.ndarray:
    """How many windows each pixel wins (first maximum of a tie), x's shape."""
    return _max_routing(x, np.ones(_pooled_shape(np.shape(x), kernel, stride)), kernel, stride)


def _pooled_shape(shape: tuple, kernel: int, stride: int) -> tuple:
    return (*shape[:-2], (shape[-2] - kernel) // stride + 1, (shape[-1] - kernel) // stride + 1)


# ---------------------------------------------------------------------------- mistakes
_ARRAYS = close(rtol=1e-9, atol=1e-12)


def _split_routing(x: np.ndarray, g: np.ndarray, kernel: int, stride: int) -> np.ndarray:
    """The mistake of sharing a tied window's gradient equally among its maxima."""
    x3 = np.asarray(x, dtype=float).reshape(-1, *np.shape(x)[-2:])
    g3 = np.asarray(g, dtype=float).reshape(x3.shape[0], *np.shape(g)[-2:])
    grad = np.zeros_like(x3)
    for plane in range(x3.shape[0]):
        for i, j, rows, columns in _windows(x3.shape, kernel, stride):
            window = x3[plane, rows, columns]
            maxima = window == window.max()
            grad[plane, rows, columns] += g3[plane, i, j] * maxima / maxima.sum()
    return grad.reshape(np.shape(x))


def _overwritten(got: Any, want: np.ndarray, wins: np.ndarray) -> bool:
    """Wrong only at pixels that several windows send gradient to: = where += was needed."""
    try:
        got = np.asarray(got, dtype=float)
        if got.shape != want.shape:
            return False
        wrong = ~np.isclose(got, want, rtol=1e-9, atol=1e-12)
    except (TypeError, ValueError):
        return False
    return bool(wrong.any() and (wins[wrong] >= 2).all())


def _wrong_shape(got: Any, input_shape: tuple, kernel: int, stride: int) -> bool:
    shape = np.shape(got) if isinstance(got, (np.ndarray, list)) else None
    return shape is not None and tuple(shape) != _pooled_shape(input_shape, kernel, stride)


LAST_MAXIMUM = ("where a window holds its maximum twice, yours goes to the LAST one; PyTorch "
                "keeps the FIRST in row-by-row order (a later value must be strictly larger to "
                "replace it — np.argmax does this)")
EVERY_MAXIMUM = ("where a window holds its maximum twice, yours sends the gradient to every "
                 "copy; only one entry was selected — the FIRST in row-by-row order gets it all")
SPLIT_MAXIMUM = ("where a window holds its maximum twice, yours shares the gradient among the "
                 "copies; only one entry was selected — the FIRST in row-by-row order gets it "
                 "all, the others nothing")
OVERWRITE = ("your gradient is wrong only at pixels that several overlapping windows send "
             "gradient to: there the gradients add up (+=, or np.add.at; note that "
             "`a[index] += g` with a repeated index adds only once)")
GRADCHECK = ("gradcheck disagrees with your backward: the finite differences of your own "
             "forward are not the gradient your backward returns")
RELU_AT_ZERO = ("your gradient passes the ReLU where z = 0 exactly: its derivative is 1 only "
                "where z > 0 ('where the output ≥ 0' is every pixel, since a ReLU's output is "
                "never negative)")


def _scaled(what: str, part: Optional[int] = None) -> list[Mistake]:
    """An average's output or gradient k·k or k times too large."""
    return [Mistake(lambda c: f"your {what} is k·k = {c.kernel ** 2} times the right one: an "
                              "average divides by the k·k pixels of its window", part=part,
                    gives=lambda c: np.asarray(c.expected if part is None else c.expected[part])
                    * c.kernel ** 2),
            Mistake(lambda c: f"your {what} is k = {c.kernel} times the right one: divide by "
                              "k·k, not k", part=part,
                    gives=lambda c: np.asarray(c.expected if part is None else c.expected[part])
                    * c.kernel)]


def _tied(part: Optional[int] = None) -> list[Mistake]:
    """The three wrong ways to route a tied window's gradient (07.2's answer, or 07.5's at
    ``part``)."""
    return [Mistake(LAST_MAXIMUM, part=part, gives=lambda c: _max_routing(
                c.x, c.g, c.kernel, c.stride, last=True)),
            Mistake(EVERY_MAXIMUM, part=part, gives=lambda c: _every_maximum_routing(
                c.x, c.g, c.kernel, c.stride)),
            Mistake(SPLIT_MAXIMUM, part=part, gives=lambda c: _split_routing(
                c.x, c.g, c.kernel, c.stride))]


def _window_positions(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """Each window's first maximum as (row, column) in x, and as the index within its window."""
    x = np.asarray(case.x, dtype=float)
    flat = np.asarray(case.expected[1])
    rows, columns = flat // x.shape[1], flat % x.shape[1]
    shape = flat.shape
    starts_r = (np.arange(shape[0]) * case.stride)[:, None]
    starts_c = (np.arange(shape[1]) * case.stride)[None, :]
    return (rows, columns), (rows - starts_r) * case.kernel + (columns - starts_c)


FORWARD_MISTAKES = [
    Mistake("your indices count within each window: an index is the position r·W + c in x "
            "itself, flattened row by row", part=1, gives=lambda c: _window_positions(c)[1]),
    Mistake("your indices count along the columns first (c·H + r): flatten x row by row, "
            "r·W + c", part=1, gives=lambda c: _window_positions(c)[0][1] * np.shape(c.x)[0]
            + _window_positions(c)[0][0]),
    Mistake("your values are the windows' means: max pooling keeps each window's largest "
            "entry", part=0, gives=lambda c: np.array([[np.mean(np.asarray(c.x)[rows, columns])
                                                        for _, _, rows, columns in row]
                                                       for row in _window_rows(c)])),
    Mistake(lambda c: f"the pooled output must have shape "
                      f"{_pooled_shape(c.x.shape, c.kernel, c.stride)}: a {c.kernel}×{c.kernel} "
                      f"window with stride {c.stride} fits (H − k) // s + 1 times down an input "
                      f"of height H (input shape {tuple(c.x.shape)}), and N, C stay as they are",
            when=lambda c: _wrong_shape(c.got[0], c.x.shape, c.kernel, c.stride)),
    Mistake(LAST_MAXIMUM, part=1, gives=lambda c: _max_indices(c.x, c.kernel, c.stride, True)),
]
def _spread(case: Case) -> np.ndarray:
    """07.2 with each window's gradient given to every pixel of the window."""
    grad = np.zeros(np.shape(case.x))
    g = np.asarray(case.g, dtype=float)
    for i, j, rows, columns in _windows(np.shape(case.x), case.kernel, case.stride):
        grad[rows, columns] += g[i, j]
    return grad


MAX_BACKWARD_MISTAKES = [
    *_tied(),
    Mistake("your gradient reaches every pixel of a window: only the window's maximum moved "
            "y, so only it gets the gradient", gives=_spread),
    Mistake(OVERWRITE, when=lambda c: _overwritten(c.got, c.expected,
                                                   _wins(c.x, c.kernel, c.stride))),
]
def _window_rows(case: Case) -> list[list[tuple]]:
    """The windows of 07.1's plane, row by row."""
    shape = np.shape(case.x)
    windows = list(_windows(shape, case.kernel, case.stride))
    columns = (shape[-1] - case.kernel) // case.stride + 1
    return [windows[i:i + columns] for i in range(0, len(windows), columns)]


def _avg_first_pixel(case: Case) -> np.ndarray:
    """07.3 with each window's share sent to its first pixel only."""
    grad = np.zeros(case.shape)
    g = np.asarray(case.g, dtype=float)
    for i, j, rows, columns in _windows(case.shape, case.kernel, case.stride):
        grad[rows.start, columns.start] += g[i, j] / case.kernel ** 2
    return grad


AVG_BACKWARD_MISTAKES = [
    *_scaled("gradient"),
    Mistake("your gradient goes to one pixel of each window: all k·k pixels of a window "
            "share its gradient equally", gives=_avg_first_pixel),
    Mistake(OVERWRITE, when=lambda c: _overwritten(
        c.got, c.expected, _window_count(c.shape, c.kernel, c.stride))),
    Mistake(lambda c: f"your windows start every k = {c.kernel} pixels: they start every "
                      f"stride = {c.stride} pixels, and overlap when the stride is smaller",
            gives=lambda c: _avg_windows_every(c, c.kernel) if c.stride != c.kernel else None),
]


def _avg_windows_every(case: Case, step: int) -> np.ndarray:
    """07.3's gradient with the windows placed every ``step`` pixels (what fits is kept)."""
    grad = np.zeros(case.shape)
    share = np.asarray(case.g, dtype=float) / case.kernel ** 2
    for i in range(share.shape[0]):
        for j in range(share.shape[1]):
            grad[i * step:i * step + case.kernel, j * step:j * step + case.kernel] += share[i, j]
    return grad
_GRADCHECK_FAILED = Mistake(GRADCHECK, when=lambda c: c.expected[2] is True
                            and c.got[2] is False)

# 07.5 and 07.6 answer (y, dL/dx, gradcheck); run_pool puts at 2 what a backward raised.
MAX_FUNCTION_MISTAKES = [
    backward_not_written(2, "y"),
    backward_raised(2, "dL/dx must come out with x's shape"),
    *_tied(part=1),
    Mistake(OVERWRITE, when=lambda c: _overwritten(c.got[1], c.expected[1],
                                                   _wins(c.x, c.kernel, c.stride))),
    _GRADCHECK_FAILED,
]
AVG_FUNCTION_MISTAKES = [
    backward_not_written(2, "y"),
    backward_raised(2, "dL/dx must come out with x's shape"),
    *_scaled("output", part=0),
    *_scaled("gradient", part=1),
    Mistake(OVERWRITE, when=lambda c: _overwritten(c.got[1], c.expected[1], np.broadcast_to(
        _window_count(c.x.shape, c.kernel, c.stride), c.x.shape))),
    _GRADCHECK_FAILED,
]


def _backward_like(says: str, **variant: Any) -> Mistake:
    """A mistake of 07.4's backward that shows in all three gradients: they are what
    :func:`_conv_pool` gives with ``variant``, and not all of them are right."""
    def shows(case: Case) -> bool:
        erratum = _conv_pool(case.x, case.weight, case.bias, case.g, **variant)
        got, expected = case.got, case.expected
        return all(near(mine, wrong) for mine, wrong in zip(got[1:], erratum[1:])) and not all(
            near(mine, right) for mine, right in zip(got[1:], expected[1:]))

    return Mistake(says, when=shows)


def _pooled_z(case: Case) -> np.ndarray:
    """07.4's y with the pooling taken over z, before the ReLU."""
    k = case.weight.shape[0]
    rows, columns = case.x.shape[0] - k + 1, case.x.shape[1] - k + 1
    z = case.bias + sum(case.weight[m, n] * case.x[m:m + rows, n:n + columns]
                        for m in range(k) for n in range(k))
    return np.array([[z[2 * i:2 * i + 2, 2 * j:2 * j + 2].max() for j in range(columns // 2)]
                     for i in range(rows // 2)])


CONV_POOL_MISTAKES = [
    _backward_like(RELU_AT_ZERO, relu="z >= 0"),
    _backward_like("your gradients skip the ReLU on the way back: the gradient passes it only "
                   "where z > 0, and stops where the ReLU cut z to 0", relu="none"),
    _backward_like("your gradient at z is multiplied by the ReLU's output: it is multiplied by "
                   "the ReLU's slope, which is 1 or 0", relu="times a"),
    _backward_like("your pooling sends each window's gradient to all four of its pixels: only "
                   "the window's maximum moved y, so only it gets the gradient", pool="all"),
    Mistake("your dL/dx takes the kernel turned around: the pixel x[i + m, j + n] met "
            "weight[m, n] in the forward, and its gradient comes back through that same weight",
            part=3, gives=lambda case: _conv_pool(case.x, case.weight, case.bias, case.g,
                                                  flip=True)[3]),
    Mistake("your dL/dbias is the mean of the gradient at z: the bias is added at every "
            "position of z, and each position adds its gradient", part=2,
            gives=lambda case: float(_conv_pool(case.x, case.weight, case.bias, case.g,
                                                mean_bias=True)[2])),
    Mistake("your dL/dbias sums dL/dy: the bias's gradient is summed at z, after the gradient "
            "has gone back through the pooling and the ReLU", part=2,
            gives=lambda case: float(np.sum(case.g))),
    Mistake("your y pools z, before the ReLU: the pooling takes its maxima from a = relu(z)",
            part=0, gives=_pooled_z),
]


def _explained(mistakes: list[Mistake], names: tuple[str, ...]) -> Comparator:
    """close() on the whole answer, followed by the first of ``mistakes`` the answer shows."""
    return comparator(mistakes, names=names, compare=_ARRAYS, first_only=True)


def _conv_pool(x: np.ndarray, weight: np.ndarray, bias: float, g: np.ndarray,
               relu: str = "z > 0", pool: str = "first", flip: bool = False,
               mean_bias: bool = False) -> tuple:
    """Exercise 07.4's gradients by rule (y is None), its convolution the library's numpy
    reference (:mod:`minigrad.kernels.im2col`), or as a mistake gives them: ``relu``
    "z >= 0" (the gradient passes where z = 0), "none" (the ReLU skipped), "times a" (δ times
    the ReLU's output); ``pool`` "all" (every pixel of a window gets its gradient); ``flip``
    (dL/dx through the kernel turned by 180°); ``mean_bias`` (dL/dbias = the mean of δ_z)."""
    plane, kernel, one = x[None, None], weight[None, None], ((1, 1), (0, 0))
    z = conv.conv2d_forward(plane, kernel, *one)[0, 0] + bias
    rows, columns = z.shape
    a = np.maximum(z, 0.0)
    pooled = a[:rows // 2 * 2, :columns // 2 * 2]
    delta_a = np.zeros_like(a)
    delta_a[:rows // 2 * 2, :columns // 2 * 2] = (
        np.kron(g, np.ones((2, 2))) if pool == "all" else _max_routing(pooled, g, 2, 2))
    delta_z = delta_a * {"z > 0": z > 0, "z >= 0": z >= 0, "none": 1.0, "times a": a}[relu]
    grad_z = delta_z[None, None]
    grad_weight = conv.conv2d_grad_weight(plane, grad_z, kernel.shape, *one)[0, 0]
    turned = np.ascontiguousarray(kernel[..., ::-1, ::-1]) if flip else kernel
    grad_x = conv.conv2d_grad_input(grad_z, turned, plane.shape, *one)[0, 0]
    return None, grad_weight, float(delta_z.mean() if mean_bias else delta_z.sum()), grad_x


# ---------------------------------------------------------------------------- cases
def _pool_case(rng: np.random.Generator, ties: bool, overlap: bool = False) -> tuple:
    kernel = int(rng.integers(2, 4))
    stride = int(rng.integers(1, kernel)) if overlap else kernel
    smallest = kernel + stride if overlap else kernel  # overlap: at least 2×2 windows
    height, width = (int(v) for v in rng.integers(smallest, 9, size=2))
    x = (rng.integers(-2, 3, size=(height, width)).astype(float) if ties
         else rng.normal(size=(height, width)))
    if overlap:  # a pixel that wins the four windows it lies in: gradients must add up
        x[stride, stride] = x.max() + 1.0
    rows, columns = (height - kernel) // stride + 1, (width - kernel) // stride + 1
    return (x, rng.normal(size=(rows, columns)), kernel, stride)


def _avg_case(rng: np.random.Generator, overlap: bool = False) -> tuple:
    x, grad_output, kernel, stride = _pool_case(rng, ties=False, overlap=overlap)
    return (grad_output, tuple(x.shape), kernel, stride)


def _batch_case(rng: np.random.Generator, overlap: bool, ties: bool = False,
                stride_above: bool = False) -> tuple:
    """(x, k, s, dL/dy) for 07.5 and 07.6: a batch (N, C, H, W), k 2–3, stride 1–3.
    ``overlap``: stride < k, and one pixel of every plane wins the windows around it;
    ``stride_above``: k = 2 and stride 3, some pixels lie in no window; ``ties``: small
    integers."""
    kernel = 2 if stride_above else int(rng.integers(2, 4))
    stride = (int(rng.integers(1, kernel)) if overlap else 3 if stride_above else kernel)
    smallest = kernel + stride
    batch, channels = (int(v) for v in rng.integers(1, 4, size=2))
    height, width = (int(v) for v in rng.integers(smallest, smallest + 5, size=2))
    shape = (batch, channels, height, width)
    x = (rng.integers(-2, 3, size=shape).astype(float) if ties else rng.normal(size=shape))
    if overlap:
        x[:, :, stride, stride] = x.max() + 1.0 + rng.random(size=(batch, channels))
    return (x, kernel, stride, rng.normal(size=_pooled_shape(shape, kernel, stride)))


def _conv_pool_case(rng: np.random.Generator) -> tuple:
    """A random plane whose gradient reaches the weights (redrawn while every routed z ≤ 0)."""
    while True:
        k = int(rng.integers(2, 4))
        height, width = (int(v) for v in rng.integers(k + 2, k + 7, size=2))
        x = rng.normal(size=(height, width))
        rows, columns = height - k + 1, width - k + 1
        case = (x, rng.normal(size=(k, k)), float(rng.normal() * 0.5),
                rng.normal(size=(rows // 2, columns // 2)))
        if np.abs(_conv_pool(*case)[1]).max() > 1e-3:
            return case


def _conv_pool_kink_case(rng: np.random.Generator) -> tuple:
    """Small integers (exact arithmetic) drawn until one pooling window holds no positive z
    and its first position has z exactly 0 — there the gradient stops at the ReLU, which
    [z ≥ 0] (the erratum) would let through — while another window does carry gradient."""
    while True:
        x = rng.integers(-2, 3, size=(6, 6)).astype(float)
        weight = rng.integers(-1, 3, size=(2, 2)).astype(float)
        bias = float(rng.integers(-2, 3))
        z = bias + sum(weight[m, n] * x[m:m + 5, n:n + 5] for m in range(2) for n in range(2))
        maxima = [z[2 * i:2 * i + 2, 2 * j:2 * j + 2] for i in range(2) for j in range(2)]
        if any(w.max() <= 0 and w[0, 0] == 0 for w in maxima) and any(w.max() > 0 for w in maxima):
            return x, weight, bias, rng.normal(size=(2, 2)) + 2.0


def _forward_case(rng: np.random.Generator, ties: bool, overlap: bool = False) -> tuple:
    x, _, kernel, stride = _pool_case(rng, ties, overlap)
    return (x, kernel, stride)


def _visible_batches() -> list[tuple]:
    """Visible cases of 07.5 and 07.6: one plane; two channels with ties; a batch of two
    with overlapping windows (stride 1) and a pixel that wins four windows. Only the tied case
    skips gradcheck (see run_pool)."""
    plane = np.array([[[[1.0, 2.0, 0.0, 1.25], [4.0, 3.0, 5.0, 2.25],
                        [0.5, 1.75, 2.5, 2.75], [6.0, 0.25, 1.5, 3.5]]]])
    tied = np.stack([np.array([[3.0, 3.0], [1.0, 3.0]]),
                     np.array([[0.0, 2.0], [2.0, 1.0]])])[None]
    overlapping = (np.arange(32) * 13 % 32).reshape(2, 1, 4, 4) / 32  # 32 distinct values
    overlapping[:, 0, 1, 2] = [2.0, 2.5]  # wins the four windows around it
    return [(plane, 2, 2, np.array([[[[10.0, 20.0], [30.0, 40.0]]]])),
            (tied, 2, 2, np.array([[[[1.0]], [[2.0]]]])),
            (overlapping, 2, 1, np.arange(1.0, 19.0).reshape(2, 1, 3, 3))]


EXERCISES = [
    Exercise(
        id="07.1", function="max_pool_forward", points=3,
        title="Max pooling forward, with the argmax indices",
        reading="1. Max pooling",
        idea="Visit the windows one by one; in each, find the largest value and where it sits "
             "— counted in the whole plane, not in the window.",
        hint="values[i, j] = max of window (i, j); indices[i, j] = (s·i + r)·W + "
             "(s·j + c) with (r, c) the first maximum of the window in row-by-row "
             "order.",
        visible=lambda: [(np.array([[1.0, 2.0, 0.0, 1.0], [4.0, 3.0, 5.0, 2.0]]), 2, 2),
                         (np.array([[3.0, 3.0], [1.0, 3.0]]), 2, 2),
                         (np.arange(9.0).reshape(3, 3), 2, 1)],
        hidden=lambda rng: [_forward_case(rng, ties=False), _forward_case(rng, ties=True),
                            _forward_case(rng, ties=True, overlap=True)],
        compare=_explained(FORWARD_MISTAKES, ("x", "kernel", "stride")),
        parts=("values", "indices"),
    ),
    Exercise(
        id="07.2", function="max_pool_backward", points=4,
        title="Max pooling backward: argmax routing",
        reading="1. Max pooling",
        idea="Only the winner of a window moved the window's output: its gradient goes there "
             "and nowhere else; a pixel that wins several windows collects from all of them.",
        hint="dL/dx[r, c] = Σ over the windows whose first maximum is at (r, c) of "
             "grad_output[i, j]; 0 elsewhere.",
        visible=lambda: [
            (np.array([[1.0, 2.0], [4.0, 3.0]]), np.array([[10.0]]), 2, 2),
            (np.array([[1.0, 5.0, 5.0, 0.0], [5.0, 2.0, 7.0, 7.0]]), np.array([[1.0, 2.0]]), 2, 2),
            (np.array([[0.0, 9.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
             np.array([[1.0, 2.0], [3.0, 4.0]]), 2, 1)],
        hidden=lambda rng: [_pool_case(rng, ties=False), _pool_case(rng, ties=True),
                            _pool_case(rng, ties=True, overlap=True)],
        compare=_explained(MAX_BACKWARD_MISTAKES, ("x", "g", "kernel", "stride")),
    ),
    Exercise(
        id="07.3", function="avg_pool_backward", points=3,
        title="Average pooling backward: grad / (k·k)",
        reading="2. Average pooling",
        idea="Every pixel of a window counts equally in its mean, so each gets the same share "
             "of the window's gradient; windows that overlap both pay into a pixel.",
        hint="Each pixel of window (i, j) gets grad_output[i, j] / (k·k); a pixel in "
             "several windows adds their shares.",
        visible=lambda: [(np.array([[4.0]]), (2, 2), 2, 2),
                         (np.array([[1.0, 2.0], [3.0, 4.0]]), (5, 5), 2, 2),
                         (np.array([[9.0, 9.0]]), (3, 4), 3, 1)],
        hidden=lambda rng: [_avg_case(rng), _avg_case(rng, overlap=True), _avg_case(rng)],
        compare=_explained(AVG_BACKWARD_MISTAKES, ("g", "shape", "kernel", "stride")),
    ),
    Exercise(
        id="07.4", function="conv_pool_step", points=5,
        title="One conv + ReLU + max-pool step, forward and backward",
        reading="3. A small CNN on digits",
        idea="Go backward one layer at a time from the top: the pooling picks where the "
             "gradient goes, the ReLU decides whether it passes, the convolution spreads it to "
             "the weights and the input (lesson 06).",
        hint="Backward from the top: the pool routes to the first maximum of each "
             "2×2 window of a; ReLU keeps it where z > 0 (not z ≥ 0); then dW = x "
             "correlated with δ_z, db = Σ δ_z, and dL/dx[i + m, j + n] += w[m, "
             "n]·δ_z[i, j].",
        visible=lambda: [
            # z = 0.25 everywhere: the pool's window is a tie, its first entry gets the gradient
            (np.arange(16.0).reshape(4, 4) / 4, np.array([[1.0, 0.0], [0.0, -1.0]]), 1.5,
             np.array([[1.0]])),
            (np.array([[1.0, -2.0, 3.0, 0.5, 2.0], [0.0, 1.0, -1.0, 2.0, 1.0],
                       [2.0, 0.5, 1.0, -3.0, 0.0], [1.0, 1.0, 0.0, 2.0, -1.0],
                       [0.5, -1.0, 2.0, 1.0, 3.0]]),
             np.array([[0.5, -1.0], [1.0, 0.25]]), -0.1, np.array([[1.0, -2.0], [0.5, 3.0]])),
            # z's top-left window is [[0, -1], [-4, -3]]: the pool routes to z = 0, where the
            # ReLU stops the gradient; the three other windows pass theirs
            (np.array([[1.0, -2.0, 2.0, 2.0, 2.0], [-1.0, -2.0, -1.0, 1.0, 2.0],
                       [2.0, -1.0, -2.0, 2.0, -2.0], [-1.0, -2.0, -2.0, -2.0, 2.0],
                       [0.0, 2.0, -1.0, 1.0, 0.0]]), np.array([[1.0, 0.0], [-1.0, 1.0]]),
             0.0, np.array([[2.0, 1.0], [-1.0, 0.5]]))],
        hidden=lambda rng: [_conv_pool_case(rng) for _ in range(3)] + [_conv_pool_kink_case(rng)],
        compare=_explained(CONV_POOL_MISTAKES, ("x", "weight", "bias", "g")),
        parts=("y", "dL/dweight", "dL/dbias", "dL/dx"),
    ),
    Exercise(
        id="07.5", function="max_pool2d_function", points=5,
        title="MaxPool2d as a Function, on a batch",
        reading="1. Max pooling",
        idea="Forward finds each window's winner and keeps where it is (ctx); backward needs "
             "only those positions: each output gradient goes back to its winner, and a pixel "
             "that wins several windows collects them all.",
        hint="forward: y[n, c, i, j] = max of window (i, j), and its position (s·i + "
             "r, s·j + c), the first maximum on a tie, remembered. backward: "
             "dL/dx[n, c, r, c′] = Σ of grad_output over the windows whose maximum "
             "is there; 0 elsewhere.",
        visible=_visible_batches,
        hidden=lambda rng: [_batch_case(rng, overlap=False), _batch_case(rng, overlap=True),
                            _batch_case(rng, overlap=False, stride_above=True),
                            _batch_case(rng, overlap=True, ties=True)],
        compare=_explained(MAX_FUNCTION_MISTAKES, ("x", "kernel", "stride", "g")),
        parts=("y", "dL/dx", "gradcheck"),
    ),
    Exercise(
        id="07.6", function="avg_pool2d_function", points=4,
        title="AvgPool2d as a Function, on a batch",
        reading="2. Average pooling",
        idea="Forward is a mean per window; backward shares each window's gradient equally "
             "among its pixels, and overlapping windows add.",
        hint="forward: y[n, c, i, j] = mean of window (i, j). backward: each pixel "
             "of window (i, j) gets grad_output[n, c, i, j] / (k·k); overlapping "
             "windows add.",
        visible=_visible_batches,
        hidden=lambda rng: [_batch_case(rng, overlap=False), _batch_case(rng, overlap=True),
                            _batch_case(rng, overlap=False, stride_above=True)],
        compare=_explained(AVG_FUNCTION_MISTAKES, ("x", "kernel", "stride", "g")),
        parts=("y", "dL/dx", "gradcheck"),
    ),
]
