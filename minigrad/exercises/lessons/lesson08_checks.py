"""Checks for lesson 08's exercises: visible cases, fresh random hidden cases, comparators.

The optimizer exercises (08.1, 08.4) are judged on where the parameters are after the first
and after the last step. When an answer is wrong, the comparator replays the case in numpy
with each of the lesson's typical mistakes and, if one of them gives the student's numbers,
says which.
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from minigrad.data import load_digits
from minigrad.data.digits import read_digits_file
from minigrad.exercises import network, step_replay
from minigrad.exercises.source_rules import SourceRules, check_source
from minigrad.exercises.answer_limits import AnswerLimits
from minigrad.exercises.mistakes import Case, Mistake, Raised, comparator, near
from minigrad.exercises.spec import Comparator, Exercise, Runtime, close
# The training images whose scores the report sends back, and the weights R of the probe loss
# L = mean_n Σ_k scores[n, k]·R[n, k] whose gradients it sends: the given code's own constants
# (a cross-entropy would not do: a network fitted to be sure of these 64 images has all its
# gradients 0, which any backward "gives").
from minigrad.exercises.lessons.lesson08 import PROBE_IMAGES, PROBE_WEIGHTS
from minigrad.exercises.lessons.lesson08 import (CAPSTONE_EPOCHS, CAPSTONE_WIDTHS,
                                                 capstone_batches, capstone_sampled_steps,
                                                 capstone_start)

_CLOSE = close(rtol=1e-8, atol=1e-12)
_same = partial(near, rtol=1e-8, atol=1e-12)


# ---------------------------------------------------------------------------- optimizers
def _problem(rng: np.random.Generator, count: int) -> tuple[list, list, list]:
    shapes = [tuple(int(n) for n in rng.integers(1, 4, size=int(rng.integers(1, 3))))
              for _ in range(count)]
    return ([rng.normal(size=shape) for shape in shapes],
            [rng.uniform(0.5, 1.5, size=shape) for shape in shapes],
            [rng.normal(size=shape) for shape in shapes])


def _sgd_case(rng: np.random.Generator) -> tuple:
    """Two groups with their own lr, momentum, dampening and λ; one key left to defaults."""
    weights, scales, targets = _problem(rng, 3)
    first = {"params": [0, 2], "lr": float(rng.choice([0.05, 0.1, 0.2])),
             "momentum": float(rng.choice([0.5, 0.9])), "dampening": float(rng.choice([0.1, 0.5])),
             "weight_decay": float(rng.choice([0.1, 0.3, 1.0]))}
    second = {"params": [1], "lr": float(rng.choice([0.02, 0.3])),
              "momentum": float(rng.choice([0.0, 0.8]))}  # λ and dampening from the defaults
    defaults = {"lr": 0.01, "dampening": 0.0, "weight_decay": float(rng.choice([0.05, 0.5]))}
    return (weights, scales, targets, [first, second], defaults, int(rng.integers(3, 7)))


def _adamw_case(rng: np.random.Generator) -> tuple:
    weights, scales, targets = _problem(rng, 3)
    first = {"params": [0], "lr": float(rng.choice([0.01, 0.05, 0.1])),
             "betas": (float(rng.choice([0.8, 0.9])), float(rng.choice([0.99, 0.999]))),
             "weight_decay": float(rng.choice([0.1, 0.5, 1.0]))}
    second = {"params": [1, 2], "lr": float(rng.choice([0.02, 0.2]))}
    defaults = {"lr": 1e-3, "eps": 1e-8, "weight_decay": float(rng.choice([0.05, 0.3]))}
    return (weights, scales, targets, [first, second], defaults, int(rng.integers(3, 7)))


SGD_DEFAULTS = {"momentum": 0.0, "dampening": 0.0, "weight_decay": 0.0}
ADAMW_DEFAULTS = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 1e-2}


def _settings(args: tuple, base: dict, shared: bool,
              from_defaults: tuple[str, ...] = ()) -> list[tuple[list[int], dict]]:
    """Each group's parameters and settings; ``shared``: every setting from the defaults,
    ``from_defaults``: these settings only."""
    groups, defaults = args[3], args[4]
    return [(list(group["params"]),
             {**base, **defaults, **({} if shared else group),
              **{key: {**base, **defaults}[key] for key in from_defaults}}) for group in groups]


def _replay(args: tuple, base: dict, update: Callable, shared: bool = False,
            from_defaults: tuple[str, ...] = ()) -> tuple:
    """Run the case's steps in numpy; ``update(p, g, settings, state)`` returns the new p.
    Each parameter's ``state`` holds, under "optimizer", one dict shared by all of them."""
    weights, scales, targets, _, _, steps = args
    params = [np.array(w, dtype=float) for w in weights]
    optimizer: dict = {}
    states: dict[int, dict] = {}
    history = []
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(steps):
            grads = [a * (a * p - b) for a, p, b in zip(scales, params, targets)]
            for indices, settings in _settings(args, base, shared, from_defaults):
                for i in indices:
                    state = states.setdefault(i, {"optimizer": optimizer})
                    params[i] = update(params[i], grads[i], settings, state)
            history.append([p.copy() for p in params])
    return history[0], history[-1]


