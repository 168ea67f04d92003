"""The tensor ops: values against numpy, gradients against finite differences (gradcheck,
float64, full Jacobians), second derivatives (gradgradcheck), graph names and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd.gradcheck import gradcheck, gradgradcheck
from minigrad.ops import combine, index, reduce, shape, softmax, unary


def leaf(*dims, seed=0, away_from_zero=False, positive=False):
    data = np.random.default_rng(seed).standard_normal(dims)
    if away_from_zero:  # keep clear of the kinks of abs/relu and of ties
        data = np.sign(data) * (np.abs(data) + 0.2)
    if positive:
        data = np.abs(data) + 0.3
    return mg.tensor(data, dtype=mg.float64, requires_grad=True)


def f64(data):
    return mg.tensor(np.asarray(data, dtype=np.float64), dtype=mg.float64, requires_grad=True)


SHAPES = [(), (4,), (2, 3), (2, 3, 2)]

# ---- unary --------------------------------------------------------------------------------
UNARY = {
    "exp": (unary.exp, np.exp, {}),
    "log": (unary.log, np.log, {"positive": True}),
    "sqrt": (unary.sqrt, np.sqrt, {"positive": True}),
    "abs": (unary.abs, np.abs, {"away_from_zero": True}),
    "tanh": (unary.tanh, np.tanh, {}),
    "sigmoid": (unary.sigmoid, lambda a: 1 / (1 + np.exp(-a)), {}),
    "relu": (unary.relu, lambda a: np.maximum(a, 0), {"away_from_zero": True}),
}


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dims", SHAPES, ids=str)
def test_unary_values_and_gradients(name, dims):
    op, reference, options = UNARY[name]
    x = leaf(*dims, seed=1, **options)
    np.testing.assert_allclose(op(x).numpy(), reference(x.numpy()), rtol=1e-12)
    assert op(x).grad_fn.name() == f"{name.capitalize()}Backward0"
    assert gradcheck(op, (x,))


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "sigmoid"])
def test_unary_second_derivatives(name):
    op, _, options = UNARY[name]
    assert gradgradcheck(op, (leaf(2, 3, seed=2, **options),))


def test_kinks_follow_pytorch():
    x = f64([-2.0, 0.0, 3.0])
    reduce.sum(unary.abs(x)).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-1.0, 0.0, 1.0])  # abs'(0) = 0
    x.grad = None
    reduce.sum(unary.relu(x)).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 1.0])  # relu'(0) = 0


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("shape", [(), (3,), (4, 5)])
def test_relu_backward_is_zero_where_the_input_was_not_positive_whatever_arrives(dtype, shape):
    """Infinite, nan and -0 gradients arriving where x <= 0 become +0; elsewhere they pass
    exactly (PyTorch's threshold_backward), in both float dtypes, on transposed grads too."""
    rng = np.random.default_rng(1)
    x = mg.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    arriving = rng.choice([np.inf, -np.inf, np.nan, -0.0, 1.5, -2.25], size=shape)
    grad = mg.tensor(arriving, dtype=dtype)
    if len(shape) == 2:
        grad = mg.tensor(arriving.T.copy(), dtype=dtype).T  # not contiguous
    unary.relu(x).backward(grad)
    expected = np.where(x.numpy() > 0, grad.numpy(), 0)
    got = x.grad.numpy()
    assert got.dtype == x.numpy().dtype and got.shape == shape
    np.testing.assert_array_equal(got, expected)
    assert not np.signbit(got[x.numpy() <= 0]).any()


def test_sigmoid_is_stable_for_large_inputs():
    with np.errstate(over="raise", divide="raise", invalid="raise"):  # no overflow warning may escape
        y = unary.sigmoid(mg.tensor([-1000.0, 0.0, 1000.0], dtype=mg.float64))
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.5, 1.0])


def test_unary_keeps_float32():
    x = mg.tensor([0.5, 2.0])
    for op, _, _ in UNARY.values():
        assert op(x).dtype == mg.float32


