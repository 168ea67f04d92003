"""Views, in-place changes through views, `x[key] = value` and `.data`, against PyTorch.

Each case is a snippet run with `L = minigrad` and with `L = torch` (see
test_torch_semantics.same_as_torch): values, gradients, versions and errors must agree.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from support.torch_comparison import case_id, oracle_cases, same_as_torch

# ---- views share memory and version counter with their base ------------------------------
VIEWS = oracle_cases("""
a = L.zeros(2, 3); b = a[0]; b += 1; r = a, a._version, b._version
---
a = L.zeros(2, 3); b = a.T; b[0] = 5; r = a, a._version
---
a = L.zeros(2, 3); v = a.view(3, 2); a.add_(1); r = v, v._version
---
a = L.zeros(2, 3); v = a.reshape(6); v[4] = 7; r = a, v._version
---
a = L.zeros(2, 3); v = a.transpose(0, 1); v.mul_(2); v += 3; r = a, a._version
---
a = L.zeros(2, 3, 4); v = a.permute(2, 0, 1); v[1, 0, 2] = 9; r = a[0, 2], a._version
---
a = L.zeros(2, 3); v = a.unsqueeze(1); v.fill_(4); r = a, a._version
---
a = L.zeros(2, 1, 3); v = a.squeeze(); v[1] = 2; w = a.squeeze(1); w[0] += 1; r = a, a._version
---
a = L.zeros(2, 3); v = a.flatten(); v[0] = 1; r = a, a._version
---
a = L.zeros(4); v = a[1:3]; v.zero_(); v += 2; r = a, a._version
---
a = L.zeros(3, 4); v = a[:, 1]; v[2] = 5; w = a[1:, ::2]; w += 1; r = a, a._version
---
a = L.zeros(3, 4); v = a[None, 1, ...]; v[0, 0] = 3; r = a, v.shape
---
a = L.zeros(3); b = a[0]; b.add_(2); r = a, b.shape, a._version
---
a = L.zeros(3); c = a[[0, 1]]; c += 1; r = a, a._version, c._version
---
a = L.zeros(3); c = a[a == 0]; c += 1; r = a, a._version
---
a = L.zeros(2, 3); v = a.T.reshape(6); v += 1; r = a, a._version
---
a = L.zeros(2, 3); r = a.T.view(6)
---
a = L.zeros(3, 1); e = a.expand(3, 4); a += 1; r = e
---
a = L.zeros(3, 1); e = a.expand(3, 4); e += 1
---
a = L.zeros(2, 2); v = a[0]; w = v[1]; w += 5; r = a, a._version, v._version, w._version
---
a = L.zeros(2, 2); d = a.detach(); d[1, 1] = 3; r = a, a._version
---
x = L.tensor([1.0, 2.0, 3.0, 4.0]); x[1:] = x[:-1]
---
x = L.tensor([1.0, 2.0, 3.0, 4.0]); x[:2] = x[:2] * 2; x[2:] = x[2:]; r = x, x._version
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", VIEWS, ids=case_id)
def test_views(code):
    same_as_torch(code)


