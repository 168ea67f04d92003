"""Arithmetic ops (+ - * / ** @, negation): values, gradients by finite differences,
broadcasting, dtype promotion, graph node names (PyTorch as an oracle) and error messages."""

from __future__ import annotations

import inspect
from typing import Callable

import numpy as np
import pytest

import minigrad as mg


def numerical_gradients(f: Callable[..., mg.Tensor], arrays: list[np.ndarray],
                        eps: float = 1e-6) -> list[np.ndarray]:
    """Central differences of sum(f(*inputs) * weights) for each input, in float64."""
    weights = np.random.default_rng(1).standard_normal(
        f(*[mg.tensor(a) for a in arrays]).shape)
    gradients = []
    for index, array in enumerate(arrays):
        gradient = np.zeros_like(array)
        for position in np.ndindex(array.shape):
            values = []
            for step in (eps, -eps):
                shifted = [a.copy() for a in arrays]
                shifted[index][position] += step
                values.append(float((f(*[mg.tensor(a) for a in shifted]).numpy() * weights).sum()))
            gradient[position] = (values[0] - values[1]) / (2 * eps)
        gradients.append(gradient)
    return gradients


def check_gradients(f: Callable[..., mg.Tensor], *shapes: tuple[int, ...],
                    positive: bool = False, seed: int = 0) -> None:
    """Engine gradients of f agree with finite differences (float64)."""
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 2.0, shape) if positive else rng.standard_normal(shape)
              for shape in shapes]
    inputs = [mg.tensor(a, dtype=mg.float64, requires_grad=True) for a in arrays]
    output = f(*inputs)
    weights = np.random.default_rng(1).standard_normal(output.shape)
    output.backward(mg.tensor(weights, dtype=mg.float64))
    expected = numerical_gradients(f, arrays)
    for tensor, numeric in zip(inputs, expected):
        assert tensor.grad is not None
        assert tensor.grad.dtype == mg.float64
        np.testing.assert_allclose(tensor.grad.numpy(), numeric, rtol=1e-5, atol=1e-7)


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b,
}
SHAPE_PAIRS = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 4)), ((2, 3, 4), (3, 1)), ((), (2, 2))]


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_binary_gradients_with_broadcasting(name, shapes):
    check_gradients(BINARY[name], *shapes, positive=name in ("div", "pow"))


@pytest.mark.parametrize("function", [
    lambda a: a + 2.5, lambda a: 2.5 + a, lambda a: a - 1.5, lambda a: 1.5 - a,
    lambda a: a * 3, lambda a: 3 * a, lambda a: a / 4, lambda a: 4 / a, lambda a: -a,
    lambda a: a ** 3, lambda a: a ** 0.5, lambda a: a ** -2, lambda a: 2 ** a,
    lambda a: a * a * a, lambda a: (a + 1) / (a * a + 1),
], ids=["add_num", "radd", "sub_num", "rsub", "mul_num", "rmul", "div_num", "rdiv", "neg",
        "cube", "sqrt_pow", "inverse_square", "rpow", "fan_in", "composite"])
def test_unary_forms_gradients(function):
    check_gradients(function, (2, 3), positive=True)


@pytest.mark.parametrize("shapes", [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((3, 4), (4, 5)),
                                    ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
                                    ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                                    ((2, 3, 4), (4,)), ((4,), (2, 4, 3))], ids=str)
def test_matmul_gradients(shapes):
    pytest.importorskip("minigrad.ops.shape")
    check_gradients(lambda a, b: a @ b, *shapes)


def test_matmul_values_match_numpy():
    pytest.importorskip("minigrad.ops.shape")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 5))
    np.testing.assert_allclose((mg.tensor(a) @ mg.tensor(b)).numpy(), (a @ b).astype(np.float32),
                               rtol=1e-6)
    assert (mg.tensor([1.0, 2.0]) @ mg.tensor([3.0, 4.0])).item() == 11.0


def test_matmul_does_not_promote_dtypes_as_pytorch():
    """+ and * promote float32 with float64; @ refuses, with PyTorch's message."""
    with pytest.raises(RuntimeError, match=r"^expected m1 and m2 to have the same dtype, but "
                                           r"got: float != double"):
        mg.ones(2, 2) @ mg.ones(2, 2, dtype=mg.float64)
    with pytest.raises(RuntimeError, match="long int != float"):
        mg.ones(2, 2, dtype=mg.int64) @ mg.ones(2, 3)
    assert (mg.ones(2, 2) * mg.ones(2, 2, dtype=mg.float64)).dtype == mg.float64