def _sgd_update(decay: str = "add", first: str = "gradient", sign: float = 1.0,
                decay_outside: bool = False, nesterov: bool = False) -> Callable:
    """SGD's step, or a mistaken one; ``nesterov``: the step goes along d + μ·buf."""
    def update(p: np.ndarray, g: np.ndarray, s: dict, state: dict) -> np.ndarray:
        lam, mu, tau = s["weight_decay"], s["momentum"], s["dampening"]
        d = {"add": g + lam * p, "none": g, "minus": g - lam * p, "times": g * (1 + lam)}[decay]
        if decay_outside:
            d = g
        if mu != 0:
            if "buffer" not in state:
                state["buffer"] = d.copy() if first == "gradient" else (1 - tau) * d
            else:
                state["buffer"] = mu * state["buffer"] + (1 - tau) * d
            d = d + mu * state["buffer"] if nesterov else state["buffer"]
        if decay_outside:
            d = d + lam * p
        return p - sign * s["lr"] * d
    return update


def _adamw_update(decay: str = "decoupled", bias_correction: bool = True,
                  sign: float = 1.0, kept: str = "both", counter: str = "parameter",
                  first_t: int = 1) -> Callable:
    """AdamW's step, or a mistaken one. ``decay``: "decoupled" (right), "after" (the step
    first), "no lr" (p·(1 − λ)), "plus", "l2" or "none"; ``kept``: which of the two changes
    reach the model ("decay": the Adam step made a new tensor, "step": the decay did);
    ``counter``: "parameter" (right) or "optimizer" (one t, bumped at every parameter);
    ``first_t``: the t of the first step."""
    def update(p: np.ndarray, g: np.ndarray, s: dict, state: dict) -> np.ndarray:
        lr, lam, eps = s["lr"], s["weight_decay"], s["eps"]
        beta1, beta2 = s["betas"]
        start = p
        if decay == "decoupled":
            p = p * (1 - lr * lam)
        elif decay == "no lr":
            p = p * (1 - lam)
        elif decay == "plus":
            p = p * (1 + lr * lam)
        elif decay == "l2":
            g = g + lam * p
        decayed = p
        if kept == "step":
            p = start
        counted = state["optimizer"] if counter == "optimizer" else state
        t = counted["t"] = counted.get("t", first_t - 1) + 1
        m = state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * g
        v = state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * g * g
        if kept == "decay":
            return decayed
        if bias_correction:
            first, second = np.float64(1 - beta1 ** t), np.float64(1 - beta2 ** t)
            p = p - sign * lr / first * m / (np.sqrt(v) / np.sqrt(second) + eps)
        else:
            p = p - sign * lr * m / (np.sqrt(v) + eps)
        return p * (1 - lr * lam) if decay == "after" else p
    return update


def _replayed(base: dict, update: Callable, shared: bool = False,
              from_defaults: tuple[str, ...] = ()) -> Callable[[Case], list]:
    """The answer a mistaken ``update`` gives on the case (see _replay)."""
    return lambda case: list(_replay(case.args, base, update, shared, from_defaults))


def _unchanged(case: Case) -> list:
    start = [np.asarray(w, dtype=float) for w in case.args[0]]
    return [start, start]


IN_PLACE = ("your step did not change the model's tensors: `p = p - ...` makes a new tensor and "
            "the model keeps the old one. Update in place: p.sub_(...) or p.data -= ...")

STEP_ZERO = ("your first step divides by zero: the bias corrections 1 − β₁ᵗ and 1 − β₂ᵗ are 0 "
             "when t = 0, so count the step before using it (t is 1 at a parameter's first "
             "step)")


def _step_zero(case: Case) -> bool:
    """t started at 0: a float division raised, or the first step is not finite."""
    if isinstance(case.got, Raised):
        return case.got.startswith("ZeroDivisionError")
    first = case.got[0]
    return not all(np.isfinite(np.asarray(p, dtype=float)).all() for p in first)


