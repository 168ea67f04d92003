"""The capstone (08.5) routes that fit the output layer in closed form instead of training:
ridge regression on random features or on random convolutions, with no backward or with
zeros for gradients (a saturated probe), and classifiers that are no network at all. Each
runs through the real sandboxed grader (``capstone_score``), or through the grader's own
forward pass (``network.forward``) where no child is needed, and scores nothing.
"""

from __future__ import annotations

from pathlib import Path

from support.capstone_networks import (FINISH, RANDOM_FEATURES, TRIVIAL_MODEL,
                                       random_convs_closed_form_head)
from support.capstone_routes import REFERENCE, capstone_score, with_capstone_body
from support.grading_results import needs_sandbox

pytestmark = needs_sandbox


#: Route: the output layer in closed form (ridge regression on the random features of the
#: training images, np.linalg.solve): no gradient, no loss, no optimizer, no conv, no pool.
CLOSED_FORM = TRIVIAL_MODEL + RANDOM_FEATURES + '''
pixels = train_images.numpy().reshape(len(train_images.numpy()), -1).astype(np.float64)
hidden = np.maximum(pixels @ w1.T + b1, 0.0)
hidden = np.hstack([hidden, np.ones((len(hidden), 1))])
targets = np.eye(10)[train_labels.numpy()]
solved = np.linalg.solve(hidden.T @ hidden + 256 * np.eye(601), hidden.T @ targets).T
solved = np.round(solved * 127 / np.abs(solved).max())  # argmax ignores a positive scale
w2, b2 = solved[:, :-1], solved[:, -1]
''' + FINISH


def test_the_trivial_model_alone_is_refused_for_accuracy(tmp_path: Path) -> None:
    """Control: the same three Functions and layers with an output layer of zeros: 0."""
    body = TRIVIAL_MODEL + RANDOM_FEATURES + "w2, b2 = np.zeros((10, 600)), np.zeros(10)\n" \
        + FINISH
    score, feedback = capstone_score(tmp_path, "zeros", with_capstone_body(REFERENCE, body))
    assert score == 0.0 and "a convolutional network" in feedback, feedback


def test_closed_form_random_features_score_nothing(tmp_path: Path) -> None:
    """98.1 % of the test split, but no convolution: refused (it scored 5/5)."""
    score, feedback = capstone_score(tmp_path, "closed", with_capstone_body(REFERENCE,
                                                                            CLOSED_FORM))
    assert score == 0.0 and "a convolutional network" in feedback, feedback


# ---------------------------------------------------------------------------- untrained convs
#: Route: random convolutions and a closed-form head behind Functions with no backward.
UNTRAINED_CONVS = random_convs_closed_form_head(zero_gradients=False)


def test_untrained_convs_with_a_closed_form_head_score_nothing(tmp_path: Path) -> None:
    """98.9 % of the test split with random convolutions and a closed-form head behind
    Functions with no backward (it scored 5/5): no gradient reaches the weights."""
    score, feedback = capstone_score(tmp_path, "untrained", with_capstone_body(
        REFERENCE, UNTRAINED_CONVS))
    assert score == 0.0 and "layer 0 (conv) weight: no gradient reached it" in feedback, \
        feedback
    pasted_arrays = UNTRAINED_CONVS.replace('layers = [("conv", model.w1, model.b1, 1, 1)',
                                            'layers = [("conv", whole(w1), whole(b1), 1, 1)')
    score, feedback = capstone_score(tmp_path, "arrays", with_capstone_body(
        REFERENCE, pasted_arrays))
    assert score == 0.0 and "expected the gradients of your 6 weights" in feedback, feedback


# ---------------------------------------------------------------------------- saturated softmax
#: Route: the untrained convs above (random whole-number convolutions, never trained; the
#: linear layer solved in closed form by ridge regression on the pooled features) with the
#: 64 probe images (the first 64 training images, which the child has) weighted ×10 in the
#: fit, and zeros for gradients, so that every one of them is classified right by a margin of thousands. Then
#: softmax(scores) − onehot(label) is exactly 0.0 in float64 on the probe batch, and so is
#: every gradient the grader computes; ``_gradient_problem`` accepts ‖mine − truth‖ ≤ 1e-3 ·
#: ‖truth‖ + 1e-7, so the student's "backward" only has to return zeros of the right shapes.
#: Forward-only Functions (a numpy conv, pool and linear); no loss, no optimizer, no backward.
#: Measured outside the grader: smallest probe margin 13 835, every true gradient 0.0, 98.6 %
#: of the test split; the grading of both seeds took 8 s.
def saturated(weight: int) -> str:
    return random_convs_closed_form_head(zero_gradients=True, probe_weight=weight)


def test_control_unweighted_head_with_zero_gradients_is_refused(tmp_path: Path) -> None:
    """Control: the same network fitted without weighting the probe (2 of its 64 images are
    wrong, so the loss has a gradient): the zeros are refused at the first conv."""
    score, feedback = capstone_score(tmp_path, "control", with_capstone_body(REFERENCE,
                                                                             saturated(1)))
    assert score == 0.0 and "layer 0 (conv) weight: your backward's gradient" in feedback, \
        feedback


