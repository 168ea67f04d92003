"""The grader's replay of a capstone's training run: do the weights it hands in follow from the
grader's own starting weights by the student's steps?

The run is fixed by its seed: the initial weights (``capstone_start``), every epoch's batches
(``capstone_batches``), and the loss, the mean over a batch of B images of
−log softmax(scores)[label], whose gradient with respect to the scores is
(softmax(scores) − onehot(label)) / B. The student's run sends a checkpoint at the start of
each epoch and one after the last: the weights and biases θ, the optimizer's state of each,
and its settings for the epoch. From each checkpoint the grader takes every step of the
epoch itself, in float64 — the gradient by :func:`network.gradients`, then the update:

* AdamW (settings with ``betas``): θ ← θ(1 − ηλ); t ← t + 1; m ← β₁m + (1 − β₁)g;
  v ← β₂v + (1 − β₂)g²; θ ← θ − η/(1 − β₁ᵗ) · m/(√v/√(1 − β₂ᵗ) + ε);
* SGD (settings with ``momentum``): d = g + λθ; buf ← d at the first step, else
  μ·buf + (1 − τ)d; θ ← θ − η·buf (with μ = 0, θ ← θ − η·d);

and expects the next checkpoint's weights and state within :data:`TOLERANCE` of where it
arrives (the student's run is float32: each array's distance ‖mine − replayed‖ is at most
TOLERANCE·‖replayed‖ + 1e-7·√size, for arrays near zero); a float32 run of the
reference arrives within 1e-4. The first checkpoint must hold the
grader's initial weights and an empty state, the last one the weights of ``layers``, and the
replayed loss must fall from the first epoch to the last.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable, Optional

import numpy as np

from minigrad.exercises import network

#: Each replayed array's distance from the checkpoint's, relative to its size.
TOLERANCE = 1e-3
_FLOOR = 1e-7


class Replay:
    """One run's facts the grader fixes: ``start(widths)`` the initial weights,
    ``batches(epoch)`` each epoch's rows, the training ``images`` and ``labels``, the
    allowed ``widths`` and ``epochs`` (least, most)."""

    def __init__(self, start: Callable[[tuple[int, int]], list[np.ndarray]],
                 batches: Callable[[int], list[np.ndarray]], images: np.ndarray,
                 labels: np.ndarray, widths: tuple[tuple[int, ...], tuple[int, ...]],
                 epochs: tuple[int, int]) -> None:
        self.start, self.batches = start, batches
        self.images, self.labels = images.astype(np.float64), np.asarray(labels)
        self.widths, self.epochs = widths, epochs


def schema_layers(params: list[np.ndarray]) -> list[tuple]:
    """The capstone's architecture with these six weights and biases, as ``layers``."""
    w1, b1, w2, b2, w3, b3 = params
    return [("conv", w1, b1, 1, 1), ("relu",), ("maxpool", 2), ("conv", w2, b2, 1, 1),
            ("relu",), ("maxpool", 2), ("flatten",), ("linear", w3, b3)]


def _schema_problem(layers: list[network.Layer], replay: Replay) -> Optional[str]:
    kinds = [layer.kind for layer in layers]
    expected = [entry[0] for entry in schema_layers([None] * 6)]
    widths = (layers[0].weight.shape[0] if layers and layers[0].weight is not None else 0,
              layers[3].weight.shape[0] if len(layers) > 3 and layers[3].weight is not None
              else 0)
    shaped = (kinds == expected and all(layers[i].stride == 1 and layers[i].padding == 1
                                        for i in (0, 3))
              and all(layer.size == 2 for layer in layers if layer.kind == "maxpool")
              and layers[0].weight.shape[2] == 3 and layers[3].weight.shape[2] == 3)
    if not shaped or widths[0] not in replay.widths[0] or widths[1] not in replay.widths[1]:
        return ("the capstone's network is conv 3×3 (1 → c₁, padding 1), ReLU, max-pool 2, conv "
                "3×3 (c₁ → c₂, padding 1), ReLU, max-pool 2, flatten, linear (4·c₂ → 10), with "
                f"c₁ in {replay.widths[0]} and c₂ in {replay.widths[1]} (CAPSTONE_WIDTHS): "
                "the grader replays your training on it")
    return None