SGD_MISTAKES = [
    Mistake(
        "your update matches SGD without weight decay: add λ·p to the gradient (d = g + λp) "
        "before it enters the momentum buffer",
        gives=_replayed(SGD_DEFAULTS, update=_sgd_update(decay="none"))),
    Mistake(
        "your decay has the wrong sign (g − λp): the gradient of λ/2‖p‖² is +λp, which pulls p "
        "towards 0",
        gives=_replayed(SGD_DEFAULTS, update=_sgd_update(decay="minus"))),
    Mistake(
        "your update has the wrong sign: p moves up the gradient; subtract, p ← p − lr·buf",
        gives=_replayed(SGD_DEFAULTS, update=_sgd_update(sign=-1.0))),
    Mistake(
        "your update multiplies the gradient by (1 + λ): weight decay adds λ·p",
        gives=_replayed(SGD_DEFAULTS, update=_sgd_update(decay="times"))),
    Mistake(
        "your momentum buffer starts at 0 (so the first step is damped): PyTorch starts it at "
        "d itself, buf = d at a parameter's first step, and damps only later steps",
        gives=_replayed(SGD_DEFAULTS, update=_sgd_update(first="zero"))),
    Mistake(
        "your decay is added after the momentum buffer: λp belongs in d, before the buffer",
        gives=_replayed(SGD_DEFAULTS, update=_sgd_update(decay_outside=True))),
    Mistake(
        "every group got the same settings: read lr, momentum, dampening and weight_decay from "
        "each group's dict (group[\"lr\"]), not from the defaults",
        gives=_replayed(SGD_DEFAULTS, update=_sgd_update(), shared=True)),
    Mistake(
        "your weight decay λ is the optimizer's default in every group: a group that sets its "
        "own weight_decay must decay with it; read λ from the group, as you do lr",
        gives=_replayed(SGD_DEFAULTS, update=_sgd_update(), from_defaults=("weight_decay",))),
    Mistake(
        "your step is Nesterov's: it goes along d + μ·buf, the direction plus the momentum "
        "again; this SGD steps along the momentum buffer alone",
        gives=_replayed(SGD_DEFAULTS, update=_sgd_update(nesterov=True))),
]

ADAMW_MISTAKES = [
    Mistake(
        "your update matches Adam with the decay added to the gradient — AdamW subtracts "
        "lr·λ·w from the weight directly",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(decay="l2"))),
    Mistake(
        "your update matches Adam without weight decay: multiply p by (1 − lr·λ) first",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(decay="none"))),
    Mistake(
        "your decay has the wrong sign: p·(1 + lr·λ) grows the weight; AdamW multiplies by "
        "(1 − lr·λ)",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(decay="plus"))),
    Mistake(
        "your update has the wrong sign: subtract the Adam step, p ← p − lr·m̂/(√v̂ + ε)",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(sign=-1.0))),
    Mistake(
        "your update has no bias correction: divide m by (1 − β₁ᵗ) and v by (1 − β₂ᵗ) — both "
        "start at 0 and are too small in the first steps",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(bias_correction=False))),
    Mistake(
        "your update is Adam with the decay added to the gradient — AdamW subtracts lr·λ·w from "
        "the weight directly — and has no bias correction (divide by 1 − βᵗ)",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(decay="l2", bias_correction=False))),
    Mistake(
        "every group got the same settings: read lr, betas, eps and weight_decay from each "
        "group's dict (group[\"lr\"]), not from the defaults",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(), shared=True)),
    Mistake(
        "only the decay reached the model: your Adam step makes a new tensor (p = p − …, or "
        "p = p.sub(…)) and the model keeps the old one — change p in place for both: p.mul_(…) "
        "and p.sub_(…), or p.data …",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(kept="decay"))),
    Mistake(
        "only the Adam step reached the model: your decay makes a new tensor (p = p·(1 − lr·λ)) "
        "and the model keeps the old one — change p in place for both: p.mul_(…) and "
        "p.sub_(…)",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(kept="step"))),
    Mistake(
        "your decay comes after the Adam step: AdamW shrinks the weight as it was before the "
        "step, then takes the step, so the step is not decayed too",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(decay="after"))),
    Mistake(
        "your decay shrinks p by the factor (1 − λ), without the learning rate: in AdamW the "
        "decay is a step too, as long as lr times λ",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(decay="no lr"))),
    Mistake(
        "your step counter t is one for the whole optimizer, counted up at every parameter: "
        "each parameter needs its own t in its state, one more at each of its steps",
        gives=_replayed(ADAMW_DEFAULTS, update=_adamw_update(counter="optimizer"))),
    Mistake(STEP_ZERO, when=lambda case: _step_zero(case), raises=True),
]


