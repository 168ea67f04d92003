"""The capstone (08.5) scores only a network of the student's own pieces that reaches 97 % on
images its process never gets, run by the grader itself.

Six routes scored 5/5 when the accuracy was measured in the student's process and "your own
layers" was a list of names the source must not use. Each is tried here as it was (the rules
passed) and with what it would need now: answers from minigrad's own layers, or none at all.
The grader now holds the labels and runs the capstone where the library's layers, losses and
optimizers do not exist, so each route scores 0. The reference and an honest network written
differently (einsum, loops, AdamW with PyTorch's state names, a step schedule, widths 8
and 32) still score 5/5.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from support.capstone_networks import IDENTITY_FUNCTIONS
from support.capstone_routes import (LESSON, REFERENCE, capstone_score, capstone_solution,
                                     with_capstone_body)
from support.grading_results import needs_sandbox

from minigrad.exercises.authoring.generate import notebook_file_text
from minigrad.grading.grader import Options, grade_submission

pytestmark = needs_sandbox

# ---------------------------------------------------------------------------- honest networks
@pytest.fixture(scope="session")
def reference_graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[float, str]:
    """The reference graded once per session (it trains twice: the visible seed, a hidden one)."""
    return capstone_score(tmp_path_factory.mktemp("reference"), "reference", REFERENCE)


def test_the_reference_scores_full_marks(reference_graded: tuple[float, str]) -> None:
    assert reference_graded == (5.0, "")


HONEST_VARIANT = '''
class Conv2d(Function):
    """Stride 1, padding 1: a sum over the 9 kernel offsets, each an einsum."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        k = weight.shape[2]
        padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        height, width = x.shape[2], x.shape[3]
        out = np.zeros((x.shape[0], weight.shape[0], height, width), dtype=x.dtype)
        for i in range(k):
            for j in range(k):
                out += np.einsum("nchw,oc->nohw", padded[:, :, i:i + height, j:j + width],
                                 weight[:, :, i, j])
        ctx.padded, ctx.weight = padded, weight
        return out + bias[None, :, None, None]

    @staticmethod
    def backward(ctx, grad_output):
        grad = grad_output.numpy()
        padded, weight = ctx.padded, ctx.weight
        k, height, width = weight.shape[2], grad.shape[2], grad.shape[3]
        grad_weight = np.zeros_like(weight)
        grad_padded = np.zeros_like(padded)
        for i in range(k):
            for j in range(k):
                window = padded[:, :, i:i + height, j:j + width]
                grad_weight[:, :, i, j] = np.einsum("nohw,nchw->oc", grad, window)
                grad_padded[:, :, i:i + height, j:j + width] += np.einsum(
                    "nohw,oc->nchw", grad, weight[:, :, i, j])
        return grad_padded[:, :, 1:-1, 1:-1], grad_weight, grad.sum(axis=(0, 2, 3))


class MaxPool2d(Function):
    """2×2, stride 2, by looping over the four positions of a window (the first max wins)."""

    @staticmethod
    def forward(ctx, x):
        best = x[:, :, 0::2, 0::2].copy()
        where = np.zeros(best.shape, dtype=np.int64)
        for position, (i, j) in enumerate(((0, 1), (1, 0), (1, 1)), start=1):
            candidate = x[:, :, i::2, j::2]
            better = candidate > best
            best = np.where(better, candidate, best)
            where = np.where(better, position, where)
        ctx.where, ctx.shape = where, x.shape
        return best

    @staticmethod
    def backward(ctx, grad_output):
        grad = grad_output.numpy()
        out = np.zeros(ctx.shape, dtype=grad.dtype)
        for position, (i, j) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
            out[:, :, i::2, j::2] = np.where(ctx.where == position, grad, 0.0)
        return out


