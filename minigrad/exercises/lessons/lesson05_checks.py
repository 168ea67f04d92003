"""Checks for lesson 05's exercises: visible cases, fresh random hidden cases, comparators.

The comparators recognise the lesson's typical mistakes and say so in words: a transposed
weight gradient, a bias gradient not summed over the batch, a second division by B, one
output path only in the 2-2-2 network, gradients that pile up across training steps, an
update with the wrong sign, a module whose forward leaves the graph.
"""

from __future__ import annotations

from functools import lru_cache, partial
from typing import Any, Callable, Optional

import numpy as np

from minigrad.exercises.mistakes import (Case, Mistake, backward_not_written, backward_raised,
                                         comparator, near, plain_words)
from minigrad.exercises.spec import Exercise, close

# The classic worked example (see the lesson): inputs, targets, w1..w8, b1, b2.
CLASSIC = (np.array([0.05, 0.10]), np.array([0.01, 0.99]),
           np.array([0.15, 0.20, 0.25, 0.30, 0.40, 0.45, 0.50, 0.55]), np.array([0.35, 0.60]))


# Losses and gradients that went through minigrad's float64 ops: a mistake's answer is
# recognised at this tolerance.
_near = partial(near, rtol=1e-7, atol=1e-10)


def _shape(value: Any) -> Optional[tuple]:
    return np.shape(value) if isinstance(value, (np.ndarray, list)) else None


# ---------------------------------------------------------------------------- 05.1 Function
def _linear_case(rng: np.random.Generator, square: bool = False) -> tuple:
    batch, d, h = (int(v) for v in rng.integers(2, 6, size=3))
    if square:  # B = d = h: a transposed answer has the right shape and the wrong values
        batch = d = h
    return (rng.normal(size=(batch, d)), rng.normal(size=(h, d)), rng.normal(size=h),
            rng.normal(size=(batch, h)))


_LINEAR_CLOSE = close(rtol=1e-9, atol=1e-12)


def _linear_sizes(case: Case) -> tuple[int, int, int]:
    """(B, h, d) of a 05.1 case."""
    (h, d), batch = np.shape(case.w), np.shape(case.x)[0]
    return batch, h, d


def _verdict(case: Case) -> str:
    verdict = case.got[4] if isinstance(case.got, (list, tuple)) and len(case.got) == 5 else ""
    return verdict if isinstance(verdict, str) else ""


def _raised(case: Case) -> bool:
    return _verdict(case).startswith("your backward raised")


def _if(condition: bool, value: Any) -> Any:
    """``value`` when the mistake can show in this case, else None (it cannot)."""
    return value if condition else None