def _optimizer_comparator(mistakes: list[Mistake]) -> Comparator:
    """The first of the mistakes whose replay gives the student's positions is named."""
    return comparator([Mistake(IN_PLACE, gives=_unchanged), *mistakes], compare=_CLOSE,
                      first_only=True)


# ---------------------------------------------------------------------------- 08.2
def _l2_case(rng: np.random.Generator, dead_unit: bool = False) -> tuple:
    batch, d, h, k = (int(n) for n in rng.integers(2, 5, size=4))
    batch += 1
    w1 = rng.normal(size=(h, d)) * 0.8
    if dead_unit:  # a hidden unit with z = 0 exactly: relu'(0) must be 0
        w1[0] = 0.0
    return (w1, rng.normal(size=(k, h)) * 0.8, rng.normal(size=(batch, d)),
            rng.normal(size=(batch, k)), float(rng.choice([0.05, 0.1, 0.5])))


def _l2_variant(args: tuple, mean: bool = True, decay: bool = True, mask: str = ">",
                penalty: bool = True) -> tuple:
    w1, w2, x, y, lam = args
    batch = x.shape[0] if mean else 1
    z = x @ w1.T
    h = np.maximum(z, 0.0)
    o = h @ w2.T
    objective = np.sum((o - y) ** 2) / (2 * batch) \
        + (lam / 2 * (np.sum(w1 ** 2) + np.sum(w2 ** 2)) if penalty else 0.0)
    grad_o = (o - y) / batch
    slope = {">": z > 0, ">=": z >= 0, "tanh": 1 - h ** 2}[mask]
    grad_w2 = grad_o.T @ h + (lam * w2 if decay else 0.0)
    grad_w1 = ((grad_o @ w2) * slope).T @ x + (lam * w1 if decay else 0.0)
    return float(objective), grad_w1, grad_w2


def _l2(part: int, **settings: Any) -> Callable[[Case], Any]:
    return lambda case: _l2_variant(case.args, **settings)[part]


_NO_DECAY = ("your gradients lack the decay term: add λ·W1 and λ·W2 (the gradient of λ/2‖W‖²)")
_SUMMED = ("your data gradients are summed over the batch, not averaged: L is a mean, so "
           "divide by B once")
_AT_ZERO = ("your ReLU passes the gradient where z = 0: its derivative is 1 only where z > 0")
_TANH = ("your dJ/dW1 uses tanh's derivative (1 − h²): here φ is ReLU, whose derivative is 1 "
         "where z > 0 and 0 elsewhere")
# 08.2's answer: (J, dJ/dW1, dJ/dW2); a gradient mistake may show in either gradient.
L2_MISTAKES = [
    Mistake("your J has no penalty: J = L + λ/2 (‖W1‖² + ‖W2‖²)", part=0,
            gives=_l2(0, penalty=False)),
    Mistake("your J sums ½‖o − y‖² over the batch: L is the mean, divide by B", part=0,
            gives=_l2(0, mean=False)),
    *(Mistake(says, part=part, gives=_l2(part, **settings))
      for settings, says in ((dict(decay=False), _NO_DECAY), (dict(mean=False), _SUMMED),
                             (dict(mask=">="), _AT_ZERO), (dict(mask="tanh"), _TANH))
      for part in (1, 2)),
]


# ---------------------------------------------------------------------------- 08.3
def _micro_case(rng: np.random.Generator) -> tuple:
    parts = int(rng.integers(2, 5))
    shape = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    counts = [int(n) for n in rng.integers(1, 9, size=parts)]
    while len(set(counts)) == 1:  # unequal sizes: an unweighted average must fail
        counts[0] += 1
    return ([rng.normal(size=shape) for _ in range(parts)], counts)


MICRO_MISTAKES = [
    Mistake("your result is the plain mean of the micro-batch gradients: weight each by its "
            "number of examples n_i", gives=lambda case: sum(case.grads) / len(case.grads)),
    Mistake("your Σ n_i·g_i is right, now divide by N = Σ n_i",
            gives=lambda case: sum(n * g for n, g in zip(case.counts, case.grads))),
    Mistake("your Σ n_i·g_i is divided by the number of micro-batches: divide by N = Σ n_i, "
            "the number of examples",
            gives=lambda case: sum(n * g for n, g in zip(case.counts, case.grads))
            / len(case.grads)),
    Mistake("your result adds the micro-batches' means as they are: weight each by its "
            "number of examples n_i, then divide by N", gives=lambda case: sum(case.grads)),
    Mistake("your result is the last micro-batch's gradient: every micro-batch counts, each "
            "by its number of examples", gives=lambda case: case.grads[-1]),
]