def test_broadcast_gradient_is_summed_over_broadcast_axes():
    x = mg.ones(2, 3, requires_grad=True)
    bias = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    column = mg.tensor([[1.0], [2.0]], requires_grad=True)
    y = (x * bias + column)
    y.backward(mg.ones(2, 3))
    np.testing.assert_array_equal(bias.grad.numpy(), [2.0, 2.0, 2.0])   # 2 rows summed
    np.testing.assert_array_equal(column.grad.numpy(), [[3.0], [3.0]])  # 3 columns summed
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 2, 3], [1, 2, 3]])


def test_second_derivatives_through_arithmetic():
    x = mg.tensor([0.5, 2.0], dtype=mg.float64, requires_grad=True)
    y = x ** 3 / (1 + x)
    (dy,) = mg.autograd.grad(y, x, grad_outputs=mg.ones(2, dtype=mg.float64), create_graph=True)
    (d2y,) = mg.autograd.grad(dy, x, grad_outputs=mg.ones(2, dtype=mg.float64))
    v = x.numpy()
    first = (3 * v**2 * (1 + v) - v**3) / (1 + v) ** 2
    second = (2 * v**3 + 6 * v**2 + 6 * v) / (1 + v) ** 3
    np.testing.assert_allclose(dy.numpy(), first, rtol=1e-12)
    np.testing.assert_allclose(d2y.numpy(), second, rtol=1e-12)


def test_pow_tensor_exponent_at_zero_base_has_finite_gradient():
    pytest.importorskip("minigrad.ops.unary")
    base = mg.tensor([0.0, 2.0], requires_grad=True)
    exponent = mg.tensor([2.0, 3.0], requires_grad=True)
    (base ** exponent).backward(mg.ones(2))
    np.testing.assert_allclose(exponent.grad.numpy(), [0.0, 8 * np.log(2)], rtol=1e-6)
    np.testing.assert_allclose(base.grad.numpy(), [0.0, 12.0])


@pytest.mark.parametrize("left, right, expected", [
    (mg.float32, mg.float32, mg.float32), (mg.float32, mg.float64, mg.float64),
    (mg.float64, mg.float32, mg.float64), (mg.int64, mg.float32, mg.float32),
    (mg.int64, mg.int64, mg.int64),
])
def test_type_promotion_between_tensors(left, right, expected):
    a, b = mg.ones(2, dtype=left), mg.ones(2, dtype=right)
    assert (a + b).dtype == expected
    assert (a * b).dtype == expected


def test_python_numbers_do_not_promote_tensors():
    x = mg.ones(2)
    assert (x * 2.5).dtype == mg.float32
    assert (2.5 - x).dtype == mg.float32
    assert (x ** 2.0).dtype == mg.float32
    assert (mg.ones(2, dtype=mg.int64) * 2).dtype == mg.int64
    assert (mg.ones(2, dtype=mg.int64) + 0.5).dtype == mg.float32       # like PyTorch
    assert (mg.tensor([1, 2]) / mg.tensor([2, 2])).dtype == mg.float32   # true division
    np.testing.assert_array_equal((mg.tensor([1, 2]) / 2).numpy(), [0.5, 1.0])


def test_a_zero_dim_tensor_does_not_widen_a_tensor_with_dims():
    """PyTorch: tensors with dims decide the dtype within a category (numpy: int64 here)."""
    ints = mg.ones(2, dtype=mg.int32)
    assert (ints + mg.tensor(3)).dtype == mg.int32
    assert (mg.tensor(3) * ints).dtype == mg.int32
    assert (ints - mg.tensor([3])).dtype == mg.int64      # a dimensioned int64 does widen
    assert (mg.ones(2, dtype=mg.float32) + mg.tensor(3.0, dtype=mg.float64)).dtype == mg.float32


def test_subtracting_bools_is_refused_as_in_pytorch():
    mask = mg.tensor([True, False])
    for subtract in (lambda: mask - 1, lambda: 1 - mask, lambda: mg.tensor([1]) - mask,
                     lambda: mg.ones(2) - True):
        with pytest.raises(RuntimeError, match=r"^Subtraction, the `-` operator, with a bool "
                                               r"tensor is not supported. If you are trying to "
                                               r"invert a mask, use the `~`"):
            subtract()
    for subtract in (lambda: mask - mask, lambda: mask - True, lambda: mask.sub_(mask)):
        with pytest.raises(RuntimeError, match=r"^Subtraction, the `-` operator, with two bool "
                                               r"tensors is not supported. Use the `\^`"):
            subtract()


