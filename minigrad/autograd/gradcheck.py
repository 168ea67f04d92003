"""Check a backward formula against finite differences, entry by entry.

For a function f: R^n -> R^m with Jacobian J (m x n), J[i, j] = d f_i / d x_j:

* the **numerical** Jacobian is built one column at a time by central differences,

      J_num[:, j] = (f(x + eps * e_j) - f(x - eps * e_j)) / (2 * eps),

  whose error shrinks like eps**2 (the forward difference only like eps);
* the **analytical** Jacobian is built one row at a time by the engine's backward pass:
  a vector-Jacobian product with the one-hot vector v = e_i returns e_i^T J = J[i, :].

Every entry must satisfy  |J_ana - J_num| <= atol + rtol * |J_num|.  Both Jacobians are full
(every output entry against every input entry), so a rule that is right "on average" but wrong
for one entry is still caught.  It costs 2n forward and m backward passes: use small inputs.

Use float64 inputs: with float32 the rounding error of f, about 1e-7 * |f| / eps, swamps the
difference quotient and correct code fails.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

import numpy as np

from minigrad.autograd.gradients import grad as autograd_grad
from minigrad.tensor.tensor import Tensor, tensor


class GradcheckError(RuntimeError):
    """The analytical and numerical Jacobians of a function disagree."""


def gradcheck(
    fn: Callable[..., Tensor | Sequence[Tensor]],
    inputs: Tensor | Sequence[Any],
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Compare ``fn``'s backward pass with central finite differences.

    Args:
        fn: called as ``fn(*inputs)``; returns a Tensor or a tuple of Tensors.
        inputs: a Tensor or a tuple of arguments; Tensors that require grad are checked,
            everything else is passed through unchanged.
        eps: the finite-difference step.
        atol, rtol: an entry passes when ``|analytical - numerical| <= atol + rtol*|numerical|``.
        raise_exception: raise :class:`GradcheckError` on a mismatch (default) or return False.

    Returns:
        True when every entry of every Jacobian agrees.

    Raises:
        GradcheckError: naming the output and input, the worst entry, both values and the
            relative error.
    """
    inputs = _as_tuple(inputs)
    checked = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not checked:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True. (No input requires grad, so there is nothing to check: "
            "create them with requires_grad=True.)"
        )
    for i in checked:
        if inputs[i].dtype != np.float64:
            warnings.warn(
                f"gradcheck: input {i} requires grad but is {inputs[i].dtype}, not float64; "
                "finite differences in single precision are too inaccurate and the check "
                "will likely fail even for a correct backward.",
                UserWarning,
                stacklevel=2,
            )

    numerical = _numerical_jacobians(fn, inputs, checked, eps)
    analytical, output_shapes = _analytical_jacobians(fn, inputs, checked)
    for (out_index, in_index), j_num in numerical.items():
        problem = _compare(j_num, analytical[out_index, in_index], atol, rtol)
        if problem is None:
            continue
        if not raise_exception:
            return False
        raise GradcheckError(_mismatch_message(
            problem, out_index, output_shapes[out_index], in_index, inputs[in_index].shape,
            atol, rtol))
    return True