# ---------------------------------------------------------------------------- 08.5
CAPSTONE_ACCURACY = 0.97

#: minigrad as the capstone's child gets it: tensors, the elementary ops, Function, Module,
#: Parameter, Sequential and the Optimizer base class exist; the library's layers, fused ops
#: (conv, pool, linear, the losses), kernels and optimizers do not, nor the digits' test split
#: (the grader holds its labels), nor any installed package but numpy (no other library's
#: layers). Not a rule the code is read for: these are not there.
CAPSTONE_RUNTIME = Runtime(
    absent=("minigrad.kernels", "minigrad.ops.conv", "minigrad.ops.pool", "minigrad.ops.window",
            "minigrad.ops.linear", "minigrad.ops.loss", "minigrad.nn.conv", "minigrad.nn.linear",
            "minigrad.nn.loss", "minigrad.nn.cross_entropy", "minigrad.optim.sgd",
            "minigrad.optim.adam", "minigrad.figures", "minigrad.training"),
    digits_test=False, packages=("numpy",))

#: What the grader decodes of a capstone report: one run (a call holds one case: the visible
#: seed, or the hidden one): its network, the probe's gradients and the eight sampled steps
#: (the reference's report: about 260 000 values, 5 MB).
CAPSTONE_LIMITS = AnswerLimits(bytes=9_000_000, values=400_000)


#: The instructor's held-out digits, when a private key holds them beside this file (made by
#: ``minigrad held-out-digits``); the capstone's network is then scored on them, not on the
#: test split that ships with minigrad.
HELD_OUT_FILE = "capstone-digits.npz"


def capstone_test_set() -> dict:
    """The images the grader runs the capstone's network on, their labels, what they are
    called and the accuracy asked for: the held-out digits beside these checks if there are
    any (with the pass mark ``minigrad held-out-digits`` measured for them), else the test
    split and :data:`CAPSTONE_ACCURACY`."""
    held_out = Path(__file__).with_name(HELD_OUT_FILE)
    if held_out.is_file():
        images, labels = read_digits_file(held_out)
        with np.load(held_out, allow_pickle=False) as archive:
            mark = float(archive["pass_mark"]) if "pass_mark" in archive else CAPSTONE_ACCURACY
        return {"images": images, "labels": labels, "pass_mark": mark,
                "name": f"the {len(labels)} held-out images"}
    images, labels = load_digits("test", as_numpy=True)
    return {"images": images, "labels": labels, "pass_mark": CAPSTONE_ACCURACY,
            "name": f"the {len(labels)} test images"}


def capstone_answer(seed: int) -> dict:
    """What 08.5 is scored against: the test images and their labels, which the grader keeps
    (the student's process gets only the seed), the training images of the probe, and the
    seed, which fixes the run whose steps the grader replays (:func:`capstone_run`)."""
    probe = load_digits("train", as_numpy=True)[0][:PROBE_IMAGES]
    return {**capstone_test_set(), "probe": probe, "seed": seed}


def capstone_run(seed: int) -> step_replay.Run:
    """What the grader fixes of a capstone run with ``seed``, for its replay."""
    images, labels = load_digits("train", as_numpy=True)
    return step_replay.Run(
        start=lambda widths: capstone_start(seed, widths),
        batches=lambda epoch: capstone_batches(seed, epoch, len(images)),
        sampled=lambda steps: capstone_sampled_steps(seed, steps),
        images=images, labels=labels, widths=CAPSTONE_WIDTHS, epochs=CAPSTONE_EPOCHS)


