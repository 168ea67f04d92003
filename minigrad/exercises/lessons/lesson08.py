"""Lesson 08 exercises — weight decay, optimizers, and a network that is all yours.

Each function below is one exercise. Replace the body marked ``# YOUR CODE HERE`` and run
``check("08.N", function)`` to test it on the visible cases; the grader also runs hidden cases
on fresh random inputs.

The theme of the lesson: an optimizer is a rule that turns a gradient into an in-place update
of a leaf tensor. Weight decay *adds* λw to the gradient (SGD), or shrinks the weight directly
(AdamW) — it never multiplies the gradient by (1 + λ).

Exercises 08.1 and 08.4 are real ``Optimizer`` subclasses, written inside the graded function
(as lesson 03's Functions are). ``run_optimizer`` (given) hands your optimizer float64 leaves in
parameter groups, and runs a few steps of gradient descent on a quadratic loss with it. The
capstone, 08.5, is a convolutional network made of your own pieces only.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import Function
from minigrad.data import load_digits
from minigrad.optim import Optimizer
from minigrad.exercises.harness import run_optimizer  # given


def sgd_optimizer(weights: list[np.ndarray], scales: list[np.ndarray],
                  targets: list[np.ndarray], groups: list[dict], defaults: dict,
                  steps: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Exercise 08.1 — SGD with momentum and weight decay, as an ``Optimizer``.

    Write ``step``: for every group, for every parameter p of the group that has a gradient,
    with that group's lr η, momentum μ, dampening τ and weight decay λ (PyTorch's rule):

        d ← p.grad + λ·p                              weight decay: add λp
        buf ← d at the first step of p,                the momentum buffer, kept in
              μ·buf + (1 − τ)·d after that             self.state[p] (a dict per parameter)
        p ← p − η·buf                                  in place: p is the model's tensor

    With μ = 0 there is no buffer: p ← p − η·d. Change p *in place* (``p.sub_(...)``,
    ``p.mul_(...)``, or ``p.data -= ...``): ``p = p - ...`` makes a new tensor and the model
    keeps the old one. ``step`` runs under ``mg.no_grad()``, so in-place changes of leaves
    are allowed there. ``self.state`` is a ``defaultdict(dict)``, as in PyTorch:
    ``self.state[p]`` is ``{}`` before p's first step. ``run_optimizer`` (given) does the rest.

    Example: one parameter p = 1 with gradient 0.5, lr 0.1, λ = 0.1, μ = 0:
    d = 0.5 + 0.1 = 0.6, so p becomes 1 − 0.06 = 0.94.
    """
    class SGDMomentum(Optimizer):
        def __init__(self, params, lr: float, momentum: float = 0.0, dampening: float = 0.0,
                     weight_decay: float = 0.0) -> None:
            super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                          weight_decay=weight_decay))

        @mg.no_grad()
        def step(self) -> None:
            ### BEGIN SOLUTION
            for group in self.param_groups:
                lr, momentum = group["lr"], group["momentum"]
                dampening, weight_decay = group["dampening"], group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    direction = p.grad + weight_decay * p
                    if momentum != 0:
                        state = self.state[p]
                        if "momentum_buffer" not in state:
                            state["momentum_buffer"] = direction.clone()
                        else:
                            state["momentum_buffer"].mul_(momentum).add_(direction,
                                                                         alpha=1 - dampening)
                        direction = state["momentum_buffer"]
                    p.sub_(direction, alpha=lr)
            ### END SOLUTION

    return run_optimizer(SGDMomentum, weights, scales, targets, groups, defaults, steps)


