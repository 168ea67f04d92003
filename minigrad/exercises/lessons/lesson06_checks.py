"""Checks for lesson 06's exercises: visible cases, fresh random hidden cases, comparators.

The comparators recognise the lesson's typical mistakes — a kernel not rotated by 180°, a
weight gradient correlated the wrong way round, the padding not cropped or cropped at the
wrong place, δ not dilated for a stride, dL/dw and dL/db not summed over the batch — and
say so in words. To recognise them they recompute the right gradients and the mistaken ones
here, by scattering (an independent method from the reference's full convolution).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from minigrad.exercises.spec import Exercise, close, exact

# The worked case of the lesson: 3×3 input, 2×2 kernel, 2×2 upstream gradient.
WORKED_X = np.arange(1.0, 10.0).reshape(3, 3)
WORKED_W = np.array([[1.0, 2.0], [3.0, 4.0]])
WORKED_DELTA = np.array([[1.0, 2.0], [-1.0, 1.0]])

# The stride-2 worked case of the reading (section 3): 5×5 input, 3×3 kernel, 2×2 δ.
STRIDED_W = np.arange(1.0, 10.0).reshape(3, 3)
STRIDED_DELTA = np.array([[1.0, 2.0], [3.0, 4.0]])

_CLOSE = close(rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------- gradients, by scatter
def padded_input_grad(delta: np.ndarray, weight: np.ndarray, padded_shape: tuple,
                      stride: int) -> np.ndarray:
    """dL/dx_p, shape (N, C, H + 2p, W + 2p): δ[n, o, i, j] · w[o, c] added onto the window
    at (s i, s j)."""
    k = weight.shape[-1]
    grad = np.zeros(padded_shape)
    for i in range(delta.shape[2]):
        for j in range(delta.shape[3]):
            grad[:, :, stride * i:stride * i + k, stride * j:stride * j + k] += np.einsum(
                "NO,OCHW->NCHW", delta[:, :, i, j], weight)
    return grad


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
    padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    k = weight.shape[-1]
    rows = (padded.shape[2] - k) // stride + 1
    columns = (padded.shape[3] - k) // stride + 1
    y = np.zeros((x.shape[0], weight.shape[0], rows, columns))
    for i in range(rows):
        for j in range(columns):
            window = padded[:, :, stride * i:stride * i + k, stride * j:stride * j + k]
            y[:, :, i, j] = np.einsum("NCHW,OCHW->NO", window, weight)
    return y


def weight_grad_per_example(x: np.ndarray, delta: np.ndarray, k: int, stride: int,
                            padding: int) -> np.ndarray:
    """Each example's own dL/dw, shape (N, O, C, k, k); dL/dw is their sum over N."""
    padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    rows, columns = delta.shape[2:]
    grad = np.zeros((x.shape[0], delta.shape[1], x.shape[1], k, k))
    for m in range(k):
        for n in range(k):
            window = padded[:, :, m:m + stride * rows:stride, n:n + stride * columns:stride]
            grad[:, :, :, m, n] = np.einsum("NOHW,NCHW->NOC", delta, window)
    return grad


def _matches(got: Any, wanted: np.ndarray) -> bool:
    try:
        got = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return got.shape == wanted.shape and np.allclose(got, wanted, rtol=1e-9, atol=1e-12)


def _shape(value: Any) -> Optional[tuple]:
    try:
        return np.asarray(value, dtype=np.float64).shape
    except (TypeError, ValueError):
        return None


def _with_notes(message: str, notes: list[str]) -> str:
    return "; ".join(notes) + f" ({message})" if notes else message


NOT_ROTATED = ("your dL/dx is what the kernel NOT rotated by 180° gives: rotate it "
               "(w[..., ::-1, ::-1]) before sliding it over the padded δ")


# ---------------------------------------------------------------------------- 06.1, 06.2, 06.4
def _compare_weight_grad(expected: np.ndarray, got: Any, args: tuple) -> Optional[str]:
    message = _CLOSE(expected, got)
    if message and _matches(got, expected[::-1, ::-1]) and not _matches(got, expected):
        return _with_notes(message, [
            "your dL/dw is the right one rotated by 180°: slide δ over x "
            "(dL/dw[m, n] pairs δ[i, j] with x[i + m, j + n]), not x over δ"])
    return message


def _plane_input_grad(weight: np.ndarray, delta: np.ndarray, stride: int, shape: tuple) -> np.ndarray:
    return padded_input_grad(delta[None, None], weight[None, None], (1, 1, *shape), stride)[0, 0]


