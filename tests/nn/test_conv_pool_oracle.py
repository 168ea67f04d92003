"""PyTorch as the oracle for conv2d / max_pool2d / avg_pool2d: values, gradients, gradients
of gradients, tie routing and error messages, on random shapes, strides, paddings, dtypes."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

import minigrad as mg  # noqa: E402
from minigrad.ops.conv import conv2d  # noqa: E402
from minigrad.ops.pool import avg_pool2d, max_pool2d  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.usefixtures("warm_kernels")]

DTYPES = {"float32": (mg.float32, torch.float32, 2e-4), "float64": (mg.float64, torch.float64, 1e-10)}


def _pair_both(rng, low, high):
    return int(rng.integers(low, high)), int(rng.integers(low, high))


def _conv_case(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    while True:
        kernel = _pair_both(rng, 1, 5)
        stride = _pair_both(rng, 1, 4)
        padding = _pair_both(rng, 0, 3)
        n, c, o = (int(v) for v in rng.integers(1, 5, size=3))
        height, width = _pair_both(rng, 1, 10)
        if height + 2 * padding[0] >= kernel[0] and width + 2 * padding[1] >= kernel[1]:
            break
    stride_arg = stride[0] if stride[0] == stride[1] and seed % 2 else stride
    return {"x": (n, c, height, width), "w": (o, c) + kernel, "stride": stride_arg,
            "padding": padding, "bias": seed % 3 != 0}


def _both(shape, seed, dtype_name, requires_grad=True):
    mg_dtype, torch_dtype, _ = DTYPES[dtype_name]
    data = np.random.default_rng(seed).standard_normal(shape)
    return (mg.tensor(data, dtype=mg_dtype, requires_grad=requires_grad),
            torch.tensor(data, dtype=torch_dtype, requires_grad=requires_grad))


def _close(mine, theirs, tolerance):
    theirs = theirs.detach().numpy() if hasattr(theirs, "detach") else theirs
    assert mine.shape == tuple(theirs.shape)
    np.testing.assert_allclose(mine.numpy(), theirs, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(16))
def test_conv2d_values_and_gradients(seed: int, dtype: str) -> None:
    case = _conv_case(seed)
    tolerance = DTYPES[dtype][2]
    x, tx = _both(case["x"], seed, dtype)
    w, tw = _both(case["w"], seed + 100, dtype)
    b, tb = _both(case["w"][:1], seed + 200, dtype) if case["bias"] else (None, None)
    y = conv2d(x, w, b, stride=case["stride"], padding=case["padding"])
    ty = F.conv2d(tx, tw, tb, stride=case["stride"], padding=case["padding"])
    _close(y, ty, tolerance)
    assert y.dtype == x.dtype
    g = np.random.default_rng(seed + 300).standard_normal(ty.shape)
    y.backward(mg.tensor(g, dtype=y.dtype))
    ty.backward(torch.tensor(g, dtype=ty.dtype))
    _close(x.grad, tx.grad, tolerance)
    _close(w.grad, tw.grad, tolerance)
    if b is not None:
        _close(b.grad, tb.grad, tolerance)


@pytest.mark.parametrize("seed", range(6))
def test_conv2d_double_backward(seed: int) -> None:
    """Gradients of a function of the first gradients (a gradient penalty), both libraries."""
    case = _conv_case(seed + 50)
    x, tx = _both(case["x"], seed, "float64")
    w, tw = _both(case["w"], seed + 1, "float64")
    b, tb = _both(case["w"][:1], seed + 2, "float64")
    settings = {"stride": case["stride"], "padding": case["padding"]}
    y = conv2d(x, w, b, **settings)
    ty = F.conv2d(tx, tw, tb, **settings)
    gx, gw = mg.autograd.grad((y * y).sum(), (x, w), create_graph=True)
    tgx, tgw = torch.autograd.grad((ty * ty).sum(), (tx, tw), create_graph=True)
    _close(gx, tgx, 1e-9)
    _close(gw, tgw, 1e-9)
    penalty = (gx * gx).sum() + (gw * gw * gw).sum()
    tpenalty = (tgx * tgx).sum() + (tgw * tgw * tgw).sum()
    penalty.backward()
    tpenalty.backward()
    for mine, theirs in ((x, tx), (w, tw), (b, tb)):
        _close(mine.grad, theirs.grad, 1e-8)


def _pool_case(seed: int) -> dict:
    rng = np.random.default_rng(seed + 1000)
    while True:
        kernel = _pair_both(rng, 1, 5)
        stride = _pair_both(rng, 1, 4) if seed % 3 else None
        padding = (int(rng.integers(0, kernel[0] // 2 + 1)), int(rng.integers(0, kernel[1] // 2 + 1)))
        shape = (int(rng.integers(1, 4)), int(rng.integers(1, 4))) + _pair_both(rng, 1, 10)
        step = stride or kernel
        if all((shape[2 + k] + 2 * padding[k] - kernel[k]) // step[k] + 1 >= 1 for k in (0, 1)):
            return {"shape": shape, "kernel": kernel, "stride": stride, "padding": padding}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(16))
@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
def test_pools_values_indices_and_gradients(seed: int, dtype: str, ties: bool) -> None:
    case = _pool_case(seed)
    mg_dtype, torch_dtype, tolerance = DTYPES[dtype]
    rng = np.random.default_rng(seed)
    data = (rng.integers(-2, 3, size=case["shape"]).astype(float) if ties
            else rng.standard_normal(case["shape"]))
    settings = {"kernel_size": case["kernel"], "stride": case["stride"], "padding": case["padding"]}
    for mine_fn, torch_fn in ((max_pool2d, F.max_pool2d), (avg_pool2d, F.avg_pool2d)):
        x = mg.tensor(data, dtype=mg_dtype, requires_grad=True)
        tx = torch.tensor(data, dtype=torch_dtype, requires_grad=True)
        y, ty = mine_fn(x, **settings), torch_fn(tx, **settings)
        _close(y, ty, tolerance)
        g = rng.standard_normal(ty.shape)
        y.backward(mg.tensor(g, dtype=mg_dtype))
        ty.backward(torch.tensor(g, dtype=torch_dtype))
        _close(x.grad, tx.grad, tolerance)
    _, indices = max_pool2d(mg.tensor(data, dtype=mg_dtype), return_indices=True, **settings)
    _, torch_indices = F.max_pool2d(torch.tensor(data, dtype=torch_dtype), return_indices=True,
                                    **settings)
    np.testing.assert_array_equal(indices.numpy(), torch_indices.numpy())


@pytest.mark.parametrize("shape", [(3, 4, 8, 8), (2, 3, 7, 9)], ids=["even", "odd"])
def test_max_pool_2x2_fast_path_ties_like_pytorch(shape: tuple) -> None:
    # float32, 2×2, stride 2: the jit kernels' own path; many ties, odd sizes leave a row and
    # a column outside every window (their gradient must be 0)
    data = np.random.default_rng(5).integers(-1, 2, size=shape).astype(np.float32)
    x = mg.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    values, indices = max_pool2d(x, 2, return_indices=True)
    tvalues, tindices = F.max_pool2d(tx, 2, return_indices=True)
    np.testing.assert_array_equal(values.numpy(), tvalues.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), tindices.numpy())
    g = np.random.default_rng(6).standard_normal(tvalues.shape).astype(np.float32)
    values.backward(mg.tensor(g))
    tvalues.backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
def test_pool_double_backward(pool: str) -> None:
    mine_fn, torch_fn = {"max_pool2d": (max_pool2d, F.max_pool2d),
                         "avg_pool2d": (avg_pool2d, F.avg_pool2d)}[pool]
    x, tx = _both((2, 2, 5, 5), 8, "float64")
    y, ty = mine_fn(x, 3, 2, 1), torch_fn(tx, 3, 2, 1)
    (gx,) = mg.autograd.grad((y ** 3).sum(), x, create_graph=True)
    (tgx,) = torch.autograd.grad((ty ** 3).sum(), tx, create_graph=True)
    _close(gx, tgx, 1e-10)
    (gx * gx).sum().backward()
    (tgx * tgx).sum().backward()
    _close(x.grad, tx.grad, 1e-10)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("settings", [(2, 1, 1), (2, 2, 0)], ids=["2x2-s1-p1", "2x2-s2"])
def test_max_pool_nan_and_infinities_like_pytorch(dtype: str, settings: tuple) -> None:
    # float32 2×2 stride 2 takes the jit kernels' unrolled fast path: same routing expected
    data = np.array([[[[1.0, np.nan, 2.0, np.nan], [np.nan, 0.0, -np.inf, -np.inf],
                       [-np.inf, -np.inf, np.inf, 1.0], [-np.inf, -np.inf, 1.0, np.inf]]]],
                    dtype=dtype)
    x = mg.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    values, indices = max_pool2d(x, *settings, return_indices=True)
    tvalues, tindices = F.max_pool2d(tx, *settings, return_indices=True)
    np.testing.assert_array_equal(values.numpy(), tvalues.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), tindices.numpy())
    values.sum().backward()
    tvalues.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


ERROR_CASES = [
    ("channels", lambda m: m.conv2d(m.zeros(2, 4, 5, 5), m.zeros(6, 3, 3, 3))),
    ("input dims", lambda m: m.conv2d(m.zeros(5, 5), m.zeros(6, 4, 3, 3))),
    ("5-d input", lambda m: m.conv2d(m.zeros(1, 1, 4, 5, 5), m.zeros(6, 4, 3, 3))),
    ("kernel too big", lambda m: m.conv2d(m.zeros(1, 4, 2, 2), m.zeros(6, 4, 3, 3))),
    ("stride 0", lambda m: m.conv2d(m.zeros(1, 4, 5, 5), m.zeros(6, 4, 3, 3), stride=0)),
    ("negative padding", lambda m: m.conv2d(m.zeros(1, 4, 5, 5), m.zeros(6, 4, 3, 3), padding=-1)),
    ("bias size", lambda m: m.conv2d(m.zeros(1, 4, 5, 5), m.zeros(6, 4, 3, 3), m.zeros(5))),
    ("stride of 3", lambda m: m.conv2d(m.zeros(1, 4, 5, 5), m.zeros(6, 4, 3, 3), stride=(1, 1, 1))),
    ("max 2-d", lambda m: m.max_pool2d(m.zeros(5, 5), 2)),
    ("avg 5-d", lambda m: m.avg_pool2d(m.zeros(1, 1, 1, 5, 5), 2)),
    ("max pad", lambda m: m.max_pool2d(m.zeros(1, 1, 5, 5), 2, padding=2)),
    ("avg pad", lambda m: m.avg_pool2d(m.zeros(1, 1, 5, 5), 2, padding=2)),
    ("too small", lambda m: m.max_pool2d(m.zeros(1, 1, 2, 2), 3)),
    ("pool stride 0", lambda m: m.avg_pool2d(m.zeros(1, 1, 5, 5), 2, stride=0)),
    ("max no channels", lambda m: m.max_pool2d(m.zeros(2, 0, 4, 4), 2)),
    ("avg empty 3-d", lambda m: m.avg_pool2d(m.zeros(0, 4, 4), 2)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
def test_pools_take_an_empty_batch_like_pytorch(pool: str, dtype: str) -> None:
    """A batch of no images (the tail of a DataLoader, a filtered batch) goes through a CNN."""
    x = mg.zeros(0, 2, 5, 5, dtype=getattr(mg, dtype), requires_grad=True)
    tx = torch.zeros(0, 2, 5, 5, dtype=getattr(torch, dtype), requires_grad=True)
    y, ty = getattr(_Minigrad, pool)(x, 2), getattr(_Torch, pool)(tx, 2)
    assert y.shape == tuple(ty.shape) == (0, 2, 2, 2)
    y.sum().backward()
    assert x.grad.shape == (0, 2, 5, 5)
    v = mg.ones(*y.shape, dtype=y.dtype, requires_grad=True)  # and double backward
    grad, = mg.autograd.grad(getattr(_Minigrad, pool)(x, 2), x, v, create_graph=True)
    (grad * 2).sum().backward()
    assert v.grad.shape == y.shape


class _Minigrad:
    conv2d, max_pool2d, avg_pool2d = staticmethod(conv2d), staticmethod(max_pool2d), staticmethod(avg_pool2d)
    zeros = staticmethod(mg.zeros)


class _Torch:
    conv2d, max_pool2d, avg_pool2d = staticmethod(F.conv2d), staticmethod(F.max_pool2d), staticmethod(F.avg_pool2d)
    zeros = staticmethod(torch.zeros)


@pytest.mark.parametrize("name, call", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_read_like_pytorch(name: str, call) -> None:
    with pytest.raises(RuntimeError) as theirs:
        call(_Torch)
    with pytest.raises(RuntimeError) as mine:
        call(_Minigrad)
    assert str(mine.value).startswith(str(theirs.value).splitlines()[0])