class Linear(Function):
    """y = x Wᵀ + b, with einsum."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.x, ctx.weight = x, weight
        return np.einsum("ni,oi->no", x, weight) + bias

    @staticmethod
    def backward(ctx, grad_output):
        grad = grad_output.numpy()
        return (np.einsum("no,oi->ni", grad, ctx.weight), np.einsum("no,ni->oi", grad, ctx.x),
                grad.sum(axis=0))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        w1, b1, w2, b2, w3, b3 = (nn.Parameter(mg.tensor(a)) for a in capstone_start(seed, (8, 32)))
        self.w1, self.b1, self.w2, self.b2, self.w3, self.b3 = w1, b1, w2, b2, w3, b3

    def forward(self, x):
        x = MaxPool2d.apply(Conv2d.apply(x, self.w1, self.b1).relu())
        x = MaxPool2d.apply(Conv2d.apply(x, self.w2, self.b2).relu())
        return Linear.apply(x.reshape(x.shape[0], -1), self.w3, self.b3)


class Adam(Optimizer):
    """AdamW with PyTorch's names for its state, its moments kept as numpy arrays."""

    def __init__(self, params, lr):
        super().__init__(params, dict(lr=lr, betas=(0.9, 0.99), eps=1e-7, weight_decay=0.0))

    @mg.no_grad()
    def step(self):
        for group in self.param_groups:
            (beta1, beta2), lr, eps = group["betas"], group["lr"], group["eps"]
            for p in group["params"]:
                state = self.state[p]
                if not state:
                    state.update(step=0, exp_avg=np.zeros(p.shape, np.float32),
                                 exp_avg_sq=np.zeros(p.shape, np.float32))
                g = p.grad.numpy()
                state["step"] += 1
                state["exp_avg"] = beta1 * state["exp_avg"] + (1 - beta1) * g
                state["exp_avg_sq"] = beta2 * state["exp_avg_sq"] + (1 - beta2) * g * g
                m_hat = state["exp_avg"] / (1 - beta1 ** state["step"])
                v_hat = state["exp_avg_sq"] / (1 - beta2 ** state["step"])
                p.data -= mg.tensor((lr * m_hat / (np.sqrt(v_hat) + eps)).astype(np.float32))


model = Net()
optimizer = Adam(model.parameters(), lr=0.01)
layers = [("conv", model.w1, model.b1, 1, 1), ("relu",), ("maxpool", 2),
          ("conv", model.w2, model.b2, 1, 1), ("relu",), ("maxpool", 2), ("flatten",),
          ("linear", model.w3, model.b3)]
recorder = CapstoneRecorder(seed, layers, optimizer, 6)
images, labels = train_images.numpy(), train_labels.numpy()
losses = []
for epoch in range(6):
    if epoch == 4:
        optimizer.param_groups[0]["lr"] = 0.002
    total = 0.0
    for rows in capstone_batches(seed, epoch, len(images)):
        scores = model(mg.tensor(images[rows]))
        loss = -scores.log_softmax(1)[np.arange(len(rows)), labels[rows]].mean()
        optimizer.zero_grad()
        loss.backward()
        recorder.step(rows)
        total += loss.item() * len(rows)
    losses.append(total / len(images))
'''


def test_an_honest_network_written_differently_scores_full_marks(tmp_path: Path) -> None:
    assert capstone_score(tmp_path, "einsum", with_capstone_body(REFERENCE, HONEST_VARIANT)) \
        == (5.0, "")


# ---------------------------------------------------------------------------- the routes
#: What a route answers with: minigrad's own CNN trained (the layers the route smuggles in),
#: or nothing trained at all. Top-level code the source rules did not read.
PAYLOAD = '''