def l2_relu_batch_gradients(w1: np.ndarray, w2: np.ndarray, x: np.ndarray, y: np.ndarray,
                            lam: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Exercise 08.2 — the L2-regularised objective of a ReLU network, on a batch.

    A batch of B examples, one per row: X (B, d), targets Y (B, k); weights W1 (h, d) and
    W2 (k, h), no biases, φ = ReLU. The loss is the *mean* over the batch of ½‖o − y‖²:

        Z = X W1ᵀ,  H = relu(Z),  O = H W2ᵀ,  L = 1/(2B) Σ_b ‖O_b − Y_b‖²,
        s = λ/2 (‖W1‖²_F + ‖W2‖²_F),  J = L + s.

    Return ``(J, dJ/dW1, dJ/dW2)``, each gradient shaped like its weight. The reading gives
    the rules for one example, with tanh; here the batch is in the rows, and ReLU's derivative
    is 1 where z > 0 and 0 elsewhere (also where z = 0).
    """
    ### BEGIN SOLUTION
    batch = x.shape[0]
    z = x @ w1.T
    h = np.maximum(z, 0.0)
    o = h @ w2.T
    objective = np.sum((o - y) ** 2) / (2 * batch) \
        + lam / 2 * (np.sum(w1 ** 2) + np.sum(w2 ** 2))
    grad_o = (o - y) / batch                     # the mean's 1/B, once
    grad_w2 = grad_o.T @ h + lam * w2            # summed over the batch, plus the decay term
    grad_z = (grad_o @ w2) * (z > 0)
    grad_w1 = grad_z.T @ x + lam * w1
    return float(objective), grad_w1, grad_w2
    ### END SOLUTION


def accumulate_microbatches(grads: list[np.ndarray], counts: list[int]) -> np.ndarray:
    """Exercise 08.3 — the gradient of a large batch from micro-batches of unequal size.

    A batch of N = Σ n_i examples was split into micro-batches; ``grads[i]`` is the gradient
    of the *mean* loss over micro-batch i, which held ``counts[i]`` = n_i examples. Return
    the gradient of the mean loss over the whole batch.
    """
    ### BEGIN SOLUTION
    total = sum(counts)
    return sum(n * g for n, g in zip(counts, grads)) / total
    ### END SOLUTION


def adamw_optimizer(weights: list[np.ndarray], scales: list[np.ndarray],
                    targets: list[np.ndarray], groups: list[dict], defaults: dict,
                    steps: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Exercise 08.4 — AdamW (decoupled weight decay), as an ``Optimizer``.

    Write ``step``: for every parameter p with a gradient g, with its group's lr η,
    betas (β₁, β₂), eps ε and weight decay λ, keep in ``self.state[p]`` the step count t and
    the running averages m and v (zeros before the first step), and, as PyTorch does:

        p ← p·(1 − η·λ)                               decay the weight itself, first
        t ← t + 1
        m ← β₁·m + (1 − β₁)·g
        v ← β₂·v + (1 − β₂)·g²
        p ← p − η/(1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + ε)

    The gradient g is *not* changed by the decay: that is what makes it AdamW, not Adam with
    L2. Update p in place, as in 08.1.
    """
    class MyAdamW(Optimizer):
        def __init__(self, params, lr: float = 1e-3, betas: Sequence[float] = (0.9, 0.999),
                     eps: float = 1e-8, weight_decay: float = 1e-2) -> None:
            super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                          weight_decay=weight_decay))

        @mg.no_grad()
        def step(self) -> None:
            ### BEGIN SOLUTION
            for group in self.param_groups:
                lr, (beta1, beta2) = group["lr"], group["betas"]
                eps, weight_decay = group["eps"], group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = p.grad
                    state = self.state[p]
                    if not state:
                        state.update(step=0, m=mg.zeros_like(p), v=mg.zeros_like(p))
                    p.mul_(1 - lr * weight_decay)
                    state["step"] += 1
                    t = state["step"]
                    state["m"].mul_(beta1).add_(g, alpha=1 - beta1)
                    state["v"].mul_(beta2).add_(g * g, alpha=1 - beta2)
                    denominator = state["v"].sqrt() / np.sqrt(1 - beta2 ** t) + eps
                    p.sub_(state["m"] / denominator, alpha=lr / (1 - beta1 ** t))
            ### END SOLUTION

    return run_optimizer(MyAdamW, weights, scales, targets, groups, defaults, steps)


# ---------------------------------------------------------------------------- the capstone
#: Library pieces the capstone must not use, by the name of the node they record.
LIBRARY_NODES = {"ConvolutionBackward0": "minigrad's conv2d / nn.Conv2d",
                 "MaxPool2DWithIndicesBackward0": "minigrad's max_pool2d / nn.MaxPool2d",
                 "AvgPool2DBackward0": "minigrad's avg_pool2d / nn.AvgPool2d",
                 "AddmmBackward0": "minigrad's linear / nn.Linear",
                 "MmBackward0": "minigrad's @ (use your Linear Function)",
                 "MatmulBackward0": "minigrad's @ (use your Linear Function)",
                 "MvBackward0": "minigrad's @ (use your Linear Function)"}


def _from_library(thing: type) -> bool:
    """Defined in minigrad itself (not in an exercise file, which the grader may load under
    minigrad's name)."""
    module = thing.__module__
    return module.startswith("minigrad.") and not module.startswith("minigrad.exercises.")