def gradgradcheck(
    fn: Callable[..., Tensor | Sequence[Tensor]],
    inputs: Tensor | Sequence[Any],
    grad_outputs: Tensor | Sequence[Tensor] | None = None,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check second derivatives: gradcheck of the backward pass itself.

    The function checked is ``g(x, v) = (d f/d x)^T v``, computed with
    ``autograd.grad(f(x), x, v, create_graph=True)``; its own backward therefore runs through
    the graph that ``f``'s backward recorded.  ``v`` (``grad_outputs``) defaults to random
    float64 tensors shaped like the outputs, and is checked too (``g`` is linear in ``v``).
    """
    inputs = _as_tuple(inputs)
    checked = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    outputs = [out for _, out in _float_outputs(fn, _fresh_copies(inputs))]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            tensor(rng.standard_normal(out.shape), dtype=out.dtype, requires_grad=True)
            for out in outputs
        )
    grad_outputs = _as_tuple(grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise ValueError(
            f"gradgradcheck: fn returned {len(outputs)} output(s) but {len(grad_outputs)} "
            "grad_outputs were given"
        )
    n_inputs = len(inputs)

    def first_derivative(*args: Any) -> tuple[Tensor, ...]:
        xs, vs = args[:n_inputs], args[n_inputs:]
        pairs = [(y, v) for (_, y), v in zip(_float_outputs(fn, xs), vs) if y.requires_grad]
        wrt = [xs[i] for i in checked]
        grads = [None] * len(wrt)
        if pairs:
            grads = autograd_grad([y for y, _ in pairs], wrt, grad_outputs=[v for _, v in pairs],
                                  create_graph=True, allow_unused=True)
        # An input the outputs do not depend on has derivative zero (a constant).
        return tuple(
            g if g is not None else tensor(np.zeros(x.shape), dtype=x.dtype)
            for g, x in zip(grads, wrt)
        )

    return gradcheck(first_derivative, tuple(inputs) + tuple(grad_outputs), eps=eps,
                     atol=atol, rtol=rtol, raise_exception=raise_exception)


# ----------------------------------------------------------------------------- Jacobians
def _numerical_jacobians(
    fn: Callable, inputs: tuple, checked: list[int], eps: float
) -> dict[tuple[int, int], np.ndarray]:
    """{(output, input): J_num of shape (output.size, input.size)} by central differences."""
    output_sizes = {k: _size(out.shape) for k, out in _float_outputs(fn, _fresh_copies(inputs))}
    jacobians: dict[tuple[int, int], np.ndarray] = {}
    for in_index in checked:
        x = inputs[in_index]
        base = x.numpy()
        for out_index, out_size in output_sizes.items():
            jacobians[out_index, in_index] = np.zeros((out_size, base.size))
        for j in range(base.size):
            values = {}
            for step in (+eps, -eps):
                moved = base.copy()
                moved.flat[j] += step
                args = list(_fresh_copies(inputs))
                args[in_index] = tensor(moved, dtype=x.dtype, requires_grad=True)
                values[step] = {k: _as_float64(out).ravel() for k, out in _float_outputs(fn, args)}
            for out_index in output_sizes:
                column = (values[+eps][out_index] - values[-eps][out_index]) / (2 * eps)
                jacobians[out_index, in_index][:, j] = column
    return jacobians


def _analytical_jacobians(
    fn: Callable, inputs: tuple, checked: list[int]
) -> tuple[dict[tuple[int, int], np.ndarray], dict[int, tuple[int, ...]]]:
    """{(output, input): J_ana}, one row per backward pass with a one-hot grad_output;
    and {output: its shape}."""
    args = _fresh_copies(inputs)
    outputs = _float_outputs(fn, args)
    wrt = [args[i] for i in checked]
    jacobians: dict[tuple[int, int], np.ndarray] = {}
    for out_index, out in outputs:
        rows = {i: np.zeros((_size(out.shape), _size(args[i].shape))) for i in checked}
        if out.requires_grad:
            for k in range(_size(out.shape)):
                one_hot = np.zeros(out.shape)
                one_hot.flat[k] = 1.0
                grads = autograd_grad(out, wrt, grad_outputs=tensor(one_hot, dtype=out.dtype),
                                      retain_graph=True, allow_unused=True)
                for in_index, g in zip(checked, grads):
                    if g is None:  # the output does not depend on this input
                        continue
                    if tuple(g.shape) != tuple(args[in_index].shape):
                        raise GradcheckError(
                            f"backward returned a gradient of shape {tuple(g.shape)} for "
                            f"input {in_index}, whose shape is {tuple(args[in_index].shape)}; "
                            "a gradient must have the shape of its input (did the backward "
                            "forget to sum over broadcast dimensions?)"
                        )
                    rows[in_index][k] = g.numpy().astype(np.float64).ravel()
        for in_index in checked:
            jacobians[out_index, in_index] = rows[in_index]
    return jacobians, {k: out.shape for k, out in outputs}


# ----------------------------------------------------------------------------- comparison
def _compare(j_num: np.ndarray, j_ana: np.ndarray, atol: float, rtol: float) -> dict | None:
    """The worst offending entry, or None when every entry is within tolerance."""
    allowed = atol + rtol * np.abs(j_num)
    difference = np.abs(j_ana - j_num)
    # NaN never passes: compare "not <=" so that NaN counts as a failure.
    bad = ~(difference <= allowed)
    if not bad.any():
        return None
    with np.errstate(divide="ignore", invalid="ignore"):  # allowed may be 0 when atol=0
        excess = np.where(bad, difference / allowed, 0.0)
    excess[np.isnan(excess) & bad] = np.inf
    row, col = np.unravel_index(int(np.argmax(excess)), excess.shape)
    return {
        "row": int(row), "col": int(col),
        "numerical": float(j_num[row, col]), "analytical": float(j_ana[row, col]),
        "n_bad": int(bad.sum()), "n_total": int(bad.size),
    }


def _mismatch_message(problem: dict, out_index: int, out_shape: tuple, in_index: int,
                      in_shape: tuple, atol: float, rtol: float) -> str:
    out_entry = _entry(problem["row"], out_shape)
    in_entry = _entry(problem["col"], in_shape)
    numerical, analytical = problem["numerical"], problem["analytical"]
    difference = abs(analytical - numerical)
    relative = difference / abs(numerical) if numerical != 0 else float("inf")
    return (
        f"Jacobian mismatch for output {out_index} with respect to input {in_index}:\n"
        f"  worst entry d output[{out_index}]{out_entry} / d input[{in_index}]{in_entry}\n"
        f"  numerical = {numerical:.10g}, analytical = {analytical:.10g}, "
        f"relative error = {relative:.3g} "
        f"(allowed: |difference| <= atol + rtol*|numerical| = {atol + rtol * abs(numerical):.3g})\n"
        f"  {problem['n_bad']} of {problem['n_total']} Jacobian entries differ.\n"
        "  Usual causes: a wrong backward formula, an input at a kink (relu or abs at 0, "
        "max with ties), or inputs that are not float64."
    )


def _entry(flat_index: int, shape: tuple) -> str:
    """The entry's index in the tensor, e.g. "[1, 0]" ("" for a 0-d tensor)."""
    if not shape:
        return ""
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat_index, shape)) + "]"