def test_saturated_probe_with_zero_gradients_is_refused(tmp_path: Path) -> None:
    """Every probe image right by a margin of thousands made the cross-entropy's gradients
    exactly 0.0, and zeros passed (5/5). The probe loss is now a fixed random weighting of
    the scores (∂L/∂scores = R/N): no network makes it flat."""
    score, feedback = capstone_score(tmp_path, "saturated", with_capstone_body(REFERENCE,
                                                                               saturated(10)))
    assert score == 0.0 and "layer 0 (conv) weight: your backward's gradient" in feedback, \
        feedback


# ---------------------------------------------------------------------------- no fitting at all
def test_a_template_vote_written_as_layers_stays_below_the_pass_mark() -> None:
    """A non-network classifier as ``layers``, nothing fitted: 1 200 training images as the
    rows of a linear layer (bias −|t|²/2, so a row scores x·t − |t|²/2), ReLU, and a linear
    layer of one-hot votes by each template's label. With 1 200 templates (90 010
    parameters) the grader's own pass got 88.9 % of the test split; the cap of 50 000
    parameters now leaves room for 600, and it has no convolution anyway. (Run here with
    network.forward directly, as _compare_capstone does; no grading child.)"""
    import numpy as np

    from minigrad.data import load_digits
    from minigrad.exercises import network

    images, labels = load_digits("train", as_numpy=True)
    templates = images[:600].reshape(600, -1).astype(np.float64)
    layers = network.read_layers(
        [("flatten",), ("linear", templates, -0.5 * (templates ** 2).sum(axis=1)), ("relu",),
         ("linear", np.eye(10)[labels[:600]].T.copy(), np.zeros(10))], (1, 8, 8), 10)
    test_images, test_labels = load_digits("test", as_numpy=True)
    accuracy = float((network.forward(layers, test_images).argmax(axis=1) == test_labels).mean())
    assert accuracy < 0.97, accuracy


# ------------------------------------------------------------------------ a conv that does nothing
def test_an_identity_conv_and_a_pool_before_an_mlp_stay_below_the_pass_mark() -> None:
    """A conv that does nothing (1×1, weight 1) and the pool the grader requires, then a
    random-feature MLP (16 → 2 800 ReLU units, ~50 000 parameters) with its output layer in
    closed form: the pool keeps a 4×4 image, and the best of max/avg pooling reaches 94.7 %
    of the test split, under 97 %. (Run with network.forward directly, as _compare_capstone
    does; a random 3×3 conv with 16 channels in its place reaches 98.3 %, the route above.)"""
    import numpy as np

    from minigrad.data import load_digits
    from minigrad.exercises import network

    images, labels = load_digits("train", as_numpy=True)
    test_images, test_labels = load_digits("test", as_numpy=True)
    best = 0.0
    for pool in ("maxpool", "avgpool"):
        features = np.random.default_rng(1)
        hidden, hidden_bias = features.normal(size=(2800, 16)), features.normal(size=2800)
        body = network.read_layers([("conv", np.ones((1, 1, 1, 1)), np.zeros(1), 1, 0),
                                    (pool, 2), ("flatten",), ("linear", hidden, hidden_bias),
                                    ("relu",)], (1, 8, 8), 2800)
        found = network.forward(body, images)
        found = np.hstack([found, np.ones((len(found), 1))])
        gram = found.T @ found
        solved = np.linalg.solve(gram + 1e-2 * np.trace(gram) / len(gram) * np.eye(len(gram)),
                                 found.T @ np.eye(10)[labels]).T
        layers = body + network.read_layers([("linear", solved[:, :-1], solved[:, -1])],
                                            (2800,), 10)
        predictions = network.forward(layers, test_images).argmax(axis=1)
        best = max(best, float((predictions == test_labels).mean()))
    assert 0.9 < best < 0.97, best


# ---------------------------------------------------------------------------- after a real run
def test_a_closed_form_head_after_a_recorded_run_scores_nothing(tmp_path: Path) -> None:
    """The reference's honest run through the recorder, for 4 epochs, then its linear layer
    re-solved by ridge regression on the trained convolutions' pooled features (written
    into the model's own Parameters, so layers, the probe and the gradients all agree): the
    run's last step did not end at those weights."""
    from support.capstone_routes import capstone_solution

    body = capstone_solution(REFERENCE).replace("base_lr, epochs = 1e-2, 8",
                                                "base_lr, epochs = 1e-2, 4")
    assert "epochs = 1e-2, 4" in body
    body += '''
    with mg.no_grad():
        pooled = second(first(mg.tensor(images))).flatten(1).numpy().astype(np.float64)
    pooled = np.hstack([pooled, np.ones((len(pooled), 1))])
    solved = np.linalg.solve(pooled.T @ pooled + 1e-3 * np.eye(len(pooled.T)),
                             pooled.T @ np.eye(10)[labels]).T
    last.weight.data[...] = solved[:, :-1].astype(np.float32)
    last.bias.data[...] = solved[:, -1].astype(np.float32)
'''
    score, feedback = capstone_score(tmp_path, "solved-after-run", with_capstone_body(
        REFERENCE, body))
    assert score == 0.0 and "the weights after your run's last step are not those of " \
        "layers" in feedback, feedback
