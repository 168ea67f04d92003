"""conv2d, max_pool2d, avg_pool2d: gradients by finite differences (first and second order),
node names, and argument errors. (PyTorch comparisons: test_conv_pool_oracle.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd.gradcheck import gradcheck, gradgradcheck
from minigrad.ops.conv import conv2d
from minigrad.ops.pool import avg_pool2d, max_pool2d

pytestmark = pytest.mark.usefixtures("warm_kernels")


def _tensor(shape, seed, requires_grad=True, dtype=mg.float64):
    data = np.random.default_rng(seed).standard_normal(shape)
    return mg.tensor(data, dtype=dtype, requires_grad=requires_grad)


CONV_SETTINGS = [  # (x shape, w shape, stride, padding)
    ((2, 2, 5, 4), (3, 2, 3, 2), 1, 0),
    ((1, 3, 5, 5), (2, 3, 3, 3), 2, 1),
    ((2, 1, 4, 6), (5, 1, 2, 3), (1, 2), (2, 1)),
    ((1, 2, 3, 3), (1, 2, 1, 1), 3, 0),
]


@pytest.mark.parametrize("x_shape, w_shape, stride, padding", CONV_SETTINGS)
def test_conv2d_gradcheck_and_gradgradcheck(x_shape, w_shape, stride, padding) -> None:
    x, w, b = _tensor(x_shape, 0), _tensor(w_shape, 1), _tensor(w_shape[:1], 2)

    def f(x, w, b):
        return conv2d(x, w, b, stride=stride, padding=padding)

    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


def test_conv2d_bias_gradient_is_recorded_as_a_sum_over_batch_and_pixels() -> None:
    """∂L/∂b comes from the kernels' reduction (ConvBackwardBias) but records the node a
    sum over (0, 2, 3) records, and spreads a second-order upstream back over g."""
    x, w, b = _tensor((2, 2, 4, 4), 0), _tensor((3, 2, 3, 3), 1), _tensor((3,), 2)
    g = _tensor((2, 3, 2, 2), 3)
    (grad_b,) = mg.autograd.grad(conv2d(x, w, b), (b,), g, create_graph=True)
    assert grad_b.grad_fn.name() == "SumBackward1"
    np.testing.assert_allclose(grad_b.detach().numpy(), g.detach().numpy().sum(axis=(0, 2, 3)))
    (grad_g,) = mg.autograd.grad((grad_b * mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)).sum(),
                                 (g,))
    np.testing.assert_array_equal(grad_g.numpy(), np.broadcast_to(
        np.array([1.0, 2.0, 3.0]).reshape(1, 3, 1, 1), (2, 3, 2, 2)))


def test_conv2d_third_order_through_the_graph() -> None:
    """The backward ops are conv ops again, so a third derivative exists; for y = sum(conv(x, w)²)
    the third derivative wrt w along a direction is checked against finite differences of
    the second-order gradient."""
    x, w = _tensor((1, 1, 4, 4), 3), _tensor((1, 1, 2, 2), 4)

    def second(w_):
        (g,) = mg.autograd.grad((conv2d(x, w_) ** 2).sum(), w_, create_graph=True)
        (gg,) = mg.autograd.grad((g ** 2).sum(), w_, create_graph=True)
        return gg

    assert gradcheck(second, (w,))


POOL_SETTINGS = [  # (x shape, kernel, stride, padding)
    ((2, 2, 5, 5), 2, None, 0),
    ((1, 3, 5, 6), 3, 2, 1),
    ((2, 1, 4, 7), (2, 3), (1, 2), (1, 0)),
]


@pytest.mark.parametrize("pool", [max_pool2d, avg_pool2d])
@pytest.mark.parametrize("shape, kernel, stride, padding", POOL_SETTINGS)
def test_pool_gradcheck_and_gradgradcheck(pool, shape, kernel, stride, padding) -> None:
    # Distinct, well separated values: finite differences never cross a tie of max.
    values = np.random.default_rng(5).permutation(int(np.prod(shape))).reshape(shape) * 0.1
    x = mg.tensor(values, dtype=mg.float64, requires_grad=True)

    def f(x):
        return pool(x, kernel, stride, padding)

    assert gradcheck(f, (x,), eps=1e-6)
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_windows_kept_for_the_weight_gradient_serve_one_backward(dtype) -> None:
    """The forward keeps a small layer's packed windows for the weight gradient: a second
    backward through the retained graph packs them again and gives the same gradients, and
    an input changed in place after the forward is still refused, as PyTorch refuses it."""
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((4, 3, 5, 5)).astype(dtype), requires_grad=True)
    w = mg.tensor(rng.standard_normal((6, 3, 3, 3)).astype(dtype), requires_grad=True)
    y = conv2d(x, w, padding=1)
    assert y.grad_fn.packed  # the windows, kept
    (y * y).sum().backward(retain_graph=True)
    assert y.grad_fn.packed is None  # handed to the weight gradient, then dropped
    first = w.grad.numpy().copy()
    w.grad = None
    (y * y).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), first)
    h = x * 1
    out = conv2d(h, w, padding=1)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_node_names_match_pytorch() -> None:
    x, w, b = _tensor((1, 1, 4, 4), 0), _tensor((2, 1, 3, 3), 1), _tensor((2,), 2)
    y = conv2d(x, w)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    assert [n.name() if n else None for n, _ in y.grad_fn.next_functions] == [
        "AccumulateGrad", "AccumulateGrad", None]
    assert conv2d(x, w, b).grad_fn.next_functions[2][0].variable is b
    (g,) = mg.autograd.grad(conv2d(x, w).sum(), w, create_graph=True)
    assert g.grad_fn.name() == "ConvolutionBackwardBackward0"
    assert max_pool2d(x, 2).grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    assert avg_pool2d(x, 2).grad_fn.name() == "AvgPool2DBackward0"


def test_max_pool_routes_the_gradient_to_the_first_maximum_of_a_tie() -> None:
    x = mg.tensor([[[[1.0, 3.0], [3.0, 3.0]]]], requires_grad=True)
    max_pool2d(x, 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [[0.0, 1.0], [0.0, 0.0]])


def test_avg_pool_sends_a_share_to_every_window_pixel() -> None:
    x = mg.zeros(1, 1, 4, 4, requires_grad=True)
    avg_pool2d(x, 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((1, 1, 4, 4), 0.25))


def test_max_pool_return_indices_and_unbatched_input() -> None:
    x = mg.tensor(np.arange(16.0).reshape(1, 4, 4), dtype=mg.float32)
    values, indices = max_pool2d(x, 2, return_indices=True)
    assert values.shape == (1, 2, 2) and indices.dtype == mg.int64
    np.testing.assert_array_equal(indices.numpy()[0], [[5, 7], [13, 15]])
    assert conv2d(x, mg.ones(2, 1, 3, 3)).shape == (2, 2, 2)


def test_float32_stays_float32() -> None:
    x, w = _tensor((1, 2, 5, 5), 0, dtype=mg.float32), _tensor((3, 2, 3, 3), 1, dtype=mg.float32)
    y = max_pool2d(conv2d(x, w, padding=1), 2)
    y.sum().backward()
    assert y.dtype == mg.float32 and x.grad.dtype == mg.float32 and w.grad.dtype == mg.float32


@pytest.mark.parametrize("call, error, message", [
    (lambda: conv2d(mg.zeros(2, 4, 5, 5), mg.zeros(6, 3, 3, 3)), RuntimeError,
     "Given groups=1, weight of size [6, 3, 3, 3], expected input[2, 4, 5, 5] to have 3 "
     "channels, but got 4 channels instead"),
    (lambda: conv2d(mg.zeros(5, 5), mg.zeros(6, 3, 3, 3)), RuntimeError,
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [5, 5]"),
    (lambda: conv2d(mg.zeros(1, 3, 2, 2), mg.zeros(6, 3, 3, 3)), RuntimeError,
     "Kernel size can't be greater than actual input size"),
    (lambda: conv2d(mg.zeros(1, 3, 5, 5), mg.zeros(6, 3, 3, 3), stride=0), RuntimeError,
     "non-positive stride is not supported"),
    (lambda: conv2d(mg.zeros(1, 3, 5, 5), mg.zeros(6, 3, 3, 3), padding=-1), RuntimeError,
     "negative padding is not supported"),
    (lambda: conv2d(mg.zeros(1, 3, 5, 5), mg.zeros(6, 3, 3, 3), mg.zeros(5)), RuntimeError,
     "expected bias to be 1-dimensional with 6 elements, but got bias of size [5] instead"),
    (lambda: conv2d(mg.zeros(1, 3, 5, 5, dtype=mg.float64), mg.zeros(6, 3, 3, 3)), RuntimeError,
     "expected scalar type Double but found Float"),
    (lambda: conv2d(mg.zeros(1, 3, 5, 5), mg.zeros(6, 3, 3, 3), stride=(1, 1, 1)), RuntimeError,
     "expected stride to be a single integer value or a list of 2 values"),
    (lambda: conv2d(mg.zeros(1, 3, 5, 5), mg.zeros(6, 3, 3))[0], RuntimeError,
     "weight must be 4-dimensional"),
    (lambda: conv2d([[1.0]], mg.zeros(6, 3, 3, 3)), TypeError, "must be a Tensor"),
    (lambda: max_pool2d(mg.zeros(5, 5), 2), RuntimeError,
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda: avg_pool2d(mg.zeros(1, 1, 1, 5, 5), 2), RuntimeError,
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
     "but got:[1, 1, 1, 5, 5]"),
    (lambda: max_pool2d(mg.zeros(1, 1, 5, 5), 2, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and "
     "dilation=1"),
    (lambda: avg_pool2d(mg.zeros(1, 1, 2, 2), 3), RuntimeError,
     "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small"),
    (lambda: max_pool2d(mg.zeros(1, 1, 5, 5), 2, stride=0), RuntimeError,
     "stride should not be zero"),
    (lambda: max_pool2d(mg.zeros(1, 1, 4, 4, dtype=mg.int64), 2), TypeError,
     "expected a float32 or float64 input"),
    (lambda: avg_pool2d(mg.zeros(1, 1, 4, 4), 2, ceil_mode=True), NotImplementedError,
     "ceil_mode=True is not supported"),
])
def test_errors_name_what_is_wrong(call, error, message) -> None:
    with pytest.raises(error) as caught:
        call()
    assert message in str(caught.value)


def test_conv2d_refuses_dilation_and_groups_it_does_not_implement() -> None:
    x, w = mg.zeros(1, 2, 5, 5), mg.zeros(2, 2, 3, 3)
    assert conv2d(x, w, dilation=1, groups=1).shape == (1, 2, 3, 3)
    with pytest.raises(NotImplementedError, match="dilation=2"):
        conv2d(x, w, dilation=2)
    with pytest.raises(NotImplementedError, match="groups=2"):
        conv2d(x, w, groups=2)
