"""The capstone proves training: the grader replays the run the checkpoints describe, from its
own initial weights on its own batches, with its own backward and the declared optimizer, and
refuses weights that did not come from that run (pasted, solved in closed form, recorded for
another seed, stepped along wrong gradients), before it counts them right."""

from __future__ import annotations

import copy
import time

import numpy as np
import pytest

from minigrad.data import load_digits
from minigrad.exercises import network, training_replay
from minigrad.exercises.lessons import lesson08 as reference
from minigrad.exercises.lessons.lesson08_checks import EXERCISES, capstone_answer, capstone_replay

COMPARE = next(exercise for exercise in EXERCISES if exercise.id == "08.5").compare
SEED = 3


@pytest.fixture(scope="module")
def honest() -> dict:
    return reference.capstone(SEED)


def _judge(report: dict, seed: int = SEED) -> str | None:
    return COMPARE(capstone_answer(seed), report, (seed,))


def _with_final(report: dict, params: list[np.ndarray]) -> dict:
    """``report`` whose layers and last checkpoint hold ``params`` (the report stays
    self-consistent: its probe scores and gradients are those of the new weights)."""
    forged = copy.deepcopy(report)
    layers = training_replay.schema_layers([np.asarray(p, dtype=np.float32) for p in params])
    forged["layers"] = layers
    forged["checkpoints"][-1]["params"] = [np.asarray(p, dtype=np.float32) for p in params]
    read = network.read_layers(layers, (1, 8, 8), 10)
    probe = capstone_answer(SEED)["probe"]
    forged["probe_scores"] = network.forward(read, probe)
    forged["probe_gradients"] = [g.astype(np.float32) for g in network.gradients(
        read, probe, reference.PROBE_WEIGHTS / reference.PROBE_IMAGES)]
    return forged


def test_the_reference_run_is_replayed_and_passes(honest: dict) -> None:
    assert len(honest["checkpoints"]) == 9
    assert _judge(honest) is None


def test_the_reference_run_arrives_where_the_replay_does_within_a_tenth_of_the_tolerance(
        honest: dict) -> None:
    replay = capstone_replay(SEED)
    shapes = [array.shape for array in honest["checkpoints"][0]["params"]]
    runs = [training_replay._read_checkpoint(c, shapes) for c in honest["checkpoints"]]
    params, state, _ = training_replay._replay_epoch(*runs[0], replay, 0)
    for found, sent in zip(params, runs[1][0]):
        assert np.linalg.norm(found - sent) <= 0.1 * training_replay.TOLERANCE * \
            np.linalg.norm(found)


def test_pasted_weights_are_refused(honest: dict) -> None:
    """The run's last weights swapped for a network trained elsewhere (another seed's run,
    97 %+ accurate): the last epoch's replay does not arrive there."""
    other = reference.capstone(SEED + 1)
    message = _judge(_with_final(honest, other["checkpoints"][-1]["params"]))
    assert message is not None and "epoch 7" in message and "does not arrive" in message, \
        message


def test_a_closed_form_head_is_refused(honest: dict) -> None:
    """The honest convs, and the linear layer solved by ridge regression on their pooled
    features (accurate, never stepped to): refused at the last epoch."""
    params = [np.asarray(p, dtype=np.float64) for p in honest["checkpoints"][-1]["params"]]
    images, labels = load_digits("train", as_numpy=True)
    body = network.read_layers(training_replay.schema_layers(params)[:7], (1, 8, 8), 128)
    pooled = np.hstack([network.forward(body, images), np.ones((len(images), 1))])
    gram = pooled.T @ pooled
    solved = np.linalg.solve(gram + 1e-3 * np.eye(len(gram)), pooled.T @ np.eye(10)[labels]).T
    message = _judge(_with_final(honest, params[:4] + [solved[:, :-1], solved[:, -1]]))
    assert message is not None and "does not arrive at checkpoint 8" in message, message


def test_a_run_of_other_weights_from_the_start_is_refused(honest: dict) -> None:
    """Checkpoints that all hold the final weights (no run at all): the first is not the
    grader's start."""
    forged = copy.deepcopy(honest)
    for checkpoint in forged["checkpoints"]:
        checkpoint["params"] = [p.copy() for p in honest["checkpoints"][-1]["params"]]
        checkpoint["state"] = [{} for _ in checkpoint["params"]]
    message = _judge(forged)
    assert message is not None and message.startswith("checkpoint 0 is not the start"), message


def test_a_recorded_run_for_another_seed_is_refused(honest: dict) -> None:
    """A lookup table of runs: the run of seed 3 handed in for seed 4 starts elsewhere."""
    message = _judge(honest, seed=SEED + 1)
    assert message is not None and message.startswith("checkpoint 0 is not the start"), message


def test_no_checkpoints_is_refused(honest: dict) -> None:
    forged = {**honest, "checkpoints": []}
    message = _judge(forged)
    assert message is not None and "expected 5 to 11 checkpoints" in message, message


def test_a_step_along_a_wrong_gradient_is_refused(honest: dict) -> None:
    """One epoch's state and weights shifted as a few steps along a gradient 10 % off
    would: the replay of that epoch does not arrive."""
    forged = copy.deepcopy(honest)
    checkpoint = forged["checkpoints"][4]
    start = honest["checkpoints"][3]["params"]
    checkpoint["params"] = [p + 0.1 * (p - s) for p, s in zip(checkpoint["params"], start)]
    message = _judge(forged)
    assert message is not None and "epoch 3" in message and "does not arrive" in message, \
        message


def test_an_optimizer_the_replay_does_not_know_is_named(honest: dict) -> None:
    forged = copy.deepcopy(honest)
    for checkpoint in forged["checkpoints"]:
        checkpoint["settings"] = {"lr": 0.01}
    message = _judge(forged)
    assert message is not None and "AdamW (settings lr, betas, eps, weight_decay) or SGD" \
        in message, message


def test_a_network_outside_the_schema_is_refused(honest: dict) -> None:
    forged = copy.deepcopy(honest)
    forged["layers"] = forged["layers"][:2] + [("avgpool", 2)] + forged["layers"][3:]
    layers = network.read_layers(forged["layers"], (1, 8, 8), 10)
    message = training_replay.training_problem(layers, forged["checkpoints"],
                                               capstone_replay(SEED))
    assert message is not None and "CAPSTONE_WIDTHS" in message, message


def test_finite_difference_gradients_cannot_train_within_the_time_limit() -> None:
    """A backward by central differences costs two forwards of a batch per weight and step;
    the least run the grader replays (4 epochs of 45 batches, the smallest widths: 1 898
    weights) then needs 683 000 forwards of 32 images, and the grader asks for two runs:
    far more than the capstone's time limit, at the grader's own numpy speed."""
    images = load_digits("train", as_numpy=True)[0][:32].astype(np.float64)
    small = [p.astype(np.float64) for p in reference.capstone_start(0, (8, 16))]
    layers = network.read_layers(training_replay.schema_layers(small), (1, 8, 8), 10)
    started = time.perf_counter()
    for _ in range(50):
        network.forward(layers, images)
    per_forward = (time.perf_counter() - started) / 50
    weights = sum(p.size for p in small)
    steps = reference.CAPSTONE_EPOCHS[0] * -(-1437 // reference.CAPSTONE_BATCH)
    capstone = next(exercise for exercise in EXERCISES if exercise.id == "08.5")
    assert weights == 1898 and steps == 180
    assert 2 * (2 * weights * steps) * per_forward > capstone.timeout
