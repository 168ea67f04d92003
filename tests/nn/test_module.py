"""nn.Module: registration, dotted names, train/eval, zero_grad, state_dict, repr, errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 3)
        self.out = nn.Linear(3, 2, bias=False)
        self.scale = nn.Parameter(mg.ones(1))
        self.not_a_param = mg.ones(2)  # a plain tensor is not registered

    def forward(self, x):
        return self.out(self.hidden(x).relu()) * self.scale


def test_parameters_are_registered_by_attribute_with_dotted_names():
    net = TwoLayer()
    names = [name for name, _ in net.named_parameters()]
    assert names == ["scale", "hidden.weight", "hidden.bias", "out.weight"]
    assert len(list(net.parameters())) == 4
    assert all(p.requires_grad and p.is_leaf for p in net.parameters())
    assert [name for name, _ in net.named_modules()] == ["", "hidden", "out"]
    assert net.out.bias is None


def test_sequential_names_and_nesting():
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1)))
    assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias", "2.0.weight",
                                                      "2.0.bias"]
    assert isinstance(net[1], nn.ReLU) and len(net) == 3 and isinstance(net[-1], nn.Sequential)
    assert [type(m).__name__ for m in net[:2]] == ["Linear", "ReLU"]
    with pytest.raises(TypeError, match="not a Module"):
        nn.Sequential(nn.Linear(1, 1), lambda x: x)


def test_shared_parameter_counted_once():
    layer = nn.Linear(2, 2)
    net = nn.Sequential(layer, nn.ReLU(), layer)
    assert len(list(net.parameters())) == 2


def test_reassigning_and_deleting_attributes_updates_registries():
    net = TwoLayer()
    net.hidden = nn.Linear(4, 5)
    assert tuple(net.hidden.weight.shape) == (5, 4)
    del net.scale
    assert "scale" not in [n for n, _ in net.named_parameters()]
    net.scale = 3.0  # a number replaces nothing registered
    assert net.scale == 3.0


def test_a_plain_tensor_cannot_replace_a_parameter():
    """It would drop out of parameters() and state_dict() and silently stop training."""
    layer = nn.Linear(2, 2)
    with pytest.raises(TypeError, match=r"^cannot assign 'minigrad.FloatTensor' as parameter "
                                        r"'weight' \(nn.Parameter or None expected\)$"):
        layer.weight = mg.ones(2, 2)
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'bias'"):
        layer.bias = 0
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"]
    layer.weight = nn.Parameter(mg.ones(2, 2))  # a Parameter, or None, is what it takes
    layer.bias = None
    assert [name for name, _ in layer.named_parameters()] == ["weight"]


def test_zero_grad_cuts_a_gradient_from_its_graph_in_place():
    """After backward(create_graph=True) the .grad is part of a graph; zeroing it in place
    (set_to_none=False) first detaches it, as PyTorch does, and keeps the same tensor."""
    net = nn.Linear(2, 1)
    (net(mg.ones(1, 2)) ** 2).sum().backward(create_graph=True)
    grad = net.weight.grad
    assert grad.requires_grad
    net.zero_grad(set_to_none=False)
    assert net.weight.grad is grad and not grad.requires_grad and grad.grad_fn is None
    assert grad.numpy().tolist() == [[0.0, 0.0]]


def test_setattr_before_init_is_a_clear_error():
    class Forgot(nn.Module):
        def __init__(self):
            self.layer = nn.Linear(1, 1)

    with pytest.raises(AttributeError, match="super\\(\\).__init__\\(\\)"):
        Forgot()


def test_call_runs_forward_and_missing_forward_is_explained():
    net = TwoLayer()
    x = mg.randn(5, 4)
    np.testing.assert_array_equal(net(x).numpy(), net.forward(x).numpy())
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(x)


def test_train_eval_propagate():
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU()))
    assert all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())


def test_zero_grad_sets_none_or_zeros():
    net = TwoLayer()
    net(mg.randn(3, 4)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_state_dict_round_trip_copies_in_place():
    mg.manual_seed(0)
    source, target = TwoLayer(), TwoLayer()
    weight_before = target.hidden.weight
    state = source.state_dict()
    assert list(state) == ["scale", "hidden.weight", "hidden.bias", "out.weight"]
    assert all(not t.requires_grad for t in state.values())
    result = target.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert target.hidden.weight is weight_before  # loaded in place, same Parameter
    for (name, a), b in zip(source.state_dict().items(), target.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
    x = mg.randn(2, 4)
    np.testing.assert_array_equal(source(x).numpy(), target(x).numpy())


def test_a_layer_used_twice_is_saved_under_both_names_as_in_pytorch():
    layer = nn.Linear(2, 2)
    model = nn.Sequential(layer, nn.ReLU(), layer)
    assert list(model.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert len(list(model.parameters())) == 2  # parameters() still gives each once
    model.load_state_dict(model.state_dict())  # a saved model loads back strictly


def test_load_state_dict_errors_name_the_keys_and_shapes():
    net = TwoLayer()
    state = net.state_dict()
    del state["hidden.bias"]
    state["extra.weight"] = mg.zeros(1)
    state["out.weight"] = mg.zeros(3, 3)
    with pytest.raises(RuntimeError) as error:
        net.load_state_dict(state)
    message = str(error.value)
    assert 'Missing key(s) in state_dict: "hidden.bias"' in message
    assert 'Unexpected key(s) in state_dict: "extra.weight"' in message
    assert "size mismatch for out.weight" in message and "(3, 3)" in message and "(2, 3)" in message
    state["out.weight"] = mg.zeros(2, 3)
    result = net.load_state_dict(state, strict=False)
    assert result.missing_keys == ["hidden.bias"] and result.unexpected_keys == ["extra.weight"]
    assert not net.out.weight.numpy().any()


def test_a_bad_checkpoint_value_is_named_and_nothing_is_loaded():
    net = nn.Linear(2, 2)
    before = net.weight.numpy()
    for bad in (np.array(["a", "b"]), [[1.0, 2.0]], "text", np.array([1j, 2j]), None):
        with pytest.raises(RuntimeError, match='While copying the parameter named "bias"'):
            net.load_state_dict({"weight": mg.zeros(2, 2), "bias": bad})
        np.testing.assert_array_equal(net.weight.numpy(), before)  # weight came first


def test_load_state_dict_lists_missing_keys_before_unexpected_ones_as_pytorch():
    with pytest.raises(RuntimeError) as error:
        nn.Linear(2, 1).load_state_dict({"weight": mg.zeros(1, 2), "extra": mg.zeros(1)})
    message = str(error.value)
    assert message.index("Missing key(s)") < message.index("Unexpected key(s)")


def test_load_state_dict_accepts_numpy_arrays():
    net = nn.Linear(2, 1)
    net.load_state_dict({"weight": np.array([[1.0, 2.0]]), "bias": np.array([3.0])})
    assert net(mg.tensor([[1.0, 1.0]])).item() == 6.0
    assert net.weight.dtype == np.float32


def test_repr_like_pytorch():
    net = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10, bias=False))
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Flatten(start_dim=1, end_dim=-1)\n"
        "  (1): Linear(in_features=64, out_features=32, bias=True)\n"
        "  (2): ReLU()\n"
        "  (3): Linear(in_features=32, out_features=10, bias=False)\n"
        ")")
    assert repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"
    assert repr(nn.Linear(1, 1).weight).startswith("Parameter containing:\ntensor(")


def test_parameter_shares_storage_and_is_a_leaf():
    t = mg.zeros(3)
    p = nn.Parameter(t)
    assert p.requires_grad and p.is_leaf and isinstance(p, mg.Tensor)
    with mg.no_grad():
        p.add_(1.0)
    assert t.numpy().tolist() == [1.0, 1.0, 1.0]
    assert not nn.Parameter(mg.zeros(1), requires_grad=False).requires_grad
    assert type(p * 2) is mg.Tensor
    restored = pickle.loads(pickle.dumps(p))
    assert isinstance(restored, nn.Parameter) and restored.numpy().tolist() == [1.0] * 3


def test_requires_grad_false_freezes_module():
    net = TwoLayer()
    net.hidden.requires_grad_(False)
    net(mg.randn(2, 4)).sum().backward()
    assert net.hidden.weight.grad is None and net.out.weight.grad is not None


def test_linear_init_is_uniform_within_bound_and_seeded():
    mg.manual_seed(3)
    a = nn.Linear(100, 50)
    mg.manual_seed(3)
    b = nn.Linear(100, 50)
    np.testing.assert_array_equal(a.weight.numpy(), b.weight.numpy())
    bound = 1 / np.sqrt(100)
    w = a.weight.numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.01  # the std of U(-b, b) is b/√3
    assert np.abs(a.bias.numpy()).max() <= bound
    assert a.weight.dtype == np.float32
    assert nn.Linear(2, 2, dtype=mg.float64).weight.dtype == np.float64


def test_linear_bad_input_names_shapes():
    layer = nn.Linear(4, 2)
    with pytest.raises(ValueError, match=r"\(3, 5\).*\(2, 4\)"):
        layer(mg.zeros(3, 5))
    with pytest.raises(TypeError, match="float64"):
        layer(mg.zeros(3, 4, dtype=mg.float64))
    with pytest.raises(ValueError, match="in_features"):
        nn.Linear(-1, 2)


def test_loss_reduction_is_validated():
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="avg")


def test_flatten_module():
    x = mg.randn(2, 3, 4, 5)
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(0, 1)(x).shape == (6, 4, 5)


def test_double_converts_parameters_and_keeps_values_and_flags():
    net = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1, bias=False))
    net[0].weight.requires_grad_(False)
    before = net[0].bias.numpy()
    assert net.double() is net
    assert all(p.dtype == np.float64 for p in net.parameters())
    assert isinstance(net[0].bias, nn.Parameter) and not net[0].weight.requires_grad
    np.testing.assert_allclose(net[0].bias.numpy(), before, rtol=1e-7)
    assert net(mg.randn(4, 3, dtype=mg.float64)).dtype == np.float64
    assert net.float()[2].weight.dtype == np.float32


def test_converting_keeps_each_parameter_so_ties_and_optimizers_survive():
    first, second = nn.Linear(2, 2), nn.Linear(2, 2)
    second.weight = first.weight
    net = nn.Sequential(first, second)
    optimizer = mg.optim.SGD(net.parameters(), lr=0.1)
    net(mg.ones(1, 2)).sum().backward()
    weight = first.weight
    net.double()
    assert first.weight is weight is second.weight and len(list(net.parameters())) == 3
    assert weight.dtype == weight.grad.dtype == np.float64
    before = weight.numpy()
    optimizer.step()
    np.testing.assert_allclose(weight.numpy(), before - 0.1 * weight.grad.numpy())


def test_buffers_are_saved_updated_by_assignment_and_not_learned():
    class Running(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mean", mg.zeros(2))
            self.scale = nn.Parameter(mg.ones(2))

    module = Running()
    module.mean = mg.ones(2)
    assert module.mean.numpy().tolist() == [1.0, 1.0]
    assert list(module.state_dict()) == ["scale", "mean"]
    assert [name for name, _ in module.named_parameters()] == ["scale"]
    assert [name for name, _ in module.named_buffers()] == ["mean"]


def test_dropout_scales_masks_and_is_off_in_eval():
    mg.manual_seed(0)
    layer = nn.Dropout(0.25)
    x = mg.ones(200, 100, requires_grad=True)
    y = layer(x)
    values = y.numpy()
    assert np.unique(values).tolist() == [0.0, np.float32(4 / 3)]
    assert abs((values == 0).mean() - 0.25) < 0.01
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)  # dL/dx = mask / (1 − p)
    layer.eval()
    assert layer(x) is x
    assert repr(layer) == "Dropout(p=0.25, inplace=False)"
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)
    assert not nn.functional.dropout(mg.ones(3), p=1.0).numpy().any()


def test_modules_pickle_and_deepcopy():
    import copy

    net = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    x = mg.randn(4, 3)
    for clone in (pickle.loads(pickle.dumps(net)), copy.deepcopy(net)):
        np.testing.assert_array_equal(clone(x).numpy(), net(x).numpy())
        assert isinstance(clone[0].weight, nn.Parameter) and clone[0].weight is not net[0].weight


def test_save_and_load_a_state_dict(tmp_path):
    net = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1, dtype=mg.float64))
    mg.save(net.state_dict(), tmp_path / "weights.pt")
    loaded = mg.load(tmp_path / "weights.pt")
    assert list(loaded) == list(net.state_dict())
    assert loaded["2.weight"].dtype == np.float64
    other = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1, dtype=mg.float64))
    other.load_state_dict(loaded)
    x = mg.randn(5, 3)
    np.testing.assert_array_equal(other[0](x).numpy(), net[0](x).numpy())
    with pytest.raises(TypeError, match="state_dict"):
        mg.save([1, 2], tmp_path / "bad")
    with pytest.raises(TypeError, match="maps to a value of type int"):
        mg.save({"step": 3}, tmp_path / "bad")


@pytest.mark.parametrize("call", [
    'register_buffer("b", 3)', 'add_module("x", 3)', 'register_parameter("a.b", None)',
    'register_buffer("a.b", None)', 'add_module("a.b", None)', 'add_module("", None)',
    'register_buffer(3, None)', 'register_parameter("", None)'])
def test_registering_a_bad_name_or_value_fails_at_once_as_in_torch(call):
    """They were accepted, and state_dict() or parameters() failed later, deep inside."""
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        eval("m." + call, {"m": torch.nn.Module()})  # noqa: S307
    with pytest.raises(theirs.type) as mine:
        eval("m." + call, {"m": nn.Module()})  # noqa: S307
    assert str(mine.value).replace("minigrad Tensor", "torch Tensor") == str(theirs.value)


def test_setting_a_parameter_or_sub_module_to_none_keeps_its_slot_as_in_torch():
    torch = pytest.importorskip("torch")
    ours, theirs = nn.Sequential(nn.Linear(2, 2), nn.ReLU()), torch.nn.Sequential(
        torch.nn.Linear(2, 2), torch.nn.ReLU())
    for model in (ours, theirs):
        model[0].bias = None
        setattr(model, "1", None)
    assert list(ours[0]._parameters) == list(theirs[0]._parameters) == ["weight", "bias"]
    assert list(ours._modules) == list(theirs._modules) == ["0", "1"]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["0.weight"]
