"""The given runners: how an exercise runs a student's Function or Optimizer, in one place.

Lessons 03 to 08 hand students a runner for each exercise that builds a piece the library
uses: ``run_function`` (03), ``run_linear_function`` (05), ``run_conv2d`` (06), ``run_pool``
(07) and ``run_optimizer`` (08). They share their parts here: float64 leaves, a backward
that raised (the forward is graded all the same), and ``library_calls``, the watch that
notices a student's Function handing its work to the library's convolution or pooling.

A lesson source imports what it hands out (``from minigrad.exercises.harness import
run_conv2d``). A student's file cannot: the grader runs it in a child that reads minigrad's
engine but not ``minigrad/exercises``. So the student's file and notebook get the code itself
in place of the import — each runner named, with what it uses from here
(``authoring.source.inline_harness``): students read the code that runs theirs.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional

import numpy as np

import minigrad as mg
from minigrad.autograd import gradcheck
from minigrad.autograd.gradcheck import GradcheckError
from minigrad.tensor import Tensor



# ---------------------------------------------------------------------------- shared parts
def as_array(value: Any) -> Any:
    """A Tensor or array as a float64 numpy array; None stays None (a missing gradient)."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        value = value.detach().numpy()
    return np.array(value, dtype=np.float64)

def float64_leaf(array: np.ndarray) -> Tensor:
    return mg.tensor(np.asarray(array, dtype=np.float64), dtype=mg.float64, requires_grad=True)

def first_lines(error: Exception, count: int = 3) -> str:
    """An error's first lines on one line: what went wrong and where (gradcheck's worst entry)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()][:count]
    return "; ".join(lines).replace(":; ", ": ")

def backward_raised(error: Exception) -> str:
    """What a runner reports in place of gradcheck's verdict when backward raised."""
    return f"your backward raised {type(error).__name__}: {(str(error).splitlines() or [''])[0]}"

@contextmanager
def library_calls(modules: tuple[str, ...], torch_word: str) -> Iterator[list[str]]:
    """Given (not an exercise): list the library calls made inside the ``with``.

    An exercise that asks for your own convolution or pooling runs your Function's first
    forward and backward under this watch: a call into one of ``modules`` (minigrad's
    ``ops.conv`` or ``ops.pool``, its ``kernels``) or into a PyTorch function whose name holds
    ``torch_word`` is noted by name.
    """
    import importlib

    files, folders = {}, {}
    for name in modules:
        path = Path(importlib.import_module(name).__file__)
        if path.name == "__init__.py":
            folders[str(path.parent) + "/"] = name
        else:
            files[str(path)] = name
    calls: list[str] = []

    def watch(frame: Any, event: str, called: Any) -> None:
        if event == "call":
            where = frame.f_code.co_filename
            name = files.get(where) or next(
                (package for folder, package in folders.items() if where.startswith(folder)),
                None)
            if name:
                calls.append(f"{name}.{frame.f_code.co_name}")
        elif event == "c_call" and torch_word in getattr(called, "__name__", "") \
                and str(getattr(called, "__module__", "")).startswith("torch"):
            calls.append(f"torch.{called.__name__}")

    previous = sys.getprofile()
    sys.setprofile(watch)
    try:
        yield calls
    finally:
        sys.setprofile(previous)


