"""Checks for lesson 03's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Optional

import numpy as np

from minigrad.exercises.function_mistakes import (GRADCHECK_SAYS, compare_function,
                                                  function_mistakes, gradients, raised_saying)
from minigrad.exercises.lessons.lesson02_checks import WORKED_PROGRAM, _random_program
from minigrad.exercises.mistakes import Case, Mistake, Raised, comparator, near
from minigrad.exercises.spec import Exercise, close

def _arange(*shape: int) -> np.ndarray:
    return np.arange(float(np.prod(shape))).reshape(shape)


# ---------------------------------------------------------------------------- 03.1 cases
def _broadcast_case(rng: np.random.Generator) -> tuple:
    """A target shape with some length-1 axes, and a gradient shape it broadcasts to."""
    shape = tuple(int(rng.choice([1, int(rng.integers(2, 5))])) for _ in range(rng.integers(0, 4)))
    stretched = tuple(int(rng.integers(2, 5)) if size == 1 and rng.random() < 0.7 else size
                      for size in shape)
    leading = tuple(int(n) for n in rng.integers(2, 5, size=int(rng.integers(0, 3))))
    grad = rng.normal(size=leading + stretched)
    return (np.asarray(grad, dtype=np.float64), shape)


def _sum_to_shape_hidden(rng: np.random.Generator) -> list[tuple]:
    cases = [_broadcast_case(rng) for _ in range(5)]
    # Always one case that stretches a middle axis and adds a leading one.
    n, m = (int(v) for v in rng.integers(2, 5, size=2))
    cases.append((rng.normal(size=(3, n, 4, m)), (n, 1, m)))
    return cases


def _leading(grad: np.ndarray, shape: tuple) -> tuple[int, ...]:
    return tuple(range(np.ndim(grad) - len(shape)))


def _stretched(grad: np.ndarray, shape: tuple) -> tuple[int, ...]:
    extra = np.ndim(grad) - len(shape)
    return tuple(extra + axis for axis, size in enumerate(shape)
                 if size == 1 and np.shape(grad)[extra + axis] != 1)


SUM_TO_MISTAKES = [
    Mistake("you summed the extra leading axes only: an axis where the target has length 1 was "
            "stretched by broadcasting too, and its copies add up as well",
            gives=lambda c: np.sum(c.grad, axis=_leading(c.grad, c.shape))),
    Mistake("the target keeps its axes of length 1: sum the stretched ones with keepdims, so "
            "that they stay, with length 1",
            gives=lambda c: np.sum(c.grad, axis=_leading(c.grad, c.shape)
                                   + _stretched(c.grad, c.shape))),
    Mistake("you averaged the copies: each copy's gradient adds to its original's, so sum "
            "them", when=lambda c: np.size(c.grad) > int(np.prod(c.shape)) and near(
                c.got, c.expected * np.prod(c.shape) / np.size(c.grad))),
    Mistake("you kept one copy of each entry: every copy's gradient comes home, so add them "
            "all up", gives=lambda c: np.asarray(c.grad)[
                (0,) * len(_leading(c.grad, c.shape)) + tuple(
                    slice(0, 1) if size == 1 else slice(None) for size in c.shape)
            ].reshape(c.shape)),
    Mistake("you summed every axis: the target's axes of full length were not broadcast, so "
            "they stay", gives=lambda c: np.sum(c.grad) if len(c.shape) else None),
]


# ---------------------------------------------------------------------------- 03.2 cases
def _matmul_case(rng: np.random.Generator, square: bool) -> tuple:
    n, k, m = (int(v) for v in rng.integers(2, 6, size=3))
    if square:
        n = k = m
    return (rng.normal(size=(n, k)), rng.normal(size=(k, m)), rng.normal(size=(n, m)))


# 03.2's answer: (dL/dA, dL/dB), each scored on its own.
MATMUL_MISTAKES = [
    Mistake("your dL/dA and dL/dB are swapped: dL/dA comes first, with A's shape",
            when=lambda case: near(case.got[0], case.expected[1])
            and near(case.got[1], case.expected[0])),
    Mistake("your dL/dA is the right one transposed: it must have A's shape, and the shapes "
            "fix the order of the factors", part=0, gives=lambda case: case.expected[0].T),
    Mistake("your dL/dB is the right one transposed: it must have B's shape, and the shapes "
            "fix the order of the factors", part=1, gives=lambda case: case.expected[1].T),
    Mistake("your dL/dA multiplies by B as it is: B must be transposed", part=0,
            gives=lambda case: case.grad_output @ case.b),
    Mistake("your dL/dB multiplies by A as it is: A must be transposed", part=1,
            gives=lambda case: case.a @ case.grad_output),
    Mistake("your dL/dB is divided by n: a matrix product sums over the rows of A, it does "
            "not average them", part=1, gives=lambda case: case.expected[1] / len(case.a)),
    Mistake("your dL/dA is divided by m: a matrix product sums, it does not average", part=0,
            gives=lambda case: case.expected[0] / case.b.shape[1]),
]


# ---------------------------------------------------------------------------- 03.5–03.7 mistakes
# Their answer comes from the given run_function: (y, [dL/dx, ...], gradcheck's verdict). The
# rows every Function shares (float32, a sign, a None, what gradcheck says) are in
# function_mistakes; an error forward or backward raises reaches the rows with raises=True.
def _cube_gradient(gradient: Callable[[np.ndarray, np.ndarray], np.ndarray]
                   ) -> Callable[[Case], Any]:
    """03.5's gradients, [dL/dx], with dL/dx = ``gradient(x, grad_output)``."""
    def answer(case: Case) -> Any:
        x, g = np.asarray(case.x, dtype=float), np.asarray(case.grad_output, dtype=float)
        return [gradient(x, g)]
    return answer