def _compare_input_grad(expected: np.ndarray, got: Any, args: tuple) -> Optional[str]:
    message = _CLOSE(expected, got)
    if message is None:
        return None
    weight, delta = args
    notes = []
    if _matches(got, _plane_input_grad(weight[::-1, ::-1], delta, 1, expected.shape)):
        notes.append(NOT_ROTATED)
    elif _shape(got) == delta.shape:
        notes.append("dL/dx has the input's shape (R + k − 1, S + k − 1), not δ's: pad δ with "
                     "k − 1 zeros on every side before sliding the kernel")
    return _with_notes(message, notes)


def _undilated(weight: np.ndarray, delta: np.ndarray, shape: tuple) -> np.ndarray:
    """06.2's full convolution of δ as it is (not dilated), placed in an array of x's shape."""
    k, (rows, columns) = weight.shape[0], delta.shape
    full = _plane_input_grad(weight, delta, 1, (rows + k - 1, columns + k - 1))
    placed = np.zeros(shape)
    placed[:min(shape[0], full.shape[0]), :min(shape[1], full.shape[1])] = \
        full[:shape[0], :shape[1]]
    return placed


def _compare_strided(expected: np.ndarray, got: Any, args: tuple) -> Optional[str]:
    message = _CLOSE(expected, got)
    if message is None:
        return None
    weight, delta, stride, height, width = args
    k, (rows, columns) = weight.shape[0], delta.shape
    notes = []
    if _matches(got, _plane_input_grad(weight[::-1, ::-1], delta, stride, expected.shape)):
        notes.append(NOT_ROTATED)
    elif _shape(got) == (rows + k - 1, columns + k - 1) or _matches(
            got, _undilated(weight, delta, expected.shape)):
        notes.append(f"δ was not dilated: with stride {stride}, output i read the window at "
                     f"{stride}·i, so put {stride - 1} zero(s) between neighbouring entries of δ "
                     "before the full convolution")
    elif _shape(got) == (stride * (rows - 1) + k, stride * (columns - 1) + k):
        notes.append(f"dL/dx must have x's shape ({height}, {width}): the last rows or columns "
                     "no window read get gradient 0 — add them")
    return _with_notes(message, notes)


