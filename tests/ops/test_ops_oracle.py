"""PyTorch as an oracle for the tensor ops: forward values, gradients and grad_fn names.

Each case runs the same computation in minigrad and in torch on the same random float64
inputs, backpropagates the same random grad_output, and compares the outputs, the input
gradients, the name of the output's grad_fn and the names of its next_functions.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402
from minigrad.ops import combine, index, reduce, shape, softmax, unary  # noqa: E402

pytestmark = pytest.mark.oracle


def _node_name(node) -> str | None:
    if node is None:
        return None
    return node.name().removeprefix("torch::autograd::")


def _first(result):
    """max/min along a dim return (values, indices): compare the values' graph."""
    return result[0] if isinstance(result, tuple) else result


def run_both(mg_fn, torch_fn, *arrays, positive=False):
    """Run both libraries on the same inputs; compare values, grads and graph names."""
    rng = np.random.default_rng(len(arrays) * 7 + sum(a.size for a in arrays))
    mg_inputs = [mg.tensor(a, dtype=mg.float64, requires_grad=True) for a in arrays]
    torch_inputs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    mg_out, torch_out = mg_fn(*mg_inputs), torch_fn(*torch_inputs)
    if isinstance(torch_out, tuple):  # (values, indices)
        assert isinstance(mg_out, tuple) and len(mg_out) == 2
        np.testing.assert_array_equal(mg_out.indices.numpy(), torch_out.indices.numpy())
        np.testing.assert_array_equal(mg_out[1].numpy(), torch_out[1].numpy())
        assert mg_out.indices.dtype == np.int64
    mg_out, torch_out = _first(mg_out), _first(torch_out)
    assert tuple(mg_out.shape) == tuple(torch_out.shape)
    np.testing.assert_allclose(mg_out.numpy(), torch_out.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert mg_out.grad_fn.name() == torch_out.grad_fn.name()
    assert [_node_name(n) for n, _ in mg_out.grad_fn.next_functions] == \
        [_node_name(n) for n, _ in torch_out.grad_fn.next_functions]
    grad_output = rng.standard_normal(torch_out.shape)
    mg_out.backward(mg.tensor(grad_output, dtype=mg.float64))
    torch_out.backward(torch.tensor(grad_output, dtype=torch.float64))
    for mine, theirs in zip(mg_inputs, torch_inputs):
        if theirs.grad is None:  # an input the output does not use
            assert mine.grad is None
            continue
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# ---- unary --------------------------------------------------------------------------------
UNARY = [
    ("exp", unary.exp, torch.exp, False),
    ("log", unary.log, torch.log, True),
    ("sqrt", unary.sqrt, torch.sqrt, True),
    ("abs", unary.abs, torch.abs, False),
    ("tanh", unary.tanh, torch.tanh, False),
    ("sigmoid", unary.sigmoid, torch.sigmoid, False),
    ("relu", unary.relu, torch.relu, False),
]


@pytest.mark.parametrize("name, mg_fn, torch_fn, positive", UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize("shape_", [(), (5,), (2, 3)])
def test_unary(name, mg_fn, torch_fn, positive, shape_):
    data = randn(*shape_, seed=3)
    if positive:
        data = np.abs(data) + 0.1
    run_both(mg_fn, torch_fn, data)


def test_unary_at_kinks_and_extremes():
    data = np.array([-60.0, -1.0, 0.0, 0.0, 2.0, 60.0])
    for mg_fn, torch_fn in [(unary.abs, torch.abs), (unary.relu, torch.relu),
                            (unary.sigmoid, torch.sigmoid), (unary.tanh, torch.tanh)]:
        run_both(mg_fn, torch_fn, data)


@pytest.mark.parametrize("name, mg_fn, torch_fn, positive", UNARY, ids=[u[0] for u in UNARY])
def test_unary_dtypes_follow_torch(name, mg_fn, torch_fn, positive):
    for np_dtype, torch_dtype in [(np.float32, torch.float32), (np.int64, torch.int64)]:
        data = np.array([1, 2, 3], dtype=np_dtype)
        mine, theirs = mg_fn(mg.tensor(data)), torch_fn(torch.tensor(data, dtype=torch_dtype))
        assert str(mine.dtype) == str(theirs.dtype).removeprefix("torch.")
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-6)


def test_log_and_sqrt_outside_their_domain_match_torch():
    data = np.array([-1.0, 0.0, 4.0])
    for mg_fn, torch_fn in [(unary.log, torch.log), (unary.sqrt, torch.sqrt)]:
        np.testing.assert_array_equal(mg_fn(mg.tensor(data)).numpy(),
                                      torch_fn(torch.tensor(data)).numpy())


# ---- reductions ---------------------------------------------------------------------------
REDUCTIONS = [
    ("sum", lambda x: reduce.sum(x), lambda x: x.sum()),
    ("sum_dim", lambda x: reduce.sum(x, 1), lambda x: x.sum(1)),
    ("sum_neg_dim", lambda x: reduce.sum(x, -1), lambda x: x.sum(-1)),
    ("sum_dims_keep", lambda x: reduce.sum(x, (0, 2), keepdim=True), lambda x: x.sum((0, 2), keepdim=True)),
    ("sum_empty_dims", lambda x: reduce.sum(x, ()), lambda x: x.sum(())),
    ("sum_none_keep", lambda x: reduce.sum(x, None, True), lambda x: x.sum(None, True)),
    ("mean_none_keep", lambda x: reduce.mean(x, keepdim=True), lambda x: x.mean(dim=None, keepdim=True)),
    ("mean", lambda x: reduce.mean(x), lambda x: x.mean()),
    ("mean_dim", lambda x: reduce.mean(x, 0), lambda x: x.mean(0)),
    ("mean_dims_keep", lambda x: reduce.mean(x, (-1, 1), keepdim=True), lambda x: x.mean((-1, 1), keepdim=True)),
    ("max", lambda x: reduce.max(x), lambda x: x.max()),
    ("min", lambda x: reduce.min(x), lambda x: x.min()),
    ("max_dim", lambda x: reduce.max(x, 1), lambda x: x.max(1)),
    ("max_dim_keep", lambda x: reduce.max(x, -1, keepdim=True), lambda x: x.max(-1, keepdim=True)),
    ("min_dim", lambda x: reduce.min(x, 0), lambda x: x.min(0)),
    ("min_dim_keep", lambda x: reduce.min(x, 2, True), lambda x: x.min(2, True)),
]


@pytest.mark.parametrize("name, mg_fn, torch_fn", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reductions(name, mg_fn, torch_fn):
    run_both(mg_fn, torch_fn, randn(2, 3, 4, seed=5))


@pytest.mark.parametrize("name, mg_fn, torch_fn", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reductions_with_ties(name, mg_fn, torch_fn):
    # Small integers: many ties, so max/min must split (no dim) or pick the first (with dim).
    data = np.random.default_rng(1).integers(0, 3, size=(2, 3, 4)).astype(np.float64)
    run_both(mg_fn, torch_fn, data)


def test_softmax_of_a_scalar_tensor():
    for mg_fn, torch_fn in [(softmax.softmax, torch.softmax), (softmax.log_softmax, torch.log_softmax)]:
        run_both(lambda x: mg_fn(x * x, -1), lambda x: torch_fn(x * x, -1), np.array(0.7))


def test_reductions_of_a_scalar_tensor():
    data = np.array(1.5)
    for mg_fn, torch_fn in [(lambda x: reduce.sum(x, 0), lambda x: x.sum(0)),
                            (lambda x: reduce.mean(x, -1), lambda x: x.mean(-1)),
                            (lambda x: reduce.max(x, 0), lambda x: x.max(0)),
                            (lambda x: reduce.max(x), lambda x: x.max())]:
        run_both(mg_fn, torch_fn, data)


def test_reduction_dtypes_follow_torch():
    ints = np.array([[1, 5], [3, 2]])
    for mg_fn, torch_fn in [(reduce.sum, torch.sum), (reduce.max, torch.max), (reduce.min, torch.min)]:
        mine, theirs = mg_fn(mg.tensor(ints)), torch_fn(torch.tensor(ints))
        assert str(mine.dtype) == str(theirs.dtype).removeprefix("torch.")
        assert mine.item() == theirs.item()
    mine = reduce.mean(mg.tensor([1.0, 2.0]))
    assert mine.dtype == mg.float32


# ---- shape ops ----------------------------------------------------------------------------
SHAPES = [
    ("reshape", lambda x: shape.reshape(x, 4, -1), lambda x: x.reshape(4, -1)),
    ("reshape_tuple", lambda x: shape.reshape(x, (24,)), lambda x: x.reshape((24,))),
    ("view", lambda x: shape.view(x, 2, 12), lambda x: x.view(2, 12)),
    ("transpose", lambda x: shape.transpose(x, 0, 2), lambda x: x.transpose(0, 2)),
    ("transpose_neg", lambda x: shape.transpose(x, -1, -2), lambda x: x.transpose(-1, -2)),
    ("permute", lambda x: shape.permute(x, 2, 0, 1), lambda x: x.permute(2, 0, 1)),
    ("permute_tuple", lambda x: shape.permute(x, (1, -1, 0)), lambda x: x.permute((1, -1, 0))),
    ("flatten", lambda x: shape.flatten(x), lambda x: x.flatten()),
    ("flatten_1", lambda x: shape.flatten(x, 1), lambda x: x.flatten(1)),
    ("flatten_0_1", lambda x: shape.flatten(x, 0, -2), lambda x: x.flatten(0, -2)),
    ("unsqueeze", lambda x: shape.unsqueeze(x, 1), lambda x: x.unsqueeze(1)),
    ("unsqueeze_last", lambda x: shape.unsqueeze(x, -1), lambda x: x.unsqueeze(-1)),
    ("expand", lambda x: shape.expand(shape.unsqueeze(x, 0), 5, -1, 3, 4),
     lambda x: x.unsqueeze(0).expand(5, -1, 3, 4)),
]


@pytest.mark.parametrize("name, mg_fn, torch_fn", SHAPES, ids=[s[0] for s in SHAPES])
def test_shape_ops(name, mg_fn, torch_fn):
    run_both(mg_fn, torch_fn, randn(2, 3, 4, seed=6))


SQUEEZES = [
    ("squeeze_all", lambda x: shape.squeeze(x), lambda x: x.squeeze()),
    ("squeeze_dim", lambda x: shape.squeeze(x, 0), lambda x: x.squeeze(0)),
    ("squeeze_dim_not_1", lambda x: shape.squeeze(x, 1), lambda x: x.squeeze(1)),
    ("squeeze_dims", lambda x: shape.squeeze(x, (0, -1)), lambda x: x.squeeze((0, -1))),
    ("expand_size_1", lambda x: shape.expand(x, 1, 3, 4, 1), lambda x: x.expand(1, 3, 4, 1)),
    ("expand_new_dims", lambda x: shape.expand(x, 2, 1, 3, 4, 5), lambda x: x.expand(2, 1, 3, 4, 5)),
]


@pytest.mark.parametrize("name, mg_fn, torch_fn", SQUEEZES, ids=[s[0] for s in SQUEEZES])
def test_squeeze_and_expand(name, mg_fn, torch_fn):
    run_both(mg_fn, torch_fn, randn(1, 3, 4, 1, seed=7))


# ---- indexing -----------------------------------------------------------------------------
INDEXES = [
    ("int", 1), ("negative_int", -1), ("slice", slice(1, None)), ("full_slice", slice(None)),
    ("step", slice(None, None, 2)), ("int_int", (0, 2)), ("int_slice", (0, slice(1, 3))),
    ("ellipsis_int", (Ellipsis, 1)), ("none_int", (None, 0)), ("int_none", (0, None)),
    ("full_slices", (slice(None), slice(None))), ("ellipsis", Ellipsis),
    ("list", [0, 0, 2]), ("list_slice", ([2, 0], slice(1, None))),
    ("int_colon_list", (0, slice(None), [1, 1, 0])), ("list_colon_list", ([0, 2], slice(None), [3, 3])),
    ("slice_none_list", (slice(1, 2), None, [0, 2])), ("array_2d", np.array([[0, 1], [1, 2]])),
    ("colon_list_int", (slice(None), [0, 2, 2], 1)), ("empty_slice", (slice(None), slice(5, 9))),
    # PyTorch skips a slice written as "everything" (0:big) but not one with a negative start.
    ("whole_slices", (slice(0, 100), slice(None, 4))), ("negative_start", (slice(-3, None), 1)),
]


def _torch_key(key):
    if isinstance(key, np.ndarray):
        return torch.as_tensor(key)
    if isinstance(key, tuple):
        return tuple(_torch_key(k) for k in key)
    return key


@pytest.mark.parametrize("name, key", INDEXES, ids=[i[0] for i in INDEXES])
def test_getitem(name, key):
    run_both(lambda x: index.getitem(x, key), lambda x: x[_torch_key(key)], randn(3, 4, 5, seed=8))


def test_getitem_boolean_mask():
    data = randn(3, 4, seed=9)
    for mask in [data > 0, (data > 0)[:, 0], np.array([True, False, True])]:
        run_both(lambda x: index.getitem(x, mask), lambda x: x[torch.as_tensor(mask)], data)
    row_mask = np.array([False, True, True, False])
    run_both(lambda x: index.getitem(x, (slice(None), row_mask)),
             lambda x: x[:, torch.as_tensor(row_mask)], data)


def test_getitem_with_an_integer_tensor():
    positions = mg.tensor([2, 2, 0])
    run_both(lambda x: index.getitem(x, positions), lambda x: x[torch.tensor([2, 2, 0])],
             randn(3, 2, seed=10))
    run_both(lambda x: index.getitem(x, (slice(1, 2), mg.tensor(1))),
             lambda x: x[1:2, torch.tensor(1)], randn(3, 2, seed=10))
    run_both(lambda x: index.getitem(x, [True, False, True]),
             lambda x: x[[True, False, True]], randn(3, 2, seed=10))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat(dim):
    parts = [randn(2, 3, seed=1), randn(2, 3, seed=2), randn(2, 3, seed=3)]
    if dim == 0:
        parts[1] = randn(4, 3, seed=2)
    run_both(lambda *t: combine.cat(list(t), dim), lambda *t: torch.cat(t, dim), *parts)


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack(dim):
    parts = [randn(2, 3, seed=1), randn(2, 3, seed=2)]
    run_both(lambda *t: combine.stack(list(t), dim), lambda *t: torch.stack(t, dim), *parts)


def test_where():
    condition = randn(2, 3, seed=11) > 0
    run_both(lambda a, b: combine.where(condition, a, b),
             lambda a, b: torch.where(torch.as_tensor(condition), a, b),
             randn(2, 3, seed=1), randn(3, seed=2))
    run_both(lambda a: combine.where(condition, a, 0.0),
             lambda a: torch.where(torch.as_tensor(condition), a, 0.0), randn(1, 3, seed=3))
    run_both(lambda b: combine.where(mg.tensor(condition[0]), 2.0, b),
             lambda b: torch.where(torch.as_tensor(condition[0]), 2.0, b), randn(2, 3, seed=4))


# ---- softmax ------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("mg_fn, torch_fn", [(softmax.softmax, torch.softmax),
                                             (softmax.log_softmax, torch.log_softmax)],
                         ids=["softmax", "log_softmax"])
def test_softmax(mg_fn, torch_fn, dim):
    run_both(lambda x: mg_fn(x, dim), lambda x: torch_fn(x, dim), randn(3, 4, 2, seed=12))
    large = randn(2, 5, seed=13) * 400  # exp would overflow without the max shift
    run_both(lambda x: mg_fn(x, dim if dim != 1 else 0), lambda x: torch_fn(x, dim if dim != 1 else 0), large)


# ---- second derivatives -------------------------------------------------------------------
SECOND_ORDER = [
    ("tanh", unary.tanh, torch.tanh), ("sigmoid", unary.sigmoid, torch.sigmoid),
    ("exp", unary.exp, torch.exp),
    ("softmax", lambda x: softmax.softmax(x, -1), lambda x: torch.softmax(x, -1)),
    ("log_softmax", lambda x: softmax.log_softmax(x, 0), lambda x: torch.log_softmax(x, 0)),
    ("max_dim", lambda x: reduce.max(x, 1).values ** 3, lambda x: x.max(1).values ** 3),
    ("getitem", lambda x: index.getitem(x, [0, 0, 1]) ** 2, lambda x: x[[0, 0, 1]] ** 2),
]


@pytest.mark.parametrize("name, mg_fn, torch_fn", SECOND_ORDER, ids=[s[0] for s in SECOND_ORDER])
def test_second_derivatives(name, mg_fn, torch_fn):
    """d/dx of <grad_x(v), w> with create_graph=True, in both libraries."""
    rng = np.random.default_rng(14)
    data = rng.standard_normal((2, 3))
    x_mg = mg.tensor(data, dtype=mg.float64, requires_grad=True)
    x_torch = torch.tensor(data, requires_grad=True)
    out_mg, out_torch = mg_fn(x_mg), torch_fn(x_torch)
    v = rng.standard_normal(tuple(out_torch.shape))
    w = rng.standard_normal(data.shape)
    (g_mg,) = mg.autograd.grad(out_mg, x_mg, mg.tensor(v, dtype=mg.float64), create_graph=True)
    (g_torch,) = torch.autograd.grad(out_torch, x_torch, torch.tensor(v), create_graph=True)
    np.testing.assert_allclose(g_mg.numpy(), g_torch.detach().numpy(), rtol=1e-10, atol=1e-12)
    reduce.sum(g_mg * mg.tensor(w, dtype=mg.float64)).backward()
    (g_torch * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x_mg.grad.numpy(), x_torch.grad.numpy(), rtol=1e-9, atol=1e-12)


# ---- errors: same type, same key words ----------------------------------------------------
ERRORS = [
    ("sum_dim", lambda x: reduce.sum(x, 2), lambda x: x.sum(2)),
    ("max_dim", lambda x: reduce.max(x, -3), lambda x: x.max(-3)),
    ("softmax_dim", lambda x: softmax.softmax(x, 5), lambda x: x.softmax(5)),
    ("transpose_dim", lambda x: shape.transpose(x, 0, 2), lambda x: x.transpose(0, 2)),
    ("unsqueeze_dim", lambda x: shape.unsqueeze(x, 3), lambda x: x.unsqueeze(3)),
    ("repeated_dim", lambda x: reduce.sum(x, (0, -2)), lambda x: x.sum((0, -2))),
    ("reshape", lambda x: shape.reshape(x, 3, 5), lambda x: x.reshape(3, 5)),
    ("reshape_infer", lambda x: shape.reshape(x, -1, 4), lambda x: x.reshape(-1, 4)),
    ("reshape_two_infer", lambda x: shape.reshape(x, -1, -1), lambda x: x.reshape(-1, -1)),
    ("expand", lambda x: shape.expand(x, 3, 3), lambda x: x.expand(3, 3)),
    ("flatten", lambda x: shape.flatten(x, 1, 0), lambda x: x.flatten(1, 0)),
    ("permute_dup", lambda x: shape.permute(x, 0, 0), lambda x: x.permute(0, 0)),
    ("index_int", lambda x: index.getitem(x, 2), lambda x: x[2]),
    ("index_negative", lambda x: index.getitem(x, (0, -4)), lambda x: x[0, -4]),
    ("index_list", lambda x: index.getitem(x, [0, 5]), lambda x: x[[0, 5]]),
    ("too_many", lambda x: index.getitem(x, (0, 0, 0)), lambda x: x[0, 0, 0]),
    ("negative_step", lambda x: index.getitem(x, slice(None, None, -1)), lambda x: x[::-1]),
    ("cat_sizes", lambda x: combine.cat([x, mg.zeros(2, 4)], 0), lambda x: torch.cat([x, torch.zeros(2, 4)], 0)),
    ("cat_ndim", lambda x: combine.cat([x, mg.zeros(3)]), lambda x: torch.cat([x, torch.zeros(3)])),
    ("stack_sizes", lambda x: combine.stack([x, mg.zeros(2, 4)]), lambda x: torch.stack([x, torch.zeros(2, 4)])),
    ("max_empty", lambda x: reduce.max(index.getitem(x, slice(0, 0))), lambda x: x[0:0].max()),
]


def _key_words(message: str) -> str:
    """The part of PyTorch's message before any detail it appends in parentheses/hints."""
    return message.split(" (")[0].split(". ")[0].split("Target sizes")[0]


@pytest.mark.parametrize("name, mg_fn, torch_fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, mg_fn, torch_fn):
    data = randn(2, 3, seed=15)
    with pytest.raises(Exception) as torch_error:
        torch_fn(torch.tensor(data, dtype=torch.float32))
    with pytest.raises(Exception) as mg_error:
        mg_fn(mg.tensor(data, dtype=mg.float32))
    assert isinstance(mg_error.value, torch_error.type), (mg_error.value, torch_error.value)
    expected = _key_words(str(torch_error.value))
    assert expected in str(mg_error.value), (str(mg_error.value), str(torch_error.value))


# ---- the same expressions through Tensor methods (the public surface) ---------------------
METHOD_EXPRESSIONS = [
    "x.exp()", "(x * x + 1).log()", "(x * x).sqrt()", "x.abs()", "abs(x)", "x.tanh()",
    "x.sigmoid()", "x.relu()",
    "x.sum()", "x.sum(1)", "x.sum(dim=(0, 2), keepdim=True)", "x.sum(dim=-1)",
    "x.mean()", "x.mean(dim=0)", "x.mean(-1, keepdim=True)",
    "x.max()", "x.min()", "x.max(dim=1)", "x.max(1).values", "x.min(dim=-1, keepdim=True)",
    "x.reshape(4, -1)", "x.reshape((6, 4))", "x.view(-1)", "x.view(2, 12)",
    "x.transpose(0, 1)", "x.permute(2, 0, 1)", "x.flatten()", "x.flatten(1)",
    "x.flatten(start_dim=0, end_dim=1)", "x.unsqueeze(0)", "x.unsqueeze(dim=-1)",
    "x[:1].squeeze()", "x[:1].squeeze(0)", "x[:1].squeeze(dim=0)",
    "x[:, :1].expand(2, 5, 4)", "x[0].T", "x[1]", "x[:, 1:]", "x[..., -1]",
    "x[0, [0, 0, 2]]", "x[[1, 0, 1]]", "x[None]", "x[:, None, 1]",
    "x.softmax(-1)", "x.log_softmax(dim=1)", "x.softmax(0).log()",
]


@pytest.mark.parametrize("expression", METHOD_EXPRESSIONS)
def test_tensor_methods(expression):
    """Evaluate the very same Python expression with minigrad and with torch tensors."""
    run_both(lambda x: eval(expression), lambda x: eval(expression), randn(2, 3, 4, seed=16))


def test_module_level_functions():
    a, b = randn(2, 3, seed=17), randn(2, 3, seed=18)
    condition = a > 0
    for mg_fn, torch_fn in [
        (lambda s, t: mg.cat([s, t], 1), lambda s, t: torch.cat([s, t], 1)),
        (lambda s, t: mg.cat((s, t), dim=0), lambda s, t: torch.cat((s, t), dim=0)),
        (lambda s, t: mg.stack([s, t], dim=-1), lambda s, t: torch.stack([s, t], dim=-1)),
        (lambda s, t: mg.where(mg.tensor(condition), s, t),
         lambda s, t: torch.where(torch.as_tensor(condition), s, t)),
        (lambda s, t: mg.where(s > 0, s, 0.0), lambda s, t: torch.where(s > 0, s, 0.0)),
    ]:
        run_both(mg_fn, torch_fn, a, b)


SAVED_EXPRESSIONS = [
    "x.exp()", "x.log()", "x.sqrt()", "x.abs()", "x.tanh()", "x.sigmoid()", "x.relu()",
    "x.sum(1)", "x.mean()", "x.max()", "x.min()", "x.max(1).values", "x.min(0).values",
    "x.reshape(-1)", "x.transpose(0, 1)", "x[0]", "x[[0, 0]]", "x[:, [1, 1, 0]]", "x.softmax(1)",
    "x.log_softmax(0)", "lib.where(x > 1, x, 0.0)",
]


@pytest.mark.parametrize("expression", SAVED_EXPRESSIONS)
def test_nodes_save_what_torch_saves(expression):
    """node.saved_arrays() names the tensors PyTorch keeps as `_saved_<name>`."""
    data = np.random.default_rng(19).random((3, 4)) + 0.5
    theirs = eval(expression, {"x": torch.tensor(data, requires_grad=True), "lib": torch}).grad_fn
    mine = eval(expression, {"x": mg.tensor(data, requires_grad=True), "lib": mg}).grad_fn
    torch_saved = {name.removeprefix("_saved_"): getattr(theirs, name) for name in dir(theirs)
                   if name.startswith("_saved_")}
    torch_saved = {name: value for name, value in torch_saved.items()
                   if isinstance(value, torch.Tensor)
                   or isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value)}
    assert sorted(mine.saved_arrays()) == sorted(torch_saved)
    for name, array in mine.saved_arrays().items():
        value = torch_saved[name]
        value = value if isinstance(value, torch.Tensor) else next(v for v in value if v is not None)
        np.testing.assert_allclose(array, value.detach().numpy().reshape(array.shape))


# ---- seeded random cases: many small shapes, dims and index keys --------------------------
def _compare_or_both_raise(mg_fn, torch_fn, data, rng):
    """Both raise the same kind of error, or both give the same values, names and grads."""
    x_torch = torch.tensor(data, requires_grad=True)
    x_mg = mg.tensor(data, requires_grad=True)
    try:
        out_torch = torch_fn(x_torch)
    except Exception as error:  # noqa: BLE001 - any error torch raises, we must raise too
        with pytest.raises(type(error)):
            mg_fn(x_mg)
        return
    out_torch, out_mg = _first(out_torch), _first(mg_fn(x_mg))
    assert tuple(out_mg.shape) == tuple(out_torch.shape)
    np.testing.assert_allclose(out_mg.numpy(), out_torch.detach().numpy(), rtol=1e-12, atol=1e-12)
    if out_torch.grad_fn is None:  # torch returned its input unchanged (e.g. flatten of 1-D)
        assert out_mg.grad_fn is None
        return
    assert out_mg.grad_fn.name() == out_torch.grad_fn.name()
    grad_output = rng.standard_normal(tuple(out_torch.shape))
    out_torch.backward(torch.tensor(grad_output))
    out_mg.backward(mg.tensor(grad_output))
    np.testing.assert_allclose(x_mg.grad.numpy(), x_torch.grad.numpy(), rtol=1e-12, atol=1e-12)


def _random_index_item(rng, size):
    kind = rng.integers(0, 6)
    if kind == 0:
        return int(rng.integers(-size, size))
    if kind == 1:
        start, stop = (int(v) for v in rng.integers(-size - 1, size + 2, 2))
        return slice(start if rng.random() < 0.7 else None, stop if rng.random() < 0.7 else None,
                     int(rng.integers(1, 3)) if rng.random() < 0.5 else None)
    if kind == 2:
        return None
    if kind == 3:
        return [int(v) for v in rng.integers(-size, size, rng.integers(1, 4))]
    if kind == 4:
        return slice(None)
    return rng.integers(0, size, (2, 2))


def test_random_index_keys():
    rng = np.random.default_rng(2024)
    for _ in range(400):
        shape_ = tuple(int(s) for s in rng.integers(1, 4, rng.integers(1, 4)))
        items, dim = [], 0
        for _ in range(int(rng.integers(1, len(shape_) + 1))):
            item = _random_index_item(rng, shape_[dim])
            items.append(item)
            dim += item is not None
        if rng.random() < 0.2:
            items.insert(int(rng.integers(0, len(items) + 1)), Ellipsis)
        key = tuple(items) if len(items) != 1 or rng.random() < 0.5 else items[0]
        _compare_or_both_raise(lambda x: x[key], lambda x: x[_torch_key(key)],
                               rng.standard_normal(shape_), rng)


def test_random_dims_and_shapes():
    rng = np.random.default_rng(7)
    for _ in range(120):
        ndim = int(rng.integers(0, 4))
        shape_ = tuple(int(s) for s in rng.integers(1, 4, ndim))
        # Small integers make ties, which max/min must break exactly like torch.
        data = (rng.integers(-2, 3, shape_).astype(float) if rng.random() < 0.3
                else rng.standard_normal(shape_))
        bound = max(ndim, 1)
        d, d2 = (int(v) for v in rng.integers(-bound - 1, bound + 1, 2))
        dims = tuple(int(v) for v in rng.integers(-bound, bound, rng.integers(1, bound + 1)))
        keep = bool(rng.random() < 0.5)
        sizes = tuple(int(v) for v in rng.integers(1, 4, rng.integers(max(ndim, 1), ndim + 2)))
        for expression in [
            "x.sum(d, keepdim=keep)", "x.sum(dims, keepdim=keep)", "x.mean(dims, keepdim=keep)",
            "x.max(d, keepdim=keep)", "x.min(dim=d, keepdim=keep)", "x.max()", "x.min()",
            "x.transpose(d, d2)", "x.unsqueeze(d)", "x.squeeze(d)", "x.squeeze(dims)",
            "x.squeeze()", "x.flatten(d, d2)", "x.reshape(-1)", "x.expand(*sizes)",
            "x.softmax(d)", "x.log_softmax(d)", "lib.cat([x, x * 2], d)",
            "lib.stack([x, x * 2], d)", "lib.where(x > 0, x, x * 3)",
        ]:
            names = {"d": d, "d2": d2, "dims": dims, "keep": keep, "sizes": sizes}
            _compare_or_both_raise(lambda x: eval(expression, {"x": x, "lib": mg, **names}),
                                   lambda x: eval(expression, {"x": x, "lib": torch, **names}),
                                   data, rng)


@pytest.mark.parametrize("expression", ["x[[0, 0]]", "x[x > 1]", "x[0]", "x[1:]", "x.sum(0)",
                                        "lib.where(x > 1, x, 0.0)", "x.max()", "x.exp()",
                                        "x.reshape(-1)", "lib.cat([x, x])"])
def test_second_backward_raises_exactly_when_torch_does(expression):
    """Nodes that saved tensors free them after backward; nodes that saved none do not."""
    outcomes = []
    for lib in (torch, mg):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = eval(expression, {"x": x, "lib": lib}).sum()
        y.backward()
        try:
            y.backward()
            outcomes.append("no error")
        except RuntimeError as error:
            assert "retain_graph=True" in str(error)
            outcomes.append("error")
    assert outcomes[0] == outcomes[1]