def training_problem(layers: list[network.Layer], checkpoints: Any,
                     replay: Replay) -> Optional[str]:
    """None if ``checkpoints`` is a run from the grader's start to ``layers`` whose every
    step the grader's replay repeats (see the module docstring); else what is wrong."""
    problem = _schema_problem(layers, replay)
    if problem:
        return problem
    final = [array for layer in layers if layer.weight is not None
             for array in (layer.weight, layer.bias)]
    least, most = replay.epochs
    if not isinstance(checkpoints, list) or not least + 1 <= len(checkpoints) <= most + 1:
        count = len(checkpoints) if isinstance(checkpoints, list) else 0
        return (f"expected {least + 1} to {most + 1} checkpoints (capstone_checkpoint at the "
                f"start of each of {least} to {most} epochs and after the last), got {count}: "
                f"the grader replays your training from them")
    runs = []
    for index, checkpoint in enumerate(checkpoints):
        read = _read_checkpoint(checkpoint, [array.shape for array in final])
        if isinstance(read, str):
            return f"checkpoint {index}: {read}"
        runs.append(read)
    widths = (final[0].shape[0], final[2].shape[0])
    start = replay.start(widths)
    if any(not np.array_equal(mine.astype(np.float32), given) for mine, given
           in zip(runs[0][0], start)) or any(runs[0][1]):
        return ("checkpoint 0 is not the start the grader gives: your run must begin from "
                "capstone_start(seed, widths), with an empty optimizer state")
    if any(not np.array_equal(mine, np.asarray(last, dtype=np.float64))
           for mine, last in zip(runs[-1][0], final)):
        return "the last checkpoint's weights are not those of layers: checkpoint after training"
    losses = []
    for epoch, ((params, state, settings), after) in enumerate(zip(runs, runs[1:])):
        replayed = _replay_epoch(params, state, settings, replay, epoch)
        if isinstance(replayed, str):
            return f"epoch {epoch}: {replayed}"
        found, found_state, loss = replayed
        losses.append(loss)
        problem = _distance_problem(found, found_state, after[0], after[1])
        if problem:
            return (f"epoch {epoch}: replayed from checkpoint {epoch} with the grader's backward "
                    f"and your optimizer's settings, the run does not arrive at checkpoint "
                    f"{epoch + 1}: {problem}. The grader takes every step of the epoch on the "
                    f"batches of capstone_batches(seed, {epoch}, …), in order")
    if not losses[-1] < losses[0]:
        return (f"the replayed training loss did not fall (from {losses[0]:.3g} in the first "
                f"epoch to {losses[-1]:.3g} in the last)")
    return None


def _read_checkpoint(checkpoint: Any, shapes: list[tuple]) -> Any:
    """(params, state, settings) in float64, or what is wrong with the checkpoint."""
    if not isinstance(checkpoint, dict) or any(key not in checkpoint for key in
                                               ("params", "state", "settings", "groups")):
        return "expected what capstone_checkpoint(layers, optimizer) returns"
    if checkpoint["groups"] != 1:
        return "your optimizer must have exactly one parameter group (model.parameters())"
    params, states = checkpoint["params"], checkpoint["state"]
    if not isinstance(params, list) or len(params) != len(shapes) or \
            not isinstance(states, list) or len(states) != len(shapes):
        return f"expected the {len(shapes)} weights and biases of layers, in order"
    read = []
    for array, shape in zip(params, shapes):
        if not isinstance(array, np.ndarray) or array.shape != shape or \
                not np.isfinite(array).all():
            return f"expected the {len(shapes)} weights and biases of layers, in order"
        read.append(array.astype(np.float64))
    state = []
    for entry, shape in zip(states, shapes):
        if not isinstance(entry, dict):
            return "the optimizer's state of each weight must be a dict"
        kept = {}
        for key, value in entry.items():
            if key == "step" and isinstance(value, np.ndarray) and value.size == 1:
                value = value.item()  # a step count kept in a tensor
            if key == "step" and isinstance(value, (int, float)) and not isinstance(value, bool):
                kept[key] = float(value)
            elif isinstance(value, np.ndarray) and value.shape == shape and \
                    np.isfinite(value).all():
                kept[key] = value.astype(np.float64)
            else:
                return (f"the optimizer's state {key!r} of a weight is not a finite array of "
                        f"its shape")
        state.append(kept)
    settings = _settings(checkpoint["settings"])
    if isinstance(settings, str):
        return settings
    return read, state, settings