# ---------------------------------------------------------------------------- the runners
def run_function(function: type, inputs: list[np.ndarray], grad_output: np.ndarray,
                 **settings: Any) -> tuple[np.ndarray, list[Optional[np.ndarray]], str]:
    """Given (not an exercise): run a Function forward and backward on float64 leaves.

    Returns ``(y, [dL/dx, ...], gradcheck)``: the output of your forward, each input's
    gradient as your backward computes it for the upstream gradient ``grad_output`` (the
    engine refuses a gradient of the wrong shape), and ``gradcheck``'s verdict on your pair
    forward/backward: "passed", or what it found (see :func:`function_verdict`). A forward
    whose output does not have grad_output's shape gets no backward: its gradients are None.

    Refuses a forward or a backward that changes an input in place (the engine cannot see
    that: backward would read something else where it saved the input).
    """
    def unchanged(leaves: list[Tensor], which: str) -> None:
        for number, (leaf, x) in enumerate(zip(leaves, inputs), start=1):
            if not np.array_equal(leaf.numpy(), np.asarray(x, dtype=np.float64)):
                raise ValueError(
                    f"your {which} changed its input number {number} in place (x **= 3, "
                    "x *= …): the array saved for backward now holds something else. Leave "
                    "the input as it is and compute a new array")

    leaves = [float64_leaf(x) for x in inputs]
    output = function.apply(*leaves, **settings)
    unchanged(leaves, "forward")
    grads: list[Optional[np.ndarray]] = [None] * len(leaves)
    if tuple(output.shape) == np.shape(grad_output):
        output.backward(mg.tensor(np.asarray(grad_output, dtype=np.float64)))
        unchanged(leaves, "backward")
        grads = [None if leaf.grad is None else leaf.grad.numpy() for leaf in leaves]
    return output.numpy(), grads, function_verdict(function, inputs, grad_output, settings)

def function_verdict(function: type, inputs: list[np.ndarray], grad_output: np.ndarray,
                     settings: dict) -> str:
    """Given (not an exercise): ``gradcheck``'s verdict on a Function, in words: "passed", or
    what it raised, after what :func:`vjp_diagnosis` recognises in the backward."""
    leaves = [float64_leaf(x) for x in inputs]
    try:
        gradcheck(lambda *tensors: function.apply(*tensors, **settings), tuple(leaves))
    except Exception as error:  # noqa: BLE001 — the verdict is the message
        what = vjp_diagnosis(function, inputs, grad_output, settings) \
            if isinstance(error, GradcheckError) else None
        found = f"{type(error).__name__}: {first_lines(error)}"
        return f"{what}; {found}" if what else found
    return "passed"

def vjp_diagnosis(function: type, inputs: list[np.ndarray], grad_output: np.ndarray,
                  settings: dict) -> Optional[str]:
    """Given (not an exercise): what a backward that gradcheck refuses does wrong, when it is
    one of two things: it ignores grad_output (the same gradients for two different ones), or
    it is the right gradient times one number c (central differences of forward, along
    grad_output, give the right one). None otherwise."""
    def backward(upstream: np.ndarray) -> list[np.ndarray]:
        leaves = [float64_leaf(x) for x in inputs]
        function.apply(*leaves, **settings).backward(mg.tensor(upstream, dtype=mg.float64))
        return [leaf.grad.numpy() for leaf in leaves]

    v = np.asarray(grad_output, dtype=np.float64)
    try:
        mine, other = backward(v), backward(2 * v + 1)
    except Exception:  # noqa: BLE001 — gradcheck's own message says what went wrong
        return None
    if all(np.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(mine, other)):
        return ("your backward gives the same gradient whatever grad_output is: multiply by "
                "grad_output, the gradient arriving from above")
    numeric = []
    for index, x in enumerate(inputs):
        x = np.asarray(x, dtype=np.float64)
        column = np.zeros_like(x)
        for entry in np.ndindex(x.shape):
            ends = []
            for sign in (1.0, -1.0):
                moved = [np.array(a, dtype=np.float64) for a in inputs]
                moved[index][entry] += sign * 1e-6
                with mg.no_grad():
                    out = function.apply(*[mg.tensor(a, dtype=mg.float64) for a in moved],
                                         **settings)
                ends.append(float(np.sum(as_array(out) * v)))
            column[entry] = (ends[0] - ends[1]) / 2e-6
        numeric.append(column)
    right = np.concatenate([n.ravel() for n in numeric])
    given = np.concatenate([m.ravel() for m in mine])
    if not right.any() or given.shape != right.shape:
        return None
    factor = float(given @ right / (right @ right))
    if abs(factor - 1) > 1e-3 and np.allclose(given, factor * right, rtol=1e-5, atol=1e-7):
        return (f"your gradient is {factor:.4g} times the right one everywhere: a constant "
                "factor of the local derivative is missing or extra")
    return None