#: How many training images the report runs through your model, for the grader to compare
#: with its own pass through ``layers``; and the fixed random weights of their scores whose
#: sum your backward differentiates (a loss no network can make flat: see the report).
PROBE_IMAGES = 64
PROBE_WEIGHTS = np.random.default_rng(808).standard_normal((PROBE_IMAGES, 10))


#: The capstone's fixed run. Its architecture, within which you choose the two convs' widths:
#: conv 3×3 (1 → c₁, padding 1) → ReLU → max-pool 2 → conv 3×3 (c₁ → c₂, padding 1) → ReLU →
#: max-pool 2 → flatten → linear (4·c₂ → 10), with c₁ in CAPSTONE_WIDTHS[0] and c₂ in
#: CAPSTONE_WIDTHS[1]; batches of CAPSTONE_BATCH training images (the last of an epoch
#: smaller); between CAPSTONE_EPOCHS[0] and CAPSTONE_EPOCHS[1] epochs.
CAPSTONE_WIDTHS = ((8, 16), (16, 32))
CAPSTONE_BATCH = 32
CAPSTONE_EPOCHS = (4, 10)


def capstone_start(seed: int, widths: tuple[int, int] = (16, 32)) -> list[np.ndarray]:
    """Given: the capstone's initial weights for ``seed``, in the order of ``layers``: conv
    weight and bias, conv weight and bias, linear weight and bias (float32). Weights are He's
    normal, N(0, 2/fan_in); biases 0. The grader draws the same ones to check your run."""
    first, second = (int(n) for n in widths)
    rng = np.random.default_rng((seed, 805))
    shapes = [(first, 1, 3, 3), (first,), (second, first, 3, 3), (second,),
              (10, 4 * second), (10,)]
    return [(rng.normal(size=shape) * np.sqrt(2.0 / int(np.prod(shape[1:])))
             if len(shape) > 1 else np.zeros(shape)).astype(np.float32) for shape in shapes]


def capstone_batches(seed: int, epoch: int, count: int) -> list[np.ndarray]:
    """Given: the rows of the training images in each batch of ``epoch`` (0, 1, …), in order:
    a permutation of ``range(count)`` fixed by the seed, cut into batches of CAPSTONE_BATCH."""
    order = np.random.default_rng((seed, 806, epoch)).permutation(count)
    return [order[start:start + CAPSTONE_BATCH] for start in range(0, count, CAPSTONE_BATCH)]


def capstone_sampled_steps(seed: int, steps: int) -> list[int]:
    """Given: the steps (0, 1, … of the whole run of ``steps``) the grader replays: the first,
    the last, and two drawn by the seed from each third of the others."""
    rng = np.random.default_rng((seed, 807))
    drawn = {0, steps - 1}
    for third in np.array_split(np.arange(1, steps - 1), 3):
        drawn.update(int(n) for n in rng.choice(third, size=min(2, len(third)), replace=False))
    return sorted(drawn)