def test_exp_result_changed_in_place_is_detected():
    x = leaf(3)
    y = unary.exp(x)  # saves y for backward
    z = reduce.sum(y * 2)
    with mg.no_grad():
        y += 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_second_backward_through_freed_graph_raises():
    x = leaf(3)
    y = reduce.sum(unary.tanh(x))
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


# ---- reductions ---------------------------------------------------------------------------
REDUCE_CASES = [
    (None, False), (0, False), (1, True), (-1, False), ((0, 2), False), ((0, -1), True), ((), False),
]


@pytest.mark.parametrize("dim, keepdim", REDUCE_CASES, ids=str)
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_and_mean(name, dim, keepdim):
    op, reference = {"sum": (reduce.sum, np.sum), "mean": (reduce.mean, np.mean)}[name]
    x = leaf(2, 3, 4, seed=3)
    out = op(x) if dim is None else op(x, dim, keepdim=keepdim)
    axis = None if dim is None or dim == () else dim
    np.testing.assert_allclose(out.numpy(), reference(x.numpy(), axis=axis, keepdims=keepdim), rtol=1e-12)
    suffix = "0" if dim is None else "1"
    assert out.grad_fn.name() == f"{name.capitalize()}Backward{suffix}"
    assert gradcheck(lambda t: op(t) if dim is None else op(t, dim, keepdim=keepdim), (x,))


def test_mean_gradient_is_one_over_n():
    # Lesson 03: x = ones(2, 2), out = mean(3 (x + 2)^2) -> out = 27, x.grad = 4.5.
    x = mg.ones(2, 2, requires_grad=True)
    out = reduce.mean((x + 2) * (x + 2) * 3)
    out.backward()
    assert out.item() == 27.0
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 2), 4.5))


@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (0, False), (1, True), (-1, False)], ids=str)
def test_max_and_min(name, dim, keepdim):
    op, reference, arg = {"max": (reduce.max, np.max, np.argmax),
                          "min": (reduce.min, np.min, np.argmin)}[name]
    x = leaf(3, 4, 2, seed=4)
    if dim is None:
        out = op(x)
        np.testing.assert_allclose(out.numpy(), reference(x.numpy()))
        assert out.grad_fn.name() == f"{name.capitalize()}Backward1"
        assert gradcheck(op, (x,))
        return
    values, indices = op(x, dim, keepdim)
    assert op(x, dim, keepdim).values is not None
    np.testing.assert_allclose(values.numpy(), reference(x.numpy(), axis=dim, keepdims=keepdim))
    np.testing.assert_array_equal(indices.numpy(), arg(x.numpy(), axis=dim, keepdims=keepdim))
    assert indices.dtype == mg.int64 and not indices.requires_grad
    assert values.grad_fn.name() == f"{name.capitalize()}Backward0"
    assert gradcheck(lambda t: op(t, dim, keepdim).values, (x,))


def test_max_without_dim_splits_the_gradient_among_ties():
    x = f64([[1.0, 3.0, 3.0], [2.0, 0.0, 3.0]])
    reduce.max(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 1 / 3, 1 / 3], [0, 0, 1 / 3]])


def test_max_with_dim_sends_the_gradient_to_the_first_of_ties():
    x = f64([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    result = reduce.max(x, 1)
    np.testing.assert_array_equal(result.indices.numpy(), [1, 0])
    reduce.sum(result.values).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0], [1, 0, 0]])
    x.grad = None
    values, indices = reduce.min(x, 0)
    reduce.sum(values).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 0, 0], [0, 1, 1]])


def test_reduction_second_derivatives():
    x = leaf(3, 4, seed=5)
    assert gradgradcheck(lambda t: reduce.sum(t * t, 1, keepdim=True), (x,))
    assert gradgradcheck(lambda t: reduce.mean(t * t * t, (0, 1)), (x,))
    assert gradgradcheck(lambda t: reduce.max(t * t, 0).values, (x,))


