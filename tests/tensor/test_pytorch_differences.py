"""The differences from PyTorch 2.13 that random comparisons found, each
pinned twice: a plain test with the answer written out (runs without torch), and the same
snippet run with `L = minigrad` and `L = torch` (marked `oracle`; skipped without torch).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from support.torch_comparison import case_id, oracle_cases, run, same_as_torch

import minigrad as mg
from minigrad import nn
from minigrad.ops import unary

FLOAT = mg.float64


def tensor(values, requires_grad: bool = False) -> mg.Tensor:
    return mg.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


# ---- 1. reassigning a sub-module or a parameter keeps its place -------------------------------
def test_reassigned_child_keeps_its_place_in_forward_order():
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))
    setattr(seq, "0", nn.Linear(2, 3))
    assert [name for name, _ in seq.named_children()] == ["0", "1", "2"]
    assert seq[0].out_features == 3


def test_sequential_and_module_list_setitem_replace_in_place():
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))
    tanh, last = nn.Tanh(), nn.ReLU()
    seq[1] = tanh
    seq[-1] = last
    assert list(seq) == [seq[0], tanh, last]
    assert list(seq._modules) == ["0", "1", "2"]
    layers = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    layers[0] = last
    assert list(layers) == [last, layers[1]]
    with pytest.raises(IndexError, match="index 5 is out of range"):
        seq[5] = nn.ReLU()
    with pytest.raises(TypeError, match="cannot assign 'int' as child module '0'"):
        seq[0] = 3


def test_reassigned_parameter_keeps_its_place():
    lin = nn.Linear(2, 2)
    lin.weight = nn.Parameter(mg.ones(2, 2))
    assert [name for name, _ in lin.named_parameters()] == ["weight", "bias"]
    lin.bias = None
    lin.bias = nn.Parameter(mg.ones(2))
    assert list(lin.state_dict()) == ["weight", "bias"]


def test_tying_weights_keeps_state_dict_order():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    b.weight = a.weight
    assert list(b.state_dict()) == ["weight", "bias"]
    model = nn.Sequential(a, b)
    assert list(model.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert [name for name, _ in model.named_parameters()] == ["0.weight", "0.bias", "1.bias"]


def test_a_buffer_takes_only_a_tensor_or_none():
    module = nn.Module()
    module.register_buffer("running", mg.zeros(2))
    module.running = mg.ones(2)
    assert module.running.tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="cannot assign 'int' as buffer 'running'"):
        module.running = 3


def test_register_refuses_a_name_taken_by_something_else():
    module = nn.Module()
    module.running = mg.zeros(1)  # a plain attribute (a Tensor, but not registered)
    with pytest.raises(KeyError, match="attribute 'running' already exists"):
        module.register_buffer("running", mg.ones(1))
    with pytest.raises(KeyError, match="attribute 'forward' already exists"):
        module.add_module("forward", nn.ReLU())
    module.register_buffer("kept", mg.ones(1))
    module.register_buffer("kept", mg.zeros(1))  # its own registry: replaced in place
    assert module.kept.tolist() == [0.0]


MODULE_CASES = oracle_cases("""
seq = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU(), L.nn.Linear(2, 2))
setattr(seq, "0", L.nn.Linear(2, 3))
r = [name for name, _ in seq.named_children()], [type(m).__name__ for m in seq]
---
seq = L.nn.Sequential(L.nn.Linear(2, 2), L.nn.ReLU(), L.nn.Linear(2, 2))
seq[0] = L.nn.Linear(2, 3); seq[-1] = L.nn.Tanh()
r = [name for name, _ in seq.named_children()], [type(m).__name__ for m in seq]
---
layers = L.nn.ModuleList([L.nn.ReLU(), L.nn.Tanh()])
layers[-2] = L.nn.Sigmoid()
r = [type(m).__name__ for m in layers]
---
seq = L.nn.Sequential(L.nn.ReLU())
seq[1] = L.nn.ReLU()
---
seq = L.nn.Sequential(L.nn.ReLU())
seq[0] = 3
---
lin = L.nn.Linear(2, 2)
lin.weight = L.nn.Parameter(L.ones(2, 2))
r = [name for name, _ in lin.named_parameters()], list(lin.state_dict())
---
a, b = L.nn.Linear(2, 2), L.nn.Linear(2, 2)
b.weight = a.weight
m = L.nn.Sequential(a, b)
r = list(b.state_dict()), list(m.state_dict()), [n for n, _ in m.named_parameters()]
---
m = L.nn.Module()
m.a = L.nn.Linear(1, 1); m.b = L.nn.Parameter(L.ones(1)); m.c = L.nn.ReLU()
m.a = L.nn.ReLU(); m.b = L.nn.Parameter(L.zeros(1))
r = list(m._modules), list(m._parameters)
---
m = L.nn.Module()
m.register_buffer("buf", L.ones(1))
m.buf = 3
---
m = L.nn.Sequential(L.nn.Linear(2, 2))
m.buf = L.zeros(1)
m.register_buffer("buf", L.ones(1))
---
m = L.nn.Sequential(L.nn.Linear(2, 2))
m.p = L.nn.Parameter(L.ones(1))
m.register_buffer("p", L.ones(1))
---
m = L.nn.Sequential(L.nn.Linear(2, 2))
m.register_parameter("p", L.nn.Parameter(L.ones(1))); m.register_parameter("p", None)
m.add_module("0", L.nn.ReLU()); m[0].register_parameter("bias", L.nn.Parameter(L.ones(2)))
r = [n for n, _ in m.named_parameters()], list(m.state_dict()), [type(c).__name__ for c in m]
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", MODULE_CASES, ids=case_id)
def test_module_reassignment_as_torch(code):
    same_as_torch(code)


