"""The backward engine: lesson-03 numbers, graph structure, accumulation, hooks,
retain_grad, graph lifetime, in-place checks, no_grad/detach, autograd.grad, errors."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd import AccumulateGrad


def needs(module: str) -> None:
    pytest.importorskip(f"minigrad.ops.{module}")


# ---- lesson 03 numbers -------------------------------------------------------------------
def test_lesson03_elementwise_example():
    needs("reduce")
    x = mg.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    assert out.item() == 27.0
    out.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 4.5))


def test_lesson03_introspection_reaches_accumulate_grad_of_x():
    needs("reduce")
    x = mg.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    assert out.grad_fn.name() == "MeanBackward0"
    ((mul3, _),) = out.grad_fn.next_functions
    assert mul3.name() == "MulBackward0"
    (yy, _), (constant, _) = mul3.next_functions
    assert constant is None                       # the Python number 3
    assert yy.name() == "MulBackward0"
    (add_left, _), (add_right, _) = yy.next_functions
    assert add_left is add_right is y.grad_fn     # y used twice: the same node twice
    (accumulate, index), (two, _) = y.grad_fn.next_functions
    assert index == 0 and two is None
    assert isinstance(accumulate, AccumulateGrad) and accumulate.name() == "AccumulateGrad"
    assert accumulate.variable is x
    assert (x * 1).grad_fn.next_functions[0][0] is accumulate  # same object for the same leaf
    assert accumulate.next_functions == ()


def test_vector_jacobian_product():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.backward(mg.tensor([3.0, 4.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 16.0])


def test_second_derivative_of_cube_is_12_at_2():
    x = mg.tensor(2.0, requires_grad=True)
    y = x ** 3
    y.backward(create_graph=True)
    assert x.grad.item() == 12.0                  # 3x² = 12
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    first = x.grad
    x.grad = None
    first.backward()
    assert x.grad.item() == 12.0                  # 6x = 12


def test_second_derivative_with_autograd_grad():
    x = mg.tensor(2.0, requires_grad=True)
    (first,) = mg.autograd.grad(x ** 3, x, create_graph=True)
    (second,) = mg.autograd.grad(first, x)
    assert (first.item(), second.item()) == (12.0, 12.0)
    assert x.grad is None


def test_leaf_gradients_accumulate_across_backward_calls():
    w = mg.tensor(2.0, requires_grad=True)
    (w * 3).backward()
    (w * 4).backward()
    assert w.grad.item() == 7.0
    w.grad = None
    (w * 4).backward()
    assert w.grad.item() == 4.0
    w.grad.zero_()                                # zero grad is not "no grad"
    assert w.grad is not None and w.grad.item() == 0.0


def test_fan_in_counts_every_path():
    x = mg.tensor(3.0, requires_grad=True)
    y = x * x + x                                 # dy/dx = 2x + 1
    y.backward()
    assert x.grad.item() == 7.0


def test_deep_chain_has_no_recursion_limit():
    x = mg.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(20_000):
        y = y * 1.0 + 0.0
    y.backward()
    assert x.grad.item() == 1.0


def test_handwritten_numpy_matches_engine():
    needs("reduce")
    rng = np.random.default_rng(0)
    xv, yv, zv = (rng.standard_normal((3, 4)) for _ in range(3))
    x, y, z = (mg.tensor(v, dtype=mg.float64, requires_grad=True) for v in (xv, yv, zv))
    c = (x * y + z).sum()
    c.backward()
    grad_a = np.ones_like(xv)
    np.testing.assert_allclose(c.item(), (xv * yv + zv).sum())
    np.testing.assert_allclose(x.grad.numpy(), grad_a * yv)
    np.testing.assert_allclose(y.grad.numpy(), grad_a * xv)
    np.testing.assert_allclose(z.grad.numpy(), grad_a)


# ---- leaves, requires_grad -------------------------------------------------------------------
def test_leaf_and_requires_grad_propagation():
    a = mg.ones(2, requires_grad=True)
    b = mg.ones(2)
    assert a.is_leaf and b.is_leaf and a.grad_fn is None
    c = a * b
    assert c.requires_grad and not c.is_leaf and c.grad_fn.name() == "MulBackward0"
    assert c.grad_fn.next_functions[1] == (None, 0)
    d = b * 2
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None


def test_non_leaf_grad_is_none_with_a_warning():
    x = mg.ones(2, requires_grad=True)
    y = x * 2
    y.backward(mg.ones(2))
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert y.grad is None
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_retain_grad_keeps_intermediate_gradient():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    z = y * y
    z.backward(mg.ones(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(y.grad.numpy(), [6.0, 12.0])   # 2y
    np.testing.assert_array_equal(x.grad.numpy(), [18.0, 36.0])      # 2y·3
    assert y.retains_grad


# ---- hooks ---------------------------------------------------------------------------------
def test_hooks_see_and_replace_gradients():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    seen = []
    y.register_hook(lambda grad: seen.append(grad.numpy()))
    handle = y.register_hook(lambda grad: grad * 10)
    y.backward(mg.ones(2))
    np.testing.assert_array_equal(seen[0], [1.0, 1.0])
    np.testing.assert_array_equal(x.grad.numpy(), [30.0, 30.0])
    handle.remove()
    x.grad = None
    y2 = x * 3
    y2.backward(mg.ones(2))
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_leaf_hook_runs_before_accumulation():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda grad: grad * 0 + 5)
    (x * 2).backward(mg.ones(2))
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0])


def test_hook_on_tensor_without_grad_is_refused():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        mg.ones(2).register_hook(lambda g: g)


# ---- graph lifetime ------------------------------------------------------------------------
def test_second_backward_raises_unless_retain_graph():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.backward(mg.ones(2), retain_graph=True)
    y.backward(mg.ones(2))
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0])
    assert y.grad_fn.saved_arrays() == {}
    with pytest.raises(RuntimeError, match="backward through the graph a second time.*retain_graph=True"):
        y.backward(mg.ones(2))


def test_nodes_that_save_nothing_can_run_twice():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x + 1
    y.backward(mg.ones(2))
    y.backward(mg.ones(2))
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_saved_arrays_name_what_backward_needs():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0], requires_grad=True)
    saved = (x * w).grad_fn.saved_arrays()
    assert set(saved) == {"self", "other"}
    np.testing.assert_array_equal(saved["self"], [1.0, 2.0])
    assert set((x * 2).grad_fn.saved_arrays()) == {"other"}   # x's grad needs only the 2
    assert [(info.shape, info.dtype) for info in (x + w).grad_fn.inputs] == [((2,), np.float32)] * 2
    with mg.viz.record():
        assert (x + w).grad_fn.inputs == (x, w)


def test_nodes_keep_only_what_backward_needs():
    """An intermediate that no backward rule saved is freed at once (as in PyTorch);
    under minigrad.viz.record() every tensor stays, so the forward graph can be drawn."""
    import gc
    import weakref

    x = mg.ones(1000, requires_grad=True)
    for keep, alive in ((False, False), (True, True)):
        with mg.viz.record() if keep else contextlib.nullcontext():
            hidden = x + 1           # Add saves nothing; Sum saves nothing
            watch = weakref.ref(hidden)
            out = hidden.sum()
        del hidden
        gc.collect()
        assert (watch() is not None) is alive
        out.backward()
        assert x.grad.numpy()[0] == (2.0 if keep else 1.0)


# ---- in place ---------------------------------------------------------------------------------
def test_inplace_on_a_saved_tensor_is_caught_at_backward():
    x = mg.ones(2, 2, requires_grad=True)
    y = x * 2
    z = y * y
    y.add_(1)
    assert y._version == 1
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[minigrad.FloatTensor "
                                            r"\[2, 2\]\], which is output 0 of Add, is at version 1; "
                                            r"expected version 0 instead"):
        z.backward(mg.ones(2, 2))


def test_inplace_on_a_leaf_requiring_grad_is_refused():
    x = mg.ones(2, requires_grad=True)
    for operation in (lambda: x.add_(1), lambda: x.mul_(2), lambda: x.zero_(), lambda: x.fill_(3)):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                               "in an in-place operation"):
            operation()
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x += 1
    with mg.no_grad():
        x -= 0.5
        x *= 4
    np.testing.assert_array_equal(x.numpy(), [2.0, 2.0])
    assert x._version == 2 and x.is_leaf and x.requires_grad


def test_inplace_on_a_non_leaf_is_recorded():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y *= 3
    y += x
    assert y.grad_fn.name() == "AddBackward0"
    y.backward(mg.ones(2))
    np.testing.assert_array_equal(y.detach().numpy(), [7.0, 14.0])
    np.testing.assert_array_equal(x.grad.numpy(), [7.0, 7.0])


def test_inplace_with_other_requiring_grad():
    w = mg.tensor([2.0, 3.0], requires_grad=True)
    a = mg.tensor([1.0, 5.0])
    a.mul_(w)                                     # a was constant; now it depends on w
    assert a.requires_grad and a.grad_fn.name() == "MulBackward0"
    a.backward(mg.ones(2))
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 5.0])


def test_inplace_shape_and_dtype_rules():
    a = mg.ones(2)
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"):
        a += mg.ones(2, 2)
    ints = mg.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        ints += 1.5
    ints += 2
    np.testing.assert_array_equal(ints.numpy(), [3, 4])


def test_zero_and_fill():
    t = mg.ones(3)
    t.fill_(2.5)
    np.testing.assert_array_equal(t.numpy(), [2.5, 2.5, 2.5])
    t.zero_()
    np.testing.assert_array_equal(t.numpy(), [0.0, 0.0, 0.0])
    assert t._version == 2


# ---- blocking ----------------------------------------------------------------------------------
def test_no_grad_and_enable_grad():
    x = mg.ones(2, requires_grad=True)
    with mg.no_grad():
        assert not mg.is_grad_enabled()
        y = x * 2
        with mg.enable_grad():
            z = x * 2
    assert mg.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad

    @mg.no_grad()
    def evaluate(t):
        return t * 3

    assert not evaluate(x).requires_grad
    assert mg.is_grad_enabled()


def test_detach_shares_data_and_leaves_graph():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf
    (y * d).backward(mg.ones(2))                 # d is a constant: dy·d/dx = 2·d
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0])
    with mg.no_grad():
        d.add_(1)
    np.testing.assert_array_equal(y.detach().numpy(), [3.0, 5.0])  # same data
    assert y._version == 1                        # same version counter


def test_detach_in_place_makes_the_tensor_itself_a_leaf():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    assert y.detach_() is y and y.is_leaf and not y.requires_grad and y.grad_fn is None
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        (x * 2)[0].detach_()


def test_backward_inputs_may_be_non_leaves_and_autograd_grad_fills_retained_grads():
    """As in PyTorch: backward(inputs=[y]) stores y's gradient in y.grad even when y is not a
    leaf, and autograd.grad adds into the .grad of tensors marked retain_grad() on its way."""
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    (y * y).sum().backward(inputs=[y])
    assert y.grad.numpy().tolist() == [6.0, 12.0] and x.grad is None
    y = x * 3
    y.retain_grad()
    (dx,) = mg.autograd.grad((y * y).sum(), [x])
    assert dx.numpy().tolist() == [18.0, 36.0] and y.grad.numpy().tolist() == [6.0, 12.0]
    with pytest.warns(UserWarning, match="not a leaf"):
        assert (x * 2).grad is None  # a non-leaf with no grad still warns


def test_item_leaves_the_graph():
    x = mg.tensor(3.0, requires_grad=True)
    value = (x * 2).item()
    assert value == 6.0 and isinstance(value, float)


# ---- autograd.grad -------------------------------------------------------------------------
def test_autograd_grad_returns_tuple_without_touching_grad():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    gx, gw = mg.autograd.grad(y, (x, w), grad_outputs=mg.ones(2))
    np.testing.assert_array_equal(gx.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(gw.numpy(), [1.0, 2.0])
    assert x.grad is None and w.grad is None


def test_autograd_grad_with_respect_to_intermediate():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    y = h * h
    (gh,) = mg.autograd.grad(y, h, grad_outputs=mg.ones(2))
    np.testing.assert_array_equal(gh.numpy(), [4.0, 8.0])


def test_autograd_grad_unused_input():
    x = mg.ones(2, requires_grad=True)
    unused = mg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        mg.autograd.grad(x * 2, [x, unused], grad_outputs=mg.ones(2), retain_graph=True)
    gx, gu = mg.autograd.grad(x * 2, [x, unused], grad_outputs=mg.ones(2), allow_unused=True)
    assert gu is None
    np.testing.assert_array_equal(gx.numpy(), [2.0, 2.0])


# ---- errors --------------------------------------------------------------------------------
def test_backward_on_non_scalar_needs_gradient():
    x = mg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_backward_on_tensor_without_grad():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does "
                                           "not have a grad_fn"):
        (mg.ones(2) * 2).backward(mg.ones(2))


def test_backward_gradient_shape_mismatch_names_both_shapes():
    x = mg.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"grad_output\[0\] has a shape of \(3,\) and output\[0\] "
                                           r"has a shape of \(2, 2\)"):
        (x * 2).backward(mg.ones(3))


def test_requires_grad_only_on_floating_tensors():
    with pytest.raises(RuntimeError, match=r"^Only Tensors of floating point and complex dtype "
                                           r"can require gradients \(this tensor is minigrad.int64; "):
        mg.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="dtype=minigrad.float32"):
        mg.zeros(2, dtype=mg.int64).requires_grad_()


def test_requires_grad_takes_pytorchs_keyword_and_the_api_contracts():
    x = mg.ones(2)
    assert x.requires_grad_(requires_grad=True).requires_grad
    assert not x.requires_grad_(flag=False).requires_grad
    assert x.requires_grad_(flag=True) is x and x.requires_grad


def test_requires_grad_flag_of_non_leaf_cannot_be_cleared():
    y = mg.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)


# ---- PyTorch as an oracle ------------------------------------------------------------------
@pytest.mark.oracle
def test_graph_matches_pytorch_on_lesson_example():
    torch = pytest.importorskip("torch")
    needs("reduce")

    def walk(node):
        names, stack = [], [node]
        while stack:
            current = stack.pop()
            if current is None:
                names.append(None)
                continue
            names.append(current.name().split("::")[-1])
            stack.extend(n for n, _ in current.next_functions)
        return names

    for library in (mg, torch):
        x = library.ones(2, 2, requires_grad=True)
        out = ((x + 2) * (x + 2) * 3).mean()
        if library is mg:
            ours = walk(out.grad_fn)
        else:
            theirs = walk(out.grad_fn)
    assert ours == theirs


@pytest.mark.oracle
def test_hooks_retain_grad_and_accumulation_match_pytorch():
    torch = pytest.importorskip("torch")
    results = {}
    for library in (mg, torch):
        x = library.tensor([1.0, -2.0, 3.0], requires_grad=True)
        h = x * x
        h.retain_grad()
        h.register_hook(lambda g: g * 2)
        y = h * x + x
        y.backward(library.tensor([1.0, 1.0, 1.0]), retain_graph=True)
        y.backward(library.tensor([0.5, 0.5, 0.5]))
        results[library.__name__] = (x.grad.numpy().copy(), h.grad.numpy().copy())
    for ours, theirs in zip(results["minigrad"], results["torch"]):
        np.testing.assert_allclose(ours, theirs)


def test_backward_on_a_leaf_scalar():
    x = mg.tensor(2.0, requires_grad=True)
    x.backward()
    assert x.grad.item() == 1.0


def test_backward_with_inputs_only_fills_those_leaves():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0], requires_grad=True)
    (x * w).backward(mg.ones(2), inputs=[w])
    assert x.grad is None
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])


def test_gradients_stored_in_two_leaves_are_not_shared():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    (a + b).backward(mg.ones(2))                 # the same gradient reaches both leaves
    a.grad.zero_()
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0])
    seed = mg.ones(2)
    c = mg.tensor([0.0, 0.0], requires_grad=True)
    (c + 0).backward(seed)
    c.grad.add_(5)
    np.testing.assert_array_equal(seed.numpy(), [1.0, 1.0])   # the user's gradient untouched


def test_accumulated_grad_is_updated_in_place():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).backward(mg.ones(2))
    first = x.grad
    (x * 3).backward(mg.ones(2))
    assert x.grad is first                         # PyTorch also accumulates in place
    np.testing.assert_array_equal(first.numpy(), [5.0, 5.0])


def test_create_graph_makes_grad_part_of_a_graph_and_accumulates():
    x = mg.tensor([1.0, 3.0], requires_grad=True)
    (x * x * x).backward(mg.ones(2), create_graph=True)
    assert x.grad.grad_fn is not None
    np.testing.assert_array_equal(x.grad.detach().numpy(), [3.0, 27.0])
    gradient_of_gradient, = mg.autograd.grad(x.grad, x, grad_outputs=mg.ones(2))
    np.testing.assert_array_equal(gradient_of_gradient.numpy(), [6.0, 18.0])   # 6x


@pytest.mark.oracle
def test_autograd_grad_multiple_outputs_and_double_backward_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    xv, wv = rng.uniform(0.5, 1.5, (3, 2)), rng.uniform(0.5, 1.5, (2,))
    results = {}
    for library in (mg, torch):
        x = library.tensor(xv, requires_grad=True)
        w = library.tensor(wv, requires_grad=True)
        h = x * w + w ** 3
        a, b = h * h, h / (x + 1)
        ga = library.tensor(np.ones((3, 2)))
        gb = library.tensor(np.full((3, 2), 0.5))
        dx, dw = library.autograd.grad([a, b], [x, w], grad_outputs=[ga, gb], create_graph=True)
        (ddw,) = library.autograd.grad((dx * dx).sum() + dw.sum(), w)
        results[library.__name__] = [t.detach().numpy() for t in (dx, dw, ddw)]
    for ours, theirs in zip(results["minigrad"], results["torch"]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5)


def test_set_grad_enabled_as_call_and_context_manager():
    x = mg.ones(2, requires_grad=True)
    with mg.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad
    mg.set_grad_enabled(False)
    try:
        assert not mg.is_grad_enabled()
    finally:
        mg.set_grad_enabled(True)
    assert mg.is_grad_enabled()


def test_hook_returning_a_wrong_shape_is_reported():
    x = mg.ones(3, requires_grad=True)
    y = x * 2
    y.register_hook(lambda grad: grad[:2])
    with pytest.raises(RuntimeError, match=r"returned \(2,\) for a gradient of shape \(3,\)"):
        y.backward(mg.ones(3))


def test_a_hook_returning_an_array_or_a_hook_that_is_not_a_function_is_named():
    x = mg.ones(2, 3, requires_grad=True)
    y = x * 2
    y.register_hook(lambda grad: np.ones((2, 3)))  # the right shape, the wrong type
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'numpy.ndarray'"):
        y.sum().backward()
    with pytest.raises(TypeError, match="a hook must be a function of the gradient, got int"):
        (x * 3).register_hook(5)


# ---- the schedule: the one walk of the graph ----------------------------------------------
def _diamond() -> tuple[mg.Tensor, list[mg.Tensor]]:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = a.exp()
    c = a + x
    out = (b * c).sum()
    return out, [a, b, c]


def test_backward_runs_the_nodes_in_the_schedules_order():
    from minigrad.autograd.engine import schedule

    out, intermediates = _diamond()
    ran = []
    for tensor in intermediates:
        tensor.register_hook(lambda grad, node=tensor.grad_fn: ran.append(node))
    out.backward()
    order = list(schedule([out.grad_fn]))
    assert [node.name() for node in order] == [
        "SumBackward0", "MulBackward0", "AddBackward0", "ExpBackward0", "MulBackward0",
        "AccumulateGrad"]
    assert ran == [node for node in order if node in ran]
    assert len(ran) == 3


def test_the_replay_walks_the_engines_schedule():
    from minigrad.autograd.engine import schedule
    from minigrad.viz.replay import engine_order, replay

    out, _ = _diamond()
    order = list(schedule([out.grad_fn]))
    assert engine_order(out.grad_fn) == order
    assert [node.source for node in replay(out).nodes] == order


def test_autograd_grad_prunes_what_leads_to_no_input_on_a_deep_graph():
    x = mg.tensor([1.0], requires_grad=True)
    y = mg.tensor([2.0], requires_grad=True)
    unused = y
    for _ in range(3000):  # deeper than any recursion limit
        unused = unused * 1.0
    out = (x * 3 + unused).sum()
    (grad_x,) = mg.autograd.grad(out, [x])
    np.testing.assert_array_equal(grad_x.numpy(), [3.0])
    assert unused.grad_fn._saved  # pruned: its backward never ran, its saved values are kept


# ---- PyTorch's rules beside the algorithm ---------------------------------------------------
@pytest.mark.parametrize("only_inputs", [False, True])
def test_a_gradient_a_hook_kept_never_becomes_a_grad(only_inputs):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    kept = []
    h = x + 0                                    # passes its gradient on unchanged
    h.register_hook(kept.append)
    (h * 2).backward(mg.ones(2), inputs=[x] if only_inputs else None)
    x.grad.add_(5)                               # in place: must not reach what the hook kept
    np.testing.assert_array_equal(kept[0].numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(x.grad.numpy(), [7.0, 7.0])


def test_the_backward_loop_and_its_helpers_fit_on_one_slide():
    """PyTorch's ownership and wording rules live in autograd/accumulate.py and checks.py."""
    import inspect

    from minigrad.autograd import engine

    loop = [engine.run_backward, engine._run_hooks, engine._call_backward, engine._send]
    assert sum(len(inspect.getsource(part).splitlines()) for part in loop) <= 60
    assert "handed_out" not in inspect.getsource(engine)


def test_a_variant_that_only_renames_its_node_says_so_in_its_class_statement():
    import inspect

    from minigrad.ops import index, inplace, matmul, reduce, rounding, shape

    variants = {matmul.Dot: "DotBackward0", matmul.Mv: "MvBackward0",
                index.SelectBackward: "SelectBackwardBackward0",
                index.SliceBackward: "SliceBackwardBackward0",
                index.IndexBackward: "IndexPutImplBackward0",
                index.AliasBackward: "AliasBackwardBackward0", inplace.Zero: "ZeroBackward0",
                reduce.MinDim: "MinBackward0", rounding.RemainderTensor: "RemainderBackward1",
                shape.SqueezeDim: "SqueezeBackward1", shape.SqueezeDims: "SqueezeBackward2"}
    for variant, name in variants.items():
        source = inspect.getsource(variant).splitlines()
        assert f'node_name="{name}"' in source[0] and len(source) == 2, variant  # + docstring
        assert variant._node_class.__name__ == name
    a = mg.ones(3, requires_grad=True)
    assert [(a @ a).grad_fn.name(), a.min(0).values.grad_fn.name()] == ["DotBackward0",
                                                                          "MinBackward0"]
