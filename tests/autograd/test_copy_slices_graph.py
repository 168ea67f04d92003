"""The graph an in-place op through a view leaves on the base: PyTorch's CopySlices.

CopySlices holds the in-place op's node (as PyTorch's holds its `fn`): its
`next_functions` are the base's old node, then the op's other inputs (None for a number),
and gradients still flow into the overwritten region through the op (issue 30, §2).
Each case with its node names written out (runs without torch), against PyTorch
(`oracle`), and by gradcheck.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import gradcheck


def _names(node):
    return [None if next_node is None else next_node.name().removeprefix("torch::autograd::")
            for next_node, _ in node.next_functions]


def _write(L, update, base_requires_grad=True):  # noqa: N803 - minigrad or torch
    """base = a * 1 (a non-leaf), then `update(base, w)` in place through a view of it."""
    a = L.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=base_requires_grad)
    w = L.tensor(np.array([0.5, -2.0, 3.0]), requires_grad=True)
    base = a * 1.0 if base_requires_grad else a.clone()
    update(base, w)
    return base, a, w


UPDATES = {  # in-place write: the names PyTorch 2.13 lists in base.grad_fn.next_functions
    "t[0].mul_(2.0)": (lambda t, w: t[0].mul_(2.0), ["MulBackward0", None]),
    "t[0].mul_(w)": (lambda t, w: t[0].mul_(w), ["MulBackward0", "AccumulateGrad"]),
    "t[1].add_(w * 2)": (lambda t, w: t[1].add_(w * 2), ["MulBackward0", "MulBackward0"]),
    "t[0].div_(w)": (lambda t, w: t[0].div_(w), ["MulBackward0", "AccumulateGrad"]),
    "t[1].sub_(2.0)": (lambda t, w: t[1].sub_(2.0), ["MulBackward0", None]),
    "t[0].fill_(3.0)": (lambda t, w: t[0].fill_(3.0), ["MulBackward0"]),
    "t[0].zero_()": (lambda t, w: t[0].zero_(), ["MulBackward0"]),
    "t[0].fill_(w[1])": (lambda t, w: t[0].fill_(w[1]), ["MulBackward0", "SelectBackward0"]),
    "t[0].copy_(w)": (lambda t, w: t[0].copy_(w), ["MulBackward0", "AccumulateGrad"]),
    "t.T[1].mul_(2.0)": (lambda t, w: t.T[1].mul_(2.0), ["MulBackward0", None]),
    "t[0][1:].mul_(w[1:])": (lambda t, w: t[0][1:].mul_(w[1:]), ["MulBackward0", "SliceBackward0"]),
    "t[0] = w": (lambda t, w: t.__setitem__(0, w), ["MulBackward0", "AccumulateGrad"]),
    "t[1] = 5.0": (lambda t, w: t.__setitem__(1, 5.0), ["MulBackward0", None]),
}


@pytest.mark.parametrize("name", UPDATES)
def test_copy_slices_next_functions(name):
    update, expected = UPDATES[name]
    base, _, _ = _write(mg, update)
    assert base.grad_fn.name() == "CopySlices"
    assert _names(base.grad_fn) == expected


@pytest.mark.oracle
@pytest.mark.parametrize("name", UPDATES)
def test_copy_slices_graph_and_gradients_as_in_torch(same_as_torch, name):
    update = UPDATES[name][0]

    def case(L):  # noqa: N803
        base, a, w = _write(L, update)
        (base * base).sum().backward()
        return _names(base.grad_fn), base, a.grad, w.grad

    same_as_torch(case)


def test_copy_slices_on_a_base_without_grad():
    base, a, w = _write(mg, lambda t, w: t[0].mul_(w), base_requires_grad=False)
    assert _names(base.grad_fn) == [None, "AccumulateGrad"]
    base.sum().backward()
    assert w.grad.tolist() == [1.0, 2.0, 3.0]  # d(Σ t[0]·w)/dw = t[0] = a[0]


@pytest.mark.parametrize("name", UPDATES)
def test_gradients_through_copy_slices(name):
    update = UPDATES[name][0]

    def function(a, w):
        base = a * 1.0
        update(base, w)
        return base * base

    a = mg.tensor(np.arange(1.0, 7.0).reshape(2, 3) / 4, requires_grad=True)
    w = mg.tensor(np.array([0.5, -2.0, 3.0]), requires_grad=True)
    assert gradcheck(function, (a, w))


def test_mul_through_a_view_gradient_values():
    base, a, w = _write(mg, lambda t, w: t[0].mul_(2.0))
    base.sum().backward()
    assert a.grad.tolist() == [[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]]


def test_second_backward_through_a_held_update_needs_retain_graph():
    base, _, _ = _write(mg, lambda t, w: t[0].mul_(w))
    loss = base.sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        loss.backward()
