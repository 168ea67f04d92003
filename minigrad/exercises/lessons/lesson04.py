"""Lesson 04 exercises — autograd in practice: gradcheck, higher derivatives, hooks, graph lifetime.

Each function below is one exercise. Replace the body marked ``# YOUR CODE HERE`` and run
``check("04.N", function)`` to test it on the visible cases; the grader also runs hidden cases
on fresh random inputs. Inputs and results are ``numpy`` arrays (float64) and Python numbers;
inside, use ``minigrad`` (imported as ``mg``) as the exercise says.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

import minigrad as mg
from minigrad.autograd import Function


def run_graph_behaviour(function: type, x: np.ndarray, grad_output: np.ndarray) -> tuple:
    """Given (not an exercise): how a one-input Function behaves in the graph.

    On a float64 leaf x, with v = ``grad_output``, returns

    - ``y``: the forward result;
    - ``first``: vᵀJ = dL/dx for L = Σ v·y, from ``mg.autograd.grad(..., create_graph=True)``;
    - ``second``: the gradient of Σ first with respect to x (None if ``first`` carries no
      graph: a backward computed outside minigrad cannot be differentiated again);
    - ``second backward``: what a second ``backward`` through the same node does without
      ``retain_graph`` ("RuntimeError: retain_graph" when the saved values were freed);
    - ``retained``: x.grad after ``backward(v, retain_graph=True)`` and then ``backward(v)``.
    """
    v = mg.tensor(np.asarray(grad_output, dtype=np.float64), dtype=mg.float64)

    def leaf() -> mg.Tensor:
        return mg.tensor(np.asarray(x, dtype=np.float64), dtype=mg.float64, requires_grad=True)

    start = leaf()
    y = function.apply(start)
    (first,) = mg.autograd.grad(y, start, grad_outputs=v, create_graph=True)
    second = None
    if first.requires_grad:
        try:
            (second_grad,) = mg.autograd.grad(first.sum(), start)
            second = second_grad.numpy()
        except RuntimeError:  # first has a graph, but not one that reaches x
            second = None
    once = leaf()
    output = function.apply(once)
    output.backward(v)
    try:
        output.backward(v)
        verdict = "no error"
    except RuntimeError as error:
        verdict = "RuntimeError: retain_graph" if "retain_graph" in str(error) else \
            f"RuntimeError: {str(error).splitlines()[0]}"
    twice = leaf()
    output = function.apply(twice)
    output.backward(v, retain_graph=True)
    output.backward(v)
    return (y.detach().numpy(), first.detach().numpy(), second, verdict, twice.grad.numpy())


def numerical_jacobian(f: Callable[[np.ndarray], np.ndarray], weights: np.ndarray,
                       x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Exercise 04.1 — a Jacobian by central differences (what ``gradcheck`` compares with).

    A layer maps x of shape (n,) to y = f(W x) of shape (m,): ``weights`` is W, shape (m, n),
    and ``f`` is applied elementwise (a ``NamedFunction`` such as ``tanh``: call it, ``f(z)``).
    Return its Jacobian J, shape (m, n), J_ij = ∂y_i/∂x_j — row i is output i, column j is
    input j — built column by column:

        J[:, j] ≈ (y(x + ε e_j) − y(x − ε e_j)) / 2ε,   e_j = the j-th unit vector.

    Do not change ``x`` itself (work on copies). Any vector function would do here: the layer
    is only the example.
    """
    ### BEGIN SOLUTION
    def layer(inputs: np.ndarray) -> np.ndarray:
        return np.asarray(f(weights @ inputs), dtype=np.float64)

    x = np.asarray(x, dtype=np.float64)
    columns = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step[j] = eps
        columns.append((layer(x + step) - layer(x - step)) / (2.0 * eps))
    return np.stack(columns, axis=1)
    ### END SOLUTION

def higher_derivatives(coeffs: list[float], x: float) -> list[float]:
    """Exercise 04.2 — derivatives of derivatives with ``create_graph=True``.

    p(x) = coeffs[0] + coeffs[1]·x + coeffs[2]·x² + …  Return ``[p′(x), p″(x), p‴(x)]``,
    each one computed by minigrad: build p from a float64 tensor x that requires grad, take
    ``mg.autograd.grad(p, x, create_graph=True)`` so that the derivative is itself a graph,
    and differentiate that again (the last call needs no create_graph). A derivative that no
    longer depends on x comes back with ``requires_grad=False``: it is a constant, and all its
    further derivatives are 0.

    Example: coeffs = [0, 0, 0, 1] (p = x³) at x = 2 → [12, 12, 6].
    """
    ### BEGIN SOLUTION
    t = mg.tensor(float(x), dtype=mg.float64, requires_grad=True)
    value = mg.tensor(float(coeffs[0]), dtype=mg.float64)
    for power, coefficient in enumerate(coeffs):
        if power > 0:
            value = value + coefficient * t ** power
    derivatives = []
    for order in range(3):
        if not value.requires_grad:  # a constant: every further derivative is 0
            derivatives.append(0.0)
            continue
        (value,) = mg.autograd.grad(value, t, create_graph=order < 2)
        derivatives.append(value.item())
    return derivatives
    ### END SOLUTION


