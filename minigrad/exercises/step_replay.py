"""The grader's proof that a capstone's weights come from training: it replays sampled steps.

The run is fixed by the seed (``lesson08``'s given code): the architecture within a schema of
widths, the initial weights (``capstone_start``), every epoch's batches
(``capstone_batches``), the optimizer (AdamW, one parameter group) and the loss, the mean over
a batch of B images of −log softmax(scores)[label], whose gradient with respect to the scores
is (softmax(scores) − onehot(label)) / B. Of the run's T steps the grader replays S
(``capstone_sampled_steps``: the first, the last, two in each third), which the student's
``CapstoneRecorder`` kept: the state before the step (weights θ, and each one's AdamW state
t, m, v), the gradients g the student's backward gave, the settings, and the weights after.

**One step, replayed in float64.** The gradient: the grader's own backpropagation
(:func:`network.gradients`) at the recorded θ, on the step's batch, must be within
:data:`GRADIENT_TOLERANCE` of the recorded g (norm of the difference against the norm, per
array: float32 against float64, no amplification in one step). The update, from the recorded
θ, t, m, v and g:

    θ ← θ(1 − ηλ);  t ← t + 1;  m ← β₁m + (1 − β₁)g;  v ← β₂v + (1 − β₂)g²;
    θ ← θ − η/(1 − β₁ᵗ) · m/(√v/√(1 − β₂ᵗ) + ε)

must arrive at the recorded weights after, within :data:`STEP_TOLERANCE` of the step's own
size ‖θ_after − θ_before‖ (plus float32's rounding of θ). Replayed from the same m, v and g,
float32 and float64 differ by rounding only.

**Between two sampled steps.** If the step after a is b, the weights a left must be the
weights b starts from, exactly. If k steps lie between, t grows by k, and no weight may have
moved further than k AdamW steps can move it. The bound, per weight: m_t and v_t are
(1 − β₁)Σᵢ β₁^(t−i) gᵢ and (1 − β₂)Σᵢ β₂^(t−i) gᵢ², so by Cauchy–Schwarz (writing
β₁^j = (β₁/√β₂)^j · β₂^(j/2))

    |m_t| ≤ (1 − β₁) · √(Σ_{j<t} (β₁²/β₂)^j) · √(v_t / (1 − β₂)),

and the bias-corrected step |m̂_t| / (√v̂_t + ε) is at most

    C(t) = (1 − β₁)/(1 − β₁ᵗ) · √((1 − β₂ᵗ)/(1 − β₂)) · √(Σ_{j<t} (β₁²/β₂)^j),

whatever the gradients were (C(1) = 1; C(t) → 7.3 for β = (0.9, 0.999)). With the decay, one
step moves θ by at most η(λ|θ| + C(t)), and |θ| grows by at most ηC(t) a step. The run's lr
never rises (a rule of the run, checked at the sampled steps), so every step between a and b
has η ≤ η_a, and a weight may move by at most

    Σ_j η_a C(t_j) + η_a λ k (|θ_a| + Σ_j η_a C(t_j))         (j over the k steps between)

widened by a share :data:`SLACK`, plus float32's rounding. The first sampled step starts from
the grader's initial weights with an empty state; the last one's weights after are the
weights of ``layers``.

What this does not prove: the child knows the sampled steps when it runs (they follow from
the seed it is given), so a run could be moved anywhere within the bound between them; the
bound is loose while the lr is large (a few lr a step), tight when it has fallen.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable, Optional

import numpy as np

from minigrad.exercises import network

#: A recorded gradient's distance from the grader's, against the grader's size (per array).
GRADIENT_TOLERANCE = 1e-3
#: A recorded step's distance from the replayed one, against the step's size (per array).
STEP_TOLERANCE = 1e-3
#: float32's relative rounding of a weight, with room (its unit roundoff is 6e-8).
ROUNDING = 2.5e-7
#: The bound between sampled steps, widened by this share: an early step of a real run
#: moves a weight by C(t)·lr almost exactly (at t = 1, by ±lr), computed in float32.
SLACK = 1e-4
#: AdamW's settings the replay reads, and the names a weight's state may use.
SETTINGS = ("lr", "betas", "eps", "weight_decay")
STATE_NAMES = {"step": ("step", "t"), "m": ("m", "exp_avg"), "v": ("v", "exp_avg_sq")}


class Run:
    """What the grader fixes of a run with one seed: ``start(widths)`` the initial weights,
    ``batches(epoch)`` each epoch's rows, ``sampled(steps)`` the steps it replays, the
    training ``images`` and ``labels``, the allowed ``widths`` and ``epochs`` (least, most)."""

    def __init__(self, start: Callable[[tuple[int, int]], list[np.ndarray]],
                 batches: Callable[[int], list[np.ndarray]],
                 sampled: Callable[[int], list[int]], images: np.ndarray, labels: np.ndarray,
                 widths: tuple[tuple[int, ...], tuple[int, ...]],
                 epochs: tuple[int, int]) -> None:
        self.start, self.batches, self.sampled = start, batches, sampled
        self.images, self.labels = images.astype(np.float64), np.asarray(labels)
        self.widths, self.epochs = widths, epochs
        self.per_epoch = len(batches(0))


def schema_layers(params: list[np.ndarray]) -> list[tuple]:
    """The capstone's architecture with these six weights and biases, as ``layers``."""
    w1, b1, w2, b2, w3, b3 = params
    return [("conv", w1, b1, 1, 1), ("relu",), ("maxpool", 2), ("conv", w2, b2, 1, 1),
            ("relu",), ("maxpool", 2), ("flatten",), ("linear", w3, b3)]