class CapstoneRecorder:
    """Given: takes your optimizer's steps, ``recorder.step(rows)`` in place of
    ``optimizer.step()`` (``rows``: the batch's rows from ``capstone_batches``), and keeps, at
    the steps the grader samples (``capstone_sampled_steps``), what it replays: the weights and
    biases of ``layers`` and your optimizer's state of each before the step (``self.state[p]``:
    ``step``, ``m``, ``v``), their gradients, the settings of its one parameter group, and the
    weights and state after it."""

    def __init__(self, seed: int, layers: Sequence[tuple], optimizer: Any, epochs: int) -> None:
        count = len(load_digits("train", as_numpy=True)[1])
        self.weights = [item for layer in layers if isinstance(layer, (tuple, list))
                        for item in layer if isinstance(item, mg.Tensor)]
        self.optimizer, self.epochs, self.taken, self.records = optimizer, int(epochs), 0, []
        self.sampled = capstone_sampled_steps(seed, self.epochs * -(-count // CAPSTONE_BATCH))

    @staticmethod
    def _plain(value: Any) -> Any:
        if isinstance(value, mg.Tensor):
            return value.detach().numpy().copy()
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, (tuple, list)):
            return [CapstoneRecorder._plain(item) for item in value]
        return value if isinstance(value, (int, float, np.ndarray)) else repr(value)

    def _state(self) -> dict:
        state = self.optimizer.state
        return {"params": [self._plain(weight) for weight in self.weights],
                "state": [{str(key): self._plain(value) for key, value in
                           state.get(weight, {}).items()} for weight in self.weights]}

    def step(self, rows: Any) -> None:
        index, self.taken = self.taken, self.taken + 1
        if index not in self.sampled:
            self.optimizer.step()
            return
        groups = self.optimizer.param_groups
        record = {"step": index, "rows": np.asarray(rows).copy(), "groups": len(groups),
                  "settings": {key: self._plain(value) for key, value in groups[0].items()
                               if key != "params"},
                  "before": self._state(),
                  "gradients": [None if weight.grad is None else self._plain(weight.grad)
                                for weight in self.weights]}
        self.optimizer.step()
        record["after"] = self._state()["params"]
        self.records.append(record)


def capstone_report(model: Any, layers: Sequence[tuple], optimizer: Any,
                    losses: Sequence[float], recorder: Any = None) -> dict:
    """Given (not an exercise): your network written down, and what it is made of.

    ``layers`` is ``model`` as a list the grader can run itself, in order: ``("conv", weight,
    bias, stride, padding)``, ``("relu",)``, ``("maxpool", k)``, ``("avgpool", k)``,
    ``("flatten",)``, ``("linear", weight, bias)`` (PyTorch's conventions: cross-correlation,
    weight (out, in)), with your model's own Parameters in it. The grader counts the right
    answers of that network on test images it alone holds. On the first training images it
    checks that ``model`` gives the scores ``layers`` gives, and that your backward gives,
    for every weight, the gradient it computes itself of L = mean over the images of
    Σ_k scores[n, k]·R[n, k] (R = ``PROBE_WEIGHTS``: ∂L/∂scores = R/N is never zero). The
    report also walks the backward graph to list the Functions it is made of: yours and any
    library node from ``LIBRARY_NODES``; and whether ``optimizer`` is one of minigrad's.
    ``recorder`` (a ``CapstoneRecorder``) holds the steps of your run the grader replays.
    """
    probe = load_digits("train", as_numpy=True)[0][:PROBE_IMAGES]
    weights = [item for layer in layers if isinstance(layer, (tuple, list))
               for item in layer if isinstance(item, mg.Tensor)]
    for weight in weights:
        if weight.is_leaf:
            weight.grad = None
    scores = model(mg.tensor(probe))
    yours, library, seen, todo = set(), set(), set(), [scores.sum().grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        function = getattr(node, "_function", None)
        if node.name() in LIBRARY_NODES:
            library.add(LIBRARY_NODES[node.name()])
        elif function is not None and not _from_library(function):
            yours.add(function.__name__)
        todo.extend(next_node for next_node, _ in node.next_functions)
    (scores * mg.tensor(PROBE_WEIGHTS, dtype=scores.dtype)).sum(1).mean().backward()
    library_optimizers = [cls.__name__ for cls in type(optimizer).__mro__
                          if _from_library(cls) and cls not in (Optimizer, object)]
    written = [tuple(item.detach().numpy().copy() if isinstance(item, mg.Tensor) else item
                     for item in layer) if isinstance(layer, (tuple, list)) else layer
               for layer in layers]
    return {"layers": written, "probe_scores": scores.detach().numpy().astype(np.float64),
            "probe_gradients": [weight.grad.numpy() if weight.is_leaf and weight.grad is not None
                                else None for weight in weights],
            "losses": [float(value) for value in losses],
            "run": None if recorder is None else {"epochs": recorder.epochs,
                                                  "steps": recorder.taken,
                                                  "records": recorder.records},
            "your_functions": sorted(yours), "library_layers": sorted(library),
            "optimizer": type(optimizer).__name__, "library_optimizers": library_optimizers}


def capstone(seed: int) -> dict:
    """Exercise 08.5 — the capstone: a CNN made of your own pieces, trained to ≥ 97 %.

    Build and train a convolutional network on the 8×8 digits from pieces you wrote: your
    ``Conv2d`` Function (lesson 06), your ``MaxPool2d`` Function (lesson 07), your ``Linear``
    Function and a Module around it (lesson 05), your loss and your AdamW (08.4).

    In the grader, minigrad's layers do not exist: no ``nn.Linear``, ``nn.Conv2d``,
    ``nn.MaxPool2d``, ``F.linear``, ``F.conv2d``, ``F.max_pool2d``, no losses, no
    ``minigrad.kernels``, and of ``minigrad.optim`` only the base class ``Optimizer``. What
    exists: tensors and their elementary ops (``relu``, ``reshape``, indexing,
    ``log_softmax``…), ``Function``, ``mg.no_grad``, ``nn.Module``, ``nn.Parameter``,
    ``nn.Sequential`` and ``load_digits("train")``. The loss is one line:
    ``-scores.log_softmax(1)[np.arange(n), labels].mean()``. (The linear layer is your
    Function's job, not ``@``.) ``getattr(self, "conv1")`` on your own objects is fine.

    The grader checks that your weights come from training. The run is fixed by the seed:
    the architecture is CAPSTONE_WIDTHS's (you choose the two widths), the weights start at
    ``capstone_start(seed, widths)``, epoch e's batches are ``capstone_batches(seed, e,
    len(images))``, in order, for 4 to 10 epochs, and the optimizer is your AdamW (08.4), one
    parameter group, whose lr may fall but never rise. Take every step with
    ``recorder.step(rows)`` in place of ``optimizer.step()``: the grader replays a few steps
    it samples with its own backward and AdamW, from the state the recorder kept, and checks
    that the states between them are as far apart as that many steps can move a weight.

    Write the trained network down as ``layers``, which the grader runs itself (see
    ``capstone_report``): here ``[("conv", w1, b1, 1, 1), ("relu",), ("maxpool", 2), ("conv",
    w2, b2, 1, 1), ("relu",), ("maxpool", 2), ("flatten",), ("linear", w3, b3)]``. Your code
    never gets the test images: the grader asks ``layers`` for ≥ 97 % of them on this seed and
    a hidden one (five minutes for both), and the same scores as ``model`` on a few training
    images. The last line needs ``model``, ``layers``, ``optimizer``, ``losses`` (one per
    epoch) and ``recorder``.

    A network that works: widths (16, 32), so conv 3×3 (1 → 16, padding 1) → ReLU → max-pool 2
    → conv 3×3 (16 → 32, padding 1) → ReLU → max-pool 2 → flatten → linear (128 → 10); AdamW,
    lr 0.01, 8 epochs, the lr lowered along a cosine at each epoch's start. Numpy's
    ``sliding_window_view`` makes the convolution's im2col in one line.
    """
    mg.manual_seed(seed)
    train_images, train_labels = load_digits("train")
    ### BEGIN SOLUTION
    windows = np.lib.stride_tricks.sliding_window_view

    class Conv2d(Function):
        """out[n,o] = Σ_c x[n,c] ⋆ w[o,c] + b[o]: an im2col and one matrix product."""

        @staticmethod
        def forward(ctx, x, weight, bias, padding=1):
            n, _, height, width = x.shape
            out_channels, _, k, _ = weight.shape
            padded = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
            out_h, out_w = height + 2 * padding - k + 1, width + 2 * padding - k + 1
            columns = windows(padded, (k, k), axis=(2, 3)).transpose(0, 2, 3, 1, 4, 5)
            columns = columns.reshape(n * out_h * out_w, -1)       # (N·H·W, C·k·k)
            ctx.save_for_backward(weight)
            ctx.columns, ctx.padded_shape, ctx.padding = columns, padded.shape, padding
            out = columns @ weight.reshape(out_channels, -1).T + bias
            return out.reshape(n, out_h, out_w, out_channels).transpose(0, 3, 1, 2)

        @staticmethod
        def backward(ctx, grad_output):
            (weight,) = ctx.saved_tensors
            weight = weight.numpy()
            grad = grad_output.numpy()
            n, out_channels, out_h, out_w = grad.shape
            in_channels, k = weight.shape[1], weight.shape[2]
            rows = grad.transpose(0, 2, 3, 1).reshape(-1, out_channels)  # (N·H·W, O)
            grad_weight = (rows.T @ ctx.columns).reshape(weight.shape)
            grad_bias = rows.sum(axis=0)
            if not ctx.needs_input_grad[0]:   # the images: no gradient needed
                return None, grad_weight, grad_bias
            grad_columns = (rows @ weight.reshape(out_channels, -1)).reshape(
                n, out_h, out_w, in_channels, k, k).transpose(0, 3, 4, 5, 1, 2)
            grad_padded = np.zeros(ctx.padded_shape, dtype=grad.dtype)
            for i in range(k):                # col2im: each window adds back where it read
                for j in range(k):
                    grad_padded[:, :, i:i + out_h, j:j + out_w] += grad_columns[:, :, i, j]
            p = ctx.padding
            return grad_padded[:, :, p:-p, p:-p], grad_weight, grad_bias

    class MaxPool2d(Function):
        """2×2 windows, stride 2; backward routes each gradient to its window's argmax."""

        @staticmethod
        def forward(ctx, x):
            n, c, height, width = x.shape
            cells = x.reshape(n, c, height // 2, 2, width // 2, 2).transpose(0, 1, 2, 4, 3, 5)
            cells = cells.reshape(n, c, height // 2, width // 2, 4)
            ctx.argmax, ctx.input_shape = cells.argmax(axis=-1), x.shape  # first max on ties
            return np.take_along_axis(cells, ctx.argmax[..., None], axis=-1)[..., 0]

        @staticmethod
        def backward(ctx, grad_output):
            n, c, height, width = ctx.input_shape
            grad = np.zeros((n, c, height // 2, width // 2, 4), dtype=grad_output.dtype)
            np.put_along_axis(grad, ctx.argmax[..., None], grad_output.numpy()[..., None], -1)
            grad = grad.reshape(n, c, height // 2, width // 2, 2, 2).transpose(0, 1, 2, 4, 3, 5)
            return grad.reshape(n, c, height, width)

    class Linear(Function):
        """Y = X Wᵀ + b;  dX = G W,  dW = Gᵀ X,  db = Σ_rows G."""

        @staticmethod
        def forward(ctx, x, weight, bias):
            ctx.save_for_backward(x, weight)
            return x @ weight.T + bias

        @staticmethod
        def backward(ctx, grad_output):
            x, weight = (t.numpy() for t in ctx.saved_tensors)
            grad = grad_output.numpy()
            return grad @ weight, grad.T @ x, grad.sum(axis=0)

    start = iter(capstone_start(seed, (16, 32)))  # weight, bias, weight, bias, weight, bias

    def given():
        return nn.Parameter(mg.tensor(next(start)))

    class ConvBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight, self.bias = given(), given()

        def forward(self, x):
            return MaxPool2d.apply(Conv2d.apply(x, self.weight, self.bias).relu())

    class MyLinear(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight, self.bias = given(), given()

        def forward(self, x):
            return Linear.apply(x.flatten(1), self.weight, self.bias)

    class MyAdamW(Optimizer):
        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
            super().__init__(params, dict(lr=lr, betas=betas, eps=eps,
                                          weight_decay=weight_decay))

        @mg.no_grad()
        def step(self):
            for group in self.param_groups:
                lr, (beta1, beta2) = group["lr"], group["betas"]
                eps, weight_decay = group["eps"], group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        state.update(step=0, m=mg.zeros_like(p), v=mg.zeros_like(p))
                    p.mul_(1 - lr * weight_decay)
                    state["step"] += 1
                    t = state["step"]
                    state["m"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                    state["v"].mul_(beta2).add_(p.grad * p.grad, alpha=1 - beta2)
                    denominator = state["v"].sqrt() / np.sqrt(1 - beta2 ** t) + eps
                    p.sub_(state["m"] / denominator, alpha=lr / (1 - beta1 ** t))

    def cross_entropy(scores, labels):
        """The mean over the batch of −log softmax(scores)[label]."""
        return -scores.log_softmax(1)[np.arange(len(labels)), labels].mean()

    first, second, last = ConvBlock(), ConvBlock(), MyLinear()
    model = nn.Sequential(first, second, last)
    layers = [("conv", first.weight, first.bias, 1, 1), ("relu",), ("maxpool", 2),
              ("conv", second.weight, second.bias, 1, 1), ("relu",), ("maxpool", 2),
              ("flatten",), ("linear", last.weight, last.bias)]
    base_lr, epochs = 1e-2, 8
    optimizer = MyAdamW(model.parameters(), lr=base_lr, weight_decay=1e-2)
    recorder = CapstoneRecorder(seed, layers, optimizer, epochs)
    images, labels = train_images.numpy(), train_labels.numpy()
    losses = []
    for epoch in range(epochs):
        optimizer.param_groups[0]["lr"] = base_lr * 0.5 * (1 + np.cos(np.pi * epoch / epochs))
        total = 0.0
        for rows in capstone_batches(seed, epoch, len(images)):
            loss = cross_entropy(model(mg.tensor(images[rows])), labels[rows])
            optimizer.zero_grad()
            loss.backward()
            recorder.step(rows)
            total += loss.item() * len(rows)
        losses.append(total / len(images))
    ### END SOLUTION
    return capstone_report(model, layers, optimizer, losses, recorder)