# 05.1's answer: (Z, dL/dX, dL/dW, dL/db, gradcheck's verdict). Most specific first.
LINEAR_MISTAKES = [
    backward_not_written(4, "Z"),
    backward_raised(4, "compare the shape each product gives with the shape of the gradient it "
                       "must be"),
    Mistake("your Z leaves out the bias: Z = X Wᵀ + b", part=0,
            gives=lambda case: _if(np.any(case.b), case.x @ case.w.T)),
    Mistake("your dL/dX is G Wᵀ, which has the right shape only because this case is square: G "
            "is (B, h), and the product must give X's (B, d)", part=1,
            gives=lambda case: _if(case.w.shape[0] == case.w.shape[1], case.g @ case.w.T)),
    Mistake(lambda case: f"your dL/dW has shape {case.w.shape[::-1]}, W's transposed: W is "
                         f"{case.w.shape}, and a gradient has the shape of what it is the "
                         "gradient of",
            when=lambda case: case.w.shape[0] != case.w.shape[1]
            and _shape(case.got[2]) == case.w.shape[::-1]),
    Mistake("your dL/dW is the transpose of the right one (its shape fits only because this "
            "case is square): W is (h, d)", part=2,
            gives=lambda case: _if(case.w.shape[0] == case.w.shape[1], case.x.T @ case.g)),
    Mistake(lambda case: f"your dL/db has shape {case.g.shape}, one row per example: b was added "
                         "to every row of Z (broadcast), so its gradient is G summed over the "
                         f"rows, shape {case.g.shape[1:]}",
            when=lambda case: case.g.shape[0] > 1 and _shape(case.got[3]) == case.g.shape),
    Mistake("your dL/db sums G over its columns; sum over the rows (axis 0), one entry per "
            "output",
            when=lambda case: case.g.shape[0] != case.g.shape[1]
            and _shape(case.got[3]) == case.g.shape[:1]),
    Mistake(lambda case: f"your dL/dW is the right one divided by B = {case.g.shape[0]}: G "
                         "already holds the mean's 1/B, so do not divide again", part=2,
            gives=lambda case: _if(case.g.shape[0] > 1, case.g.T @ case.x / case.g.shape[0])),
    Mistake(lambda case: f"your dL/db is the right one divided by B = {case.g.shape[0]}: G "
                         "already holds the mean's 1/B, so do not divide again", part=3,
            gives=lambda case: _if(case.g.shape[0] > 1,
                                   case.g.sum(axis=0) / case.g.shape[0])),
    *(Mistake(f"your backward returned None for {name}: return one gradient per input, in the "
              "order of forward's arguments",
              when=lambda case, index=index: not _raised(case) and case.got[index] is None)
      for index, name in ((1, "dL/dX"), (2, "dL/dW"), (3, "dL/db"))),
    Mistake(lambda case: f"gradcheck says: {plain_words(_verdict(case))} (input 0 is X, 1 is "
                         "W, 2 is b)",
            when=lambda case: _verdict(case) not in ("", "passed") and not _raised(case)),
]


# ---------------------------------------------------------------------------- 05.5 Module
def _module_case(rng: np.random.Generator) -> tuple:
    d, h = int(rng.integers(4, 7)), int(rng.integers(4, 7))  # ≥ 16 weights: see _init_verdict
    batch = int(rng.integers(2, 5))
    return (rng.normal(size=(batch, d)), rng.normal(size=(h, d)), rng.normal(size=h),
            rng.normal(size=(batch, h)), int(rng.integers(0, 2**31)))


def _module_answer(case: Case) -> Optional[tuple]:
    """05.5's answer as (parameters, init, graph, output, grads), or None if it is not one."""
    got = case.got
    return tuple(got) if isinstance(got, (list, tuple)) and len(got) == 5 else None


def _sizes(case: Case) -> tuple[int, int]:
    return np.shape(case.args[1])  # (out_features, in_features)


def _no_graph(case: Case) -> bool:
    graph = _module_answer(case)[2]
    return isinstance(graph, str) and graph.startswith("no graph")


def _grad_missing(name: str, index: int) -> Mistake:
    return Mistake(f"after backward, {name}.grad is None: the graph does not reach "
                   f"self.{name} (a .detach(), .data or copy in forward cuts it)",
                   when=lambda case: isinstance(_module_answer(case)[4], (list, tuple))
                   and len(_module_answer(case)[4]) == 3
                   and _module_answer(case)[4][index] is None and not _no_graph(case))


# 05.5's answer: (parameters, init, graph, output, [dL/dx, dL/dW, dL/db]).
MODULE_MISTAKES = [
    Mistake(lambda case: f"your layer registers {_module_answer(case)[0]}: it needs two "
                         f"Parameters, `weight` {tuple(_sizes(case))} and `bias` "
                         f"{(_sizes(case)[0],)} (a plain Tensor attribute is not registered)",
            when=lambda case: _module_answer(case)[0] != [["bias", [_sizes(case)[0]]],
                                                          ["weight", list(_sizes(case))]]),
    Mistake(lambda case: f"init: {_module_answer(case)[1]} (PyTorch draws weight and bias "
                         "uniformly from ±1/√in_features)",
            when=lambda case: isinstance(_module_answer(case)[1], str)
            and _module_answer(case)[1] != "like PyTorch"),
    Mistake(lambda case: f"{_module_answer(case)[2]}: return the Tensor LinearFunction.apply "
                         "gives — a numpy array (.numpy(), .data, np.…) has no graph, so no "
                         "gradient can reach the parameters", when=_no_graph),
    Mistake(lambda case: f"your output comes from {_module_answer(case)[2]}, not from your "
                         "LinearFunction: call LinearFunction.apply(x, self.weight, self.bias)",
            when=lambda case: isinstance(_module_answer(case)[2], str) and not _no_graph(case)
            and _module_answer(case)[2] != "your Function"),
    _grad_missing("weight", 1),
    _grad_missing("bias", 2),
]