def bound_factor(t: int, beta1: float, beta2: float) -> float:
    """C(t) of the module docstring: how far, in lr, one AdamW step at count t can move a
    weight (besides the decay)."""
    ratio = beta1 * beta1 / beta2
    series = float(t) if abs(ratio - 1.0) < 1e-12 else (1.0 - ratio ** t) / (1.0 - ratio)
    return ((1.0 - beta1) / (1.0 - beta1 ** t) * math.sqrt((1.0 - beta2 ** t) / (1.0 - beta2))
            * math.sqrt(series))


def training_problem(layers: list[network.Layer], run_report: Any, run: Run) -> Optional[str]:
    """None if ``run_report`` (the report's ``run``) is a run from the grader's start to
    ``layers`` whose sampled steps the grader repeats and whose states between them are no
    further apart than the steps between allow (see the module docstring); else what is
    wrong."""
    problem = _schema_problem(layers, run)
    if problem:
        return problem
    final = [array for layer in layers if layer.weight is not None
             for array in (layer.weight, layer.bias)]
    shapes = [array.shape for array in final]
    if not isinstance(run_report, dict) or not isinstance(run_report.get("records"), list):
        return ("expected your run's recorder in the last line (capstone_report(..., "
                "recorder)): the grader replays steps of your training from it")
    epochs, steps = run_report.get("epochs"), run_report.get("steps")
    least, most = run.epochs
    if not isinstance(epochs, int) or isinstance(epochs, bool) or not least <= epochs <= most:
        return f"train for {least} to {most} epochs (CAPSTONE_EPOCHS), got {epochs!r}"
    total = epochs * run.per_epoch
    if steps != total:
        return (f"{epochs} epochs are {total} steps of capstone_batches' batches, but the "
                f"recorder took {steps!r}: take every step with recorder.step(rows)")
    sampled = run.sampled(total)
    records = run_report["records"]
    if [record.get("step") if isinstance(record, dict) else None
            for record in records] != sampled:
        return (f"the recorder kept steps other than the ones the grader samples ({sampled}): "
                f"keep the given CapstoneRecorder and take every step with recorder.step(rows)")
    read = []
    for record in records:
        entry = _read_record(record, shapes, run)
        if isinstance(entry, str):
            return f"step {record['step']}: {entry}"
        read.append(entry)
    widths = (shapes[0][0], shapes[2][0])
    first = read[0]
    if any(not np.array_equal(mine, given.astype(np.float64)) for mine, given
           in zip(first["params"], run.start(widths))) or any(
               state["t"] != 0 or np.any(state["m"]) or np.any(state["v"])
               for state in first["state"]):
        return ("your run does not begin where the grader's does: the weights before the "
                f"first step must be capstone_start(seed, {widths}), with an empty optimizer "
                "state")
    if any(not np.array_equal(mine, np.asarray(last, dtype=np.float64))
           for mine, last in zip(read[-1]["after"], final)):
        return ("the weights after your run's last step are not those of layers: write "
                "layers with your model's own Parameters, after training")
    settings = read[0]["settings"]
    for entry in read:
        changed = [key for key in SETTINGS if key != "lr" and entry["settings"][key]
                   != settings[key]]
        if changed:
            return (f"step {entry['step']}: your optimizer's {', '.join(changed)} changed "
                    f"during the run; only the lr may change")
    for before, after in zip(read, read[1:]):
        if after["settings"]["lr"] > before["settings"]["lr"]:
            return (f"your lr rose from {before['settings']['lr']:.3g} (step {before['step']}) "
                    f"to {after['settings']['lr']:.3g} (step {after['step']}): it may fall or "
                    f"stay, never rise")
    for entry in read:
        problem = _step_problem(entry, run)
        if problem:
            return f"step {entry['step']}: {problem}"
    for before, after in zip(read, read[1:]):
        problem = _gap_problem(before, after)
        if problem:
            return problem
    return None