# ---- 3. `x[0:1] += 1`: the region written back onto itself -----------------------------------
OVERLAP_MESSAGE = "some elements of the input tensor and the written-to tensor refer to a single"


@pytest.mark.parametrize("requires_grad", [False, True])
def test_augmented_assignment_to_a_slice(requires_grad):
    leaf = tensor(np.zeros(3), requires_grad)
    x = leaf * 1 if requires_grad else leaf
    x[0:1] += 1.0
    assert x.tolist() == [1.0, 0.0, 0.0]
    leaf = tensor(np.ones((3, 3)), requires_grad)
    h = leaf * 1 if requires_grad else leaf
    h[1:2, 1:2] *= 2
    h.view(-1)[0:1] -= 1
    assert h.tolist() == [[0.0, 1.0, 1.0], [1.0, 2.0, 1.0], [1.0, 1.0, 1.0]]
    if requires_grad:
        (h * tensor(np.arange(9.0).reshape(3, 3))).sum().backward()
        assert leaf.grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 8.0, 5.0], [6.0, 7.0, 8.0]]


def test_a_slice_written_back_with_extra_leading_ones():
    h = tensor(np.arange(9.0).reshape(3, 3))
    h[1:2] = h[1:2][None]
    h[0:1] = h[0]
    assert h.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]
    h[0:2] = h[2:3]  # broadcast, and no shared memory
    assert h.tolist() == [[6.0, 7.0, 8.0], [6.0, 7.0, 8.0], [6.0, 7.0, 8.0]]