_LIBRARY = "the capstone's layers and optimizer must be your own"
_PATCH = "the capstone may use minigrad, not inspect or change it"
CAPSTONE_RULES = SourceRules(
    function="capstone",
    final_return="return capstone_report(model, layers, optimizer, losses, recorder)",
    given=("capstone_report", "_from_library", "LIBRARY_NODES"),
    modules=("__future__", "math", "time", "sys", "typing", "functools", "itertools", "collections",
             "dataclasses", "numpy", "numpy.*", "minigrad", "minigrad.nn",
             "minigrad.nn.functional", "minigrad.autograd", "minigrad.data", "minigrad.optim"),
    attributes={**dict.fromkeys(("conv2d", "Conv2d", "max_pool2d", "MaxPool2d", "avg_pool2d",
                                 "AvgPool2d", "linear", "Linear", "SGD", "Adam", "AdamW",
                                 "cross_entropy", "CrossEntropyLoss",
                                 "load", "fromfile", "frombuffer", "loadtxt", "genfromtxt"),
                                _LIBRARY),
                **dict.fromkeys(("_function", "_node_class", "next_functions", "modules",
                                 "_getframe", "settrace", "setprofile"),
                                _PATCH)},
    names={**dict.fromkeys(("optim", "ops", "kernels", "exercises", "autograd", "enable_grad",
                            "set_grad_enabled"), _LIBRARY),
           **dict.fromkeys(("getattr", "setattr", "delattr", "__import__", "exec", "eval",
                            "compile", "globals", "locals", "vars", "open", "__dict__",
                            "__globals__", "__builtins__", "__subclasses__", "__code__",
                            "__module__", "__name__", "__qualname__", "__bases__", "__mro__",
                            "__class__", "__setattr__", "__getattribute__", "__getattr__",
                            "builtins", "importlib", "inspect"), _PATCH)},
    imports={"grad": _LIBRARY},
)
"""The capstone's source rules: early, readable messages for the usual ways to miss the point
(``F.conv2d``, ``optim.AdamW``, an edited report), read by ``check`` and by the grader before
anything runs. They are not what holds: in the grader the capstone runs where the library's
layers and optimizers do not exist (``CAPSTONE_RUNTIME``) and its answers are scored against
labels it never gets. (``Linear``, ``Conv2d``, ``MaxPool2d`` are fine as names of *your*
classes: the rule refuses them as attributes, like ``nn.Conv2d``, and as imports.)"""


def _check_capstone_source(source: str) -> Optional[str]:
    template = Path(__file__).with_name("lesson08.py").read_text(encoding="utf-8")
    return check_source(source, template, CAPSTONE_RULES)


def _compare_capstone(expected: dict, got: Any, args: tuple = ()) -> Optional[str]:
    """The student's ``layers`` run here (:mod:`minigrad.exercises.network`) on images their
    process never had, ≥ 97 % right; ``model`` gives the same scores as ``layers``; and its
    weights come from a run the grader fixes, of which it replays sampled steps
    (:mod:`minigrad.exercises.step_replay`). First, readable messages for a network that is
    not the student's own."""
    keys = ("layers", "probe_scores", "probe_gradients", "losses", "your_functions",
            "library_layers", "library_optimizers")
    if not isinstance(got, dict) or any(key not in got for key in keys):
        return ("expected the dict of capstone_report(model, layers, optimizer, losses, "
                f"recorder), got {type(got).__name__}: keep the given last line")
    if got["library_layers"]:
        return (f"your network uses {', '.join(map(str, got['library_layers']))}: the "
                f"capstone's layers must be your own Functions")
    if got["library_optimizers"]:
        return (f"your optimizer is (or inherits from) minigrad.optim's "
                f"{', '.join(map(str, got['library_optimizers']))}: write its step yourself "
                f"(08.4)")
    if len(got["your_functions"]) < 3:
        return (f"your network's graph holds {len(got['your_functions'])} Function(s) of your "
                f"own ({', '.join(map(str, got['your_functions'])) or 'none'}): it needs your "
                f"Conv2d, your MaxPool2d and your Linear")
    losses = got["losses"]
    if not isinstance(losses, list) or not losses or \
            not all(isinstance(v, (int, float)) and math.isfinite(v) for v in losses):
        return "losses must be a non-empty list of finite numbers (the loss of each epoch)"
    try:
        layers = network.read_layers(got["layers"], (1, 8, 8), 10)
    except network.NetworkError as error:
        return f"layers: {error}"
    probe = network.forward(layers, expected["probe"])
    if not np.isfinite(probe).all():
        return "layers' scores overflow (inf or nan) on the first training images"
    scores = got["probe_scores"]
    if not isinstance(scores, np.ndarray) or scores.shape != probe.shape:
        return (f"expected your model's scores for the first {PROBE_IMAGES} training images, "
                f"shape {probe.shape}: keep the given last line")
    gap = float(np.abs(scores - probe).max()) if np.isfinite(scores).all() else math.inf
    if not gap <= 1e-3 * (1.0 + float(np.abs(probe).max())):
        return (f"layers does not describe your model: on the first {PROBE_IMAGES} training "
                f"images their scores differ by up to {gap:.3g}. Check the order of the "
                f"layers, each conv's stride and padding, and that every weight is the one your "
                f"model uses (conv weight (out, in, k, k), linear weight (out, in))")
    kinds = {layer.kind for layer in layers}
    if "conv" not in kinds or not kinds & {"maxpool", "avgpool"}:
        return ("the capstone is a convolutional network: layers needs at least one conv and "
                "one pooling layer")
    problem = _gradient_problem(layers, expected, got["probe_gradients"])
    if problem:
        return problem
    predictions = network.forward(layers, expected["images"]).argmax(axis=1)
    accuracy = float((predictions == expected["labels"]).mean())
    if not accuracy >= expected["pass_mark"]:
        return low_accuracy(accuracy, expected["pass_mark"], expected["name"], losses)
    return step_replay.training_problem(layers, got.get("run"),
                                        capstone_run(int(expected.get("seed", 0))))