def _schema_problem(layers: list[network.Layer], run: Run) -> Optional[str]:
    kinds = [layer.kind for layer in layers]
    expected = [entry[0] for entry in schema_layers([None] * 6)]
    shaped = (kinds == expected
              and all(layers[i].stride == 1 and layers[i].padding == 1
                      and layers[i].weight.shape[2] == 3 for i in (0, 3))
              and all(layer.size == 2 for layer in layers if layer.kind == "maxpool"))
    if not shaped or layers[0].weight.shape[0] not in run.widths[0] or \
            layers[3].weight.shape[0] not in run.widths[1]:
        return ("the capstone's network is conv 3×3 (1 → c₁, padding 1), ReLU, max-pool 2, conv "
                "3×3 (c₁ → c₂, padding 1), ReLU, max-pool 2, flatten, linear (4·c₂ → 10), with "
                f"c₁ in {run.widths[0]} and c₂ in {run.widths[1]} (CAPSTONE_WIDTHS): "
                "the grader replays your training on it")
    return None


def _arrays(values: Any, shapes: list[tuple], what: str) -> Any:
    if not isinstance(values, list) or len(values) != len(shapes):
        return f"expected the {len(shapes)} {what} of layers' weights and biases, in order"
    read = []
    for value, shape in zip(values, shapes):
        if not isinstance(value, np.ndarray) or value.shape != shape or \
                value.dtype.kind != "f" or not np.isfinite(value).all():
            return (f"expected the {len(shapes)} {what} of layers' weights and biases, in "
                    f"order, as finite arrays of their shapes")
        read.append(value.astype(np.float64))
    return read


def _read_state(entry: Any, shape: tuple) -> Any:
    """A weight's AdamW state as {"t", "m", "v"} (zeros when empty), or what is wrong."""
    if not isinstance(entry, dict):
        return "the optimizer's state of each weight must be a dict"
    if not entry:
        return {"t": 0, "m": np.zeros(shape), "v": np.zeros(shape)}
    read: dict = {}
    for name, keys in STATE_NAMES.items():
        found = [key for key in keys if key in entry]
        if len(found) != 1:
            return (f"the optimizer's state of a weight must hold its step count and m and v "
                    f"under one of the names {', '.join(map(repr, keys))} each (08.4), has "
                    f"{sorted(entry)}")
        value = entry[found[0]]
        if name == "step":
            if isinstance(value, np.ndarray) and value.size == 1:
                value = value.item()
            if not isinstance(value, (int, float)) or isinstance(value, bool) or \
                    not float(value).is_integer() or value < 0:
                return "the optimizer's step count of a weight must be a whole number"
            read["t"] = int(value)
        elif isinstance(value, np.ndarray) and value.shape == shape and \
                np.isfinite(value).all() and (name == "m" or (value >= 0).all()):
            read[name] = value.astype(np.float64)
        else:
            return f"the optimizer's {found[0]!r} of a weight is not a finite array of its shape"
    return read