# ----------------------------------------------------------------------------- helpers
def _as_tuple(value: Any) -> tuple:
    if isinstance(value, Tensor):
        return (value,)
    if isinstance(value, (tuple, list)):
        return tuple(value)
    raise TypeError(
        f"gradcheck: inputs must be a Tensor or a tuple of them, got {type(value).__name__}"
    )


def _fresh_copies(inputs: Sequence[Any]) -> tuple:
    """New leaves with the same values, so checking never touches the caller's .grad."""
    return tuple(
        tensor(x.numpy(), dtype=x.dtype, requires_grad=x.requires_grad)
        if isinstance(x, Tensor) else x
        for x in inputs
    )


def _float_outputs(fn: Callable, args: Sequence[Any]) -> list[tuple[int, Tensor]]:
    """fn(*args) as (position, output) pairs, keeping only floating point outputs
    (integer outputs such as the indices of max carry no gradient)."""
    outputs = fn(*args)
    if not isinstance(outputs, (Tensor, tuple, list)):
        raise TypeError(f"gradcheck: fn must return a Tensor or a tuple of Tensors, got "
                        f"{type(outputs).__name__}")
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    for k, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(
                f"gradcheck: fn must return a Tensor or a tuple of Tensors; "
                f"output {k} is a {type(out).__name__}"
            )
    return [(k, out) for k, out in enumerate(outputs) if np.issubdtype(out.dtype, np.floating)]


def _as_float64(out: Tensor) -> np.ndarray:
    return np.asarray(out.numpy(), dtype=np.float64)


def _size(shape: tuple) -> int:
    return int(np.prod(shape, dtype=np.int64))