def _cube_output(value: Callable[[np.ndarray], np.ndarray]) -> Callable[[Case], Any]:
    return lambda case: value(np.asarray(case.x, dtype=float))


def _invalid_gradient(case: Case) -> Optional[tuple[int, list[int], list[int]]]:
    """(input number, shape given, shape wanted) of the engine's "returned an invalid
    gradient" error, or None."""
    found = re.search(r"invalid gradient at index (\d+) - got \[([\d, ]*)\] but expected shape "
                      r"compatible with \[([\d, ]*)\]", str(case.got)) \
        if isinstance(case.got, Raised) else None
    if found is None:
        return None
    index, given, wanted = found.groups()
    return int(index), [int(n) for n in given.split(",") if n.strip()], \
        [int(n) for n in wanted.split(",") if n.strip()]


# 03.5's answer: (y, [dL/dx], verdict).
CUBE_MISTAKES = [
    Mistake("your forward squares x: the op is the cube, x times itself three times",
            part=0, gives=_cube_output(lambda x: x ** 2), group="forward"),
    Mistake("your forward multiplies x by 3: the op is the cube, x times itself three times",
            part=0, gives=_cube_output(lambda x: 3 * x), group="forward"),
    Mistake("your forward returns the cube's derivative: forward computes the op itself, and "
            "backward its derivative", part=0, gives=_cube_output(lambda x: 3 * x ** 2),
            group="forward"),
    Mistake("your backward gives the local derivative alone: multiply it by grad_output, the "
            "gradient arriving from above", part=1,
            gives=_cube_gradient(lambda x, g: 3 * x ** 2)),
    Mistake("your backward lacks the factor 3 of the cube's derivative", part=1,
            gives=_cube_gradient(lambda x, g: g * x ** 2)),
    Mistake("your backward has one factor x too few: the cube's derivative grows like x²",
            part=1, gives=_cube_gradient(lambda x, g: 3 * g * x)),
    Mistake("your backward uses the output y = x³ where the saved input x belongs", part=1,
            gives=_cube_gradient(lambda x, g: 3 * g * x ** 6)),
    Mistake("your backward uses the derivative of the square: the op is the cube", part=1,
            gives=_cube_gradient(lambda x, g: 2 * g * x)),
    Mistake("your backward adds grad_output to the local derivative: the chain rule "
            "multiplies them", part=1, gives=_cube_gradient(lambda x, g: g + 3 * x ** 2)),
    Mistake("your backward reads a saved tensor that forward did not save: forward keeps x "
            "for backward with ctx.save_for_backward", raises=True,
            when=lambda case: raised_saying("not enough values to unpack (expected 1, "
                                            "got 0)")(case)),
    Mistake("ctx.saved_tensors is a tuple of the saved tensors, even of one: unpack it to get "
            "x itself", raises=True,
            when=lambda case: raised_saying("unsupported operand", "'tuple'")(case)),
    Mistake("backward returns one gradient per input of forward, and forward has one, x: "
            "return that gradient alone", raises=True,
            when=lambda case: raised_saying("incorrect number of gradients (expected 1")(case)),
    Mistake(lambda case: f"your gradient has shape {tuple(_invalid_gradient(case)[1])}, and x "
                         f"has shape {tuple(_invalid_gradient(case)[2])}: a gradient has its "
                         "input's shape, one entry per entry of x, nothing summed",
            raises=True, when=lambda case: _invalid_gradient(case) is not None),
    *function_mistakes(("dL/dx",)),
]


def _summed_to(gradient: np.ndarray, shape: tuple) -> np.ndarray:
    """``gradient`` summed down to ``shape`` (03.1's rule)."""
    extra = gradient.ndim - len(shape)
    gradient = gradient.sum(axis=tuple(range(extra)))
    stretched = tuple(axis for axis, size in enumerate(shape) if size == 1
                      and gradient.shape[axis] != 1)
    return gradient.sum(axis=stretched, keepdims=True).reshape(shape)


def _mul_with(first: Callable[[Case], np.ndarray], second: Callable[[Case], np.ndarray],
              average: bool = False) -> Callable[[Case], Any]:
    """03.6's gradients, [dL/da, dL/db], from the two products before the sum-to (with
    ``average``, the copies averaged instead of summed)."""
    def answer(case: Case) -> Any:
        a, b = np.asarray(case.a, dtype=float), np.asarray(case.b, dtype=float)
        full = np.broadcast_shapes(a.shape, b.shape)
        grads = []
        for product, shape in ((first(case), a.shape), (second(case), b.shape)):
            grad = _summed_to(np.broadcast_to(product, full), shape)
            grads.append(grad * np.prod(shape) / np.prod(full) if average else grad)
        return grads
    return answer