def run_linear_function(function: type, x: np.ndarray, weight: np.ndarray, bias: np.ndarray,
                        grad_output: np.ndarray) -> tuple:
    """Given (not an exercise): run a Linear Function on float64 leaves.

    Returns ``(Z, dL/dX, dL/dW, dL/db, verdict)``: the forward result, the three gradients
    exactly as your ``backward`` returns them for ``grad_output`` (so a wrong shape shows as
    one), and ``gradcheck``'s verdict on your pair forward/backward ("passed", or why not).
    A backward that raises gives no gradients, and the verdict is its error.
    """
    leaves = [float64_leaf(x), float64_leaf(weight), float64_leaf(bias)]
    output = function.apply(*leaves)
    try:
        grads = function.backward(output.grad_fn, mg.tensor(grad_output, dtype=mg.float64))
    except Exception as error:  # noqa: BLE001 — the forward is still graded
        return output.numpy(), None, None, None, backward_raised(error)
    if not isinstance(grads, (tuple, list)):
        grads = (grads,)
    grads = [as_array(g) for g in grads] + [None] * (3 - len(grads))
    try:
        gradcheck(function.apply, tuple(leaves))
        verdict = "passed"
    except Exception as error:  # noqa: BLE001 — the verdict is the message
        verdict = f"{type(error).__name__}: {first_lines(error)}"
    return (output.numpy(), *grads[:3], verdict)

def run_conv2d(function: type, x: np.ndarray, weight: np.ndarray, bias: np.ndarray,
               grad_output: np.ndarray, stride: int, padding: int) -> tuple[Any, ...]:
    """Given (not an exercise): run a convolution ``Function`` forward and backward.

    Applies ``function`` to float64 leaves x, weight and bias, calls its ``backward`` with the
    upstream gradient ``grad_output`` and returns ``(y, dL/dx, dL/dw, dL/db, passed)``:
    the gradients exactly as your backward returns them, and ``passed`` — whether ``gradcheck``
    finds your backward in agreement with finite differences of your forward (on the first
    image of the batch). A backward that raises gives no gradients, and ``passed`` is its error:
    the forward is graded all the same.
    """
    leaves = [mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)
              for a in (x, weight, bias)]
    raised = None
    with library_calls(("minigrad.ops.conv", "minigrad.kernels"), "conv") as calls:
        output = function.apply(*leaves, stride=stride, padding=padding)
        # backward is called directly (the graph node is the ctx) rather than through the
        # engine, which would refuse a gradient of the wrong shape: that way the checks can
        # say what the shape tells about the mistake.
        try:
            grads = function.backward(output.grad_fn,
                                      mg.tensor(np.asarray(grad_output, dtype=np.float64)))
        except Exception as error:  # noqa: BLE001 — the forward is still graded
            raised = error
    if calls:
        raise RuntimeError(f"your Conv2d calls the library's convolution ({calls[0]}): 06.5 "
                           "asks for your own, with numpy (loops, slices, einsum or im2col); "
                           "use F.conv2d only to check your answers")
    if raised is not None:
        return output.numpy(), None, None, None, backward_raised(raised)
    # gradcheck on the first image only: the rules are the same for every image, and each
    # image costs two forward passes per input entry.
    first = [mg.tensor(leaf.numpy()[:1] if index == 0 else leaf.numpy(), requires_grad=True)
             for index, leaf in enumerate(leaves)]
    try:
        passed = gradcheck(lambda *t: function.apply(*t, stride=stride, padding=padding),
                           tuple(first), raise_exception=False)
    except Exception:  # noqa: BLE001 — a backward the engine refuses fails gradcheck too
        passed = False
    arrays = [None if g is None else g.numpy() if isinstance(g, mg.Tensor) else np.asarray(g)
              for g in (grads if isinstance(grads, (tuple, list)) else [grads])]
    return (output.numpy(), *arrays, bool(passed))