# ---- in place through a view: gradients (PyTorch's CopySlices) -----------------------------
INPLACE_THROUGH_VIEWS = oracle_cases("""
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True); y = x * 2; y[0] *= 3; y.sum().backward()
r = x.grad, y, y._version, y.grad_fn
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True); y = x * 2; v = y[1:]; v.mul_(x[1:]); y.sum().backward()
r = x.grad, y
---
x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True); y = x + 0; y.T[0].mul_(10); (y * y).sum().backward()
r = x.grad, y
---
x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True); y = x.exp(); v = y[0]; v.add_(1); w = y[:, 1]
(w * L.tensor([2.0, 3.0])).sum().backward(); r = x.grad
---
x = L.tensor([1.0, 2.0], requires_grad=True); w = L.tensor(3.0, requires_grad=True); y = x * 1; y[1] = w * 2
(y * y).sum().backward(); r = x.grad, w.grad, y.grad_fn, y.grad_fn.next_functions
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True); y = x * 2; y[[0, 2]] = L.tensor(5.0); y.sum().backward()
r = x.grad, y.grad_fn
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True); s = L.zeros(2, 3); s[1] = x; s[0, :2] = x[1:] * x[:2]
s.sum().backward(); r = x.grad, s, s.requires_grad, s.is_leaf, s.grad_fn
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True); b = L.zeros(3); v = b[1:]; v += x[:2]; b.sum().backward()
r = x.grad, b.requires_grad
---
w = L.tensor([1.0, 2.0], requires_grad=True); a = L.zeros(3); u = a[1:]; v = a[:2]; v += w
(u * L.tensor([3.0, 5.0])).sum().backward(); r = u.requires_grad, u.is_leaf, w.grad, a
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True); y = x * 1; v = y[:2]; y[0] = 10.0; (v * v).sum().backward()
r = x.grad, v
---
x = L.tensor([1.0, 2.0, 3.0], requires_grad=True); y = x * 1; y.unsqueeze(0).squeeze(0)[2] = 0.0
gx, = L.autograd.grad(y.pow(2).sum(), x, create_graph=True); ggx, = L.autograd.grad(gx.sum(), x); r = gx, ggx
---
x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True); y = x * 1; y[0].fill_(L.tensor(2.0)); y.sum().backward()
r = x.grad
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", INPLACE_THROUGH_VIEWS, ids=case_id)
def test_inplace_through_views(code):
    same_as_torch(code)


# ---- errors: the leaf rule and saved tensors changed through any alias ---------------------
ERRORS = oracle_cases("""
x = L.ones(3, requires_grad=True); x[0] = 2.0
---
x = L.ones(3, requires_grad=True); v = x[1:]; v.mul_(2)
---
x = L.ones(2, 2, requires_grad=True); x.T.add_(1)
---
x = L.ones(2, 2, requires_grad=True); x.view(4).zero_()
---
x = L.ones(3, requires_grad=True); y = x * 1; z = y.exp(); y[0] = 2.0; z.sum().backward()
---
x = L.ones(3, requires_grad=True); y = x * 1; z = y[1:].exp(); y.mul_(2); z.sum().backward()
---
x = L.ones(3, requires_grad=True); y = x * 1; v = y[:2]; z = y.sigmoid(); v += 1; z.sum().backward()
---
x = L.ones(3, requires_grad=True)
with L.no_grad():
    v = x[:2]
v += 1
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", ERRORS, ids=case_id)
def test_view_errors(code):
    same_as_torch(code)


def test_errors_keep_pytorch_wording():
    x = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is "
                                           "being used in an in-place operation"):
        x[1:].mul_(2)
    y = x * 1
    z = y * y
    y.view(3)[0] = 3.0  # a change through an alias of the saved y
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*output 0 of "
                                           "CopySlices, is at version 1; expected version 0"):
        z.sum().backward()


def test_views_cost_no_copy():
    w = mg.randn(256, 784)
    for view in (w.T, w[0], w[:, 3], w.view(-1), w.reshape(784, 256), w.unsqueeze(0),
                 w.permute(1, 0), w.transpose(0, 1), w.expand(2, 256, 784), w.flatten()):
        assert np.shares_memory(view.numpy() if False else view._data, w._data)
        assert view._base is w and view._is_view() and view._version_counter is w._version_counter
    assert w[[0, 1]]._base is None and not np.shares_memory(w[[0, 1]]._data, w._data)