def test_reductions_of_scalars_and_integer_tensors():
    s = f64(2.5)
    assert reduce.sum(s, 0).item() == 2.5 and reduce.mean(s, -1).item() == 2.5
    values, indices = reduce.max(s, 0)
    assert values.item() == 2.5 and indices.item() == 0
    assert gradcheck(lambda t: reduce.max(t, 0).values * reduce.sum(t, -1), (s,))
    ints = mg.tensor([[1, 4], [3, 2]])
    assert reduce.sum(ints).item() == 10 and reduce.sum(ints).dtype == mg.int64
    assert reduce.max(ints).item() == 4
    with pytest.raises(RuntimeError, match="floating point"):
        reduce.mean(ints)


def test_reduction_errors():
    x = leaf(2, 3)
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"):
        reduce.sum(x, 2)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        reduce.mean(x, (0, -2))
    with pytest.raises(RuntimeError, match="Specify the reduction dim"):
        reduce.max(mg.zeros(0))
    with pytest.raises(IndexError, match="non-zero size"):
        reduce.min(mg.zeros(0, 3), 0)
    with pytest.raises(TypeError, match="dim must be an int or a tuple"):
        reduce.sum(x, 1.0)


# ---- shape ops ----------------------------------------------------------------------------
SHAPE_CASES = {
    "reshape": (lambda t: shape.reshape(t, 3, -1), lambda a: a.reshape(3, -1), "ViewBackward0"),
    "reshape_tuple": (lambda t: shape.reshape(t, (4, 6)), lambda a: a.reshape(4, 6), "ViewBackward0"),
    "view": (lambda t: shape.view(t, -1), lambda a: a.reshape(-1), "ViewBackward0"),
    "transpose": (lambda t: shape.transpose(t, 0, -1), lambda a: a.swapaxes(0, -1), "TransposeBackward0"),
    "permute": (lambda t: shape.permute(t, 1, 2, 0), lambda a: a.transpose(1, 2, 0), "PermuteBackward0"),
    "flatten": (shape.flatten, lambda a: a.reshape(-1), "ViewBackward0"),
    "flatten_1": (lambda t: shape.flatten(t, 1), lambda a: a.reshape(2, 12), "ViewBackward0"),
    "flatten_0_1": (lambda t: shape.flatten(t, 0, 1), lambda a: a.reshape(6, 4), "ViewBackward0"),
    "unsqueeze": (lambda t: shape.unsqueeze(t, 1), lambda a: a[:, None], "UnsqueezeBackward0"),
    "unsqueeze_end": (lambda t: shape.unsqueeze(t, -1), lambda a: a[..., None], "UnsqueezeBackward0"),
    "expand": (lambda t: shape.expand(shape.unsqueeze(t, 0), 3, -1, -1, 4),
               lambda a: np.broadcast_to(a, (3, 2, 3, 4)), "ExpandBackward0"),
}


@pytest.mark.parametrize("name", SHAPE_CASES)
def test_shape_ops(name):
    op, reference, node = SHAPE_CASES[name]
    x = leaf(2, 3, 4, seed=6)
    out = op(x)
    np.testing.assert_array_equal(out.numpy(), reference(x.numpy()))
    assert out.grad_fn.name() == node
    assert gradcheck(op, (x,))
    assert gradgradcheck(lambda t: op(t) * op(t), (x,))


@pytest.mark.parametrize("dim, expected_shape, node", [
    (None, (3, 4), "SqueezeBackward0"), (0, (3, 4, 1), "SqueezeBackward1"),
    (1, (1, 3, 4, 1), "SqueezeBackward1"), ((0, -1), (3, 4), "SqueezeBackward2"),
])
def test_squeeze(dim, expected_shape, node):
    x = leaf(1, 3, 4, 1, seed=7)
    out = shape.squeeze(x, dim)
    assert out.shape == expected_shape and out.grad_fn.name() == node
    assert gradcheck(lambda t: shape.squeeze(t, dim), (x,))