# ---------------------------------------------------------------------------- 05.6 training
@lru_cache(maxsize=1)
def _digits() -> tuple[np.ndarray, np.ndarray]:
    from minigrad.data import load_digits
    images, labels = load_digits("train", as_numpy=True)
    return images.reshape(len(images), -1).astype(np.float64), labels.astype(np.int64)


def _start_weights(rng: np.random.Generator, sizes: tuple[int, int, int]) -> list[np.ndarray]:
    """PyTorch-style starting weights for Linear(D, H) → Linear(H, C)."""
    d, h, c = sizes
    return [rng.uniform(-1, 1, size=(h, d)) / np.sqrt(d), rng.uniform(-1, 1, size=h) / np.sqrt(d),
            rng.uniform(-1, 1, size=(c, h)) / np.sqrt(h), rng.uniform(-1, 1, size=c) / np.sqrt(h)]


def _digits_case(rng: np.random.Generator, count: int, hidden: int, steps: int,
                 rows: Optional[np.ndarray] = None) -> tuple:
    images, labels = _digits()
    rows = rng.choice(len(images), size=count, replace=False) if rows is None else rows
    return (images[rows], labels[rows], _start_weights(rng, (64, hidden, 10)), 0.5, steps)


def _moons_case(rng: np.random.Generator, count: int, hidden: int, steps: int) -> tuple:
    from minigrad.data import make_moons
    points, labels = make_moons(count, noise=0.1, seed=int(rng.integers(0, 2**31)))
    return (points, labels.astype(np.int64), _start_weights(rng, (2, hidden, 2)), 0.5, steps)


_TRAINING_CLOSE = close(rtol=1e-7, atol=1e-10)


def _losses(case: Case) -> np.ndarray:
    """05.6's losses, the student's: one per step (raises when there are none to read)."""
    return np.asarray(case.got[0], dtype=np.float64).reshape(-1)


def _right_losses(case: Case) -> np.ndarray:
    return np.asarray(case.expected[0], dtype=np.float64)


def _first_right(case: Case) -> bool:
    return bool(_near(_losses(case)[0], _right_losses(case)[0]))


def _loss_times(factor: Callable[[int], float]) -> Callable[[Case], bool]:
    return lambda case: not _first_right(case) and bool(
        _near(_losses(case)[0], _right_losses(case)[0] * factor(len(case.args[1]))))


# 05.6's answer: (losses, accuracy). The first row the answer shows is named.
TRAINING_MISTAKES = [
    Mistake(lambda case: f"you returned {_losses(case).size} losses for "
                         f"{_right_losses(case).size} steps: one per step",
            when=lambda case: _losses(case).shape != _right_losses(case).shape),
    Mistake("your losses are right; the accuracy is counted after the last step: one more "
            "forward with the updated parameters",
            when=lambda case: _near(_losses(case), _right_losses(case))),
    Mistake("your losses are one step late: record each step's loss before its update (the "
            "loss that backward differentiates)",
            when=lambda case: _near(_losses(case)[:-1], _right_losses(case)[1:])),
    Mistake("your first two losses are right, then they drift: each backward adds to .grad "
            "(+=), so gradients pile up across steps — zero them at the start of every step",
            when=lambda case: _near(_losses(case)[:2], _right_losses(case)[:2])
            and not _near(_losses(case)[2:], _right_losses(case)[2:])),
    Mistake("your loss grows from the first step on: the update climbs the gradient; it is "
            "p ← p − lr · p.grad",
            when=lambda case: _first_right(case) and _losses(case)[1] > _losses(case)[0]
            and _right_losses(case)[1] < _right_losses(case)[0]),
    Mistake("your loss never changes: the update does not reach the layers' own Parameters "
            "(zeroed before the step, or applied to copies?)",
            when=lambda case: _first_right(case)
            and _near(_losses(case), np.full_like(_losses(case), _losses(case)[0]))),
    Mistake(lambda case: f"your loss is the mean divided by B = {len(case.args[1])} again: "
                         "cross_entropy already averages, and a second 1/B shrinks every "
                         "gradient", when=_loss_times(lambda batch: 1 / batch)),
    Mistake(lambda case: f"your loss is B = {len(case.args[1])} times the mean (a sum over the "
                         "batch): the loss is the mean, with the 1/B once",
            when=_loss_times(lambda batch: batch)),
]