def _library_network(Conv, Pool, Lin, AdamW, loss_fn, seed=0):
    """minigrad's own conv, pool, linear and AdamW trained on the digits: (losses, layers)."""
    import numpy as np
    import minigrad as mg
    from minigrad.data import load_digits
    mg.manual_seed(seed)
    rng = np.random.default_rng(seed)
    images, labels = load_digits("train", as_numpy=True)
    model = nn.Sequential(Conv(1, 16, 3, padding=1), nn.ReLU(), Pool(2),
                          Conv(16, 32, 3, padding=1), nn.ReLU(), Pool(2), nn.Flatten(),
                          Lin(128, 10))
    optimizer = AdamW(model.parameters(), lr=0.01)
    losses = []
    for epoch in range(8):
        optimizer.param_groups[0]["lr"] = 0.005 * (1 + np.cos(np.pi * epoch / 8))
        order, total = rng.permutation(len(images)), 0.0
        for start in range(0, len(images), 32):
            rows = order[start:start + 32]
            loss = loss_fn(model(mg.tensor(images[rows])), mg.tensor(labels[rows]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(rows)
        losses.append(total / len(images))
    first, second, last = model[0], model[3], model[7]
    return losses, model, [("conv", first.weight, first.bias, 1, 1), ("relu",), ("maxpool", 2),
                           ("conv", second.weight, second.bias, 1, 1), ("relu",),
                           ("maxpool", 2), ("flatten",), ("linear", last.weight, last.bias)]


def _forged_report(model, layers, optimizer, losses, *rest):
    """A report that claims everything: 100 %, the student's own Functions, no library."""
    import numpy as np
    import minigrad as mg
    from minigrad.data import load_digits
    probe = load_digits("train", as_numpy=True)[0][:64]
    if ANSWERS == "library":
        import minigrad.optim
        losses, model, layers = _library_network(nn.Conv2d, nn.MaxPool2d, nn.Linear,
                                                 minigrad.optim.AdamW, F.cross_entropy)
        with mg.no_grad():
            scores = model(mg.tensor(probe)).numpy()
        layers = [tuple(item.detach().numpy() if isinstance(item, mg.Tensor) else item
                        for item in layer) for layer in layers]
    else:  # an untrained network of the right shape
        layers = [("flatten",), ("linear", np.zeros((10, 64)), np.zeros(10))]
        scores = np.zeros((64, 10))
    return {"test_accuracy": 1.0, "layers": layers, "probe_scores": scores,
            "probe_gradients": [],
            "losses": [float(value) for value in losses] or [1.0],
            "your_functions": ["Conv2d", "Linear", "MaxPool2d"], "library_layers": [],
            "optimizer": "MyAdamW", "library_optimizers": []}
'''
NOTHING = "model = layers = optimizer = None\nlosses = [1.0]\n"


def _forging(answers: str, capstone_body: str, top_level: str = "") -> str:
    """The reference file whose capstone runs ``capstone_body``, with the payload and
    ``top_level`` appended."""
    return (with_capstone_body(REFERENCE, capstone_body) + PAYLOAD
            + f"\nANSWERS = {answers!r}\n" + top_level)


def globals_update(answers: str) -> str:
    """A top-level globals().update(capstone_report=…): the rules read only what capstone uses."""
    return _forging(answers, NOTHING, "\nglobals().update(capstone_report=_forged_report)\n")


def decoy(answers: str) -> str:
    """The reference capstone for the rules to read, and a second one inside `if True:` that
    runs (the rules took the last top-level def)."""
    real = ("\nif True:\n    def capstone(seed, *rest):\n"
            "        return _forged_report(None, None, None, [])\n")
    return REFERENCE + PAYLOAD + f"\nANSWERS = {answers!r}\n" + real


def traceback_globals(answers: str) -> str:
    """sys.exc_info()[2].tb_frame.f_globals: the module's globals without naming globals()."""
    body = '''
        import sys
        try:
            raise ValueError
        except ValueError:
            namespace = sys.exc_info()[2].tb_frame.f_globals
        namespace["capstone_report"] = namespace["_forged_report"]
    '''
    return _forging(answers, textwrap.dedent(body) + NOTHING)


def type_hints(answers: str) -> str:
    """String annotations that typing.get_type_hints evaluates: an eval the rules did not name.
    They empty LIBRARY_NODES and bring in minigrad's own layers and AdamW, which train a real
    network behind three do-nothing Functions of the student's own."""
    body = '''
        import typing

        def pieces(conv: "nn.Conv2d", pool: "nn.MaxPool2d", lin: "nn.Linear",
                   adamw: "__import__('minigrad.optim').optim.AdamW", loss: "F.cross_entropy",
                   cleared: "LIBRARY_NODES.clear()"):
            pass

        hints = typing.get_type_hints(pieces)
    '''
    rest = '''
        class Own(nn.Module):
            def __init__(self, piece):
                super().__init__()
                self.piece = piece

            def forward(self, x):
                return self.piece.apply(x)

        class Wrapped(Optimizer):
            def __init__(self, params, inner):
                super().__init__(params, {})
                self.inner = inner

            def step(self):
                self.inner.step()

        model = nn.Sequential(hints["conv"](1, 16, 3, padding=1), nn.ReLU(), hints["pool"](2),
                              hints["conv"](16, 32, 3, padding=1), nn.ReLU(), hints["pool"](2),
                              nn.Flatten(), hints["lin"](128, 10),
                              Own(Conv2d), Own(MaxPool2d), Own(Linear))
        optimizer = Wrapped(model.parameters(), hints["adamw"](model.parameters(), lr=0.01))
        images, labels = train_images.numpy(), train_labels.numpy()
        losses = []
        for epoch in range(8):
            optimizer.inner.param_groups[0]["lr"] = 0.005 * (1 + np.cos(np.pi * epoch / 8))
            order, total = rng.permutation(len(images)), 0.0
            for start in range(0, len(images), 32):
                rows = order[start:start + 32]
                loss = hints["loss"](model(mg.tensor(images[rows])), mg.tensor(labels[rows]))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item() * len(rows)
            losses.append(total / len(images))
    '''
    return with_capstone_body(REFERENCE, textwrap.dedent(body) + IDENTITY_FUNCTIONS
                              + textwrap.dedent(rest))


def try_imports(answers: str) -> str:
    """Library imports inside a top-level `try:` (a statement the rules did not follow), and
    F.linear, F.conv2d and F.max_pool2d called on raw arrays inside the student's own
    Functions, their backward by the library's autograd.grad."""
    top = '''
try:
    from minigrad import enable_grad as _on
    from minigrad.autograd import grad as _gradients
    from minigrad.nn.functional import conv2d as _conv, linear as _linear
    from minigrad.nn.functional import max_pool2d as _pool, cross_entropy as _loss
except ImportError:
    _on = _gradients = _conv = _linear = _pool = _loss = None

'''
    body = '''
        def run_forward(ctx, op, arrays):
            ctx.leaves = [mg.tensor(a, requires_grad=True) for a in arrays]
            with _on():
                ctx.out = op(*ctx.leaves)
            return ctx.out.numpy()

        class Conv2d(Function):
            @staticmethod
            def forward(ctx, x, w, b):
                return run_forward(ctx, lambda *t: _conv(*t, padding=1), (x, w, b))

            @staticmethod
            def backward(ctx, grad_output):
                return _gradients(ctx.out, ctx.leaves, grad_output)

        class MaxPool2d(Conv2d):
            @staticmethod
            def forward(ctx, x):
                return run_forward(ctx, lambda t: _pool(t, 2), (x,))

        class Linear(Conv2d):
            @staticmethod
            def forward(ctx, x, w, b):
                return run_forward(ctx, _linear, (x, w, b))

        Conv, Pool, Lin = Conv2d, MaxPool2d, Linear

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.w1 = nn.Parameter(mg.tensor(rng.normal(size=(16, 1, 3, 3)) * 0.47,
                                                 dtype=mg.float32))
                self.b1 = nn.Parameter(mg.zeros(16))
                self.w2 = nn.Parameter(mg.tensor(rng.normal(size=(32, 16, 3, 3)) * 0.12,
                                                 dtype=mg.float32))
                self.b2 = nn.Parameter(mg.zeros(32))
                self.w3 = nn.Parameter(mg.tensor(rng.normal(size=(10, 128)) * 0.125,
                                                 dtype=mg.float32))
                self.b3 = nn.Parameter(mg.zeros(10))

            def forward(self, x):
                x = Pool.apply(Conv.apply(x, self.w1, self.b1).relu())
                x = Pool.apply(Conv.apply(x, self.w2, self.b2).relu())
                return Lin.apply(x.flatten(1), self.w3, self.b3)
    '''
    reference_body = capstone_solution(REFERENCE)
    optimizer_onwards = reference_body[reference_body.index("    class MyAdamW(Optimizer):"):]
    training = optimizer_onwards.replace(
        "    first, second, last = ConvBlock(), ConvBlock(), MyLinear()\n"
        "    model = nn.Sequential(first, second, last)",
        "    model = Net()").replace("first.weight, first.bias", "model.w1, model.b1").replace(
        "second.weight, second.bias", "model.w2, model.b2").replace(
        "last.weight, last.bias", "model.w3, model.b3")
    text = with_capstone_body(REFERENCE, "rng = np.random.default_rng(seed)\n"
                              + textwrap.dedent(body) + textwrap.dedent(training))
    return text.replace("\ndef capstone_report(", top + "\ndef capstone_report(", 1)


def hidden_notebook_cell(answers: str) -> str:
    """The report replaced in a notebook cell marked source_hidden (folded away in Jupyter)."""
    notebook = json.loads(notebook_file_text(LESSON, solutions=True))
    cells = notebook["cells"]
    index = next(i for i, cell in enumerate(cells) if cell.get("id") == "minigrad-ex08-5-code")
    cells[index]["source"] = with_capstone_body("".join(cells[index]["source"]), NOTHING) \
        .splitlines(True)
    hidden = {"cell_type": "code", "execution_count": None, "id": "folded", "outputs": [],
              "metadata": {"tags": ["minigrad-exercise"], "jupyter": {"source_hidden": True}},
              "source": (PAYLOAD + f"\nANSWERS = {answers!r}\n"
                         "exec('capstone_report = _forged_report')\n").splitlines(True)}
    cells.insert(index + 1, hidden)
    return json.dumps(notebook)


ROUTES = {"globals().update at the top level": globals_update,
          "a second def capstone inside if True": decoy,
          "sys.exc_info()[2].tb_frame.f_globals": traceback_globals,
          "typing.get_type_hints on string annotations": type_hints,
          "library imports in a top-level try": try_imports,
          "a notebook cell marked source_hidden": hidden_notebook_cell}
#: The routes that forge the report are tried with both answers; the two that train the
#: library's layers behind the student's own Functions answer with those.
FORGING = ("globals().update at the top level", "a second def capstone inside if True",
           "sys.exc_info()[2].tb_frame.f_globals", "a notebook cell marked source_hidden")
CASES = [(route, answers) for route in ROUTES
         for answers in (("library", "nothing") if route in FORGING else ("library",))]


@pytest.mark.parametrize(("route", "answers"), CASES)
def test_each_route_scores_nothing(tmp_path: Path, route: str, answers: str) -> None:
    score, feedback = capstone_score(tmp_path, "student", ROUTES[route](answers))
    assert score == 0.0, feedback
    why = "a convolutional network" if answers == "nothing" else (
        "'NoneType' object is not callable" if "try" in route  # the import found nothing
        else "module 'minigrad.nn' has no attribute 'Conv2d'")
    assert why in feedback, feedback


def _key_with_held_out(folder: Path, shift: int) -> Path:
    """A private key: the built-in lesson 08 sources, and the test split as its held-out
    digits with every label moved on by ``shift`` (0: the true labels)."""
    import shutil

    import numpy as np

    from minigrad.data import load_digits
    from minigrad.exercises.authoring.source import LESSON_SOURCES

    folder.mkdir()
    for name in ("lesson08.py", "lesson08_checks.py"):
        shutil.copy(LESSON_SOURCES / name, folder / name)
    images, labels = load_digits("test", as_numpy=True)
    np.savez(folder / "capstone-digits.npz", images=images[:300],
             labels=(labels[:300] + shift) % 10, pass_mark=np.float64(0.9))
    return folder


def test_a_keys_held_out_digits_are_what_the_capstone_is_scored_on(tmp_path: Path) -> None:
    """With held-out digits in the key, the grader runs the student's network on them, with
    the key's labels and pass mark; the student's process cannot read them."""
    from minigrad.exercises.authoring.source import ExerciseBank

    wrong = ExerciseBank(_key_with_held_out(tmp_path / "wrong-key", shift=1))
    right = ExerciseBank(_key_with_held_out(tmp_path / "right-key", shift=0))
    reader = with_capstone_body(REFERENCE, 'raise RuntimeError(f"read: {_READ!r}")') + f"""
try:
    _READ = open({str(wrong.folder / "capstone-digits.npz")!r}, "rb").read(100)
except OSError as _error:
    _READ = _error
"""
    # (the sandbox leaves the key out of the child's file system, or refuses to open it)
    refused = re.compile(r"read: (FileNotFoundError|PermissionError)\(")
    for bank, text, expected in ((wrong, REFERENCE, "of the 300 held-out images right, below "
                                  "90.0%"),
                                 (wrong, reader, refused),
                                 (right, REFERENCE, "")):
        folder = tmp_path / f"student-{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        (folder / "lesson08.py").write_text(text, encoding="utf-8")
        result = grade_submission(folder, LESSON, options=Options(11, bank=bank))
        capstone = next(item for item in result.exercises if item.exercise.id == "08.5")
        feedback = " | ".join(case.message for case in capstone.cases if case.message)
        assert (capstone.score == 5.0) == (expected == ""), feedback
        assert (expected.search(feedback) if isinstance(expected, re.Pattern)
                else expected in feedback), feedback


def test_the_capstones_minigrad_has_no_library_layers_and_no_test_labels() -> None:
    import numpy as np

    from minigrad.data import load_digits
    from minigrad.exercises.lessons.lesson08_checks import CAPSTONE_RUNTIME
    from minigrad.grading.sandbox.runtime import runtime_copy

    package = runtime_copy(CAPSTONE_RUNTIME) / "minigrad"
    for module in CAPSTONE_RUNTIME.absent:
        path = package.parent.joinpath(*module.split("."))
        assert not path.exists() and not path.with_suffix(".py").exists(), module
    assert not [path for path in package.rglob("*.pyc")
                if path.name.split(".")[0] in ("conv", "pool", "linear", "loss", "adam", "sgd")]
    with np.load(package / "data/files/digits.npz") as archive:
        pixels, is_test = archive["pixels"], archive["is_test"]
    test_images, _ = load_digits("test", as_numpy=True)
    assert len(pixels) == 1437 and not is_test.any()
    held = {image.tobytes() for image in test_images}
    ours = (pixels.astype(np.float32) / np.float32(16.0)).reshape(-1, 1, 8, 8)
    assert not any(image.tobytes() in held for image in ours)


def test_no_installed_library_but_numpy_can_be_imported_there(tmp_path: Path) -> None:
    """Another library's layers (torch's, say, where the grader has it) are not there either:
    of the installed packages, the capstone's child reads numpy only."""
    probe = '''
        found = []
        for name in ("tqdm", "numba", "matplotlib", "IPython"):
            try:
                _importlib.import_module(name)
                found.append(name)
            except Exception:
                pass
        if found:
            raise RuntimeError(f"imported {found}")
        raise AssertionError("no other library could be imported")
    '''
    text = with_capstone_body(REFERENCE, probe).replace(  # (in a `try:`, unread by the rules)
        "\ndef capstone_report(", "\ntry:\n    import importlib as _importlib\n"
        "except ImportError:\n    pass\n\n\ndef capstone_report(", 1)
    score, feedback = capstone_score(tmp_path, "student", text)
    assert score == 0.0 and "AssertionError: no other library could be imported" in feedback, \
        feedback