# ---------------------------------------------------------------------------- 06.5
def _conv_notes(got: tuple, args: tuple) -> list[str]:
    """What the wrong parts of a Conv2d answer show about the mistake."""
    x, weight, bias, delta, stride, padding = args
    batch, _, height, width = x.shape
    out_channels, _, k, _ = weight.shape
    notes = []
    y_shape = (batch, out_channels, *delta.shape[2:])
    if _shape(got[0]) is not None and _shape(got[0]) != y_shape:
        notes.append(f"y has shape {_shape(got[0])}, expected {y_shape}: along each axis "
                     f"⌊(H + 2p − k)/s⌋ + 1 outputs")
    elif _shape(got[0]) == y_shape:
        without_bias = forward_without_bias(x, weight, stride, padding)
        if _matches(got[0], without_bias):
            notes.append("y lacks the bias: add b[o] to every output of channel o")
        elif k > 1 and _matches(got[0], forward_without_bias(x, weight[:, :, ::-1, ::-1], stride,
                                                             padding) + bias[None, :, None, None]):
            notes.append("y flips the kernel (the mathematicians' convolution): deep-learning "
                         "libraries slide w as it is, y = Σ w[m, n]·x[s i + m, s j + n]")
        elif x.shape[1] > 1 and any(
                _matches(got[0], forward_without_bias(x[:, c:c + 1], weight[:, c:c + 1], stride,
                                                      padding) + bias[None, :, None, None])
                for c in range(x.shape[1])):
            notes.append(f"y uses one input channel only: output channel o reads all "
                         f"{x.shape[1]} input channels, each through its own kernel w[o, c], "
                         "and adds them up")

    padded_shape = (batch, x.shape[1], height + 2 * padding, width + 2 * padding)
    right_padded = padded_input_grad(delta, weight, padded_shape, stride)
    right_x = right_padded[:, :, padding:padding + height, padding:padding + width]
    if not _matches(got[1], right_x):
        unrotated = padded_input_grad(delta, weight[:, :, ::-1, ::-1], padded_shape, stride)
        dx_shape = _shape(got[1])
        undilated_rows = delta.shape[2] + k - 1 - 2 * padding
        if padding and dx_shape == padded_shape:
            notes.append(f"dL/dx still has the padding: crop {padding} row(s) and column(s) "
                         f"from each side, back to x's shape {x.shape}")
        elif _matches(got[1], unrotated[:, :, padding:padding + height, padding:padding + width]):
            notes.append(NOT_ROTATED)
        elif padding and any(_matches(got[1], right_padded[:, :, top:top + height, left:left + width])
                             for top in range(2 * padding + 1) for left in range(2 * padding + 1)):
            notes.append(f"dL/dx is cropped at the wrong place: the padding is {padding} on "
                         f"every side, so keep rows and columns {padding} … {padding} + H − 1")
        elif stride > 1 and (dx_shape is not None and len(dx_shape) == 4
                             and dx_shape[2] in (undilated_rows, undilated_rows + 2 * padding)
                             or _matches(got[1], _undilated_conv(delta, weight, padded_shape,
                                                                 padding, x.shape))):
            notes.append(f"δ was not dilated: with stride {stride} put {stride - 1} zero(s) "
                         "between neighbouring entries of δ before the full convolution")
        elif dx_shape is not None and dx_shape != x.shape:
            notes.append(f"dL/dx must have x's shape {x.shape}, got {dx_shape} (rows no window "
                         "read get gradient 0)")
        elif out_channels > 1 and any(
                _matches(got[1], padded_input_grad(delta[:, o:o + 1], weight[o:o + 1],
                                                   padded_shape, stride)[
                    :, :, padding:padding + height, padding:padding + width])
                for o in range(out_channels)):
            notes.append(f"dL/dx holds one output channel's share only: x[n, c] feeds all "
                         f"{out_channels} output channels, so its gradient adds up what comes "
                         "back from each of them")

    per_example_w = weight_grad_per_example(x, delta, k, stride, padding)
    per_example_b = delta.sum(axis=(2, 3))
    for name, got_value, per_example, right_shape in (
            ("dL/dw", got[2], per_example_w, weight.shape),
            ("dL/db", got[3], per_example_b, (out_channels,))):
        if _matches(got_value, per_example.sum(axis=0)):
            continue
        if _shape(got_value) == per_example.shape or (
                batch > 1 and any(_matches(got_value, one) for one in per_example)):
            notes.append(f"{name} is not summed over the batch: the parameters are shared by "
                         f"all {batch} examples, so add up their gradients; {name} has shape "
                         f"{right_shape}")
        elif name == "dL/dw" and _matches(got_value, per_example.sum(axis=0)[:, :, ::-1, ::-1]):
            notes.append("dL/dw is rotated by 180°: slide δ over x, not x over δ")
        elif name == "dL/db":
            shape = _shape(got_value)
            wrong_shape = f"has shape {shape}, expected {right_shape}" if shape != right_shape \
                else "sums the wrong entries of δ"
            notes.append(f"dL/db {wrong_shape}: b[o] was added to every output of channel o, "
                         "in every image, and nowhere else")
    if got[4] is False and not notes:  # otherwise the notes above say why
        notes.append("gradcheck failed: your backward does not agree with finite differences "
                     "of your forward")
    return notes


def _compare_conv2d(expected: tuple, got: Any, args: tuple) -> Optional[str]:
    message = _CLOSE(expected, got)
    if message is None or not isinstance(got, (list, tuple)):
        return message
    if len(got) != 5:
        return _with_notes(message, [
            f"backward returned {len(got) - 2} gradient(s): it must return three, dL/dx, dL/dw "
            "and dL/db, one per input of forward"])
    missing = [name for name, value in zip(("dL/dx", "dL/dw", "dL/db"), got[1:4]) if value is None]
    if missing:
        return _with_notes(message, [f"backward returned None for {', '.join(missing)}: every "
                                     "input of forward needs its gradient"])
    return _with_notes(message, _conv_notes(got, args))


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
        compare=_compare_weight_grad,
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
        compare=_compare_input_grad,
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
        compare=exact(),
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
        compare=_compare_strided,
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
        compare=_compare_conv2d,
        parts=("y", "dL/dx", "dL/dw", "dL/db", "gradcheck"),
        # A student's first Conv2d is seven nested Python loops, and run_conv2d gradchecks it
        # (two forwards per input entry). Such a Conv2d took 2.6-12 s for all 8 cases on most
        # seeds and 21 s on the costliest of 2000 (3 × 3 channels, a 7 × 7 plane) on a
        # 2-core machine at load 12: the run's 10 s would fail a right answer for being slow.
        timeout=40.0,
    ),
]