@pytest.mark.oracle
def test_result_dtypes_of_arithmetic_match_pytorch():
    """+ - * / over every pair of dtypes, with and without dims, and with Python numbers."""
    torch = pytest.importorskip("torch")
    names = ["bool", "int32", "int64", "float32", "float64"]
    shapes = [((2,), ()), ((), (2,)), ((2,), (2,)), ((), ())]
    operators = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b]

    def outcome(compute):
        try:
            return str(compute().dtype).split(".")[-1]
        except RuntimeError:
            return "RuntimeError"

    for left, right in [(a, b) for a in names for b in names]:
        for shape_a, shape_b in shapes:
            a, b = np.ones(shape_a, dtype=left), np.ones(shape_b, dtype=right)
            for index, op in enumerate(operators):
                theirs = outcome(lambda: op(torch.tensor(a), torch.tensor(b)))
                ours = outcome(lambda: op(mg.tensor(a), mg.tensor(b)))
                assert ours == theirs, (left, shape_a, right, shape_b, index)
        for number in (2, 2.5, True):
            for index, op in enumerate(operators):
                theirs = outcome(lambda: op(torch.ones(2, dtype=getattr(torch, left)), number))
                ours = outcome(lambda: op(mg.ones(2, dtype=getattr(mg, left)), number))
                assert ours == theirs, (left, number, index)


def test_float64_gradients_stay_float64_next_to_float32():
    a = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    out = a * b
    assert out.dtype == mg.float64
    out.backward(mg.ones(2, dtype=mg.float64))
    assert a.grad.dtype == mg.float64 and b.grad.dtype == mg.float32
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 2.0])


def test_ndarray_operands_on_either_side():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = np.array([3.0, 4.0], dtype=np.float32) * x + x * np.array([1.0, 1.0], dtype=np.float32)
    assert isinstance(y, mg.Tensor)
    y.backward(mg.ones(2))
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 5.0])


def test_broadcast_error_names_both_shapes():
    with pytest.raises((ValueError, RuntimeError), match=r"\(2, 3\) and \(4,\) cannot be broadcast"):
        mg.ones(2, 3) + mg.ones(4)
    with pytest.raises(RuntimeError, match=r"\(2, 3\) and \(4,\).*\*"):
        mg.ones(2, 3) * mg.ones(4)


def test_matmul_error_names_both_shapes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        mg.ones(2, 3) @ mg.ones(4, 5)
    with pytest.raises(RuntimeError, match="at least 1D"):
        mg.tensor(2.0) @ mg.ones(2)


def test_unsupported_operand_type_error():
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*: 'Tensor' and 'str'"):
        mg.ones(2) * "a"
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for -: 'str' and 'Tensor'"):
        "a" - mg.ones(2)
    with pytest.raises(TypeError, match=r"for \+: 'Tensor' and 'list'"):
        mg.ones(2) + [1, 2]

    with pytest.raises(TypeError, match=r"for <: 'Tensor' and 'str'"):
        mg.ones(2) < "a"
    x = mg.ones(2)
    with pytest.raises(TypeError, match=r"for \+=: 'Tensor' and 'str'"):
        x += "a"


OPERATOR_CALLS = {  # each operator calls its op by name: a name an editor follows
    "__add__": "ops.arithmetic.add(self, other)", "__radd__": "ops.arithmetic.add(self, other)",
    "__sub__": "ops.arithmetic.sub(self, other)", "__rsub__": "ops.arithmetic.sub(other, self)",
    "__mul__": "ops.arithmetic.mul(self, other)", "__rmul__": "ops.arithmetic.mul(self, other)",
    "__truediv__": "ops.arithmetic.div(self, other)",
    "__rtruediv__": "ops.arithmetic.div(other, self)",
    "__pow__": "ops.arithmetic.pow(self, other)", "__rpow__": "ops.arithmetic.pow(other, self)",
    "__matmul__": "ops.arithmetic.matmul(self, other)",
    "__rmatmul__": "ops.arithmetic.matmul(other, self)",
    "__floordiv__": "ops.rounding.floor_divide(self, other)",
    "__rfloordiv__": "ops.rounding.floor_divide(other, self)",
    "__mod__": "ops.rounding.remainder(self, other)",
    "__rmod__": "ops.rounding.remainder(other, self)",
}


@pytest.mark.parametrize("method", OPERATOR_CALLS)
def test_an_operator_reaches_its_function_in_two_named_hops(method):
    """`x * y`: `Tensor.__mul__` calls `ops.arithmetic.mul`, which calls `Mul.apply`."""
    assert OPERATOR_CALLS[method] in inspect.getsource(getattr(mg.Tensor, method))
    assert "Mul.apply(a, b)" in inspect.getsource(mg.ops.arithmetic.mul)