def low_accuracy(accuracy: float, pass_mark: float, images: str, losses: list) -> str:
    """What to say of a network whose pieces pass the probe but whose accuracy is too low:
    a loss that rose over the epochs is a training loop that climbs (most often gradients
    that were never cleared); one that fell too little needs more or better training."""
    said = (f"your network gets {accuracy:.1%} of {images} right, below {pass_mark:.1%} "
            f"(losses from {losses[0]:.3g} to {losses[-1]:.3g})")
    if losses[-1] >= losses[0]:
        return (f"{said}: the loss rose, and your pieces' gradients are right, so the training "
                "loop goes the wrong way. Most often the gradients are never cleared: backward "
                "adds into .grad, so without zero_grad before each backward every step follows "
                "the sum of all the gradients so far (05.6 checks the same loop)")
    return (f"{said}: your pieces' gradients are right; train longer or adjust the learning "
            "rate")


def _gradient_problem(layers: list, expected: dict, got: Any) -> Optional[str]:
    """None if the student's backward gave, for every weight and bias of ``layers``, the
    gradient of the probe batch's loss that the grader's own backpropagation gives (each
    within 1e-3 of its size: float32 against float64, and a tie in a max pool)."""
    names = [f"layer {index} ({layer.kind}) {part}" for index, layer in enumerate(layers)
             if layer.weight is not None for part in ("weight", "bias")]
    if not isinstance(got, list) or len(got) != len(names):
        return (f"expected the gradients of your {len(names)} weights and biases: keep the "
                f"given last line, with your model's own Parameters in layers")
    right = network.gradients(layers, expected["probe"], PROBE_WEIGHTS / PROBE_IMAGES)
    for name, mine, truth in zip(names, got, right):
        if not isinstance(mine, np.ndarray) or mine.shape != truth.shape:
            return (f"{name}: no gradient reached it from your model's backward (give your "
                    f"model's own Parameters in layers, not copies or views of them)")
        gap = float(np.linalg.norm(mine - truth)) if np.isfinite(mine).all() else math.inf
        if not gap <= 1e-3 * float(np.linalg.norm(truth)) + 1e-12:
            return (f"{name}: your backward's gradient of the loss on the first "
                    f"{PROBE_IMAGES} training images is off by {gap:.3g} (its size: "
                    f"{float(np.linalg.norm(truth)):.3g}): gradcheck that piece's backward")
    return None


# ---------------------------------------------------------------------------- the list
def _visible_sgd() -> list[tuple]:
    one = ([np.array([1.0, -2.0])], [np.array([1.0, 1.0])], [np.array([0.5, 0.5])],
           [{"params": [0]}], {"lr": 0.1, "momentum": 0.9, "dampening": 0.5,
                               "weight_decay": 0.1}, 3)
    two = ([np.array([2.0]), np.array([[1.0, -1.0]])], [np.array([1.0]), np.array([[0.5, 2.0]])],
           [np.array([0.0]), np.array([[1.0, 0.0]])],
           [{"params": [0], "lr": 0.2, "weight_decay": 0.5},
            {"params": [1], "momentum": 0.5, "dampening": 0.2}],
           {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.1}, 4)
    return [one, two]


def _visible_adamw() -> list[tuple]:
    one = ([np.array([1.0, -1.0])], [np.array([1.0, 2.0])], [np.array([0.5, 0.0])],
           [{"params": [0]}], {"lr": 0.1, "weight_decay": 0.5}, 3)
    two = ([np.array([0.5]), np.array([[2.0, -1.0]])], [np.array([1.0]), np.array([[1.0, 0.5]])],
           [np.array([1.0]), np.array([[0.0, 0.0]])],
           [{"params": [0], "lr": 0.05, "betas": (0.8, 0.99)},
            {"params": [1], "weight_decay": 1.0}],
           {"lr": 0.1, "weight_decay": 0.1}, 4)
    return [one, two]


OPTIMIZER_PARTS = ("after step 1", "after the last step")