def _read_settings(settings: Any) -> Any:
    if not isinstance(settings, dict) or any(key not in settings for key in SETTINGS):
        return ("the grader replays AdamW (08.4): your optimizer's group needs lr, betas, eps "
                "and weight_decay")
    read: dict = {}
    for key in SETTINGS:
        value = settings[key]
        numbers = value if key == "betas" else [value]
        if not isinstance(numbers, (list, tuple)) or \
                len(numbers) != (2 if key == "betas" else 1) or \
                not all(isinstance(n, (int, float)) and not isinstance(n, bool)
                        and math.isfinite(n) and 0 <= n <= 1 for n in numbers):
            return f"the optimizer's setting {key!r} must be a number between 0 and 1"
        read[key] = tuple(float(n) for n in numbers) if key == "betas" else float(value)
    if not read["betas"][0] < 1 or not 0 < read["betas"][1] < 1:
        return "the optimizer's betas must be below 1 (and β₂ above 0)"
    return read


def _read_record(record: dict, shapes: list[tuple], run: Run) -> Any:
    """The record in float64, as a dict, or what is wrong with it."""
    if any(key not in record for key in ("rows", "groups", "settings", "before", "gradients",
                                         "after")) or not isinstance(record["before"], dict):
        return "expected what the given CapstoneRecorder keeps"
    if record["groups"] != 1:
        return "your optimizer must have exactly one parameter group (model.parameters())"
    step = record["step"]
    epoch, index = divmod(step, run.per_epoch)
    rows = record["rows"]
    if not isinstance(rows, np.ndarray) or not np.array_equal(rows, run.batches(epoch)[index]):
        return (f"its batch is not batch {index} of capstone_batches(seed, {epoch}, …): take "
                f"the batches in their order")
    entry: dict = {"step": step, "rows": run.batches(epoch)[index]}
    for key, what in (("after", "weights after the step"), ("gradients", "gradients")):
        entry[key] = _arrays(record[key], shapes, what)
        if isinstance(entry[key], str):
            return entry[key]
    entry["params"] = _arrays(record["before"].get("params"), shapes, "weights before the step")
    if isinstance(entry["params"], str):
        return entry["params"]
    states = record["before"].get("state")
    if not isinstance(states, list) or len(states) != len(shapes):
        return f"expected the optimizer's state of each of the {len(shapes)} weights"
    entry["state"] = []
    for state, shape in zip(states, shapes):
        read = _read_state(state, shape)
        if isinstance(read, str):
            return read
        entry["state"].append(read)
    if len({state["t"] for state in entry["state"]}) != 1 or entry["state"][0]["t"] != step:
        return (f"every weight's step count before step {step} must be {step} (one step of "
                f"your optimizer for each recorder.step)")
    entry["settings"] = _read_settings(record["settings"])
    if isinstance(entry["settings"], str):
        return entry["settings"]
    return entry


def _loss_gradients(params: list[np.ndarray], rows: np.ndarray, run: Run) -> list[np.ndarray]:
    """The grader's gradients of the mean cross-entropy of the batch ``rows`` at ``params``."""
    shape = network.read_layers(schema_layers(params), (1, 8, 8), 10)
    weights = iter(params)
    layers = [layer if layer.weight is None else
              replace(layer, weight=next(weights), bias=next(weights)) for layer in shape]
    images, labels = run.images[rows], run.labels[rows]
    scores = network.forward(layers, images)
    scores = scores - scores.max(axis=1, keepdims=True)
    grad_scores = np.exp(scores)
    grad_scores /= grad_scores.sum(axis=1, keepdims=True)
    grad_scores[np.arange(len(rows)), labels] -= 1.0
    return network.gradients(layers, images, grad_scores / len(rows))