# ---- x[key] = value --------------------------------------------------------------------------
SETITEM = oracle_cases("""
x = L.zeros(2, 3); x[0] = 1; x[1, 2] = 5.0; x[:, 1] = L.tensor([7.0, 8.0]); r = x, x._version
---
x = L.zeros(2, 3); x[...] = L.tensor([1.0, 2.0, 3.0]); r = x, x._version
---
x = L.zeros(2, 3); x[None, 1] = 4; r = x
---
x = L.zeros(4); x[[0, 2]] = L.tensor([1.0, 2.0]); x[x > 1] = 9; r = x, x._version
---
x = L.zeros(2, 3); x[0] = L.tensor([1.0, 2.0])
---
x = L.zeros(2, 3); x[5] = 1.0
---
x = L.zeros(3, dtype=L.int64); x[0] = 2.5; r = x
---
w = L.tensor([1.0, 2.0], requires_grad=True); y = L.zeros(2, 2); y[0] = w; y[1] = w * w
y.sum().backward(); r = w.grad, y.grad_fn, y._version
---
w = L.tensor(2.0, requires_grad=True); x = L.ones(3, requires_grad=True); y = x * 3; y[1:] = w
(y * y).sum().backward(); r = x.grad, w.grad
---
w = L.tensor([[1.0], [2.0]], requires_grad=True); x = L.ones(2, 3, requires_grad=True); y = x + 0
y[:, :2] = w; (y * L.arange(6.0).reshape(2, 3)).sum().backward(); r = x.grad, w.grad
---
w = L.tensor([1.0, 2.0], requires_grad=True); y = L.zeros(4); y[[1, 3]] = w * 3; y.sum().backward(); r = w.grad, y.grad_fn
---
w = L.tensor(3.0, requires_grad=True); y = L.zeros(2, 2); y[y == 0] = w; (y * y).sum().backward(); r = w.grad
---
x = L.zeros(2, 2, 2); x[0, :, [0, 1]] = L.tensor([[1.0, 2.0], [3.0, 4.0]]); r = x
---
x = L.zeros(3, 4, 5); x[1, ..., [0, 2]] = L.arange(8.0).reshape(4, 2); x[0, None, [0, 2]] = 7; r = x
---
x = L.zeros(2, 3, 4); x[0, :, L.tensor([True, False, True, False])] = L.arange(6.0).reshape(3, 2); r = x
---
x = L.zeros(2, 3, 4); x[[1, 0], 2, [0, 3]] = L.tensor([5.0, 6.0]); x[1, [0, 2], 1:3] = -1; r = x
---
w = L.arange(6.0).reshape(3, 2).requires_grad_(); x = L.ones(2, 3, 4, requires_grad=True); y = x * 2
y[1, :, [0, 3]] = w * w; (y * L.arange(24.0).reshape(2, 3, 4)).sum().backward(); r = y, x.grad, w.grad
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", SETITEM, ids=case_id)
def test_setitem(code):
    same_as_torch(code)


def test_setitem_gradcheck_both_sides():
    def assign(x, w):
        y = x * 1.0
        y[1:, 0] = w * w
        y[0] = x[0] * w.sum()
        return y

    x = mg.randn(3, 2, dtype=mg.float64, requires_grad=True)
    w = mg.randn(2, dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(assign, (x, w))


# ---- .data -------------------------------------------------------------------------------------
DATA = oracle_cases("""
p = L.tensor([1.0, 2.0], requires_grad=True); (p * p).sum().backward(); p.data -= 0.5 * p.grad
r = p, p.requires_grad, p.is_leaf, p._version
---
p = L.tensor([1.0, 2.0], requires_grad=True); d = p.data; r = d, d.requires_grad, d.is_leaf, d.grad_fn, type(d).__name__
---
w = L.ones(2, 2, requires_grad=True); w.data.zero_(); r = w, w._version
---
p = L.tensor([1.0, 2.0], requires_grad=True); p.data = L.tensor([5.0, 6.0, 7.0]); r = p, p.shape, p.requires_grad
---
p = L.tensor([1.0, 2.0], requires_grad=True); new = L.zeros(2); p.data = new; new += 1; r = p
---
p = L.tensor([1.0, 2.0], requires_grad=True); p.data = L.tensor([1, 2])
---
p = L.tensor([1.0, 2.0], requires_grad=True); y = p * p; p.data.mul_(3); y.sum().backward(); r = p.grad, y
---
x = L.tensor([1.0, 2.0], requires_grad=True); y = x * 2; y.data[0] = 7; r = y, y.requires_grad, y.grad_fn
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", DATA, ids=case_id)
def test_data(code):
    same_as_torch(code)


def test_data_is_a_tensor_and_numpy_the_array():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    assert isinstance(p.data, mg.Tensor) and isinstance(p.numpy(), np.ndarray)
    with pytest.raises(TypeError, match="data must be a Tensor"):
        p.data = np.zeros(2)