# ---------------------------------------------------------------------------- 05.2–05.4
_ACTIVATION_CLOSE = close(rtol=1e-9, atol=1e-12)


def _as_input(name: str, y: np.ndarray) -> np.ndarray:
    """f'(y): the derivative taken at the output as if the output were the input x."""
    if name == "sigmoid":
        s = 1 / (1 + np.exp(-y))
        return s * (1 - s)
    if name == "tanh":
        return 1 - np.tanh(y) ** 2
    return (y > 0).astype(np.float64)


def _slope(name: str, y: np.ndarray) -> np.ndarray:
    """dy/dx written with the output y (what a right answer multiplies grad_output by)."""
    return {"relu": (y > 0) * 1.0, "sigmoid": y * (1 - y), "tanh": 1 - y * y}[name]


def _arrays(case: Case) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(case.y, dtype=np.float64), np.asarray(case.g, dtype=np.float64)


# 05.2: ReLU's y ≥ 0 (the erratum), f' taken at y as if it were x, and a missing Δ.
_OTHER = {"sigmoid": "tanh", "tanh": "sigmoid"}  # the activation whose slope is mistaken for it
ACTIVATION_MISTAKES = [
    Mistake("where y = 0 your gradient passes through: ReLU's output is 0 there, so the input "
            "was ≤ 0 and the slope is 0 — it is 1 only where y > 0", group="slope",
            gives=lambda c: _if(c.name == "relu", _arrays(c)[1] * (_arrays(c)[0] >= 0))),
    Mistake(lambda c: f"you took {c.name}'s derivative at y as if it were x: the derivative is "
                      "a function of x, and you have only y = f(x) — rewrite it in terms of y",
            group="slope", gives=lambda c: _if(c.name != "relu",
                                               _arrays(c)[1] * _as_input(c.name, _arrays(c)[0]))),
    Mistake("you returned the activation's own slope: multiply it, entry by entry, by the "
            "gradient arriving from above (grad_output)", group="slope",
            gives=lambda c: _if(not np.all(_arrays(c)[1] == 1), _slope(c.name, _arrays(c)[0]))),
    Mistake(lambda c: f"you used {_OTHER[c.name]}'s slope for {c.name}: each activation has its "
                      "own derivative, written with its own output", group="slope",
            gives=lambda c: _if(c.name in _OTHER,
                                _arrays(c)[1] * _slope(_OTHER.get(c.name, c.name), _arrays(c)[0]))),
    Mistake(lambda c: f"your gradient has the wrong sign: {c.name} never decreases, so its "
                      "slope is never negative", group="slope",
            gives=lambda c: -np.asarray(c.expected, dtype=float)),
    Mistake("your tanh slope does not square the output: the slope of tanh falls off with y "
            "squared, the same on both sides of 0", group="slope",
            gives=lambda c: _if(c.name == "tanh", _arrays(c)[1] * (1 - _arrays(c)[0]))),
]