def test_expand_sums_the_gradient_over_expanded_dims():
    x = f64([[1.0], [2.0]])
    y = shape.expand(x, 3, 2, 4)
    reduce.sum(y).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[12.0], [12.0]])


def test_flatten_without_anything_to_merge_returns_the_tensor():
    x = leaf(3, seed=8)
    assert shape.flatten(x) is x
    assert shape.flatten(leaf(2, 3), 1, 1).shape == (2, 3)
    assert shape.flatten(f64(2.0)).shape == (1,)


def test_views_write_through_to_their_base():
    x = mg.tensor(np.arange(6.0))
    y = shape.view(x, 2, 3)
    y += 1
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0) + 1)
    assert x._version == y._version == 1


def test_shape_errors():
    x = leaf(2, 3)
    with pytest.raises(RuntimeError, match=r"shape '\[3, 5\]' is invalid for input of size 6"):
        shape.reshape(x, 3, 5)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        shape.view(x, -1, -1)
    with pytest.raises(RuntimeError, match=r"shape '\[-1, 4\]' is invalid for input of size 6"):
        shape.reshape(x, -1, 4)
    with pytest.raises(IndexError, match=r"\[-2, 1\], but got 3"):
        shape.transpose(x, 0, 3)
    with pytest.raises(IndexError, match=r"\[-3, 2\], but got 3"):
        shape.unsqueeze(x, 3)
    with pytest.raises(RuntimeError, match="duplicate dims"):
        shape.permute(x, 1, 1)
    with pytest.raises(RuntimeError, match="number of dims"):
        shape.permute(x, 1)
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        shape.flatten(x, 1, 0)
    with pytest.raises(RuntimeError, match=r"must match the existing size \(2\) at non-singleton dimension 0"):
        shape.expand(x, 3, 3)
    with pytest.raises(RuntimeError, match="must be greater or equal"):
        shape.expand(x, 3)


# ---- indexing -----------------------------------------------------------------------------
GETITEM_CASES = [
    ("int", 1, "SelectBackward0"), ("negative_int", -1, "SelectBackward0"),
    ("slice", slice(1, None), "SliceBackward0"), ("step", slice(0, None, 2), "SliceBackward0"),
    ("int_slice", (0, slice(1, 3)), "SliceBackward0"), ("int_int", (2, 1), "SelectBackward0"),
    ("ellipsis", (Ellipsis, 1), "SelectBackward0"), ("none", (1, None), "UnsqueezeBackward0"),
    ("repeated_rows", [0, 2, 0, 0], "IndexBackward0"),
    ("repeated_pairs", ([0, 0, 2], [1, 1, 1]), "IndexBackward0"),
    ("rows_and_slice", ([2, 2], slice(None, 2)), "IndexBackward0"),
    ("int_then_array", (1, slice(None), [0, 0, 1]), "IndexBackward0"),
    ("split_arrays", ([0, 1], slice(None), [1, 1]), "IndexBackward0"),
    ("array_2d", np.array([[0, 1], [2, 2]]), "IndexBackward0"),
    ("alias", (slice(None), slice(None)), "AliasBackward0"),
]


@pytest.mark.parametrize("name, key, node", GETITEM_CASES, ids=[c[0] for c in GETITEM_CASES])
def test_getitem(name, key, node):
    x = leaf(3, 4, 2, seed=9)
    out = index.getitem(x, key)
    assert out.grad_fn.name() == node
    if name != "int_then_array":  # numpy moves the array dim first there; PyTorch does not
        np.testing.assert_array_equal(out.numpy(), x.numpy()[key])
    assert gradcheck(lambda t: index.getitem(t, key), (x,))
    assert gradgradcheck(lambda t: index.getitem(t * t, key), (x,))


def test_getitem_follows_pytorch_when_an_int_comes_before_an_array():
    x = mg.tensor(np.arange(24.0).reshape(2, 3, 4))
    assert index.getitem(x, (0, slice(None), [1, 2])).shape == (3, 2)  # numpy would give (2, 3)