def adamw_step(p: np.ndarray, g: np.ndarray, state: dict, s: dict) -> np.ndarray:
    """θ after one AdamW step from ``state`` (t, m, v) with gradient g, settings ``s``."""
    lr, lam, (beta1, beta2), eps = s["lr"], s["weight_decay"], s["betas"], s["eps"]
    t = state["t"] + 1
    m = beta1 * state["m"] + (1 - beta1) * g
    v = beta2 * state["v"] + (1 - beta2) * g * g
    p = p * (1 - lr * lam)
    return p - lr / (1 - beta1 ** t) * m / (np.sqrt(v) / math.sqrt(1 - beta2 ** t) + eps)


def _step_problem(entry: dict, run: Run) -> Optional[str]:
    """Where the sampled step's gradients or update differ from the grader's replay."""
    with np.errstate(all="ignore"):
        truth = _loss_gradients(entry["params"], entry["rows"], run)
    for index, (mine, right) in enumerate(zip(entry["gradients"], truth)):
        gap, size = float(np.linalg.norm(mine - right)), float(np.linalg.norm(right))
        if not gap <= GRADIENT_TOLERANCE * size + 1e-9 * math.sqrt(right.size):
            return (f"the gradient of weight {index} your backward gave is off by {gap:.3g} "
                    f"(its size: {size:.3g}) from the grader's, at the weights before the step "
                    f"on its batch")
    for index, (p, g, state, after) in enumerate(zip(entry["params"], entry["gradients"],
                                                     entry["state"], entry["after"])):
        replayed = adamw_step(p, g, state, entry["settings"])
        gap = float(np.linalg.norm(after - replayed))
        size = float(np.linalg.norm(replayed - p))
        rounding = ROUNDING * float(np.linalg.norm(replayed)) + 1e-12 * math.sqrt(p.size)
        if not gap <= STEP_TOLERANCE * size + rounding:
            return (f"from the state before it, AdamW with your settings and your gradients "
                    f"moves weight {index} by {size:.3g}, but your step arrives {gap:.3g} away "
                    f"from there (check your optimizer against 08.4)")
    return None


def _gap_problem(before: dict, after: dict) -> Optional[str]:
    """Whether the state after sampled step a can lead to the state before sampled step b
    in the b − a − 1 steps between (see the module docstring)."""
    a, b = before["step"], after["step"]
    between = b - a - 1
    if between == 0:
        if any(not np.array_equal(x, y) for x, y in zip(before["after"], after["params"])):
            return (f"the weights after step {a} are not the ones step {b} starts from: the "
                    f"steps follow each other")
        return None
    if after["state"][0]["t"] != before["state"][0]["t"] + 1 + between:
        return (f"between steps {a} and {b} your optimizer's step count did not grow by one "
                f"a step")
    s = before["settings"]
    lr, lam, (beta1, beta2) = s["lr"], s["weight_decay"], s["betas"]
    t_after_a = before["state"][0]["t"] + 1
    reach = lr * sum(bound_factor(t, beta1, beta2)
                     for t in range(t_after_a + 1, t_after_a + between + 1))
    for index, (x, y) in enumerate(zip(before["after"], after["params"])):
        size = np.abs(x) + reach
        allowed = (1 + SLACK) * (reach + lr * lam * between * size) \
            + ROUNDING * (between + 1) * size + 1e-12
        moved = np.abs(y - x)
        if (moved > allowed).any():
            worst = int(np.argmax(moved - allowed))
            return (f"between steps {a} and {b} ({between} steps), weight {index} moved by up "
                    f"to {moved.reshape(-1)[worst]:.3g}, where {between} AdamW steps with lr "
                    f"≤ {lr:.3g} can move it by at most {allowed.reshape(-1)[worst]:.3g}: the "
                    f"run between the sampled steps is not a run of your optimizer")
    return None