def _relu_output(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    y = np.maximum(rng.normal(size=shape) * 2, 0)
    y[0, 0] = 0.0  # relu at a kink: its output is 0, so its derivative is 0
    return y


def _activation_hidden(rng: np.random.Generator) -> list[tuple]:
    """Two relu cases (each with an output of exactly 0, where y ≥ 0 is the erratum the
    lesson warns about), a sigmoid and a tanh case, in random order."""
    shape = tuple(int(n) for n in rng.integers(2, 5, size=2))
    x = rng.normal(size=shape) * 2
    cases = [("relu", _relu_output(rng, shape), rng.normal(size=shape)),
             ("relu", _relu_output(rng, shape), rng.normal(size=shape)),
             ("sigmoid", 1 / (1 + np.exp(-x)), rng.normal(size=shape)),
             ("tanh", np.tanh(x), rng.normal(size=shape))]
    return [cases[k] for k in rng.permutation(len(cases))]


def _cross_entropy_case(rng: np.random.Generator, scale: float = 2.0,
                        offset: float = 0.0) -> tuple:
    batch, classes = int(rng.integers(2, 7)), int(rng.integers(2, 6))
    logits = rng.normal(size=(batch, classes)) * scale + offset
    return (logits, [int(t) for t in rng.integers(0, classes, size=batch)])


_CE_CLOSE = close(rtol=1e-7, atol=1e-10)


def _batch(case: Case) -> int:
    return len(case.targets)


# 05.3: a missing 1/B, a second 1/B, a summed loss, and an overflow.
CROSS_ENTROPY_MISTAKES = [
    Mistake(lambda c: f"your gradient is B = {_batch(c)} times too large: the loss is a mean, so "
                      "each example's p − onehot is divided by B", part=1, group="1/B",
            gives=lambda c: _if(_batch(c) > 1, c.expected[1] * _batch(c))),
    Mistake(lambda c: f"your gradient is divided by B = {_batch(c)} twice: the mean's 1/B enters "
                      "once", part=1, group="1/B",
            gives=lambda c: _if(_batch(c) > 1, c.expected[1] / _batch(c))),
    Mistake("your loss is the sum over the batch; the exercise asks for the mean", part=0,
            gives=lambda c: _if(_batch(c) > 1, c.expected[0] * _batch(c))),
    Mistake("your answer holds nan or inf where the right one is finite: e^z overflows for a "
            "large logit (e^1000 is inf) and a probability rounds to 0 — compute from the "
            "logits, shifted so that nothing overflows",
            when=lambda c: not _all_finite(c.got[0]) or not _all_finite(c.got[1])),
    Mistake("your gradient has the wrong sign: raising the logit of the right class must "
            "lower the loss", part=1, gives=lambda c: -np.asarray(c.expected[1], dtype=float)),
    Mistake("your loss is negative: the loss is minus the log-probability of the right class "
            "(a probability's log is ≤ 0)", part=0, gives=lambda c: -c.expected[0]),
    Mistake("your gradient is the probabilities alone: the right class of each example gets 1 "
            "taken off before the mean's division", part=1,
            gives=lambda c: np.asarray(c.expected[1], dtype=float) + _onehot(c) / _batch(c)),
]


def _onehot(case: Case) -> np.ndarray:
    """The targets of 05.3's case as one-hot rows, the logits' shape."""
    logits = np.asarray(case.logits, dtype=float)
    onehot = np.zeros_like(logits)
    onehot[np.arange(logits.shape[0]), np.asarray(case.targets, dtype=int)] = 1.0
    return onehot


def _all_finite(value: Any) -> bool:
    try:
        return bool(np.all(np.isfinite(np.asarray(value, dtype=np.float64))))
    except (TypeError, ValueError):
        return True  # not numbers at all: close() has said so


def _network_case(rng: np.random.Generator) -> tuple:
    return (rng.uniform(-1, 1, size=2), rng.uniform(0, 1, size=2), rng.normal(size=8) * 0.8,
            rng.normal(size=2) * 0.5, float(rng.choice([0.1, 0.5, 1.0])))


def one_path_gradients(inputs: Any, targets: Any, weights: Any, biases: Any,
                       path: int) -> np.ndarray:
    """dE/dw1…w4 of the 2-2-2 network through output ``path`` (0: o1, 1: o2) alone — the
    gradient of a student who forgets that each hidden unit feeds both outputs."""
    i, t, w, b = (np.asarray(v, dtype=np.float64) for v in (inputs, targets, weights, biases))
    h = 1 / (1 + np.exp(-(np.array([w[0:2] @ i, w[2:4] @ i]) + b[0])))
    o = 1 / (1 + np.exp(-(np.array([w[4:6] @ h, w[6:8] @ h]) + b[1])))
    delta = (o[path] - t[path]) * o[path] * (1 - o[path])
    out = w[4:6] if path == 0 else w[6:8]  # (w5, w6) or (w7, w8)
    return np.concatenate([delta * out[0] * h[0] * (1 - h[0]) * i,
                           delta * out[1] * h[1] * (1 - h[1]) * i])


def _one_path_unit(hidden: Any, right: np.ndarray, through_o1: np.ndarray,
                   through_o2: np.ndarray) -> Optional[str]:
    """When one hidden unit's δ is right and the other's takes one output path only, say
    which (the whole-answer messages below cover both units wrong the same way)."""
    try:
        hidden = np.asarray(hidden, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        return None
    if hidden.shape != (4,):
        return None
    for unit, (mine, other) in enumerate(((slice(0, 2), slice(2, 4)),
                                          (slice(2, 4), slice(0, 2)))):
        if not _near(hidden[other], right[other]) or _near(hidden[mine], right[mine]):
            continue
        for path, through in ((1, through_o1), (2, through_o2)):
            if _near(hidden[mine], through[mine]):
                return (f"h{unit + 1}'s δ uses only the path through o{path} (h{2 - unit}'s "
                        f"is right): h{unit + 1} feeds o1 and o2, and the two paths add")
    return None


def _through(case: Case, path: int) -> np.ndarray:
    """dE/dw1…w4 through output o1 (``path`` 0) or o2 (1) alone."""
    inputs, targets, weights, biases, _ = case.args
    return one_path_gradients(inputs, targets, weights, biases, path)


def _unit_on_one_path(case: Case) -> Optional[str]:
    return _one_path_unit(case.got[1], case.expected[1], _through(case, 0), _through(case, 1))


def _climbs(case: Case) -> bool:
    """The new weights are w + lr·(the right gradient, or the student's own)."""
    weights, lr = np.asarray(case.args[2], dtype=np.float64), case.args[4]
    right = np.concatenate([case.expected[1], case.expected[2]])
    try:
        theirs = np.concatenate([np.asarray(case.got[1], dtype=np.float64).reshape(-1),
                                 np.asarray(case.got[2], dtype=np.float64).reshape(-1)])
    except (TypeError, ValueError):
        theirs = None
    return bool(_near(case.got[3], weights + lr * right) or (
        theirs is not None and theirs.shape == (8,) and not _near(theirs, right)
        and _near(case.got[3], weights + lr * theirs)))


# 05.4's answer: (E, dE/dw1…w4, dE/dw5…w8, new weights); of the "hidden" group, the first the
# answer shows is named.
NETWORK_MISTAKES = [
    Mistake("your E is twice the right one: each squared error has ½ in front of it", part=0,
            gives=lambda case: 2 * case.expected[0]),
    Mistake(lambda case: _unit_on_one_path(case) or "", group="hidden",
            when=lambda case: not _near(case.got[1], case.expected[1])
            and bool(_unit_on_one_path(case))),
    Mistake(lambda case: f"your hidden-unit δ uses only one output path, through o1 (your "
                         f"dE/dw1 = {_through(case, 0)[0]:.6g}; with both paths it is "
                         f"{case.expected[1][0]:.6g} — in the reading's example the one-path "
                         "number is 0.000668 against 0.000439): h1 and h2 feed o1 and o2, and "
                         "the two paths add", part=1, group="hidden",
            gives=lambda case: _through(case, 0)),
    Mistake("your hidden-unit δ keeps only the path through o2 — an `=` where `+=` should add "
            "the second path? h1 and h2 feed both outputs", part=1, group="hidden",
            gives=lambda case: _through(case, 1)),
    Mistake("your step goes up the gradient: new w = w − lr · dE/dw", when=_climbs),
]


_NETWORK_VISIBLE_SECOND = (np.array([1.0, -1.0]), np.array([0.0, 1.0]),
                           np.array([0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8]),
                           np.zeros(2), 1.0)


def _small(*shape: int, start: float = 1.0) -> np.ndarray:
    """Small distinct numbers, easy to redo by hand: start, start + 0.5, …"""
    return (np.arange(float(np.prod(shape))).reshape(shape) * 0.5 + start) * \
        np.where(np.arange(np.prod(shape)).reshape(shape) % 3 == 1, -1, 1)


EXERCISES = [
    Exercise(
        id="05.1", function="linear_function", points=4,
        title="Linear as a Function",
        reading="2. Linear",
        idea="Write Z_bj = Σ_k X_bk W_jk + b_j and ask, for each input, which entries of Z it "
             "touches: those are the G entries its gradient collects. Each gradient has its "
             "input's shape, and the shapes tell you where the transposes go; b touches every "
             "row.",
        hint="Z = X Wᵀ + b; dL/dX = G W, shape (B, d); dL/dW = Gᵀ X, shape (h, d); "
             "dL/db = Σ over the rows of G, shape (h,).",
        visible=lambda: [(_small(2, 3), _small(2, 3, start=-1.0), np.array([0.5, -1.0]),
                          _small(2, 2, start=0.5)),
                         (_small(3, 3, start=0.25), _small(3, 3, start=-0.75),
                          np.array([1.0, 0.0, -2.0]), _small(3, 3, start=-1.5))],
        hidden=lambda rng: [_linear_case(rng), _linear_case(rng), _linear_case(rng, True)],
        compare=comparator(LINEAR_MISTAKES, names=("x", "w", "b", "g"),
                           compare=_LINEAR_CLOSE),
        parts=("Z", "dL/dX", "dL/dW", "dL/db", "gradcheck"),
    ),
    Exercise(
        id="05.2", function="activation_backward", points=3,
        title="Activations backward, from the output",
        reading="3. Activations",
        idea="Differentiate each f and rewrite the result with y = f(x) in place of x; then "
             "multiply by the gradient arriving from above, entry by entry.",
        hint="relu: g·(y > 0); sigmoid: g·y(1 − y); tanh: g·(1 − y²) — all from the output y.",
        visible=lambda: [("relu", np.array([0.0, 0.5, 2.0]), np.array([1.0, 1.0, 3.0])),
                         ("relu", np.array([[0.0, 1.5], [0.0, 0.0]]), np.full((2, 2), 2.0)),
                         ("sigmoid", np.array([0.5, 0.25, 0.9]), np.array([1.0, 2.0, -1.0])),
                         ("tanh", np.array([[0.0, 0.5], [-0.5, 0.9]]), np.full((2, 2), 2.0))],
        hidden=_activation_hidden,
        compare=comparator(ACTIVATION_MISTAKES, names=("name", "y", "g"),
                           compare=_ACTIVATION_CLOSE),
    ),
    Exercise(
        id="05.3", function="softmax_cross_entropy", points=4,
        title="Softmax cross-entropy: loss and p − y",
        reading="4. Losses: prediction minus target",
        idea="Take log-softmax from the logits minus their row maximum (the softmax does not "
             "change). For one example, d(−log p_c)/dz_k is short; the batch mean then scales "
             "every row once.",
        hint="Gradient = (softmax(logits) − onehot(targets)) / B — divide by the batch size "
             "once; log-softmax = z − m − log Σ e^{z − m} with m the row maximum.",
        visible=lambda: [(np.array([[1.0, 2.0, 3.0]]), [2]),
                         (np.array([[0.0, 0.0], [1.0, -1.0]]), [0, 1]),
                         (np.array([[1000.0, 0.0, -1000.0], [2.0, 1.0, 0.5]]), [0, 2])],
        hidden=lambda rng: [_cross_entropy_case(rng), _cross_entropy_case(rng),
                            _cross_entropy_case(rng, scale=5.0),
                            _cross_entropy_case(rng, scale=300.0, offset=500.0)],
        compare=comparator(CROSS_ENTROPY_MISTAKES, names=("logits", "targets"),
                           compare=_CE_CLOSE),
        parts=("loss", "dloss/dlogits"),
    ),
    Exercise(
        id="05.4", function="network_step", points=5,
        title="One step of the 2-2-2 sigmoid network",
        reading="5. The 2-2-2 network, by hand",
        idea="Forward first, keeping h and o. Then one δ = dE/d(net input) per unit, outputs "
             "first; a weight's gradient is the δ of the unit it feeds times the value on its "
             "wire. Count the paths from a hidden unit to E before writing its δ.",
        hint="δ_o = (o − t)·o(1 − o); dE/dw5 = δ_o1·h1. A hidden unit's δ adds both outputs: "
             "δ_h1 = (δ_o1·w5 + δ_o2·w7)·h1(1 − h1); dE/dw1 = δ_h1·i1; new w = w − lr·dE/dw.",
        visible=lambda: [(*CLASSIC, 0.5),
                         # both outputs feed back into each hidden unit: drop a path and
                         # this case fails (with all-zero weights it would not)
                         _NETWORK_VISIBLE_SECOND],
        hidden=lambda rng: [_network_case(rng) for _ in range(4)],
        compare=comparator(NETWORK_MISTAKES, compare=_CE_CLOSE),
        parts=("E", "dE/dw1…w4", "dE/dw5…w8", "new weights"),
    ),
    Exercise(
        id="05.5", function="linear_module", points=4,
        title="Linear as a Module, with your Function",
        reading="6. The rule on the engine's nodes",
        idea="A Module registers what you assign to it: Parameters become its parameters. "
             "Draw them the way PyTorch does, and let forward hand the work to your Function "
             "so that the graph runs through it.",
        hint="Two Parameters, weight (out, in) and bias (out,), each uniform in "
             "±1/√in_features; forward is your LinearFunction applied to x, weight "
             "and bias.",
        visible=lambda: [(_small(2, 4), _small(4, 4, start=-1.0) / 4, np.array([0.5, -1.0, 0.0,
                                                                               1.0]),
                          _small(2, 4, start=0.5), 0),
                         (_small(3, 5, start=0.25), _small(4, 5, start=-0.75) / 5,
                          np.array([1.0, 0.0, -2.0, 0.5]), _small(3, 4, start=-1.5), 1)],
        hidden=lambda rng: [_module_case(rng) for _ in range(3)],
        compare=comparator(MODULE_MISTAKES, compare=_LINEAR_CLOSE),
        parts=("parameters", "init", "graph", "output", "gradients"),
        weights=(1, 1, 3, 1, 2),  # the point: a layer whose graph runs through your Function
    ),
    Exercise(
        id="05.6", function="train_mlp", points=4,
        title="Your training loop",
        reading="8. An MLP on handwritten digits",
        idea="Each step starts from clean gradients (backward adds into .grad), goes forward to "
             "a mean loss, backward, and then moves every parameter a little against its "
             "gradient without recording that move in the graph.",
        hint="Per step: every parameter's gradient cleared; loss = mean "
             "cross-entropy of Linear₂(relu(Linear₁(x))); backward; p ← p − "
             "lr·∂loss/∂p for every p, with the update not recorded; the loss of "
             "each step kept as a number.",
        visible=lambda: [_digits_case(np.random.default_rng(5), 150, 16, 30,
                                      rows=np.arange(150)),
                         _moons_case(np.random.default_rng(6), 80, 8, 30)],
        hidden=lambda rng: [_digits_case(rng, 100, int(rng.integers(8, 17)), 20),
                            _moons_case(rng, 60, int(rng.integers(4, 9)), 20)],
        compare=comparator(TRAINING_MISTAKES, compare=_TRAINING_CLOSE,
                           first_only=True),
        parts=("losses", "accuracy"),
    ),
]