def test_repeated_indices_accumulate_their_gradients():
    x = f64([10.0, 20.0, 30.0])
    reduce.sum(index.getitem(x, [0, 0, 2, 0])).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 0.0, 1.0])


def test_boolean_masks():
    x = leaf(3, 4, seed=10)
    mask = x.numpy() > 0
    np.testing.assert_array_equal(index.getitem(x, mask).numpy(), x.numpy()[mask])
    np.testing.assert_array_equal(index.getitem(x, mg.tensor(mask)).numpy(), x.numpy()[mask])
    assert gradcheck(lambda t: index.getitem(t, mask), (x,))
    assert gradcheck(lambda t: index.getitem(t, (slice(None), np.array([True, False, False, True]))), (x,))


def test_getitem_errors():
    x = leaf(3, 4)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        index.getitem(x, 3)
    with pytest.raises(IndexError, match="index -5 is out of bounds for dimension 1 with size 4"):
        index.getitem(x, (0, -5))
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 1 with size 4"):
        index.getitem(x, (slice(None), [0, 4]))
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        index.getitem(x, (0, 0, 0))
    with pytest.raises(ValueError, match="step must be greater than zero"):
        index.getitem(x, slice(None, None, -1))
    with pytest.raises(IndexError, match="got float"):
        index.getitem(x, 1.5)
    with pytest.raises(IndexError, match="must be long, int or bool"):
        index.getitem(x, np.array([0.0, 1.0]))
    with pytest.raises(IndexError, match="shape of the mask"):
        index.getitem(x, np.array([True, False]))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat(dim):
    a, b = leaf(2, 3, seed=1), leaf(2, 3, seed=2)
    c = leaf(4, 3, seed=3) if dim == 0 else leaf(2, 1, seed=3)
    out = combine.cat([a, b, c], dim)
    np.testing.assert_array_equal(out.numpy(), np.concatenate([a.numpy(), b.numpy(), c.numpy()], dim))
    assert out.grad_fn.name() == "CatBackward0" and len(out.grad_fn.next_functions) == 3
    assert gradcheck(lambda *t: combine.cat(list(t), dim), (a, b, c))
    assert gradgradcheck(lambda *t: combine.cat([u * u for u in t], dim), (a, b, c))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack(dim):
    a, b = leaf(2, 3, seed=1), leaf(2, 3, seed=2)
    out = combine.stack((a, b), dim)
    np.testing.assert_array_equal(out.numpy(), np.stack([a.numpy(), b.numpy()], dim))
    assert out.grad_fn.name() == "StackBackward0"
    assert gradcheck(lambda *t: combine.stack(list(t), dim), (a, b))


def test_cat_and_stack_with_a_constant_input():
    a = leaf(2, seed=1)
    constant = mg.tensor([5.0, 6.0], dtype=mg.float64)
    out = combine.cat([a, constant])
    assert out.grad_fn.next_functions[1] == (None, 0)
    reduce.sum(out * out).backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * a.numpy())


def test_cat_and_stack_errors():
    a = leaf(2, 3)
    with pytest.raises(RuntimeError, match=r"Expected size 3 but got size 4 for tensor number 1.*\(2, 4\)"):
        combine.cat([a, mg.zeros(2, 4)], 0)
    with pytest.raises(RuntimeError, match="same number of dimensions: got 2 and 1"):
        combine.cat([a, mg.zeros(3)])
    with pytest.raises(ValueError, match="non-empty"):
        combine.cat([])
    with pytest.raises(TypeError, match="expected Tensor as element 1 in argument 0, but got numpy.ndarray"):
        combine.cat([a, np.zeros((2, 3))])
    with pytest.raises(RuntimeError, match=r"equal size, but got \[2, 3\] at entry 0 and \[3, 2\] at entry 1"):
        combine.stack([a, mg.zeros(3, 2)])
    with pytest.raises(IndexError, match=r"\[-3, 2\], but got 3"):
        combine.stack([a, a], 3)