def _settings(settings: Any) -> Any:
    if not isinstance(settings, dict):
        return "expected the optimizer's settings"
    if "betas" in settings:
        keys, kind = ("lr", "betas", "eps", "weight_decay"), "adamw"
    elif "momentum" in settings:
        keys, kind = ("lr", "momentum", "dampening", "weight_decay"), "sgd"
    else:
        return ("the grader replays AdamW (settings lr, betas, eps, weight_decay) or SGD (lr, "
                "momentum, dampening, weight_decay): your optimizer's group has neither")
    read: dict = {"kind": kind}
    for key in keys:
        value = settings.get(key)
        numbers = value if key == "betas" else [value]
        if not isinstance(numbers, (list, tuple)) or len(numbers) != (2 if key == "betas"
                                                                      else 1) or \
                not all(isinstance(n, (int, float)) and not isinstance(n, bool)
                        and math.isfinite(n) and 0 <= n <= 10 for n in numbers):
            return f"the optimizer's setting {key!r} must be a finite number between 0 and 10"
        read[key] = tuple(float(n) for n in numbers) if key == "betas" else float(value)
    return read


def _replay_epoch(params: list[np.ndarray], state: list[dict], settings: dict,
                  replay: Replay, epoch: int) -> Any:
    """(weights, state, mean loss) after the grader's own steps of ``epoch``."""
    params = [array.copy() for array in params]
    state = [{key: (value.copy() if isinstance(value, np.ndarray) else value)
              for key, value in entry.items()} for entry in state]
    shape = network.read_layers(schema_layers(params), (1, 8, 8), 10)
    total, count = 0.0, 0
    with np.errstate(all="ignore"):
        for rows in replay.batches(epoch):
            weights = iter(params)
            layers = [layer if layer.weight is None else
                      replace(layer, weight=next(weights), bias=next(weights))
                      for layer in shape]
            images, labels = replay.images[rows], replay.labels[rows]
            scores = network.forward(layers, images)
            scores = scores - scores.max(axis=1, keepdims=True)
            log_p = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
            total += float(-log_p[np.arange(len(rows)), labels].sum())
            count += len(rows)
            grad_scores = np.exp(log_p)
            grad_scores[np.arange(len(rows)), labels] -= 1.0
            grads = network.gradients(layers, images, grad_scores / len(rows))
            for index, grad in enumerate(grads):
                params[index] = _update(params[index], grad, state[index], settings)
            if not all(np.isfinite(array).all() for array in params):
                return "the replayed weights overflow"
    return params, state, total / count


def _update(p: np.ndarray, g: np.ndarray, state: dict, s: dict) -> np.ndarray:
    """One step of the reference optimizer on p (its state changes in place)."""
    lr, lam = s["lr"], s["weight_decay"]
    if s["kind"] == "adamw":
        (beta1, beta2), eps = s["betas"], s["eps"]
        p = p * (1 - lr * lam)
        t = state["step"] = state.get("step", 0.0) + 1
        m = state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * g
        v = state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * g * g
        return p - lr / (1 - beta1 ** t) * m / (np.sqrt(v) / math.sqrt(1 - beta2 ** t) + eps)
    d = g + lam * p
    if s["momentum"] != 0:
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = d.copy()
        else:
            state["momentum_buffer"] = (s["momentum"] * state["momentum_buffer"]
                                        + (1 - s["dampening"]) * d)
        d = state["momentum_buffer"]
    return p - lr * d


def _distance_problem(found: list[np.ndarray], found_state: list[dict],
                      mine: list[np.ndarray], mine_state: list[dict]) -> Optional[str]:
    """Where the checkpoint is further from the replay than TOLERANCE allows, if anywhere."""
    pairs = [(f"weight {index}", a, b) for index, (a, b) in enumerate(zip(found, mine))]
    for index, (replayed, sent) in enumerate(zip(found_state, mine_state)):
        for key, value in replayed.items():
            if key not in sent:
                return f"the optimizer's state of weight {index} lacks {key!r}"
            pairs.append((f"the optimizer's {key!r} of weight {index}",
                          np.asarray(value, dtype=np.float64), np.asarray(sent[key])))
    for name, replayed, sent in pairs:
        gap = float(np.linalg.norm(replayed - sent))
        size = float(np.linalg.norm(replayed))
        if not gap <= TOLERANCE * size + _FLOOR * math.sqrt(replayed.size):
            return f"{name} is off by {gap:.3g} (its size: {size:.3g})"
    return None
