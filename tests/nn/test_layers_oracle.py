"""PyTorch as the oracle for every layer and loss: values, gradients, errors, init.

Each case runs the same float64 inputs through minigrad and torch, backpropagates the same
random upstream gradient, and compares the outputs and all input/parameter gradients.

Deliberate differences from PyTorch (each pinned by a test at the end of this file):
- `F.linear` is one node for any input rank — `AddmmBackward0` (`MmBackward0` without bias) —
  whose next_functions are (input, weight, bias); PyTorch's are (bias, input, TBackward0 of
  the weight), and inputs of more than 2 dims add view nodes around it;
- cross-entropy with integer targets is one fused node, `CrossEntropyLossBackward0`, followed
  by the reduction (`MeanBackward0`, or `DivBackward0` when some targets are ignored);
  PyTorch: `NllLossBackward0` after `LogSoftmaxBackward0`;
- binary cross-entropy with logits is `BinaryCrossEntropyWithLogitsBackward0` followed by the
  reduction node (PyTorch reduces inside the node);
- `DataLoader(generator=)` takes a numpy Generator (or `seed=`), and batches are tuples;
- an optimizer's `state_dict()` holds copies of its state tensors (PyTorch: references).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402
import minigrad.nn as nn  # noqa: E402
import minigrad.nn.functional as F  # noqa: E402

pytestmark = pytest.mark.oracle
RNG = np.random.default_rng(0)


def both(array, requires_grad=True):
    return (mg.tensor(array, dtype=mg.float64, requires_grad=requires_grad),
            torch.tensor(array, dtype=torch.float64, requires_grad=requires_grad))


def compare(mg_out, torch_out, pairs, atol=1e-10):
    np.testing.assert_allclose(mg_out.numpy(), torch_out.detach().numpy(), atol=atol, rtol=1e-9)
    upstream = RNG.standard_normal(torch_out.shape)
    mg_out.backward(mg.tensor(upstream, dtype=mg.float64))
    torch_out.backward(torch.tensor(upstream, dtype=torch.float64))
    for name, (a, b) in pairs.items():
        assert (a.grad is None) == (b.grad is None), name
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), atol=atol, rtol=1e-9,
                                       err_msg=name)


def linear_pair(in_features, out_features, bias=True):
    ours = nn.Linear(in_features, out_features, bias=bias, dtype=mg.float64)
    theirs = torch.nn.Linear(in_features, out_features, bias=bias, dtype=torch.float64)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(ours.weight.numpy()))
        if bias:
            theirs.bias.copy_(torch.tensor(ours.bias.numpy()))
    return ours, theirs


@pytest.mark.parametrize("shape", [(5, 4), (4,), (2, 3, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_values_and_grads(shape, bias):
    ours, theirs = linear_pair(4, 3, bias)
    x, tx = both(RNG.standard_normal(shape))
    pairs = {"x": (x, tx), "weight": (ours.weight, theirs.weight)}
    if bias:
        pairs["bias"] = (ours.bias, theirs.bias)
    compare(ours(x), theirs(tx), pairs)


def test_linear_grad_fn_names_match_torch():
    ours, theirs = linear_pair(4, 3)
    x, tx = both(RNG.standard_normal((2, 4)))
    assert ours(x).grad_fn.name() == theirs(tx).grad_fn.name() == "AddmmBackward0"
    ours, theirs = linear_pair(4, 3, bias=False)
    assert ours(x).grad_fn.name() == "MmBackward0"


def test_linear_double_backward_matches_torch():
    ours, theirs = linear_pair(3, 2)
    x, tx = both(RNG.standard_normal((4, 3)))
    (gx,) = mg.autograd.grad((ours(x) ** 2).sum(), [x], create_graph=True)
    (tgx,) = torch.autograd.grad((theirs(tx) ** 2).sum(), [tx], create_graph=True)
    compare((gx ** 2).sum(), (tgx ** 2).sum(), {"weight": (ours.weight, theirs.weight),
                                                "bias": (ours.bias, theirs.bias)})


def test_linear_init_distribution_matches_torch_bound():
    mg.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = nn.Linear(256, 128), torch.nn.Linear(256, 128)
    bound = 1 / 16  # 1/sqrt(fan_in): both libraries stay inside it and nearly reach it
    for a, b in ((ours.weight, theirs.weight), (ours.bias, theirs.bias)):
        a, b = a.numpy(), b.detach().numpy()
        for values in (a, b):
            assert 0.9 * bound < np.abs(values).max() <= bound
        assert math.isclose(a.std(), b.std(), rel_tol=0.1)


@pytest.mark.parametrize("name", ["ReLU", "Sigmoid", "Tanh"])
def test_activations(name):
    x, tx = both(RNG.standard_normal((3, 5)) * 3)
    compare(getattr(nn, name)()(x), getattr(torch.nn, name)()(tx), {"x": (x, tx)})


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_and_log_softmax(dim):
    x, tx = both(RNG.standard_normal((3, 5)))
    compare(F.softmax(x, dim=dim), torch.nn.functional.softmax(tx, dim=dim), {"x": (x, tx)})
    x, tx = both(RNG.standard_normal((3, 5)))
    compare(F.log_softmax(x, dim=dim), torch.nn.functional.log_softmax(tx, dim=dim),
            {"x": (x, tx)})


def test_flatten():
    x, tx = both(RNG.standard_normal((2, 3, 4)))
    compare(nn.Flatten()(x), torch.nn.Flatten()(tx), {"x": (x, tx)})


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss(reduction):
    x, tx = both(RNG.standard_normal((4, 3)))
    y, ty = both(RNG.standard_normal((4, 3)))
    compare(nn.MSELoss(reduction=reduction)(x, y), torch.nn.MSELoss(reduction=reduction)(tx, ty),
            {"input": (x, tx), "target": (y, ty)})


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_integer_targets(reduction):
    x, tx = both(RNG.standard_normal((6, 4)))
    classes = RNG.integers(0, 4, 6)
    out = nn.CrossEntropyLoss(reduction=reduction)(x, mg.tensor(classes))
    compare(out, torch.nn.CrossEntropyLoss(reduction=reduction)(tx, torch.tensor(classes)),
            {"input": (x, tx)})


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_cross_entropy_ignore_index_one_sample_and_spatial(reduction):
    x, tx = both(RNG.standard_normal((5, 3)))
    classes = np.array([0, -100, 2, 1, -100])
    compare(F.cross_entropy(x, mg.tensor(classes), reduction=reduction),
            torch.nn.functional.cross_entropy(tx, torch.tensor(classes), reduction=reduction),
            {"input": (x, tx)})
    x, tx = both(RNG.standard_normal(4))
    compare(F.cross_entropy(x, mg.tensor(2), reduction=reduction),
            torch.nn.functional.cross_entropy(tx, torch.tensor(2), reduction=reduction),
            {"input": (x, tx)})
    x, tx = both(RNG.standard_normal((2, 3, 2, 2)))
    classes = RNG.integers(0, 3, (2, 2, 2))
    compare(F.cross_entropy(x, mg.tensor(classes), reduction=reduction),
            torch.nn.functional.cross_entropy(tx, torch.tensor(classes), reduction=reduction),
            {"input": (x, tx)})


@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_with_every_target_ignored_is_nan_with_a_zero_gradient(weighted):
    x, tx = both(RNG.standard_normal((2, 3)))
    weight = [1.0, 2.0, 3.0] if weighted else None
    loss = F.cross_entropy(x, mg.tensor([-100, -100]),
                           weight=None if weight is None else mg.tensor(weight, dtype=mg.float64))
    torch_loss = torch.nn.functional.cross_entropy(
        tx, torch.tensor([-100, -100]),
        weight=None if weight is None else torch.tensor(weight, dtype=torch.float64))
    loss.backward()
    torch_loss.backward()
    assert np.isnan(loss.item()) and np.isnan(torch_loss.item())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())  # zeros, not nan


def test_cross_entropy_probability_targets():
    x, tx = both(RNG.standard_normal((3, 4)))
    p = RNG.dirichlet(np.ones(4), size=3)
    compare(F.cross_entropy(x, mg.tensor(p, dtype=mg.float64)),
            torch.nn.functional.cross_entropy(tx, torch.tensor(p)), {"input": (x, tx)})


def test_cross_entropy_of_huge_logits_is_finite_and_matches_torch():
    logits = np.array([[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 999.0]])
    x, tx = both(logits)
    classes = np.array([1, 2])
    out = F.cross_entropy(x, mg.tensor(classes))
    assert np.isfinite(out.item())
    compare(out, torch.nn.functional.cross_entropy(tx, torch.tensor(classes)), {"x": (x, tx)})
    assert np.isfinite(x.grad.numpy()).all()


def test_cross_entropy_double_backward():
    x, tx = both(RNG.standard_normal((3, 4)))
    classes = RNG.integers(0, 4, 3)
    (g,) = mg.autograd.grad(F.cross_entropy(x, mg.tensor(classes)), [x], create_graph=True)
    (tg,) = torch.autograd.grad(torch.nn.functional.cross_entropy(tx, torch.tensor(classes)),
                                [tx], create_graph=True)
    weights = RNG.standard_normal((3, 4))
    compare((g * mg.tensor(weights, dtype=mg.float64)).sum(),
            (tg * torch.tensor(weights)).sum(), {"x": (x, tx)})


def test_cross_entropy_errors_like_torch():
    x = mg.randn(3, 4)
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.cross_entropy(x, mg.tensor([0, 4, 1]))
    with pytest.raises(IndexError, match="Target -1 is out of bounds"):
        F.cross_entropy(x, mg.tensor([0, -1, 1]))
    with pytest.raises(ValueError, match=r"batch_size \(3\) to match target batch_size \(2\)"):
        F.cross_entropy(x, mg.tensor([0, 1]))
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(x, mg.tensor([0, 1, 2]), reduction="average")
    with pytest.raises(TypeError, match="Tensor"):
        F.cross_entropy(x, [0, 1, 2])
    tx = torch.randn(3, 4)
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        torch.nn.functional.cross_entropy(tx, torch.tensor([0, 4, 1]))


@pytest.mark.parametrize("target", ["tensor([True, False, True])", "tensor([0, 1, 2], dtype=L.int32)",
                                    "tensor([[0], [1], [2]])"])
def test_cross_entropy_target_kind_errors_like_torch(target):
    """Bool and int32 targets, and a column of targets, crashed inside numpy or got a
    message that contradicted itself ("batch_size (3) to match target batch_size (3)")."""
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.cross_entropy(torch.randn(3, 4), eval("L." + target, {"L": torch}))
    with pytest.raises(RuntimeError) as mine:
        F.cross_entropy(mg.randn(3, 4), eval("L." + target, {"L": mg}))
    assert str(mine.value).startswith(str(theirs.value))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits(reduction):
    x, tx = both(RNG.standard_normal((4, 3)) * 5)
    y, ty = both(RNG.random((4, 3)))
    compare(nn.BCEWithLogitsLoss(reduction=reduction)(x, y),
            torch.nn.BCEWithLogitsLoss(reduction=reduction)(tx, ty),
            {"input": (x, tx), "target": (y, ty)})


def test_bce_with_logits_stable_at_1000():
    x, tx = both(np.array([1000.0, -1000.0, 0.0]))
    y, ty = both(np.array([0.0, 1.0, 1.0]), requires_grad=False)
    out = F.binary_cross_entropy_with_logits(x, y)
    assert np.isfinite(out.item())
    compare(out, torch.nn.functional.binary_cross_entropy_with_logits(tx, ty), {"x": (x, tx)})


def test_bce_errors():
    with pytest.raises(ValueError, match=r"Target size \(3,\) must be the same as input size"):
        F.binary_cross_entropy_with_logits(mg.zeros(2), mg.zeros(3))
    with pytest.raises(TypeError, match="float"):
        F.binary_cross_entropy_with_logits(mg.zeros(2), mg.tensor([0, 1]))
    with pytest.raises(NotImplementedError, match="\"log_sigmoid_cpu\" not implemented for 'Long'"):
        F.binary_cross_entropy_with_logits(mg.tensor([1, 2]), mg.zeros(2))
    # a weight may broadcast to the input's shape, not make the loss larger (it averaged 12)
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.binary_cross_entropy_with_logits(torch.zeros(4), torch.zeros(4),
                                                             torch.ones(3, 4))
    with pytest.raises(RuntimeError) as mine:
        F.binary_cross_entropy_with_logits(mg.zeros(4), mg.zeros(4), mg.ones(3, 4))
    assert str(mine.value) == str(theirs.value)


def test_mse_broadcast_warns_like_torch():
    with pytest.warns(UserWarning, match="different to the input size"):
        F.mse_loss(mg.zeros(3, 1), mg.zeros(3))


def test_mlp_end_to_end_matches_torch():
    """Sequential of Linear/Tanh/Linear + CrossEntropyLoss: the gradients of every parameter."""
    ours = nn.Sequential(nn.Linear(5, 8, dtype=mg.float64), nn.Tanh(),
                         nn.Linear(8, 3, dtype=mg.float64))
    theirs = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    theirs = theirs.double()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = RNG.standard_normal((7, 5))
    classes = RNG.integers(0, 3, 7)
    loss = nn.CrossEntropyLoss()(ours(mg.tensor(x, dtype=mg.float64)), mg.tensor(classes))
    tloss = torch.nn.CrossEntropyLoss()(theirs(torch.tensor(x)), torch.tensor(classes))
    loss.backward()
    tloss.backward()
    assert math.isclose(loss.item(), tloss.item(), rel_tol=1e-12)
    for (name, p), tp in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-10, err_msg=name)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_weight_smoothing_ignore_index(reduction, smoothing, weighted):
    x, tx = both(RNG.standard_normal((6, 4)))
    classes = np.array([0, 3, -100, 1, 2, 3])
    weight = RNG.random(4) + 0.5
    ours = F.cross_entropy(x, mg.tensor(classes),
                           mg.tensor(weight, dtype=mg.float64) if weighted else None,
                           reduction=reduction, label_smoothing=smoothing)
    theirs = torch.nn.functional.cross_entropy(
        tx, torch.tensor(classes), torch.tensor(weight) if weighted else None,
        reduction=reduction, label_smoothing=smoothing)
    compare(ours, theirs, {"input": (x, tx)})


@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_probability_targets_weight_and_smoothing(smoothing):
    x, tx = both(RNG.standard_normal((3, 4)))
    p = RNG.dirichlet(np.ones(4), size=3)
    weight = RNG.random(4) + 0.5
    compare(F.cross_entropy(x, mg.tensor(p, dtype=mg.float64), mg.tensor(weight, dtype=mg.float64),
                            label_smoothing=smoothing),
            torch.nn.functional.cross_entropy(tx, torch.tensor(p), torch.tensor(weight),
                                              label_smoothing=smoothing), {"input": (x, tx)})


def test_cross_entropy_loss_module_options_and_state_dict():
    weight = np.array([1.0, 2.0, 0.5])
    ours = nn.CrossEntropyLoss(mg.tensor(weight, dtype=mg.float64), label_smoothing=0.1)
    theirs = torch.nn.CrossEntropyLoss(torch.tensor(weight), label_smoothing=0.1)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    x, tx = both(RNG.standard_normal((5, 3)))
    classes = RNG.integers(0, 3, 5)
    compare(ours(x, mg.tensor(classes)), theirs(tx, torch.tensor(classes)), {"x": (x, tx)})
    with pytest.raises(ValueError, match="label_smoothing"):
        F.cross_entropy(x, mg.tensor(classes), label_smoothing=1.5)
    with pytest.raises(ValueError, match=r"weight must have shape \(3,\)"):
        F.cross_entropy(x, mg.tensor(classes), mg.ones(4, dtype=mg.float64))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_weight(reduction):
    x, tx = both(RNG.standard_normal((4, 3)) * 3)
    y, ty = both(RNG.random((4, 3)), requires_grad=False)
    weight = RNG.random(3) + 0.5
    compare(nn.BCEWithLogitsLoss(mg.tensor(weight, dtype=mg.float64), reduction=reduction)(x, y),
            torch.nn.BCEWithLogitsLoss(torch.tensor(weight), reduction=reduction)(tx, ty),
            {"input": (x, tx)})


# ---- the deliberate differences, pinned --------------------------------------------------------
def test_linear_node_and_its_inputs_order():
    ours, _ = linear_pair(4, 3)
    x = mg.randn(2, 5, 4, dtype=mg.float64, requires_grad=True)
    node = ours(x).grad_fn
    assert node.name() == "AddmmBackward0"
    assert [n.variable for n, _ in node.next_functions] == [x, ours.weight, ours.bias]


def test_loss_nodes_are_fused_then_reduced():
    x = mg.randn(3, 4, requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor([0, 1, 2]))
    assert loss.grad_fn.name() == "MeanBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "CrossEntropyLossBackward0"
    bce = F.binary_cross_entropy_with_logits(x, mg.zeros(3, 4))
    assert bce.grad_fn.next_functions[0][0].name() == "BinaryCrossEntropyWithLogitsBackward0"


def test_optimizer_state_dict_holds_copies():
    import minigrad.optim as optim

    p = mg.ones(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = mg.ones(2)
    opt.step()
    saved = opt.state_dict()["state"][0]["momentum_buffer"]
    opt.step()
    assert saved.numpy().tolist() == [1.0, 1.0]  # the live buffer moved on to 1.9