def run_pool(function: type, x: np.ndarray, grad_output: np.ndarray,
             **settings: Any) -> tuple[np.ndarray, Optional[np.ndarray], Optional[bool] | str]:
    """Given (not an exercise): run a pooling Function forward and backward on a float64 leaf.

    Returns ``(y, dL/dx, gradcheck)``: the output, the input's gradient for the upstream
    gradient ``grad_output`` (one entry per window), and whether ``gradcheck`` (central
    differences, on the first image's first channel) agrees with your backward — ``None``
    when two entries of that plane are equal: at a tie the maximum has no derivative, and
    finite differences split the gradient between the two. A backward that raises gives no
    dL/dx, and its error in place of the verdict: the forward is graded all the same.
    """
    leaf = mg.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
    calls: list[str] = []
    raised = None
    try:
        with library_calls(("minigrad.ops.pool", "minigrad.kernels"), "pool") as calls:
            output = function.apply(leaf, **settings)
            if tuple(output.shape) == np.shape(grad_output):
                try:
                    output.backward(mg.tensor(np.asarray(grad_output, dtype=np.float64)))
                except Exception as error:  # noqa: BLE001 — the forward is still graded
                    raised = error
    except Exception:
        if not calls:  # an error of your own in forward: shown as it is
            raise
    if calls:  # first, even if the library's result then failed in your code
        raise RuntimeError(f"your {function.__name__} calls the library's pooling ({calls[0]}): "
                           "07.5 and 07.6 ask for your own, with numpy (loops, slices or "
                           "reshapes); use F.max_pool2d and F.avg_pool2d only to check your "
                           "answers")
    if tuple(output.shape) != np.shape(grad_output):
        raise ValueError(
            f"your forward returned shape {tuple(output.shape)}, but there is one window per "
            f"entry of grad_output, shape {np.shape(grad_output)}: the pooled output must have "
            f"shape (N, C, (H − k) // s + 1, (W − k) // s + 1) for an input (N, C, H, W)")
    if raised is not None:
        return output.numpy(), None, backward_raised(raised)
    plane = mg.tensor(leaf.numpy()[:1, :1], requires_grad=True)
    agrees = None
    if np.unique(plane.numpy()).size == plane.numel():
        agrees = bool(gradcheck(lambda t: function.apply(t, **settings), (plane,),
                                raise_exception=False))
    return output.numpy(), leaf.grad.numpy(), agrees

def run_optimizer(optimizer_class: type, weights: list[np.ndarray], scales: list[np.ndarray],
                  targets: list[np.ndarray], groups: list[dict], defaults: dict,
                  steps: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Given (not an exercise): train leaves with your optimizer; return where they went.

    The parameters p_i start at ``weights[i]``; the loss is L = Σ_i ½ Σ (a_i ⊙ p_i − b_i)²
    with a_i = ``scales[i]`` and b_i = ``targets[i]``. ``groups`` are the parameter groups,
    each a dict whose "params" lists parameter numbers and whose other keys override
    ``defaults`` for that group. Each step: zero_grad, loss, backward, ``optimizer.step()``.
    Returns ``(weights after step 1, weights after the last step)``.
    """
    leaves = [mg.tensor(np.asarray(w, dtype=np.float64), requires_grad=True) for w in weights]
    param_groups = [{**group, "params": [leaves[i] for i in group["params"]]}
                    for group in groups]
    optimizer = optimizer_class(param_groups, **defaults)
    history = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = sum(0.5 * ((mg.tensor(a) * p - mg.tensor(b)) ** 2).sum()
                   for a, p, b in zip(scales, leaves, targets))
        loss.backward()
        optimizer.step()
        held = {id(p) for group in optimizer.param_groups for p in group["params"]}
        if not all(id(leaf) in held for leaf in leaves):
            raise RuntimeError(
                "after step() the optimizer no longer holds the model's tensors: a parameter "
                "was replaced by a new tensor, so the model never sees the update. Update it "
                "in place instead: p.sub_(...) (step runs under no_grad) or p.data -= ...")
        history.append([leaf.numpy() for leaf in leaves])
    return history[0], history[-1]