def test_where():
    condition = np.array([[True, False, True], [False, False, True]])
    a, b = leaf(2, 3, seed=1), leaf(3, seed=2)  # b is broadcast over the rows
    out = combine.where(condition, a, b)
    np.testing.assert_array_equal(out.numpy(), np.where(condition, a.numpy(), b.numpy()))
    assert out.grad_fn.name() == "WhereBackward0" and len(out.grad_fn.next_functions) == 2
    assert gradcheck(lambda s, t: combine.where(condition, s, t), (a, b))
    assert gradgradcheck(lambda s, t: combine.where(condition, s * t, t * t), (a, b))
    scalar_other = combine.where(mg.tensor(condition), a, 0.0)
    assert scalar_other.grad_fn.next_functions[1] == (None, 0)
    assert scalar_other.dtype == mg.float64
    reduce.sum(scalar_other).backward()
    np.testing.assert_array_equal(a.grad.numpy(), condition.astype(float))


def test_where_errors():
    with pytest.raises(TypeError, match="boolean"):
        combine.where(mg.tensor([1.0, 0.0]), leaf(2), 0.0)
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):
        combine.where(np.array([True, False]), leaf(3), 0.0)


# ---- softmax ------------------------------------------------------------------------------
def _np_softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_and_log_softmax(dim):
    x = leaf(3, 4, 2, seed=11)
    expected = _np_softmax(x.numpy(), dim)
    np.testing.assert_allclose(softmax.softmax(x, dim).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(softmax.log_softmax(x, dim).numpy(), np.log(expected), rtol=1e-12)
    assert softmax.softmax(x, dim).grad_fn.name() == "SoftmaxBackward0"
    assert softmax.log_softmax(x, dim).grad_fn.name() == "LogSoftmaxBackward0"
    for op in (softmax.softmax, softmax.log_softmax):
        assert gradcheck(lambda t: op(t, dim), (x,))
        assert gradgradcheck(lambda t: op(t, dim), (x,))


def test_softmax_of_a_scalar_is_one_and_differentiable_twice():
    x = f64(0.3)
    assert softmax.softmax(x, 0).item() == 1.0 and softmax.log_softmax(x, -1).item() == 0.0
    for op in (softmax.softmax, softmax.log_softmax):
        assert gradgradcheck(lambda t: op(t * t, 0) * t, (x,))


def test_softmax_is_stable_for_large_inputs():
    x = mg.tensor([[1000.0, 1000.0, -1000.0]], dtype=mg.float64)
    with np.errstate(over="raise", divide="raise", invalid="raise"):
        probabilities = softmax.softmax(x, 1).numpy()
        log_probabilities = softmax.log_softmax(x, 1).numpy()
    np.testing.assert_allclose(probabilities, [[0.5, 0.5, 0.0]])
    np.testing.assert_allclose(log_probabilities, [[-np.log(2), -np.log(2), -2000 - np.log(2)]])


def test_softmax_errors():
    with pytest.raises(IndexError, match=r"\[-2, 1\], but got 2"):
        softmax.softmax(leaf(2, 3), 2)
    with pytest.raises(TypeError, match="floating point"):
        softmax.log_softmax(mg.tensor([1, 2]), 0)


# ---- second order across ops (pow from the arithmetic module too) -------------------------
def test_second_derivative_of_a_composition():
    x = leaf(2, 3, seed=12)
    assert gradgradcheck(
        lambda t: softmax.log_softmax(unary.tanh(t) ** 3, 1) * unary.sigmoid(t), (x,))


def test_third_derivative_of_x_cubed_through_pow():
    x = f64([2.0])
    (first,) = mg.autograd.grad(reduce.sum(x ** 3), x, create_graph=True)
    (second,) = mg.autograd.grad(reduce.sum(first), x, create_graph=True)
    (third,) = mg.autograd.grad(reduce.sum(second), x)
    assert (first.item(), second.item(), third.item()) == (12.0, 12.0, 6.0)