def _grad_b(case: Case) -> np.ndarray:
    return np.asarray(case.grad_output) * case.b


def _grad_a(case: Case) -> np.ndarray:
    return np.asarray(case.grad_output) * case.a


def _one_gradient(case: Case, index: int, product: Callable[[Case], np.ndarray]) -> bool:
    """The student's gradient number ``index`` (0: dL/da, 1: dL/db) is ``product`` summed
    down to its input's shape, and wrong."""
    got = gradients(case)
    if len(got) <= index:
        return False
    shape = np.shape((case.a, case.b)[index])
    wrong = _summed_to(np.broadcast_to(product(case), np.broadcast_shapes(
        np.shape(case.a), np.shape(case.b))), shape)
    return not near(got[index], case.expected[1][index]) and near(got[index], wrong)


def _other_factors_shape(case: Case) -> bool:
    """A gradient refused because it has the other factor's shape (which is not the
    product's: a gradient not summed down has that one)."""
    found = _invalid_gradient(case)
    if found is None or found[0] not in (0, 1):
        return False
    own, other = (np.shape(case.a), np.shape(case.b))[::1 if found[0] == 0 else -1]
    return tuple(found[1]) == other != own and other != np.broadcast_shapes(own, other)


def _reshaped(case: Case) -> Optional[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """(size, shape, the product's shape) of numpy's "cannot reshape array of size N into
    shape S", the error of a sum-to whose sum left the wrong axes; None for another error."""
    found = re.search(r"cannot reshape array of size (\d+) into shape \(([\d, ]*)\)",
                      str(case.got)) if isinstance(case.got, Raised) else None
    if found is None:
        return None
    shape = tuple(int(n) for n in found.group(2).split(",") if n.strip())
    return int(found.group(1)), shape, np.broadcast_shapes(np.shape(case.a), np.shape(case.b))


def _summed_leading_only(case: Case) -> bool:
    found = _reshaped(case)
    return found is not None and found[0] == int(np.prod(found[2][len(found[2])
                                                                 - len(found[1]):]))


def _summed_stretched_only(case: Case) -> bool:
    found = _reshaped(case)
    return found is not None and found[0] == int(
        np.prod(found[2][:len(found[2]) - len(found[1])]) * np.prod(found[1]))


def _summed_everything(case: Case) -> bool:
    found = _reshaped(case)
    return found is not None and found[0] == 1 and int(np.prod(found[1])) > 1


def _dropped_ones(case: Case) -> bool:
    """A gradient summed without keepdims: its shape is its input's without the 1s."""
    found = _invalid_gradient(case)
    return found is not None and found[1] == [n for n in found[2] if n != 1] \
        and found[1] != found[2]


# 03.6's answer: (out, [dL/da, dL/db], verdict).
MUL_MISTAKES = [
    Mistake("your forward adds the two factors: this op multiplies them, entry by entry",
            part=0, gives=lambda case: np.asarray(case.a, dtype=float) + case.b,
            group="forward"),
    Mistake("your sum-to drops the axes of length 1: keep them (keepdims), so that each "
            "gradient has exactly its input's shape", raises=True, when=_dropped_ones,
            group="shape"),
    Mistake("your gradient for one factor has the other factor's shape: the two are swapped, "
            "in what forward saves or in the order backward returns them (forward's order)",
            raises=True, when=_other_factors_shape, group="shape"),
    Mistake("a gradient must have its own input's shape: sum each product down over the axes "
            "broadcasting added or stretched, as in 03.1", raises=True,
            when=raised_saying("returned an invalid gradient"), group="shape"),
    Mistake("each factor's gradient carries the OTHER factor: yours are swapped",
            part=1, gives=_mul_with(_grad_a, _grad_b), group="other factor"),
    Mistake("your dL/da carries a itself: each factor's gradient carries the OTHER factor",
            group="other factor", when=lambda case: _one_gradient(case, 0, _grad_a)),
    Mistake("your dL/db carries b itself: each factor's gradient carries the OTHER factor",
            group="other factor", when=lambda case: _one_gradient(case, 1, _grad_b)),
    Mistake("your gradients leave out grad_output, the gradient arriving from above",
            part=1, gives=_mul_with(lambda c: np.asarray(c.b, dtype=float) + 0 * c.a,
                                    lambda c: np.asarray(c.a, dtype=float) + 0 * c.b)),
    Mistake("you averaged the copies: each copy's gradient adds to its original's, so sum "
            "them", part=1, gives=_mul_with(_grad_b, _grad_a, average=True)),
    Mistake("your sum-to sums the leading axes only: an axis of length 1 that broadcasting "
            "stretched must be summed too, keeping its length 1", raises=True,
            when=_summed_leading_only),
    Mistake("your sum-to sums the stretched axes only: the leading axes that broadcasting "
            "added must be summed away too", raises=True, when=_summed_stretched_only),
    Mistake("you summed every axis: the target's axes of full length were not broadcast, so "
            "they stay", raises=True, when=_summed_everything),
    Mistake("your backward reads more saved tensors than forward saved: forward keeps both "
            "factors for backward with ctx.save_for_backward", raises=True,
            when=raised_saying("not enough values to unpack (expected 2")),
    Mistake("your forward multiplies in place (a *= b): a has not the product's shape, and "
            "backward needs it as it was; compute a new array", raises=True,
            when=raised_saying("non-broadcastable output operand")),
    *function_mistakes(("dL/da", "dL/db")),
]


def _sum_axes(case: Case) -> tuple[int, ...]:
    x = np.asarray(case.x)
    return tuple(sorted(axis % x.ndim for axis in ((case.dim,) if isinstance(case.dim, int)
                                                   else case.dim)))


def _sum_gradient(case: Case, expand: bool = True, divide: bool = False,
                  upstream: bool = True) -> Any:
    """03.7's gradients, [dL/dx], right or mistaken: not expanded, divided by N, or without
    grad_output."""
    x = np.asarray(case.x, dtype=float)
    dims = _sum_axes(case)
    grad = np.asarray(case.grad_output, dtype=float)
    if not upstream:
        grad = np.ones_like(grad)
    if expand and not case.keepdim:
        grad = np.expand_dims(grad, dims)
    if divide:
        grad = grad / np.prod([x.shape[axis] for axis in dims])
    return [np.broadcast_to(grad, x.shape).copy()]


def _gradient_of_the_sum_shape(case: Case) -> bool:
    """The engine refused a gradient that has y's shape, with or without its summed axes
    (never broadcast)."""
    found = _invalid_gradient(case)
    return found is not None and found[1] != found[2] and any(
        tuple(found[1]) == np.shape(np.sum(case.x, axis=_sum_axes(case), keepdims=keep))
        for keep in (False, True))


# 03.7's answer: (y, [dL/dx], verdict).
SUM_MISTAKES = [
    Mistake("your forward ignores keepdim: with keepdim=True the summed axes stay, with "
            "length 1; without it they are gone", part=0, group="forward",
            gives=lambda case: np.sum(case.x, axis=_sum_axes(case),
                                      keepdims=not case.keepdim)),
    Mistake("your forward sums over every axis: only the axes of dim are summed", part=0,
            group="forward", gives=lambda case: np.sum(case.x, keepdims=case.keepdim)
            if len(_sum_axes(case)) < np.ndim(case.x) else None),
    Mistake("your forward averages: this op sums", part=0, group="forward",
            gives=lambda case: np.mean(case.x, axis=_sum_axes(case), keepdims=case.keepdim)),
    Mistake("numpy wants several axes as a tuple, not a list: tuple(dim)", raises=True,
            when=raised_saying("'list' object cannot be interpreted as an integer")),
    Mistake("backward returns one gradient per tensor given to forward, here x alone: dim and "
            "keepdim are settings, given by keyword, and get none", raises=True,
            when=raised_saying("incorrect number of gradients")),
    Mistake("your gradient has the shape of the sum, not of x: every entry of x gets its "
            "sum's gradient, so broadcast it to x's shape", raises=True,
            when=_gradient_of_the_sum_shape),
    Mistake("without keepdim the summed axes are gone from the gradient: give them back with "
            "length 1 first, then broadcast to x's shape", raises=True,
            when=raised_saying("broadcast")),
    Mistake("with keepdim the summed axes are still in the gradient, with length 1: give "
            "them back only when keepdim is False", raises=True,
            when=lambda case: case.keepdim and raised_saying("more dimensions than allowed")(
                case)),
    Mistake("your gradient was broadcast along the wrong axes: without keepdim, first give "
            "the summed axes back with length 1, then broadcast", part=1,
            gives=lambda case: None if case.keepdim else _sum_gradient(case, expand=False)),
    Mistake("your gradient is divided by the number of entries summed: a sum passes its "
            "gradient on unchanged (that was the mean)", part=1,
            gives=lambda case: _sum_gradient(case, divide=True)),
    Mistake("your gradient leaves out grad_output, the gradient arriving from above", part=1,
            gives=lambda case: _sum_gradient(case, upstream=False)),
    *function_mistakes(("dL/dx",)),
]


# ---------------------------------------------------------------------------- 03.3 cases
def _mean_case(rng: np.random.Generator, shape: tuple[int, ...], dim, keepdim: bool) -> tuple:
    """(dL/dy, input shape, dim, keepdim) with dL/dy shaped like x.mean(dim, keepdim)."""
    reduced = {axis % len(shape) for axis in ((dim,) if isinstance(dim, int) else dim)}
    if keepdim:
        output_shape = tuple(1 if axis in reduced else size for axis, size in enumerate(shape))
    else:
        output_shape = tuple(size for axis, size in enumerate(shape) if axis not in reduced)
    return (rng.normal(size=output_shape), shape, dim, keepdim)


def _mean_hidden(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for _ in range(4):
        ndim = int(rng.integers(1, 5))
        shape = tuple(int(n) for n in rng.integers(2, 5, size=ndim))
        count = int(rng.integers(1, ndim + 1))
        axes = sorted(int(a) for a in rng.choice(ndim, size=count, replace=False))
        axes = [a - ndim if rng.random() < 0.3 else a for a in axes]  # some negative
        dim = axes[0] if count == 1 and rng.random() < 0.5 else tuple(axes)
        cases.append(_mean_case(rng, shape, dim, bool(rng.random() < 0.5)))
    # A square matrix averaged over its last axis: broadcasting without expand_dims
    # silently puts the gradient along the wrong axis.
    n = int(rng.integers(2, 5))
    cases.append(_mean_case(rng, (n, n), 1, False))
    cases.append(_mean_case(rng, (2, n, n), -1, False))
    return cases


def _reduced(case: Case) -> tuple[int, ...]:
    shape, dim = case.shape, case.dim
    return tuple(sorted(axis % len(shape) for axis in ((dim,) if isinstance(dim, int) else dim)))


def _mean_gradient(case: Case, count: float, expand: bool = True) -> np.ndarray:
    grad = np.asarray(case.grad_output, dtype=float)
    if expand and not case.keepdim:
        grad = np.expand_dims(grad, _reduced(case))
    return np.broadcast_to(grad / count, case.shape).copy()


def _averaged(case: Case) -> int:
    return int(np.prod([case.shape[axis] for axis in _reduced(case)]))


MEAN_MISTAKES = [
    Mistake(lambda c: f"your gradient is not divided by N = {_averaged(c)}, the number of "
                      "entries each mean averages", gives=lambda c: _mean_gradient(c, 1.0)),
    Mistake("you divided by the size of the whole input: N counts only the entries that went "
            "into one mean (the averaged axes)",
            gives=lambda c: _mean_gradient(c, float(np.prod(c.shape)))
            if np.prod(c.shape) != _averaged(c) else None),
    Mistake("your gradient was broadcast along the wrong axes: without keepdim, first give "
            "the averaged axes back with length 1, then broadcast",
            gives=lambda c: _mean_gradient(c, _averaged(c), expand=False)
            if not c.keepdim else None),
    Mistake(lambda c: f"your gradient is multiplied by N = {_averaged(c)}: each entry moves its "
                      "mean by 1/N of its own change, so the gradient is divided by N",
            gives=lambda c: _mean_gradient(c, 1.0 / _averaged(c)) if _averaged(c) > 1 else None),
    Mistake("you divided by the number of means, not by N, the number of entries that go into "
            "one mean (the averaged axes)",
            gives=lambda c: _mean_gradient(c, float(np.prod(c.shape)) / _averaged(c))
            if float(np.prod(c.shape)) / _averaged(c) not in (1.0, float(_averaged(c)))
            else None),
    Mistake("your gradient has the shape of the mean, not of the input: every entry of the "
            "input gets its share, so broadcast it to the input's shape",
            when=lambda c: np.shape(c.got) != tuple(c.shape)
            and np.size(c.got) == np.size(c.grad_output)),
]


def _softmax_of(x: np.ndarray) -> np.ndarray:
    shifted = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def _column_softmax_vjp(x: np.ndarray, v: np.ndarray) -> np.ndarray:
    """03.4's VJP with s normalised along the first axis (the sum of s·v still per row)."""
    shifted = np.exp(np.asarray(x, float) - np.max(x, axis=-1, keepdims=True))
    s = shifted / shifted.sum(axis=0, keepdims=True)
    return s * (v - np.sum(s * v, axis=-1, keepdims=True))


SOFTMAX_MISTAKES = [
    Mistake("your VJP keeps only the diagonal of the Jacobian: softmax's outputs share one "
            "normaliser, so every input moves every output of its row",
            gives=lambda c: _softmax_of(c.x) * c.v),
    Mistake("your Σ s·v runs over the whole batch: each row is its own softmax, so sum over "
            "the last axis only",
            gives=lambda c: _softmax_of(c.x) * (c.v - np.sum(_softmax_of(c.x) * c.v))
            if np.ndim(c.x) > 1 else None),
    Mistake("your VJP lacks the factor s in front", gives=lambda c: c.v - np.sum(
        _softmax_of(c.x) * c.v, axis=-1, keepdims=True)),
    Mistake("your VJP has the wrong sign: v minus the weighted mean of v, not the other way "
            "round", gives=lambda c: -_softmax_of(c.x) * (c.v - np.sum(
                _softmax_of(c.x) * c.v, axis=-1, keepdims=True))),
    Mistake("your softmax normalises down the columns: each row is its own softmax, so its "
            "exponentials are summed along the last axis",
            gives=lambda c: _column_softmax_vjp(c.x, c.v) if np.ndim(c.x) > 1 else None),
    Mistake("your softmax overflows for large inputs (inf or nan): subtract each row's "
            "maximum before the exponential; softmax does not change",
            when=lambda c: not np.all(np.isfinite(np.asarray(c.got, dtype=float)))),
]


# ---------------------------------------------------------------------------- 03.4 cases
def _softmax_hidden(rng: np.random.Generator) -> list[tuple]:
    n = int(rng.integers(3, 7))
    batch = int(rng.integers(2, 5))
    large = rng.normal(size=(batch, n)) * 50 + 800  # exp(800) overflows: subtract the max
    return [(rng.normal(size=n), rng.normal(size=n)),
            (rng.normal(size=(batch, n)), rng.normal(size=(batch, n))),
            (rng.normal(size=(batch, n)) * 3, rng.normal(size=(batch, n))),
            (large, rng.normal(size=(batch, n)))]


# ---------------------------------------------------------------------------- 03.5–03.7 cases
def _cube_hidden(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for ndim in (1, 2, 3):
        shape = tuple(int(n) for n in rng.integers(1, 4, size=ndim))
        cases.append((rng.normal(size=shape) * 1.5, rng.normal(size=shape)))
    return cases


def _broadcast_pair(rng: np.random.Generator) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes that broadcast together, each with some added or stretched axes."""
    full = tuple(int(n) for n in rng.integers(2, 5, size=int(rng.integers(1, 4))))
    shapes = []
    for _ in range(2):
        drop = int(rng.integers(0, len(full)))  # leading axes this input lacks
        shape = tuple(1 if rng.random() < 0.4 else size for size in full[drop:])
        shapes.append(shape)
    return shapes[0], shapes[1]


def _broadcast_mul_hidden(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for _ in range(4):
        shape_a, shape_b = _broadcast_pair(rng)
        out_shape = np.broadcast_shapes(shape_a, shape_b)
        cases.append((rng.normal(size=shape_a), rng.normal(size=shape_b),
                      rng.normal(size=out_shape)))
    n, m = (int(v) for v in rng.integers(2, 5, size=2))
    cases.append((rng.normal(size=(n, 1)), rng.normal(size=(1, m)), rng.normal(size=(n, m))))
    return cases


def _sum_case(rng: np.random.Generator, shape: tuple[int, ...], dim, keepdim: bool) -> tuple:
    x = rng.normal(size=shape)
    output_shape = np.sum(x, axis=(dim if isinstance(dim, int) else tuple(dim)),
                          keepdims=keepdim).shape
    return (x, dim, keepdim, rng.normal(size=output_shape))


def _sum_hidden(rng: np.random.Generator) -> list[tuple]:
    cases = []
    for _ in range(4):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(n) for n in rng.integers(2, 5, size=ndim))
        count = int(rng.integers(1, ndim + 1))
        axes = sorted(int(a) for a in rng.choice(ndim, size=count, replace=False))
        axes = [a - ndim if rng.random() < 0.3 else a for a in axes]
        dim = axes[0] if count == 1 and rng.random() < 0.5 else axes
        cases.append(_sum_case(rng, shape, dim, bool(rng.random() < 0.5)))
    n = int(rng.integers(2, 5))
    cases.append(_sum_case(rng, (n, n), 1, False))  # a middle axis put back on the wrong side
    cases.append(_sum_case(rng, (2, n, 3), [0, -1], True))  # keepdim, always once
    return cases


# ---------------------------------------------------------------------------- 03.8 mistakes
def _tangent_rules(**changed: Callable[..., float]) -> dict[str, Callable[..., float]]:
    """Forward mode's tangent rules, ``(a, da, b, db, out) -> tangent`` per op, with some
    changed to a mistaken rule."""
    rules: dict[str, Callable[..., float]] = {
        "absent": lambda: 0.0,
        "+": lambda a, da, b, db, out: da + db,
        "*": lambda a, da, b, db, out: da * b + a * db,
        "**": lambda a, da, b, db, out: (b * a ** (b - 1) * da
                                         + (out * math.log(a) * db if db != 0.0 else 0.0)),
        "exp": lambda a, da, b, db, out: out * da,
        "log": lambda a, da, b, db, out: da / a,
        "tanh": lambda a, da, b, db, out: (1.0 - out ** 2) * da,
        "relu": lambda a, da, b, db, out: da if a > 0 else 0.0,
    }
    rules.update(changed)
    return rules


_VALUES: dict[str, Callable[..., float]] = {
    "+": lambda a, b: a + b, "*": lambda a, b: a * b, "**": lambda a, b: a ** b,
    "exp": lambda a, b: math.exp(a), "log": lambda a, b: math.log(a),
    "tanh": lambda a, b: math.tanh(a), "relu": lambda a, b: max(a, 0.0)}


def _tangents(program: list, direction: dict, rules: dict[str, Callable[..., float]]
              ) -> dict[str, float]:
    """Every step's tangent, by ``rules``."""
    value: dict[str, float] = {}
    tangent: dict[str, float] = {}
    for name, op, *operands in program:
        if op == "input":
            value[name] = float(operands[0])
            tangent[name] = float(direction[name]) if name in direction else rules["absent"]()
            continue
        a, da = value[operands[0]], tangent[operands[0]]
        b, db = (value[operands[1]], tangent[operands[1]]) if len(operands) > 1 else (0.0, 0.0)
        value[name] = _VALUES[op](a, b)
        tangent[name] = rules[op](a, da, b, db, value[name])
    return tangent


def _first_wrong_step(case: Case) -> str:
    """The first step of the program whose tangent the student got wrong."""
    got, right = case.got["tangent"], case.expected["tangent"]
    return next((name for name, *_ in case.program
                 if name not in got or not near(got[name], right[name])), "?")


def _tangent_mistake(says: str, **changed: Callable[..., float]) -> Mistake:
    """A mistaken tangent rule: the student's tangents are the ones it gives; ``says`` names
    the first wrong step as {step}."""
    def shows(case: Case) -> bool:
        got = case.got["tangent"]
        wrong = _tangents(case.program, case.direction, _tangent_rules(**changed))
        return (not near([got.get(name) for name in wrong],
                         [case.expected["tangent"][name] for name in wrong])
                and near([got.get(name) for name in wrong], list(wrong.values())))

    return Mistake(lambda case: says.format(step=_first_wrong_step(case)), when=shows)


FORWARD_MODE_MISTAKES = [
    _tangent_mistake("an input the direction does not name starts with a tangent that is not "
                     "0 (first wrong at step {step}): it does not move in that direction",
                     absent=lambda: 1.0),
    _tangent_mistake("the tangent of the product at step {step} keeps one term of two: both "
                     "factors move, and each one's move adds a term",
                     **{"*": lambda a, da, b, db, out: da * b}),
    _tangent_mistake("the tangent of the product at step {step} multiplies the two tangents: "
                     "the product rule pairs each factor's tangent with the other's value",
                     **{"*": lambda a, da, b, db, out: da * db}),
    _tangent_mistake("the tangent of tanh at step {step} is taken from its input squared: the "
                     "slope of tanh comes from tanh's own value",
                     tanh=lambda a, da, b, db, out: (1.0 - a ** 2) * da),
    _tangent_mistake("the tangent of relu at step {step} passes through at 0: relu's slope at 0 "
                     "is 0 in this course",
                     relu=lambda a, da, b, db, out: da if a >= 0 else 0.0),
    _tangent_mistake("the tangent of exp at step {step} is exp's slope alone: multiply it by "
                     "the tangent of exp's input",
                     exp=lambda a, da, b, db, out: out),
    _tangent_mistake("the tangent of the power at step {step} leaves out the term for its "
                     "moving exponent: when the exponent has a tangent, it moves the power too",
                     **{"**": lambda a, da, b, db, out: b * a ** (b - 1) * da}),
]


EXERCISES = [
    Exercise(
        id="03.1", function="sum_to_shape", points=3,
        title="Summing a gradient over broadcast axes",
        reading="5. Broadcasting: copies in forward, sums in backward",
        idea="Broadcasting copied entries along some axes; in backward the gradient of every copy "
             "comes home to its original, so sum those axes away until the result has exactly the "
             "target's shape.",
        hint="Sum over the extra leading axes, then over each axis where the target has length 1 "
             "(keepdims=True); the result must have exactly the target shape.",
        visible=lambda: [(_arange(4, 2, 3), (2, 1)), (_arange(2, 3), (3,)),
                         (_arange(2, 3), (1, 3)), (_arange(2, 3), (2, 3)), (_arange(2, 3), ())],
        hidden=_sum_to_shape_hidden,
        compare=comparator(SUM_TO_MISTAKES, names=("grad", "shape"),
                           compare=close(rtol=1e-9, atol=1e-9), first_only=True),
    ),
    Exercise(
        id="03.2", function="matmul_backward", points=3,
        title="The backward pass of a matrix product",
        reading="3. Jacobians: what backward really computes",
        idea="Each gradient has the shape of its own input, and it comes from one product of the "
             "output's gradient with the other factor, one of the two turned on its side: let the "
             "shapes tell you which and in what order.",
        hint="Match the shapes: dL/dA (n, k) = G (n, m) @ Bᵀ (m, k); dL/dB (k, m) = Aᵀ (k, n) "
             "@ G (n, m).",
        visible=lambda: [(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[5.0, 6.0], [7.0, 8.0]]),
                          np.array([[1.0, 0.0], [0.0, 0.0]])),
                         (_arange(2, 3), _arange(3, 4), np.ones((2, 4)))],
        hidden=lambda rng: [_matmul_case(rng, square) for square in (False, False, True, True)],
        compare=comparator(MATMUL_MISTAKES, names=("a", "b", "grad_output"),
                           compare=close(rtol=1e-9, atol=1e-9)),
        parts=("dL/dA", "dL/dB"),
    ),
    Exercise(
        id="03.3", function="mean_backward", points=3,
        title="The backward pass of a mean",
        reading="3. Jacobians: what backward really computes",
        idea="Every entry that went into a mean gets an equal share of that mean's gradient; "
             "without keepdim the averaged axes are gone from the gradient and must come back "
             "before it can spread along them.",
        hint="Divide by N, the number of entries averaged together; with keepdim=False first "
             "give the reduced axes back with length 1, then broadcast.",
        visible=lambda: [(np.array(1.0), (2, 2), (0, 1), False),
                         (np.array([1.0, 2.0]), (2, 3), 1, False),
                         (np.array([[3.0, 6.0, 9.0]]), (2, 3), 0, True),
                         (np.array([1.0, 2.0, 3.0]), (3, 3), -1, False)],
        hidden=_mean_hidden,
        compare=comparator(MEAN_MISTAKES, names=("grad_output", "shape", "dim", "keepdim"),
                           compare=close(rtol=1e-9, atol=1e-12)),
    ),
    Exercise(
        id="03.4", function="softmax_vjp", points=4,
        title="The softmax VJP without the Jacobian",
        reading="4. Why the Jacobian is never built",
        idea="softmax's outputs share one normaliser, so each input moves them all. Work out what "
             "the Jacobian does to a vector, row by row, without building it; and keep the "
             "exponentials finite for large inputs.",
        hint="Per row: s ⊙ (v − Σ s·v), with s = softmax(x) computed from x − max(x); the sum "
             "runs over the last axis only.",
        visible=lambda: [(np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 0.0])),
                         (np.array([0.5, -1.0, 2.0, 0.0]), np.ones(4)),
                         (_arange(2, 3) / 2, np.array([[1.0, -1.0, 0.0], [0.0, 2.0, 1.0]])),
                         (np.array([1000.0, 1001.0, 999.0]), np.array([0.0, 1.0, 0.0]))],
        hidden=_softmax_hidden,
        compare=comparator(SOFTMAX_MISTAKES, names=("x", "v"),
                           compare=close(rtol=1e-7, atol=1e-10), first_only=True),
    ),
    Exercise(
        id="03.5", function="cube_function", points=3,
        title="Your first Function: Cube",
        reading="6. Anatomy of an op: following `a * b`",
        idea="forward keeps what backward needs; backward multiplies the gradient arriving from "
             "above by the local derivative of the cube at the saved input, and leaves that input "
             "as it is.",
        hint="y = x³; dy/dx = 3x², so the gradient is grad_output · 3x², with x the "
             "saved input.",
        visible=lambda: [(np.array([1.0, 2.0]), np.array([1.0, 1.0])),
                         (np.array([[-1.0, 0.5], [2.0, -3.0]]), np.array([[1.0, 2.0], [0.5, -1.0]]))],
        hidden=_cube_hidden,
        compare=comparator(CUBE_MISTAKES, names=("x", "grad_output"),
                           compare=compare_function, otherwise=[GRADCHECK_SAYS]),
        parts=("y", "dL/dx", "gradcheck"), weights=(1, 2, 1),  # the point: the backward
    ),
    Exercise(
        id="03.6", function="broadcast_mul_function", points=4,
        title="A broadcasting Mul",
        reading="5. Broadcasting: copies in forward, sums in backward",
        idea="Each factor's gradient is the gradient arriving times the other factor, entry by "
             "entry; then undo the broadcast of each input separately, as in 03.1.",
        hint="d(out)/da = b and d(out)/db = a, entry by entry; then sum each product down to its "
             "own input's shape (leading axes, and axes of length 1 that were stretched).",
        visible=lambda: [(_arange(2, 3), np.array([1.0, -1.0, 2.0]), np.ones((2, 3))),
                         (np.array([[1.0], [2.0]]), np.array([[3.0, 4.0, 5.0]]), _arange(2, 3)),
                         (np.array(2.0), _arange(2, 2), np.ones((2, 2)))],
        hidden=_broadcast_mul_hidden,
        compare=comparator(MUL_MISTAKES, names=("a", "b", "grad_output"),
                           compare=compare_function, otherwise=[GRADCHECK_SAYS]),
        parts=("out", "dL/da and dL/db", "gradcheck"), weights=(1, 2, 1),  # the point: the backward
    ),
    Exercise(
        id="03.7", function="sum_function", points=4,
        title="A reduction: Sum(dim, keepdim)",
        reading="3. Jacobians: what backward really computes",
        idea="A sum hands its gradient, unchanged, to every entry it summed; without keepdim the "
             "summed axes are gone from the gradient and must come back before it can spread "
             "along them.",
        hint="Every input entry that was summed gets the gradient of its sum; with "
             "keepdim=False give the gradient its summed axes back with length 1, "
             "then broadcast it to the input's shape.",
        visible=lambda: [(_arange(2, 3), 1, False, np.array([1.0, 2.0])),
                         (_arange(2, 3), 0, True, np.array([[1.0, 2.0, 3.0]])),
                         (_arange(2, 3, 2), [0, -1], False, np.array([1.0, -1.0, 2.0]))],
        hidden=_sum_hidden,
        compare=comparator(SUM_MISTAKES, names=("x", "dim", "keepdim", "grad_output"),
                           compare=compare_function, otherwise=[GRADCHECK_SAYS]),
        parts=("y", "dL/dx", "gradcheck"), weights=(1, 2, 1),  # the point: the backward
    ),
    Exercise(
        id="03.8", function="forward_mode", points=4,
        title="Forward mode with dual numbers",
        reading="8. Forward mode and reverse mode",
        idea="Carry beside every value how fast it moves in the chosen direction; each op "
             "combines its operands' values and rates by the rules of lesson 01, and an input "
             "absent from the direction does not move.",
        hint="Keep (value, tangent) per step; inputs start with their direction entry (0 if "
             "absent); the product rule gives (a·b)' = a'·b + a·b' — x·x gives 2x·x'.",
        visible=lambda: [([["x", "input", 3.0], ["y", "*", "x", "x"]], {"x": 1.0}),
                         (WORKED_PROGRAM, {"a": 1.0}),
                         (WORKED_PROGRAM, {"a": 0.5, "b": -1.0, "c": 2.0}),
                         ([["a", "input", 0.5], ["t", "tanh", "a"], ["e", "exp", "t"],
                           ["L", "**", "e", "a"]], {"a": 1.0}),
                         ([["a", "input", 0.0], ["r", "relu", "a"], ["L", "+", "r", "a"]],
                          {"a": 1.0})],  # relu's slope at 0 is 0
        hidden=lambda rng: [(program, {step[0]: float(np.round(rng.normal(), 3))
                                       for step in program if step[1] == "input"
                                       and rng.random() < 0.8})
                            for program in (_random_program(rng) for _ in range(4))],
        compare=comparator(FORWARD_MODE_MISTAKES, names=("program", "direction"),
                           compare=close(rtol=1e-9, atol=1e-12), first_only=True),
    ),
]