def hook_trace(x: np.ndarray, factors: list[float]) -> dict[str, list[np.ndarray] | np.ndarray]:
    """Exercise 04.3 — tensor hooks run in registration order, each seeing the last one's result.

    Build h = 2·x from a float64 leaf x, and L = (h·h).sum(). Register one hook on h per entry
    of ``factors``, in order: hook k records the gradient it receives (as a numpy array) and
    returns that gradient times ``factors[k]``. Call ``L.backward()`` and return
    ``{"seen": [what each hook received, in order], "x_grad": x.grad as a numpy array}``.

    A hook made in a loop must capture its own factor (``lambda g, f=f: ...``), not the loop
    variable's last value.

    Example: x = [1, 2], factors = [10] → seen = [[4, 8]], x_grad = [80, 160].
    """
    ### BEGIN SOLUTION
    leaf = mg.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
    h = leaf * 2
    seen: list[np.ndarray] = []

    def make_hook(factor: float) -> Callable:
        def hook(grad):  # type: ignore[no-untyped-def]
            seen.append(grad.numpy().copy())
            return grad * factor
        return hook

    for factor in factors:
        h.register_hook(make_hook(factor))
    (h * h).sum().backward()
    return {"seen": seen, "x_grad": leaf.grad.numpy()}
    ### END SOLUTION


def two_backwards(x: np.ndarray) -> dict[str, np.ndarray]:
    """Exercise 04.4 — two losses through one graph: retain_graph, and gradients that add.

    From a float64 leaf x build h = tanh(x) once, then two losses that share it:
    L1 = h.sum() and L2 = (h·h).sum(). Call ``L1.backward(retain_graph=True)`` (the second
    backward goes through h's node again, which saved its output), copy ``x.grad``, then
    ``L2.backward()``. Return ``{"after_first": dL1/dx, "after_both": x.grad}``: the second is
    the *sum* dL1/dx + dL2/dx, because backward adds into a leaf's ``.grad``.

    Example: x = [0] → after_first = [1], after_both = [1] (h = 0, so dL2/dx = 0 there).
    """
    ### BEGIN SOLUTION
    leaf = mg.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
    h = leaf.tanh()
    h.sum().backward(retain_graph=True)
    after_first = leaf.grad.numpy().copy()
    (h * h).sum().backward()
    return {"after_first": after_first, "after_both": leaf.grad.numpy()}
    ### END SOLUTION


def softplus_function(x: np.ndarray, grad_output: np.ndarray) -> tuple:
    """Exercise 04.5 — a Function that lives well in the graph: softplus, y = log(1 + eˣ).

    Write ``Softplus``. Its derivative is the sigmoid, σ(x) = 1 / (1 + e⁻ˣ). Two things are
    tested besides the numbers (``run_graph_behaviour``, given, does it):

    - ``create_graph=True`` must be able to differentiate your backward again, to get
      softplus'' = σ(x)(1 − σ(x)). The engine records backward's operations only if they are
      minigrad operations on Tensors (``ctx.saved_tensors`` gives Tensors), not numpy.
    - What backward needs must be kept with ``ctx.save_for_backward``: the engine frees it
      after one backward, so a second backward through the node fails unless the first one
      said ``retain_graph=True``. (A plain attribute, ``ctx.x = x``, is never freed.)

    ``forward(ctx, x)`` gets a numpy array (``np.logaddexp(0, x)`` is log(1 + eˣ) without
    overflow). Returns ``(y, dL/dx, second derivative term, second backward, retained)``.

    Example: x = [0], grad_output = [2] → y = [log 2], dL/dx = [1.0], second = [0.5],
    "RuntimeError: retain_graph", retained = [2.0].
    """
    class Softplus(Function):
        @staticmethod
        def forward(ctx, x):
            ### BEGIN SOLUTION
            ctx.save_for_backward(x)
            return np.logaddexp(0.0, x)
            ### END SOLUTION

        @staticmethod
        def backward(ctx, grad_output):
            ### BEGIN SOLUTION
            (x,) = ctx.saved_tensors
            return grad_output * x.sigmoid()
            ### END SOLUTION

    return run_graph_behaviour(Softplus, x, grad_output)
