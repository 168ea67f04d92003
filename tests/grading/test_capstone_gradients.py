"""The capstone (08.5) routes around the student's own backward: the grader checks the report's
gradients of the probe loss (the 64 probe images) against its own backpropagation through
``layers`` (each within 1e-3 of its size, + 1e-7). Tried here: minigrad's elementary ops and
autograd in place of one's own backward, gradients by finite differences, a report wrapped to
hide a matmul, weights that overflow; and the grader's backward against its own forward.

Each route runs through the real sandboxed grader (``capstone_score``). The three that scored
5/5 before the capstone proved training (elementary ops, finite differences, a wrapped
report) now score 0: their weights never came from a run the grader can replay (see
``minigrad/exercises/step_replay.py`` and ``tests/exercises/test_lesson08_step_replay.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.capstone_networks import IDENTITY_FUNCTIONS
from support.capstone_routes import REFERENCE, capstone_score, with_capstone_body
from support.grading_results import needs_sandbox

pytestmark = needs_sandbox

#: What the training proof says of a network outside the schema it replays.
SCHEMA = "(CAPSTONE_WIDTHS): the grader replays your training on it"


# ------------------------------------------------------------------------ the library's autograd
#: Route: no backward of the student's own at all. The conv is nine slices of a padded tensor
#: (``mg.cat``), each broadcast-multiplied by its kernel entry and summed over the channels,
#: the max pool a reshape and two ``.max(dim)``, the linear layer a broadcast product and a
#: sum (``@`` is refused: its node is in LIBRARY_NODES; ``*``, ``.sum``, ``cat`` are not):
#: minigrad's elementary ops, which the stripped runtime keeps, so minigrad's autograd
#: computes every gradient the grader checks, and exactly. Three identity Functions put
#: "your own" names in the graph. The convs are random (never trained) and the head is
#: ridge regression, *not* weighted to the probe: the gradients are far from 0 and right.
#: (A training loop on the same pieces would do as well; the closed-form head keeps the test
#: short.)
ELEMENTARY = IDENTITY_FUNCTIONS + '''


def pad(t):
    n, c, h, w = t.shape
    side, row = mg.zeros(n, c, h, 1), mg.zeros(n, c, 1, w + 2)
    return mg.cat([row, mg.cat([side, t, side], 3), row], 2)


def conv(x, weight, bias):
    n, c, h, w = x.shape
    padded, out = pad(x), None
    for i in range(3):
        for j in range(3):
            part = (padded[:, :, i:i + h, j:j + w].reshape(n, 1, c, h, w)
                    * weight[:, :, i, j].reshape(1, -1, c, 1, 1)).sum(2)
            out = part if out is None else out + part
    return out + bias.reshape(1, -1, 1, 1)


def pool(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(5).values.max(3).values


features = np.random.default_rng(0)
w1 = nn.Parameter(mg.tensor(features.normal(size=(32, 1, 3, 3)), dtype=mg.float32))
w2 = nn.Parameter(mg.tensor(features.normal(size=(64, 32, 3, 3)) * 0.3, dtype=mg.float32))
b1, b2 = nn.Parameter(mg.zeros(32)), nn.Parameter(mg.zeros(64))


def body(x):
    x = MaxPool2d.apply(pool(Conv2d.apply(conv(x, w1, b1)).relu()))
    return pool(conv(x, w2, b2).relu()).reshape(len(x), -1)


images, labels = train_images.numpy(), train_labels.numpy()
with mg.no_grad():
    pooled = np.concatenate([body(mg.tensor(images[start:start + 128])).numpy()
                             for start in range(0, len(images), 128)])
pooled = np.hstack([pooled.astype(np.float64), np.ones((len(pooled), 1))])
gram = pooled.T @ pooled
solved = np.linalg.solve(gram + 1e-4 * np.trace(gram) / len(gram) * np.eye(len(gram)),
                         pooled.T @ np.eye(10)[labels]).T
w3 = nn.Parameter(mg.tensor(solved[:, :-1], dtype=mg.float32))
b3 = nn.Parameter(mg.tensor(solved[:, -1], dtype=mg.float32))


class Net(nn.Module):
    def forward(self, x):
        features = body(x)
        return Linear.apply((features.reshape(len(x), 1, -1) * w3.reshape(1, 10, -1)).sum(2)
                            + b3)


model = Net()
optimizer = None
losses = [1.0]
layers = [("conv", w1, b1, 1, 1), ("relu",), ("maxpool", 2), ("conv", w2, b2, 1, 1),
          ("relu",), ("maxpool", 2), ("flatten",), ("linear", w3, b3)]
recorder = CapstoneRecorder(seed, layers, optimizer, 8)  # kept, but no step taken
'''


def test_a_cnn_of_elementary_ops_and_library_autograd_is_refused(tmp_path: Path) -> None:
    """It scored 5/5 (convs of widths 32 and 64, random; its head solved): refused by the
    training proof, which replays only the schema's networks (``test_lesson08_step_replay``
    refuses a solved head within the schema)."""
    score, feedback = capstone_score(tmp_path, "elementary", with_capstone_body(REFERENCE,
                                                                                ELEMENTARY))
    assert score == 0.0 and SCHEMA in feedback, feedback


# ---------------------------------------------------------------------------- finite differences
#: Route: the gradients the grader checks computed by central finite differences of a numpy
#: forward pass (the student's own, float64) of the loss on the probe batch, one weight at a
#: time: no backward anywhere. A small network (conv 1→16 3×3 padding 1, ReLU, max-pool 2,
#: flatten, linear 256→10: 2 730 weights) with a random conv and a ridge-regression head,
#: *not* weighted to the probe (its gradients are far from 0). Three Functions whose
#: backward hands back the precomputed arrays. Measured outside the grader: 15.7 s for the
#: differences, each gradient within 2.5e-8 of the grader's (relative), 98.1 % of the test
#: split.
FINITE_DIFFERENCES = '''
import sys
import time

windows = np.lib.stride_tricks.sliding_window_view


def np_forward(x, w1, b1, w3, b3):
    patches = windows(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), (3, 3), axis=(2, 3))
    h = np.maximum(np.einsum("nchwij,ocij->nohw", patches, w1) + b1[None, :, None, None], 0.0)
    n, c = h.shape[:2]
    h = h.reshape(n, c, 4, 2, 4, 2).max(axis=(3, 5)).reshape(n, -1)
    return h, h @ w3.T + b3


features = np.random.default_rng(0)
w1 = features.normal(size=(16, 1, 3, 3)).astype(np.float32).astype(np.float64)
b1 = np.full(16, -0.01)  # off the ReLU kink: a blank patch gives exactly 0 + b
images, labels = train_images.numpy().astype(np.float64), train_labels.numpy()
pooled = np.hstack([np_forward(images, w1, b1, np.zeros((10, 256)), np.zeros(10))[0],
                    np.ones((len(images), 1))])
gram = pooled.T @ pooled
solved = np.linalg.solve(gram + 1e-4 * np.trace(gram) / len(gram) * np.eye(len(gram)),
                         pooled.T @ np.eye(10)[labels]).T.astype(np.float32).astype(np.float64)
weights = [w1, b1, solved[:, :-1].copy(), solved[:, -1].copy()]

probe = images[:64]


def probe_loss():  # the report's: mean over the probe of Σ_k scores·PROBE_WEIGHTS
    return float(np.mean((np_forward(probe, *weights)[1] * PROBE_WEIGHTS).sum(axis=1)))


started, step, grads = time.perf_counter(), 1e-5, []
for array in weights:
    grad = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        kept = array[index]
        array[index] = kept + step
        up = probe_loss()
        array[index] = kept - step
        down = probe_loss()
        array[index] = kept
        grad[index] = (up - down) / (2 * step)
    grads.append(grad.astype(np.float32))
print(f"finite differences: {time.perf_counter() - started:.2f} s", file=sys.stderr)


class Conv2d(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        patches = windows(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), (3, 3), axis=(2, 3))
        return np.einsum("nchwij,ocij->nohw", patches, weight) + bias[None, :, None, None]

    @staticmethod
    def backward(ctx, grad_output):
        return None, grads[0], grads[1]


class MaxPool2d(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        n, c = x.shape[:2]
        return np.maximum(x, 0.0).reshape(n, c, 4, 2, 4, 2).max(axis=(3, 5))

    @staticmethod
    def backward(ctx, grad_output):
        return np.zeros(ctx.shape, dtype=np.float32)


class Linear(Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.shape = x.shape
        return x.reshape(len(x), -1) @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_output):
        return np.zeros(ctx.shape, dtype=np.float32), grads[2], grads[3]


params = [nn.Parameter(mg.tensor(a.astype(np.float32))) for a in weights]


class Net(nn.Module):
    def forward(self, x):
        return Linear.apply(MaxPool2d.apply(Conv2d.apply(x, params[0], params[1])),
                            params[2], params[3])


model = Net()
optimizer = None
losses = [1.0]
layers = [("conv", params[0], params[1], 1, 1), ("relu",), ("maxpool", 2), ("flatten",),
          ("linear", params[2], params[3])]
recorder = CapstoneRecorder(seed, layers, optimizer, 8)  # kept, but no step taken
'''


def test_gradients_by_finite_differences_are_refused(tmp_path: Path) -> None:
    """It scored 5/5 (differences at the probe, a solved head): its network is not one the
    grader replays, nor were its weights trained. (Training by differences is too slow:
    ``test_finite_difference_gradients_cannot_train_within_the_time_limit``.)"""
    score, feedback = capstone_score(tmp_path, "differences", with_capstone_body(
        REFERENCE, FINITE_DIFFERENCES))
    assert score == 0.0 and SCHEMA in feedback, feedback


# ---------------------------------------------------------------------------- the report's own word
#: The same network with ``@`` (whose node LIBRARY_NODES names) in the conv and the linear
#: layer, and the given capstone_report wrapped through sys.exc_info()[2].tb_frame.f_globals
#: (a route of round one, still open): the wrapper calls the given report and empties its
#: ``library_layers``. Everything the report says of the graph is the child's word.
WITH_MATMUL = ELEMENTARY.replace(
    '''            part = (padded[:, :, i:i + h, j:j + w].reshape(n, 1, c, h, w)
                    * weight[:, :, i, j].reshape(1, -1, c, 1, 1)).sum(2)
            out = part if out is None else out + part
    return out + bias.reshape(1, -1, 1, 1)''',
    '''            part = (padded[:, :, i:i + h, j:j + w].permute(0, 2, 3, 1)
                    @ weight[:, :, i, j].permute(1, 0))
            out = part if out is None else out + part
    return out.permute(0, 3, 1, 2) + bias.reshape(1, -1, 1, 1)''').replace(
    '''        return Linear.apply((features.reshape(len(x), 1, -1) * w3.reshape(1, 10, -1)).sum(2)
                            + b3)''',
    '''        return Linear.apply(features @ w3.permute(1, 0) + b3)''')


WRAPPED_REPORT = '''
import sys
try:
    raise ValueError
except ValueError:
    namespace = sys.exc_info()[2].tb_frame.f_globals
given = namespace["capstone_report"]
namespace["capstone_report"] = lambda *report: {**given(*report), "library_layers": []}
'''


def test_control_matmul_in_the_network_is_named(tmp_path: Path) -> None:
    assert "@" in WITH_MATMUL and ".sum(2)" not in WITH_MATMUL
    score, feedback = capstone_score(tmp_path, "matmul", with_capstone_body(REFERENCE,
                                                                            WITH_MATMUL))
    assert score == 0.0 and "minigrad's @ (use your Linear Function)" in feedback, feedback


def test_a_wrapped_report_that_hides_matmul_is_refused(tmp_path: Path) -> None:
    """It scored 5/5: the wrapper still empties library_layers (the report is the child's
    word), but its network is no run the grader replays."""
    score, feedback = capstone_score(tmp_path, "wrapped", with_capstone_body(
        REFERENCE, WITH_MATMUL + WRAPPED_REPORT))
    assert score == 0.0 and SCHEMA in feedback, feedback


# ---------------------------------------------------------------------------- overflow
def test_weights_that_overflow_pass_the_scores_check_but_not_the_gradient_check() -> None:
    """Finite weights of 1e160 make the grader's probe scores +inf: its bound 1e-3·(1 +
    max|probe|) was then inf, and any finite scores (zeros here) passed ``inf <= inf`` (the
    gradient check held). Now scores that overflow are refused first. (_compare_capstone
    called directly, on a forged report.)"""
    import warnings

    import numpy as np

    from minigrad.exercises import network
    from minigrad.exercises.lessons.lesson08_checks import _compare_capstone, capstone_answer

    expected = capstone_answer(0)
    rng = np.random.default_rng(0)
    weight = np.abs(rng.normal(size=(4, 1, 3, 3))) * 1e160
    head = np.abs(rng.normal(size=(10, 64))) * 1e160
    layers = [("conv", weight, np.zeros(4), 1, 1), ("maxpool", 2), ("flatten",),
              ("linear", head, np.zeros(10))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        probe = network.forward(network.read_layers(layers, (1, 8, 8), 10), expected["probe"])
        assert np.isposinf(probe).any() and not np.isnan(probe).any()
        report = {"layers": layers, "probe_scores": np.zeros((64, 10)), "losses": [1.0],
                  "your_functions": ["A", "B", "C"], "library_layers": [],
                  "library_optimizers": [],
                  "probe_gradients": [np.zeros_like(a) for a in (weight, np.zeros(4), head,
                                                                 np.zeros(10))]}
        problem = _compare_capstone(expected, report)
    assert problem == "layers' scores overflow (inf or nan) on the first training images", \
        problem


# ---------------------------------------------------------------------------- the grader's backward
def test_the_graders_backward_agrees_with_its_forward() -> None:
    """No gap between network.gradients and network.forward to exploit: central differences
    of the grader's own forward pass match its backpropagation to ~1e-8 relative on
    networks with strides 2-4, padding, 7×7 kernels, partial pooling edges, tanh, avg and
    max pools (random real weights, so no ties or kinks)."""
    import numpy as np

    from minigrad.exercises import network

    rng = np.random.default_rng(3)
    images, labels = rng.normal(size=(5, 1, 8, 8)), rng.integers(0, 10, 5)

    def normal(*shape: int) -> np.ndarray:
        return rng.normal(size=shape)

    nets = [
        [("conv", normal(3, 1, 5, 5), normal(3), 2, 2), ("tanh",),
         ("conv", normal(4, 3, 2, 2), normal(4), 1, 1), ("avgpool", 3), ("flatten",),
         ("linear", normal(10, 4), normal(10))],
        [("conv", normal(2, 1, 3, 3), normal(2), 3, 2), ("relu",),
         ("conv", normal(3, 2, 1, 1), normal(3), 1, 0), ("maxpool", 2), ("flatten",),
         ("linear", normal(10, 12), normal(10))],
        [("conv", normal(3, 1, 7, 7), normal(3), 4, 3), ("maxpool", 2), ("tanh",), ("flatten",),
         ("linear", normal(10, 3), normal(10))],
        [("conv", normal(2, 1, 2, 2), normal(2), 1, 0), ("maxpool", 4), ("flatten",),
         ("linear", normal(6, 2), normal(6)), ("relu",), ("linear", normal(10, 6), normal(10))],
    ]
    for layers in nets:
        read = network.read_layers(layers, (1, 8, 8), 10)

        def loss() -> float:
            scores = network.forward(read, images)
            scores = scores - scores.max(axis=1, keepdims=True)
            return float(np.mean(np.log(np.exp(scores).sum(axis=1))
                                 - scores[np.arange(5), labels]))

        scores = network.forward(read, images)
        upstream = np.exp(scores - scores.max(axis=1, keepdims=True))
        upstream /= upstream.sum(axis=1, keepdims=True)
        upstream[np.arange(5), labels] -= 1.0
        found = network.gradients(read, images, upstream / 5)
        arrays = [a for layer in read for a in (layer.weight, layer.bias) if a is not None]
        for array, grad in zip(arrays, found):
            numeric = np.zeros_like(array)
            for index in np.ndindex(array.shape):
                kept = array[index]
                array[index] = kept + 1e-6
                up = loss()
                array[index] = kept - 1e-6
                numeric[index] = (up - loss()) / 2e-6
                array[index] = kept
            assert np.linalg.norm(numeric - grad) <= 1e-6 * np.linalg.norm(grad)
