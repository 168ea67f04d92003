"""Second-order and in-place cases that random programs against PyTorch once caught."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg


@pytest.mark.parametrize("op", [mg.relu, mg.abs])
def test_relu_and_abs_backward_stay_in_the_graph(op):
    x = mg.tensor([-1.5, 0.5, 2.0], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(op(x).sum(), x, create_graph=True)
    assert g.requires_grad
    (second,) = mg.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(second.numpy(), [0.0, 0.0, 0.0])


def test_relu_double_backward_through_a_product():
    x = mg.tensor([-1.0, 2.0, 3.0], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad((mg.relu(x) * x).sum(), x, create_graph=True)  # 2x where x > 0
    (second,) = mg.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, 4.0, 6.0])
    np.testing.assert_array_equal(second.numpy(), [0.0, 2.0, 2.0])


@pytest.mark.parametrize("make, first, second", [
    # d/dy y^y = y^y (ln y + 1);  d²/dy² = y^y ((ln y + 1)² + 1/y)
    (lambda y: y ** y, 1.5 ** 1.5 * (np.log(1.5) + 1),
     1.5 ** 1.5 * ((np.log(1.5) + 1) ** 2 + 1 / 1.5)),
    (lambda y: 2 ** y, 2 ** 1.5 * np.log(2), 2 ** 1.5 * np.log(2) ** 2),
    (lambda y: y.reciprocal(), -1 / 1.5 ** 2, 2 / 1.5 ** 3),
])
def test_zero_dim_outputs_saved_for_backward_keep_their_graph(make, first, second):
    y = mg.tensor(1.5, dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(make(y), y, create_graph=True)
    (gg,) = mg.autograd.grad(g, y)
    assert g.item() == pytest.approx(first, rel=1e-12)
    assert gg.item() == pytest.approx(second, rel=1e-12)


def test_y_to_the_y_second_derivative_value():
    y = mg.tensor(1.5, dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(y ** y, y, create_graph=True)
    assert mg.autograd.grad(g, y)[0].item() == pytest.approx(4.8537, abs=5e-5)


def test_fill_with_a_zero_dim_tensor_is_differentiable():
    v = mg.tensor(2.0, dtype=mg.float64, requires_grad=True)
    x = mg.zeros(3, dtype=mg.float64, requires_grad=True)
    y = x * 1.0
    y.fill_(v)
    (y * mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)).sum().backward()
    assert v.grad.item() == 6.0
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])
    assert y.grad_fn.name() == "FillBackward3"
    assert mg.autograd.gradcheck(lambda a, b: (a * 1.0).fill_(b) * a, (x.detach().requires_grad_(), v))


def test_accumulating_into_a_grad_that_carries_a_graph_adds_in_place():
    x = mg.tensor([2.0], requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    first = x.grad
    (x * 2).sum().backward()
    assert x.grad is first and first.requires_grad and first.item() == 14.0
    (x * 2).sum().backward(create_graph=True)  # with create_graph: a new, recorded sum
    assert x.grad is not first and x.grad.item() == 16.0 and x.grad.grad_fn is not None


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_accumulation_matches_pytorch():
    torch = pytest.importorskip("torch")

    def run(L):
        x = L.tensor([2.0, -1.0], requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        kept = x.grad
        (x * x).sum().backward()
        return kept is x.grad, kept.requires_grad, kept.detach().numpy().tolist()

    assert run(mg) == run(torch)


def test_changing_a_view_made_under_no_grad_outside_it_says_how_to_fix_it():
    x = mg.ones(3, requires_grad=True)
    with mg.no_grad():
        view = x[0:2]
    with pytest.raises(RuntimeError, match=r"^A view was created in no_grad mode and is being "
                                           r"modified inplace with grad mode enabled\. Given that "
                                           r".*moving both the view and the inplace either both "
                                           r"inside the no_grad block"):
        view.mul_(2)
    with mg.no_grad():
        view.mul_(2)  # both inside no_grad: allowed, and written through to x
    np.testing.assert_array_equal(x.numpy(), [2, 2, 1])


def test_a_no_grad_view_of_a_computed_tensor_cannot_change_it_behind_the_graph():
    """The change could not be recorded in b's graph: a's gradient would silently be wrong."""
    a = mg.arange(4.0, requires_grad=True)
    b = a * 2
    with mg.no_grad():
        view = b[1:]
        inner = view[1:]  # a view of that view
    for changed in (view, inner):
        with pytest.raises(RuntimeError, match="^A view was created in no_grad mode"):
            changed.mul_(2)
    b.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2, 2, 2, 2])