@pytest.mark.oracle
def test_node_names_and_edges_match_pytorch():
    torch = pytest.importorskip("torch")
    pytest.importorskip("minigrad.ops.shape")
    cases = {
        "add": lambda a, b: a + b, "add_num": lambda a, b: a + 2, "radd": lambda a, b: 2 + a,
        "sub": lambda a, b: a - b, "rsub": lambda a, b: 2 - a, "mul": lambda a, b: a * b,
        "rmul": lambda a, b: 2 * a, "div": lambda a, b: a / b, "rdiv": lambda a, b: 2 / a,
        "pow_num": lambda a, b: a ** 2, "pow": lambda a, b: a ** b, "rpow": lambda a, b: 2 ** a,
        "neg": lambda a, b: -a, "mm": lambda a, b: a @ b.T if hasattr(b, "T") else None,
    }
    rng = np.random.default_rng(0)
    a, b = rng.uniform(1, 2, (2, 2)), rng.uniform(1, 2, (2, 2))
    for name, f in cases.items():
        ours = f(mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True))
        theirs = f(torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True))
        assert ours.grad_fn.name() == theirs.grad_fn.name(), name
        our_edges = [None if n is None else n.name() for n, _ in ours.grad_fn.next_functions]
        their_names = [None if n is None else n.name().split("::")[-1] for n, _ in theirs.grad_fn.next_functions]
        their_edges = their_names
        if name != "mm":  # torch's b.T adds a TBackward0 node; ours a transpose node
            assert our_edges == their_edges, name
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-12)


@pytest.mark.oracle
@pytest.mark.parametrize("shapes, name", [(((3,), (3,)), "DotBackward0"),
                                          (((2, 3), (3,)), "MvBackward0"),
                                          (((2, 3), (3, 4)), "MmBackward0")])
def test_matmul_node_names_match_pytorch(shapes, name):
    torch = pytest.importorskip("torch")
    a, b = np.ones(shapes[0]), np.ones(shapes[1])
    theirs = torch.tensor(a, requires_grad=True) @ torch.tensor(b, requires_grad=True)
    ours = mg.tensor(a, requires_grad=True) @ mg.tensor(b, requires_grad=True)
    assert ours.grad_fn.name() == theirs.grad_fn.name() == name


@pytest.mark.oracle
def test_gradients_match_pytorch_on_a_broadcast_expression():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    arrays = [rng.uniform(0.5, 1.5, s) for s in [(4, 3), (3,), (4, 1)]]
    ours = [mg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float32, requires_grad=True) for a in arrays]
    for inputs in (ours, theirs):
        x, w, b = inputs
        out = ((x * w - b) ** 2 / (x + 1)) ** 0.5
        out.backward(type(out)(np.ones((4, 3))) if inputs is ours else torch.ones(4, 3))
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine.grad.numpy(), reference.grad.numpy(), rtol=1e-5)


GRADCHECK_CASES = {
    "add_broadcast": (lambda a, b: a + b, [(2, 3), (3,)]),
    "sub_column": (lambda a, b: a - b, [(2, 3), (2, 1)]),
    "mul_scalar_tensor": (lambda a, b: a * b, [(), (2, 2)]),
    "div": (lambda a, b: a / b, [(3,), (3,)]),
    "pow_tensor": (lambda a, b: a ** b, [(2, 2), (2, 2)]),
    "matmul_batched": (lambda a, b: a @ b, [(2, 3, 4), (4, 2)]),
    "matmul_vector": (lambda a, b: a @ b, [(3,), (3, 2)]),
    "mixed": (lambda a, b: (a * b - a / (b * b + 1)) ** 2, [(2, 3), (3,)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECK_CASES))
def test_gradcheck_and_gradgradcheck(name):
    gradcheck = pytest.importorskip("minigrad.autograd.gradcheck")
    function, shapes = GRADCHECK_CASES[name]
    rng = np.random.default_rng(5)
    inputs = [mg.tensor(rng.uniform(0.5, 1.5, shape), dtype=mg.float64, requires_grad=True)
              for shape in shapes]
    assert gradcheck.gradcheck(function, inputs)
    assert gradcheck.gradgradcheck(function, inputs)


@pytest.mark.oracle
def test_result_dtypes_match_pytorch():
    torch = pytest.importorskip("torch")
    values = [np.ones(2, np.float32), np.ones(2), np.array(2.0), np.array(2.0, np.float32),
              np.ones((), np.float32), np.array([1, 2]), np.array(3), 2.5, 3]
    for a in values:
        for b in values:
            if not isinstance(a, np.ndarray):
                continue
            theirs_b = torch.tensor(b) if isinstance(b, np.ndarray) else b
            ours_b = mg.tensor(b) if isinstance(b, np.ndarray) else b
            for op in (lambda x, y: x + y, lambda x, y: x * y, lambda x, y: x / y,
                       lambda x, y: y - x):
                theirs = op(torch.tensor(a), theirs_b).dtype
                ours = op(mg.tensor(a), ours_b).dtype
                assert str(theirs).split(".")[1] == ours.name, (a, b)
