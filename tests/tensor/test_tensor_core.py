"""The Tensor container: construction, dtypes, attributes, conversions, printing, factories."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg


def test_construction_from_lists_numbers_and_arrays():
    t = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert t.shape == (2, 2) and t.ndim == 2 and t.dtype == mg.float32
    assert mg.tensor(3.5).shape == () and mg.tensor(3.5).dtype == mg.float32
    assert mg.tensor([1, 2]).dtype == mg.int64
    assert mg.tensor([True, False]).dtype == mg.bool
    assert mg.tensor(np.zeros(3, dtype=np.float32)).dtype == mg.float32
    assert mg.tensor(np.zeros(3)).dtype == mg.float64           # an array keeps its dtype
    assert mg.tensor([1.0, 2.0], dtype=mg.float64).dtype == mg.float64
    assert mg.tensor([1, 2], dtype=mg.float32).dtype == mg.float32
    assert mg.Tensor([1.0]).dtype == mg.float32


def test_construction_copies_the_data():
    array = np.array([1.0, 2.0], dtype=np.float32)
    t = mg.tensor(array)
    array[0] = 100.0
    assert t.numpy()[0] == 1.0


@pytest.mark.parametrize("bad, name", [([1 + 2j], "complex128"), (["a", "b"], "str"),
                                       (np.ones(2, dtype=np.float16), "float16"),
                                       (np.array([object()]), "object")])
def test_unsupported_dtypes_are_refused_by_name(bad, name):
    with pytest.raises(TypeError, match=rf"{name}.*supported dtypes are float32, float64"):
        mg.tensor(bad)


def test_unsupported_dtype_argument():
    with pytest.raises(TypeError, match="float16"):
        mg.zeros(2, dtype=np.float16)


def test_ragged_lists_are_refused():
    with pytest.raises((ValueError, TypeError), match="rectangular"):
        mg.tensor([[1.0, 2.0], [3.0]])


def test_requires_grad_attributes():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None
    y = mg.ones(2)
    assert y.requires_grad_() is y and y.requires_grad
    y.requires_grad = False
    assert not y.requires_grad


def test_numpy_returns_a_copy():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    array = x.numpy()
    array[0] = 50.0
    assert x.numpy()[0] == 1.0
    assert isinstance(array, np.ndarray) and array.dtype == np.float32


def test_item_and_scalar_conversions():
    assert mg.tensor([[2.5]]).item() == 2.5
    assert isinstance(mg.tensor(3).item(), int)
    assert float(mg.tensor([1.5])) == 1.5
    assert int(mg.tensor(7.0)) == 7
    assert bool(mg.tensor(1.0)) and not bool(mg.tensor([0.0]))
    with pytest.raises(RuntimeError, match="6 elements cannot be converted to Scalar"):
        mg.ones(2, 3).item()
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        bool(mg.ones(2))


def test_len_size_dim_numel_and_transpose():
    x = mg.zeros(4, 3)
    assert len(x) == 4 and x.size() == (4, 3) and x.size(1) == 3 and x.dim() == 2
    assert x.numel() == 12
    with pytest.raises(TypeError, match="0-d"):
        len(mg.tensor(1.0))
    pytest.importorskip("minigrad.ops.shape")
    m = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    np.testing.assert_array_equal(m.T.numpy(), m.numpy().T)
    m.T.backward(mg.ones(3, 2))
    np.testing.assert_array_equal(m.grad.numpy(), np.ones((2, 3)))


def test_float_and_double_conversions_are_differentiable():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    d = x.double()
    assert d.dtype == mg.float64 and d.grad_fn.name() == "ToCopyBackward0"
    (d * d).backward(mg.ones(2, dtype=mg.float64))
    assert x.grad.dtype == mg.float32
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
    assert x.float() is x
    assert mg.tensor([1, 2]).float().dtype == mg.float32


def test_repr_like_pytorch():
    assert repr(mg.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(mg.tensor([1.5, 2.25])) == "tensor([1.5000, 2.2500])"
    assert repr(mg.tensor([1.0, 2.0], requires_grad=True)) == "tensor([1., 2.], requires_grad=True)"
    x = mg.tensor(3.0, requires_grad=True)
    assert repr(x * x) == "tensor(9., grad_fn=<MulBackward0>)"
    assert repr(mg.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(mg.tensor([0.5], dtype=mg.float64)) == "tensor([0.5000], dtype=minigrad.float64)"
    assert repr(mg.ones(2, 2)) == "tensor([[1., 1.],\n        [1., 1.]])"


def test_grad_assignment_is_checked():
    x = mg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"shape \(3,\).*shape \(2,\)"):
        x.grad = mg.ones(3)
    x.grad = mg.zeros(2)
    assert x.grad.numpy().tolist() == [0.0, 0.0]


def test_comparisons_give_boolean_tensors_outside_the_graph():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    mask = x > 1.5
    assert mask.dtype == mg.bool and not mask.requires_grad
    assert mask.tolist() == [False, True, True]
    assert (x == x).tolist() == [True, True, True]
    assert {x: 1}[x] == 1                         # still hashable (by identity)


# ---- factories -------------------------------------------------------------------------------
def test_factories_shapes_dtypes_and_values():
    assert mg.zeros(2, 3).shape == (2, 3) and mg.zeros((2, 3)).numpy().sum() == 0
    assert mg.ones(4).numpy().tolist() == [1.0] * 4 and mg.ones(4).dtype == mg.float32
    assert mg.full((2,), 7.0).numpy().tolist() == [7.0, 7.0]
    assert mg.full((2,), 7).dtype == mg.int64
    assert mg.arange(4).numpy().tolist() == [0, 1, 2, 3] and mg.arange(4).dtype == mg.int64
    assert mg.arange(0, 1, 0.25).numpy().tolist() == [0.0, 0.25, 0.5, 0.75]
    assert mg.arange(0, 1, 0.25).dtype == mg.float32
    np.testing.assert_array_equal(mg.eye(3).numpy(), np.eye(3))
    assert mg.eye(2, 3).shape == (2, 3)
    base = mg.ones(2, 3, dtype=mg.float64)
    assert mg.zeros_like(base).dtype == mg.float64 and mg.ones_like(base).shape == (2, 3)
    assert mg.zeros(2, dtype=mg.float64, requires_grad=True).requires_grad
    assert mg.randn(3, 4).dtype == mg.float32 and mg.rand(5).dtype == mg.float32
    assert mg.randn(2, dtype=mg.float64).dtype == mg.float64
    assert mg.ones(2, requires_grad=True).is_leaf


def test_manual_seed_makes_random_numbers_reproducible():
    mg.manual_seed(123)
    first = (mg.randn(3, 3).numpy(), mg.rand(4).numpy())
    mg.manual_seed(123)
    second = (mg.randn(3, 3).numpy(), mg.rand(4).numpy())
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert np.all((first[1] >= 0) & (first[1] < 1))
    mg.manual_seed(124)
    assert not np.array_equal(mg.randn(3, 3).numpy(), first[0])


def test_randn_statistics():
    mg.manual_seed(0)
    sample = mg.randn(100_000).numpy()
    assert abs(sample.mean()) < 0.02 and abs(sample.std() - 1) < 0.02


@pytest.mark.oracle
def test_construction_dtypes_match_pytorch():
    torch = pytest.importorskip("torch")
    for data in ([1.0, 2.0], [1, 2], [True], 3.0, np.zeros(2), np.zeros(2, dtype=np.float32)):
        assert str(torch.tensor(data).dtype).split(".")[1] == mg.tensor(data).dtype.name


def test_iteration_formatting_and_index():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    rows = list(x)
    assert len(rows) == 2 and rows[1].tolist() == [3.0, 4.0] and rows[0].requires_grad
    assert f"{(x * 1).sum():.2f}" == "10.00"
    assert ["a", "b", "c"][mg.tensor(1)] == "b"
    with pytest.raises(TypeError):
        ["a"][mg.tensor(0.0)]


def test_setitem_in_place_outside_the_graph():
    t = mg.zeros(3)
    t[mg.tensor([0, 2])] = 1.0
    t[1] = mg.tensor(5.0)
    assert t.tolist() == [1.0, 5.0, 1.0] and t._version == 2
    w = mg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w[0] = 3.0
    with mg.no_grad():
        w[0] = 3.0
    assert w.tolist() == [3.0, 1.0]
    doubled = w * 2  # a non-leaf: the assignment is recorded, as in PyTorch (CopySlices)
    doubled[0] = 1.0
    doubled.sum().backward()
    assert doubled.tolist() == [1.0, 2.0] and w.grad.tolist() == [0.0, 2.0]


def test_clone_copies_data_and_keeps_the_graph():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x.clone()
    assert y.grad_fn.name() == "CloneBackward0"
    with mg.no_grad():
        y.add_(1)
    assert x.tolist() == [1.0, 2.0]
    (y * y).backward(mg.ones(2))
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 6.0])


def test_a_list_with_an_int_and_a_non_number_names_the_non_number():
    with pytest.raises(TypeError, match="elements of type NoneType"):
        mg.tensor([1, None])