# ---- 5. in-place ops whose operand partly overlaps the written tensor -------------------------
@pytest.mark.parametrize("write", [
    lambda b: b.__iadd__(b.permute(1, 0)),
    lambda b: b[None].mul_(b),
    lambda b: b.view(1, 4).add_(b.view(4)),
    lambda b: b.add_(b[0]),
    lambda b: b.view(4)[1:].add_(b.view(4)[:-1]),
    lambda b: b.copy_(b.T),
], ids=["permuted", "unsqueezed", "viewed 1x4", "row", "shifted", "copy transposed"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_partial_overlap_is_refused(write, requires_grad):
    leaf = tensor(np.arange(4.0).reshape(2, 2), requires_grad)
    b = leaf * 1 if requires_grad else leaf
    with pytest.raises(RuntimeError, match=OVERLAP_MESSAGE):
        write(b)
    assert b.tolist() == [[0.0, 1.0], [2.0, 3.0]]  # refused before writing anything


@pytest.mark.parametrize("write", [
    lambda b: b.__iadd__(b), lambda b: b.mul_(b), lambda b: b.view(4).add_(b.view(4)),
    lambda b: b.unsqueeze(0).add_(b.unsqueeze(0)), lambda b: b[1].add_(b[0]),
])
def test_exact_aliasing_is_allowed(write):
    b = tensor([[1.0, 2.0], [3.0, 4.0]])
    write(b)
    assert b.tolist() in ([[2.0, 4.0], [6.0, 8.0]], [[1.0, 4.0], [9.0, 16.0]],
                          [[1.0, 2.0], [4.0, 6.0]])


OVERLAP_CASES = oracle_cases("""
x = L.zeros(3); x[0:1] += 1.0; r = x
---
h = L.ones(3, 3); h[1:2, 1:2] *= 2; h.view(-1)[0:1] -= 1; r = h
---
a = L.ones(3, 3, requires_grad=True); h = a * 1; h[1:2, 1:2] *= 2; h.view(-1)[0:1] -= 1
h[:, 0:1] += h[:, 1:2]
(h * L.arange(9.).reshape(3, 3)).sum().backward(); r = h, a.grad
---
h = L.ones(3, 3); h[1:2] = h[1:2][None]; h[0:1] = h[0]; h[0:2] = h[2:3]; r = h
---
b = L.arange(4.); b[1:] = b[:-1]
---
b = L.arange(4.).reshape(2, 2); b += b.permute(1, 0)
---
b = L.arange(4.).reshape(2, 2); v = b[None]; v.mul_(b)
---
b = L.arange(4.).reshape(2, 2); b.mul_(b[None])
---
a = L.ones(2, 2, requires_grad=True); b = a * 1; b += b.T
---
b = L.arange(4.).reshape(2, 2); b.view(1, 4).add_(b.view(4))
---
b = L.arange(4.).reshape(2, 2); b.add_(b.view(4))
---
b = L.arange(4.); b[1:] *= b[:-1]
---
b = L.arange(8.).reshape(2, 2, 2); b.add_(b.transpose(0, 1))
---
b = L.arange(4.).reshape(2, 2); b.copy_(b[0])
---
b = L.arange(4.).reshape(2, 2); b += b; b.mul_(b); b.view(4).sub_(b.view(4), alpha=2)
b.unsqueeze(0).add_(b.unsqueeze(0)); b[1].add_(b[0]); b[:, :1].add_(b[:, 1:]); r = b
---
b = L.arange(4.).reshape(2, 2); b.copy_(b.view(4).view(2, 2)); b[:, 0:1] += 1.0; r = b
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", OVERLAP_CASES, ids=case_id)
def test_setitem_and_overlap_as_torch(code):
    same_as_torch(code)


# ---- 6. view() decided by strides, as PyTorch's computeStride ---------------------------------
def test_view_of_an_advanced_index_result_then_a_slice():
    a = tensor(np.arange(16.0).reshape(4, 4))
    v = a[:, [0, 1]][0:2]
    assert v.view(4, 1, -1).tolist() == [[[0.0]], [[1.0]], [[4.0]], [[5.0]]]
    w = a[[0, 1]][:, [1, 2]][:, 0:2]
    assert w.view(-1).tolist() == [1.0, 2.0, 5.0, 6.0]
    assert a[:, [0, 1]].view(2, 4).tolist() == [[0.0, 1.0, 4.0, 5.0], [8.0, 9.0, 12.0, 13.0]]


@pytest.mark.parametrize("make, shape", [
    (lambda a: a.T, (16,)),
    (lambda a: a[:, 0:2], (8,)),
    (lambda a: a[:, [0, 1]][0:2].T, (4,)),
], ids=["transposed", "sliced columns", "index then column"])
def test_view_refused_where_memory_has_gaps(make, shape):
    with pytest.raises(RuntimeError, match="at least one dimension spans across two contiguous"):
        make(tensor(np.arange(16.0).reshape(4, 4))).view(shape)


@pytest.mark.parametrize("make, shape, expected", [
    (lambda a: a[:, 0:2], (4, 1, 2), [0.0, 1.0, 4.0, 5.0, 8.0, 9.0, 12.0, 13.0]),
    (lambda a: a.T[0:1], (2, 2), [0.0, 4.0, 8.0, 12.0]),
    (lambda a: a[::2].unsqueeze(1), (2, 1, 2, 2), [0.0, 1.0, 2.0, 3.0, 8.0, 9.0, 10.0, 11.0]),
])
def test_view_allowed_within_a_chunk(make, shape, expected):
    assert make(tensor(np.arange(16.0).reshape(4, 4))).view(shape).reshape(-1).tolist() == expected


VIEW_CASES = oracle_cases("""
v = L.arange(16.).reshape(4, 4)[:, [0, 1]][0:2]; r = v.view(4, 1, -1)
---
v = L.arange(16.).reshape(4, 4)[[0, 1]][:, [1, 2]][:, 0:2]; r = v.view(-1), v.view(1, -1, 1)
---
v = L.arange(27.).reshape(3, 3, 3)[:, [0, 1]][0:2]; r = v.view(4, 1, -1), v.view(-1)
---
v = L.arange(16.).reshape(4, 4)[:, [0, 1]][:, 0:1]; r = v.view(4)
---
v = L.arange(16.).reshape(4, 4)[:, [0, 1]][:, 0:1]; r = v.view(2, 2)
---
v = L.arange(16.).reshape(4, 4).T; r = v.view(16)
---
v = L.arange(24.).reshape(2, 3, 4).transpose(0, 1)[:, :, 1:3]; r = v.view(3, 2, 2, 1)
---
v = L.arange(24.).reshape(2, 3, 4)[:, 1:3]; r = v.view(2, 8)
---
v = L.arange(24.).reshape(2, 3, 4)[:, 1:3]; r = v.view(4, 4)
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", VIEW_CASES, ids=case_id)
def test_view_as_torch(code):
    same_as_torch(code)


# ---- 2. a gradient handed to the user never shares memory with a .grad ------------------------
def test_autograd_grad_result_is_not_the_retained_grad():
    x = tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    a.retain_grad()
    loss = (a * a).sum()
    g, = mg.autograd.grad(loss, [a], retain_graph=True)
    assert a.grad.tolist() == [4.0, 8.0] and g.tolist() == [4.0, 8.0]
    loss.backward()
    assert a.grad.tolist() == [8.0, 16.0]
    assert g.tolist() == [4.0, 8.0]


def test_a_retained_grad_is_a_new_tensor_at_each_backward():
    x = tensor([1.0, 2.0], requires_grad=True)
    c = x * 1
    c.retain_grad()
    loss = (c * c).sum()
    loss.backward(retain_graph=True)
    first = c.grad
    loss.backward()
    assert first.tolist() == [2.0, 4.0] and c.grad.tolist() == [4.0, 8.0]


def test_a_hook_s_gradient_is_not_stored_as_grad():
    x = tensor([1.0, 2.0], requires_grad=True)
    replacement = tensor([3.0, 3.0])
    x.register_hook(lambda grad: replacement)
    (x * 1).sum().backward()
    replacement += 1
    assert x.grad.tolist() == [3.0, 3.0]
    seen = []
    y = tensor([1.0, 2.0], requires_grad=True)
    y.register_hook(seen.append)
    (y * 2).sum().backward()
    seen[0] += 1
    assert y.grad.tolist() == [2.0, 2.0]
    c = y * 1
    c.register_hook(seen.append)
    c.retain_grad()
    (c * 2).sum().backward()
    seen[1] += 1
    assert c.grad.tolist() == [2.0, 2.0]


def test_a_leaf_grad_never_aliases_the_gradient_passed_in_or_another_grad():
    x = tensor([1.0, 2.0], requires_grad=True)
    upstream = tensor([1.0, 1.0])
    x.backward(upstream)
    upstream += 1
    assert x.grad.tolist() == [1.0, 1.0]
    a, b = tensor([1.0], requires_grad=True), tensor([1.0], requires_grad=True)
    ((a + b) * 2).sum().backward()
    a.grad += 1
    assert b.grad.tolist() == [2.0]


def test_create_graph_stores_a_recorded_copy():
    x = tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (x ** 2).sum().backward(create_graph=True)
    assert x.grad.grad_fn.name() == "CopyBackwards"
    c = x * 1
    c.retain_grad()
    (c ** 2).sum().backward(create_graph=True)
    assert c.grad.grad_fn.name() == "CloneBackward0"


@pytest.mark.parametrize("inputs", [None, "a"])
def test_a_gradient_a_hook_saw_upstream_is_not_stored_as_a_leaf_grad(inputs):
    a, b = tensor([1.0, 2.0], requires_grad=True), tensor([3.0, 4.0], requires_grad=True)
    c = a + b  # AddBackward0 passes the gradient on unchanged: the same tensor
    seen = []
    c.register_hook(seen.append)
    ((c * 2).sum()).backward(inputs=[a] if inputs else None)
    seen[0] += 100
    assert a.grad.tolist() == [2.0, 2.0]


ALIAS_CASES = oracle_cases("""
x = L.tensor([1., 2.], requires_grad=True)
a = x * 2; a.retain_grad(); loss = (a * a).sum()
g, = L.autograd.grad(loss, [a], retain_graph=True)
first = a.grad.clone(); loss.backward(retain_graph=True)
g2, = L.autograd.grad(loss, [x], retain_graph=True); loss.backward()
r = first, g, a.grad, g2, x.grad
---
x = L.tensor([1., 2.], requires_grad=True); c = x * 1; c.retain_grad(); loss = (c * c).sum()
loss.backward(retain_graph=True); first = c.grad; loss.backward(); r = first, c.grad, x.grad
---
x = L.tensor([1., 2.], requires_grad=True); h = L.tensor([3., 3.])
x.register_hook(lambda g: h); (x * 1).sum().backward(); h += 1; r = x.grad
---
seen = []; y = L.tensor([1., 2.], requires_grad=True); y.register_hook(seen.append)
c = y * 3; c.register_hook(seen.append); c.retain_grad(); (c * 2).sum().backward()
seen[0] += 1; seen[1] += 10; r = y.grad, c.grad, seen
---
x = L.tensor([1., 2.], requires_grad=True); go = L.tensor([1., 1.])
x.backward(go); go += 1; (x + 0).backward(go); go += 1; r = x.grad, go
---
a = L.tensor([1., 2.], requires_grad=True); b = L.tensor([1., 2.], requires_grad=True)
((a + b) * 2).sum().backward(); a.grad += 1; r = a.grad, b.grad
---
a = L.tensor([1., 2.], requires_grad=True); go = L.tensor([1., 1.])
g, = L.autograd.grad(a * 1, [a], go); go += 7; r = g
---
a = L.tensor([1., 2.], requires_grad=True); b = L.tensor([3., 4.], requires_grad=True)
c = a + b; seen = []; c.register_hook(seen.append); (c * 2).sum().backward(inputs=[a])
seen[0] += 100; r = a.grad, seen
---
a = L.tensor([1., 2.], requires_grad=True); seen = []; a.register_hook(seen.append)
g, = L.autograd.grad((a * 2).sum(), [a]); g += 1; r = g, seen
---
a = L.tensor([1., 2.], requires_grad=True); (a * 1).sum().backward(); g1 = a.grad
(a * 3).sum().backward(); r = g1, g1 is a.grad
---
x = L.tensor([1., 2.], requires_grad=True); (x ** 2).sum().backward(create_graph=True)
c = x * 1; c.retain_grad(); (c ** 3).sum().backward(create_graph=True)
r = x.grad.grad_fn, c.grad.grad_fn, x.grad.requires_grad, c.grad.is_leaf
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", ALIAS_CASES, ids=case_id)
def test_gradient_aliasing_as_torch(code):
    same_as_torch(code)


# ---- 4. Linear and Conv2d save what PyTorch saves ---------------------------------------------
MODIFIED = "modified by an inplace operation"


def _changed_weight_then_backward(layer: nn.Module, x: mg.Tensor) -> mg.Tensor:
    model = nn.Sequential(layer)
    loss = model(x).sum()
    with mg.no_grad():
        model[0].weight.mul_(0.5)
    loss.backward()
    return model[0].weight.grad


def test_linear_without_input_gradient_does_not_save_its_weight():
    layer = nn.Linear(3, 2).double()
    grad = _changed_weight_then_backward(layer, tensor(np.ones((4, 3))))
    assert grad.tolist() == [[4.0, 4.0, 4.0], [4.0, 4.0, 4.0]]


def test_linear_with_input_gradient_saves_its_weight():
    with pytest.raises(RuntimeError, match=MODIFIED):
        _changed_weight_then_backward(nn.Linear(3, 2).double(), tensor(np.ones((4, 3)), True))


def test_linear_with_a_frozen_weight_does_not_save_its_input():
    layer = nn.Linear(3, 2, bias=False).double().requires_grad_(False)
    x = tensor(np.ones((4, 3)), requires_grad=True)
    h = x * 1
    loss = layer(h).sum()
    h.mul_(2)  # h is not saved: dx = G W needs only W
    loss.backward()
    assert x.grad.tolist() == layer.weight.sum(0).expand(4, 3).tolist()


@pytest.mark.parametrize("input_needs_grad", [False, True])
def test_conv2d_saves_input_and_weight(input_needs_grad):
    x = tensor(np.ones((1, 1, 3, 3)), input_needs_grad)
    with pytest.raises(RuntimeError, match=MODIFIED):
        _changed_weight_then_backward(nn.Conv2d(1, 2, 2).double(), x)


SAVED_CASES = [
    f"""
m = L.nn.Sequential({layer.format(bias=bias)}); x = {x}.requires_grad_({rx})
with L.no_grad():
    [p.fill_(0.25) for p in m.parameters()]
m[0].weight.requires_grad_({rw})
if {bias}: m[0].bias.requires_grad_({rb})
y = m(x).sum()
with L.no_grad():
    {target}.mul_(.5)
y.backward(); r = x.grad, m[0].weight.grad
""".strip()
    for layer, x in (("L.nn.Linear(3, 2, bias={bias})", "L.ones(4, 3)"),
                     ("L.nn.Linear(3, 2, bias={bias})", "L.ones(2, 4, 3)"),
                     ("L.nn.Conv2d(1, 2, 2, bias={bias})", "L.ones(1, 1, 3, 3)"))
    for rx, rw, rb, bias in ((True, True, True, True), (False, True, True, True),
                             (True, False, False, True), (False, True, False, False),
                             (True, False, False, False), (False, False, True, True))
    for target in ("m[0].weight", "x")
    if rx or rw or (rb and bias)
]


def _outcome(code: str, library) -> object:
    """The gradients, or that backward refused a modified saved value (the message's details
    name what was saved: PyTorch's [3, 2] weight.t(), minigrad's [2, 3] weight)."""
    try:
        return run(code, library)
    except RuntimeError as error:
        assert MODIFIED in str(error)
        return "refused"


@pytest.mark.oracle
@pytest.mark.parametrize("code", SAVED_CASES, ids=case_id)
def test_saved_for_backward_as_torch(code):
    torch = pytest.importorskip("torch")
    assert _outcome(code, mg) == _outcome(code, torch)


# ---- 7. second order: gradients recorded as PyTorch records them ------------------------------
def _second_order(make_loss, x: mg.Tensor) -> mg.Tensor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_loss(x).backward(create_graph=True)
    return x.grad


@pytest.mark.parametrize("pool", [lambda x: mg.nn.functional.max_pool2d(x, 2),
                                  lambda x: mg.nn.functional.avg_pool2d(x, 2)],
                         ids=["max", "avg"])
def test_pool_gradient_is_recorded_when_its_input_requires_grad(pool):
    x = tensor(np.arange(16.0).reshape(1, 1, 4, 4), requires_grad=True)
    grad = _second_order(lambda x: pool(x).sum(), x)
    assert grad.requires_grad and not grad.is_leaf
    (grad * grad).sum().backward()  # d/dx of a gradient that does not depend on x: 0
    assert x.grad.shape == (1, 1, 4, 4)


def test_pool_saves_its_input():
    x = tensor(np.arange(16.0).reshape(1, 1, 4, 4), requires_grad=True)
    h = x * 1
    y = mg.nn.functional.avg_pool2d(h, 2).sum()
    h.mul_(2)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()


def test_relu_gradient_is_zero_where_relu_is_flat_even_for_nan_upstream():
    x = tensor([0.0, -1.0, 2.0], requires_grad=True)
    ((x.relu() ** 2).sqrt()).sum().backward()  # upstream gradient at 0 is 0 / 0 = nan
    assert x.grad.tolist() == [0.0, 0.0, 1.0]


def test_max_and_min_give_zero_to_the_others_even_for_inf_upstream():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = tensor([1.0, 3.0, 3.0], requires_grad=True)
        (x.max() * float("inf")).backward()
        assert x.grad.tolist() == [0.0, float("inf"), float("inf")]
        x = tensor([[1.0, 3.0], [4.0, 2.0]], requires_grad=True)
        (x.min(dim=1)[0] * float("inf")).sum().backward()
        assert x.grad.tolist() == [[float("inf"), 0.0], [0.0, float("inf")]]


SECOND_ORDER_CASES = oracle_cases("""
x = L.tensor([[0.5, -1.0, 2.0], [1.5, 0.3, -0.2]], dtype=L.float64, requires_grad=True)
L.nn.functional.max_pool2d(x.reshape(1, 1, 2, 3), 2).sum().backward(create_graph=True)
r = x.grad, x.grad.requires_grad, x.grad.is_leaf
---
x = L.arange(16., dtype=L.float64).reshape(1, 1, 4, 4).requires_grad_()
L.nn.functional.avg_pool2d(x, 2).max().backward(create_graph=True)
g = x.grad; (g * g).sum().backward(); r = g, g.requires_grad, g.is_leaf, x.grad
---
x = L.arange(16., dtype=L.float64).reshape(1, 1, 4, 4).requires_grad_()
y = L.nn.functional.max_pool2d(x.tanh(), 2); y = L.nn.functional.avg_pool2d(y, 2)
y.sum().backward(create_graph=True); g = x.grad; (g ** 2).sum().backward()
r = g, g.requires_grad, x.grad
---
x = L.tensor([0., -1., 2.], requires_grad=True); ((x.relu() ** 2).sqrt()).sum().backward(); r = x.grad
---
x = L.tensor([0., -1., 2.], requires_grad=True); (x.relu() ** 2).sqrt().abs().sum().backward(create_graph=True)
r = x.grad, x.grad.requires_grad
---
x = L.tensor([1., 3., 3.], requires_grad=True); (x.max() * float("inf")).backward(); r = x.grad
---
x = L.tensor([[1., 3.], [4., 2.]], requires_grad=True); (x.min(dim=1)[0] * float("inf")).sum().backward()
r = x.grad
---
c = L.tensor([0.5, -1.0, 2.0], requires_grad=True); c.softmax(0).min().backward(create_graph=True)
r = c.grad, c.grad.requires_grad, c.grad.is_leaf
---
c = L.tensor([0.5, -1.0, 2.0], requires_grad=True); (c ** 2).sqrt().sum().backward(create_graph=True)
r = c.grad, c.grad.requires_grad, c.grad.is_leaf
---
c = L.tensor([0.5, -1.0, 2.0], requires_grad=True); c.relu().relu().sum().backward(create_graph=True)
r = c.grad, c.grad.requires_grad, c.grad.is_leaf
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", SECOND_ORDER_CASES, ids=case_id)
def test_second_order_as_torch(code):
    same_as_torch(code)


# ---- siblings found by a random comparison of in-place programs -------------------------------
def test_in_place_with_shapes_that_do_not_broadcast_is_a_runtime_error():
    b = tensor(np.zeros((3, 4)))
    with pytest.raises(RuntimeError, match=r"size of tensor a \(4\) must match the size of tensor b "
                                           r"\(2\) at non-singleton dimension 1"):
        b.add_(tensor(np.ones((3, 2))))


def test_in_place_on_a_view_made_a_leaf_that_requires_grad_is_refused():
    b = tensor(np.arange(4.0))
    view = b[1:3]
    view.requires_grad_()
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        view.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        view.mul_(view[None][0])  # the leaf rule comes before the overlap check


SIBLING_CASES = oracle_cases("""
b = L.zeros(3, 4); b.add_(L.ones(3, 2))
---
b = L.zeros(3, 4); v = b[0:2]; v.add_(b)
---
b = L.arange(4.); v = b[1:3]; v.requires_grad_(); v.add_(1)
---
b = L.arange(4.); v = b[None]; v.requires_grad_(); v.mul_(b)
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", SIBLING_CASES, ids=case_id)
def test_sibling_cases_as_torch(code):
    same_as_torch(code)


def test_clone_keeps_the_layout_so_view_refuses_as_for_the_original():
    a = tensor(np.arange(16.0).reshape(4, 4))
    with pytest.raises(RuntimeError, match="at least one dimension spans across two contiguous"):
        a.T.clone().view(16)
    assert a.T[0:2].clone().view(2, 2, 2).reshape(-1).tolist() == [0.0, 4.0, 8.0, 12.0,
                                                                     1.0, 5.0, 9.0, 13.0]
    assert a[:, None].expand(4, 2, 4).clone().view(32).shape == (32,)


CLONE_CASES = oracle_cases("""
a = L.arange(16.).reshape(4, 4); r = a.T.clone().view(16)
---
a = L.arange(16.).reshape(4, 4); r = a.T[0:2].clone().view(2, 2, 2), a.T[::2].clone().view(4, 2)
---
a = L.arange(16.).reshape(4, 4); r = a[:, None].expand(4, 2, 4).clone().view(32)
---
a = L.arange(16.).reshape(4, 4).requires_grad_(); b = a.T.clone(); b.sum().backward(); r = a.grad
""")


@pytest.mark.oracle
@pytest.mark.parametrize("code", CLONE_CASES, ids=case_id)
def test_clone_layout_as_torch(code):
    same_as_torch(code)


@pytest.mark.parametrize("x_needs, w_needs", [(True, True), (False, True), (True, False)])
def test_conv_gradients_under_create_graph_are_recorded_as_in_pytorch(x_needs, w_needs) -> None:
    """PyTorch's double-backward node takes grad_output, input and weight: under create_graph
    the weight's gradient requires grad when the weight does, even if neither the input nor
    the upstream gradient do (minigrad gave a plain leaf). Literal expectations from torch 2.13."""
    import minigrad.nn.functional as F

    rng = np.random.default_rng(0)
    x = mg.tensor(rng.normal(size=(2, 3, 6, 6)), requires_grad=x_needs)
    w = mg.tensor(rng.normal(size=(4, 3, 3, 3)), requires_grad=w_needs)
    inputs = [t for t in (x, w) if t.requires_grad]
    grads = mg.autograd.grad(F.conv2d(x, w, padding=1).sum(), inputs, create_graph=True)
    for grad in grads:
        assert grad.requires_grad and not grad.is_leaf
        assert grad.grad_fn.name() == "ConvolutionBackwardBackward0"


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_relu_gradient_masks_bit_for_bit_like_where(dtype):
    """relu's backward ANDs the bits of the upstream gradient with its mask (no branches):
    the same bits as np.where(mask, grad, 0), for inf, nan, -0.0 and a strided view too."""
    grad = np.array([1.5, -2.0, np.nan, np.inf, -np.inf, -0.0, 3.0, np.nan], dtype=dtype)
    mask = np.array([1, 0, 0, 0, 1, 1, 0, 1], dtype=bool)
    for g, m in ((grad, mask), (grad[::2], mask[::2]), (grad[3], mask[3])):
        expected = np.where(m, g, dtype(0))
        got = unary._keep_where(m, g)
        assert got.dtype == dtype and got.shape == expected.shape
        assert got.tobytes() == expected.tobytes()
