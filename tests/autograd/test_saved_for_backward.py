"""Ops save for backward what PyTorch 2.13 saves, so the same in-place changes between
forward and backward are refused (with PyTorch's message) or allowed.

- cross_entropy saves the log-softmax of the logits, not the logits: changing the logits
  in place after the loss is allowed;
- mse_loss saves input and target, `2.0 ** x` saves x and its result: changing any of them
  in place is refused.
"""

from __future__ import annotations

import numpy as np
import pytest
from support.torch_comparison import case_id, oracle_cases, same_as_torch

import minigrad as mg
from minigrad.nn import functional as F


def modified(description: str) -> str:
    """The start of PyTorch's in-place error for a saved tensor, as a regex."""
    return ("^one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {description} is at version 1; expected version 0 instead. ")


LEAF_OF_3 = modified(r"\[minigrad.FloatTensor \[3\]\]")  # a leaf: no "which is output 0 of"
ADDED_TO_3 = modified(r"\[minigrad.FloatTensor \[3\]\], which is output 0 of Add,")


# ---- cross_entropy ----------------------------------------------------------------------------
LOGITS = [[1.0, 2.0, 0.5], [0.1, 0.2, 0.3]]
CLASSES = [0, 2]


def softmax_minus_onehot() -> np.ndarray:
    logits = np.array(LOGITS)
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return (probs - np.eye(3)[CLASSES]) / len(CLASSES)


def test_cross_entropy_allows_changing_its_logits_before_backward():
    x = mg.tensor(LOGITS, dtype=mg.float64, requires_grad=True)
    logits = x * 1
    loss = F.cross_entropy(logits, mg.tensor(CLASSES))
    logits.add_(5.0)
    logits.mul_(3.0)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), softmax_minus_onehot(), rtol=1e-12)


def test_cross_entropy_of_a_leaf_changed_under_no_grad():
    x = mg.tensor(LOGITS, dtype=mg.float64, requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor(CLASSES))
    with mg.no_grad():
        x.mul_(2.0)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), softmax_minus_onehot(), rtol=1e-12)


def test_cross_entropy_second_order_still_reaches_the_logits_after_a_change():
    """The gradient of the gradient flows through the saved log-softmax's own node."""
    x = mg.tensor(LOGITS, dtype=mg.float64, requires_grad=True)
    logits = x * 1
    loss = F.cross_entropy(logits, mg.tensor(CLASSES), reduction="sum")
    logits.add_(1.0)
    (grad,) = mg.autograd.grad(loss, [x], create_graph=True)
    (hessian_row,) = mg.autograd.grad(grad[0, 0], [x])
    p = np.exp(LOGITS[0]) / np.exp(LOGITS[0]).sum()
    expected = np.zeros((2, 3))
    expected[0] = p[0] * (np.eye(3)[0] - p)  # d p_0 / d x_0j
    np.testing.assert_allclose(hessian_row.numpy(), expected, rtol=1e-12)


# ---- mse_loss ---------------------------------------------------------------------------------
def test_mse_loss_is_one_node_with_pytorch_s_name_and_maths():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = mg.tensor([0.5, 0.5, 0.5], requires_grad=True)
    for reduction, value, scale in (("mean", 35 / 12, 2 / 3), ("sum", 35 / 4, 2.0)):
        loss = F.mse_loss(x, t, reduction=reduction)
        assert loss.grad_fn.name() == "MseLossBackward0"
        assert loss.item() == pytest.approx(value)
        x.grad = t.grad = None
        loss.backward()
        assert x.grad.tolist() == pytest.approx([scale * d for d in (0.5, 1.5, 2.5)])
        assert t.grad.tolist() == pytest.approx([-scale * d for d in (0.5, 1.5, 2.5)])
    squares = F.mse_loss(x, t, reduction="none")
    assert squares.grad_fn.name() == "MseLossBackward0"
    assert squares.tolist() == [0.25, 2.25, 6.25]


