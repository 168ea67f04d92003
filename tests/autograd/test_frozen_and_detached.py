"""Two ways a tensor leaves the graph between forward and backward, as PyTorch 2.13 treats them.

- `leaf.requires_grad_(False)` (freezing, lesson 08): backward still runs through, but the
  frozen leaf's `.grad` is left as it was (None stays None, so an optimizer skips it).
- `t.detach_()` on a tensor an op saved while it had a history: backward refuses to use it.
"""

from __future__ import annotations

import pytest

import minigrad as mg

DETACHED = ("Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
            "This is not supported, please use out-of-place `.detach()` instead")  # PyTorch's


# ---- requires_grad_(False) after the forward pass -----------------------------------------------
def frozen_after_forward(library):  # type: ignore[no-untyped-def]
    x = library.ones(3, requires_grad=True)
    w = library.ones(3, requires_grad=True)
    loss = (x * w * 2).sum()
    x.requires_grad_(False)
    loss.backward()
    return x.grad, w.grad


def frozen_with_a_grad_already(library):  # type: ignore[no-untyped-def]
    x = library.ones(3, requires_grad=True)
    (x * 3).sum().backward()
    loss = (x * 2).sum()
    x.requires_grad_(False)
    loss.backward()
    return x.grad


def frozen_then_unfrozen(library):  # type: ignore[no-untyped-def]
    x = library.ones(3, requires_grad=True)
    loss = (x * 2).sum()
    x.requires_grad_(False)
    x.requires_grad_(True)
    loss.backward()
    return x.grad


def frozen_parameter_and_sgd(library):  # type: ignore[no-untyped-def]
    """Lesson 08's freezing: the optimizer skips a parameter whose .grad is None."""
    weight = library.nn.Parameter(library.ones(3))
    bias = library.nn.Parameter(library.ones(3))
    optimizer = library.optim.SGD([weight, bias], lr=0.5)
    loss = (weight * bias).sum()
    bias.requires_grad_(False)
    loss.backward()
    optimizer.step()
    return weight.detach(), bias.detach(), bias.grad is None


def frozen_backward_input(library):  # type: ignore[no-untyped-def]
    x = library.ones(3, requires_grad=True)
    loss = (x * 2).sum()
    x.requires_grad_(False)
    loss.backward(inputs=[x])


def test_a_leaf_frozen_after_forward_gets_no_grad():
    x_grad, w_grad = frozen_after_forward(mg)
    assert x_grad is None
    assert w_grad.tolist() == [2.0, 2.0, 2.0]
    assert frozen_with_a_grad_already(mg).tolist() == [3.0, 3.0, 3.0]
    assert frozen_then_unfrozen(mg).tolist() == [2.0, 2.0, 2.0]


def test_an_optimizer_skips_a_parameter_frozen_after_forward():
    weight, bias, bias_grad_is_none = frozen_parameter_and_sgd(mg)
    assert weight.tolist() == [0.5, 0.5, 0.5]
    assert bias.tolist() == [1.0, 1.0, 1.0] and bias_grad_is_none


def test_hooks_of_a_frozen_leaf_still_run():
    x = mg.ones(2, requires_grad=True)
    seen = []
    x.register_hook(seen.append)
    loss = (x * 2).sum()
    x.requires_grad_(False)
    loss.backward()
    assert [g.tolist() for g in seen] == [[2.0, 2.0]] and x.grad is None


def test_backward_inputs_must_require_grad():
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has "
                                           "requires_grad=False"):
        frozen_backward_input(mg)


@pytest.mark.oracle
@pytest.mark.parametrize("case", [frozen_after_forward, frozen_with_a_grad_already,
                                  frozen_then_unfrozen, frozen_parameter_and_sgd,
                                  frozen_backward_input])
def test_frozen_leaves_as_torch(case, same_as_torch):
    same_as_torch(case)


# ---- detach_() on a saved tensor -----------------------------------------------------------------
def detached_saved_intermediate(library):  # type: ignore[no-untyped-def]
    x = library.ones(3, requires_grad=True)
    y = x * 2
    loss = (y * y).sum()  # Mul saves y, which has a history (MulBackward0)
    y.detach_()
    loss.backward()


def detached_saved_output(library):  # type: ignore[no-untyped-def]
    """exp saves its own output; detaching that output is allowed."""
    x = library.ones(3, requires_grad=True)
    y = x.exp()
    loss = y.sum()
    y.detach_()
    loss.backward()
    return x.grad


def detached_unsaved(library):  # type: ignore[no-untyped-def]
    x = library.ones(3, requires_grad=True)
    y = x * 2
    loss = (y + 1).sum()  # Add saves nothing
    y.detach_()
    loss.backward()
    return x.grad


def detached_and_changed(library):  # type: ignore[no-untyped-def]
    """Both detached and changed in place: the detaching is named first."""
    x = library.ones(3, requires_grad=True)
    y = x * 2
    loss = (y * y).sum()
    y.detach_()
    y.add_(1.0)
    loss.backward()


def test_a_saved_tensor_detached_in_place_is_refused_at_backward():
    for case in (detached_saved_intermediate, detached_and_changed):
        with pytest.raises(RuntimeError) as error:
            case(mg)
        assert str(error.value) == DETACHED


def test_detaching_an_output_or_an_unsaved_tensor_is_allowed():
    assert detached_saved_output(mg).tolist() == pytest.approx([2.718281828] * 3)
    assert detached_unsaved(mg).tolist() == [2.0, 2.0, 2.0]


@pytest.mark.oracle
@pytest.mark.parametrize("case", [detached_saved_intermediate, detached_saved_output,
                                  detached_unsaved, detached_and_changed])
def test_detach_in_place_as_torch(case, same_as_torch):
    same_as_torch(case)