EXERCISES = [
    Exercise(
        id="08.1", function="sgd_optimizer", points=4,
        title="SGD with momentum and weight decay, an Optimizer",
        reading="3. Momentum, weight decay and the optimizer",
        idea="Loop over the parameter groups and each group's params; the decay joins the "
             "gradient before the momentum buffer, the buffer lives in the optimizer's state of "
             "p, and p changes in place.",
        hint="d = ∇p + λ·p; buf = d at p's first step, else buf = μ·buf + (1 − τ)·d; "
             "p ← p − lr·buf (with μ = 0: p ← p − lr·d); p changes in place.",
        visible=_visible_sgd,
        hidden=lambda rng: [_sgd_case(rng) for _ in range(3)],
        compare=_optimizer_comparator(SGD_MISTAKES),
        parts=OPTIMIZER_PARTS,
    ),
    Exercise(
        id="08.2", function="l2_relu_batch_gradients", points=5,
        title="The L2 objective of a ReLU network, on a batch",
        reading="1. The L2 objective and its graph",
        idea="Go backward from O one matrix at a time; each weight gets two contributions, one "
             "through the network and one from the penalty; the batch is a sum over rows, and "
             "the mean's 1/B enters once.",
        hint="dO = (O − Y)/B; dW2 = dOᵀ H + λW2; dZ = (dO W2) ⊙ (Z > 0); dW1 = dZᵀ X + λW1; "
             "J = Σ(O − Y)²/(2B) + λ/2 (‖W1‖² + ‖W2‖²).",
        visible=lambda: [_l2_case(np.random.default_rng(801), dead_unit=True),
                         _l2_case(np.random.default_rng(802))],
        hidden=lambda rng: [_l2_case(rng, dead_unit=True), _l2_case(rng), _l2_case(rng)],
        compare=comparator(L2_MISTAKES, compare=_CLOSE),
        parts=("J", "dJ/dW1", "dJ/dW2"),
    ),
    Exercise(
        id="08.3", function="accumulate_microbatches", points=2,
        title="Micro-batches of unequal size",
        reading="9. Micro-batches of unequal size",
        idea="Each micro-batch's gradient is a mean over its own examples; the batch's mean "
             "counts every example once.",
        hint="g = Σ_i n_i g_i / Σ_i n_i.",
        visible=lambda: [([np.array([1.0, 0.0]), np.array([0.0, 1.0])], [3, 1]),
                         ([np.array([[2.0]]), np.array([[4.0]]), np.array([[8.0]])], [1, 1, 2])],
        hidden=lambda rng: [_micro_case(rng) for _ in range(4)],
        compare=comparator(MICRO_MISTAKES, names=("grads", "counts"), compare=_CLOSE,
                           first_only=True),
    ),
    Exercise(
        id="08.4", function="adamw_optimizer", points=4,
        title="AdamW, an Optimizer",
        reading="4. Adam with L2 is not AdamW",
        idea="Two running averages per parameter, corrected for starting at zero; the decay "
             "shrinks the weight itself and never touches the gradient the averages see.",
        hint="p ← p·(1 − lr·λ); t ← t + 1; m = β₁m + (1 − β₁)g; v = β₂v + (1 − "
             "β₂)g²; m̂ = m/(1 − β₁ᵗ), v̂ = v/(1 − β₂ᵗ); p ← p − lr·m̂/(√v̂ + ε); p "
             "changes in place.",
        visible=_visible_adamw,
        hidden=lambda rng: [_adamw_case(rng) for _ in range(3)],
        compare=_optimizer_comparator(ADAMW_MISTAKES),
        parts=OPTIMIZER_PARTS,
    ),
    Exercise(
        id="08.5", function="capstone", points=5,
        title="Capstone: a CNN made of your own pieces",
        reading="10. The capstone: a network that is all yours",
        idea="Check each piece first (gradcheck it in float64 on a tiny input), then assemble: "
             "two conv–ReLU–pool blocks, a linear layer, your optimizer, a few epochs.",
        hint="conv 1→16 (3×3, padding 1), ReLU, pool 2 → conv 16→32, ReLU, pool 2 → flatten → "
             "linear 128→10; loss = the mean over the batch of −log softmax(scores) at each "
             "label; weights from capstone_start, batches from capstone_batches, every step "
             "taken by the given recorder; AdamW lr 0.01 with a cosine decay, 8 epochs.",
        visible=lambda: [(0,)],
        hidden=lambda rng: [(int(rng.integers(1, 10_000)),)],
        compare=_compare_capstone,
        answer=capstone_answer,
        runtime=CAPSTONE_RUNTIME,
        limits=CAPSTONE_LIMITS,
        source_check=_check_capstone_source,
        timeout=300.0,  # two runs; 30-80 s each for an honest network on a busy 2-core machine
    ),
]