@pytest.mark.parametrize("change", ["input", "target"])
def test_mse_loss_refuses_an_input_or_target_changed_in_place(change):
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = mg.tensor([0.5, 0.5, 0.5])
    loss = F.mse_loss(x, t)
    with mg.no_grad():
        (x if change == "input" else t).add_(1.0)
    with pytest.raises(RuntimeError, match=LEAF_OF_3):
        loss.backward()


def test_mse_loss_refuses_integer_tensors_as_pytorch():
    with pytest.raises(NotImplementedError, match="\"mse_cpu\" not implemented for 'Long'"):
        F.mse_loss(mg.tensor([1, 2]), mg.tensor([0, 0]))


# ---- 2.0 ** x ---------------------------------------------------------------------------------
def test_two_to_the_x_refuses_a_changed_exponent():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    exponent = x * 1.0
    power = 2.0 ** exponent
    exponent.add_(1.0)
    with pytest.raises(RuntimeError, match=ADDED_TO_3):
        power.sum().backward()


def test_two_to_the_x_names_the_exponent_before_the_result():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    power = 2.0 ** x
    with mg.no_grad():
        x.add_(1.0)
    power.add_(1.0)
    with pytest.raises(RuntimeError, match=LEAF_OF_3):
        power.sum().backward()


def test_zero_to_the_x_has_pytorch_s_gradient():
    x = mg.tensor([-1.0, 0.0, 3.0], requires_grad=True)
    (0.0 ** x).sum().backward()
    assert x.grad.tolist() == [-np.inf, 0.0, 0.0]


# ---- the same programs with PyTorch -----------------------------------------------------------
CASES = oracle_cases("""
x = L.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 0.3]], requires_grad=True)
z = x * 1
loss = L.nn.functional.cross_entropy(z, L.tensor([0, 2]))
z.add_(1.0)
loss.backward()
r = x.grad
---
x = L.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 0.3]], requires_grad=True)
loss = L.nn.functional.cross_entropy(x, L.tensor([0, -100]), reduction="sum")
with L.no_grad():
    x.mul_(2.0)
loss.backward()
r = x.grad
---
x = L.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 0.3]], requires_grad=True)
z = x * 1
loss = L.nn.functional.cross_entropy(z, L.tensor([0, 2]), reduction="sum")
z.add_(1.0)
g, = L.autograd.grad(loss, [z], create_graph=True)
r = L.autograd.grad((g * g).sum(), [x])
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
z = x * 1
loss = L.nn.functional.mse_loss(z, L.tensor([0.5, 0.5, 0.5]))
z.add_(1.0)
loss.backward()
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
loss = L.nn.functional.mse_loss(x, L.tensor([0.5, 0.5, 0.5]))
with L.no_grad():
    x.add_(1.0)
loss.backward()
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
t = L.tensor([0.5, 0.5, 0.5])
loss = L.nn.functional.mse_loss(x, t, reduction="sum")
t.mul_(2.0)
loss.backward()
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
t = L.tensor([0.5, 0.5, 0.5], requires_grad=True)
loss = L.nn.functional.mse_loss(x, t, reduction="none")
r = (loss.grad_fn.name(), L.autograd.grad(loss.sum(), [x, t]))
---
r = L.nn.functional.mse_loss(L.tensor([1, 2]), L.tensor([0, 0]))
---
r = L.nn.functional.mse_loss(L.tensor([1.0, 2.0], dtype=L.float64), L.tensor([0, 1]))
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
z = x * 1
y = 2.0 ** z
z.add_(1.0)
y.sum().backward()
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = 2 ** x
with L.no_grad():
    x.add_(1.0)
y.sum().backward()
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = 2.0 ** x
y.add_(1.0)
y.sum().backward()
---
x = L.tensor([-1.0, 0.0, 3.0], requires_grad=True)
(0.0 ** x).sum().backward()
r = x.grad
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", CASES, ids=case_id)
def test_saved_for_backward_as_torch(code):
    same_as_torch(code)
