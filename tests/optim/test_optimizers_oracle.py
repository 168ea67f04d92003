"""Optimizers against PyTorch: 20-step trajectories in float64, errors, state_dict.

The loss is a fixed non-quadratic function of two parameter tensors, so the gradient changes
along the way and every term of each update rule (momentum, bias correction, weight decay)
is exercised.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402
import minigrad.optim as optim  # noqa: E402

pytestmark = pytest.mark.oracle

START = [np.random.default_rng(1).standard_normal((3, 2)),
         np.random.default_rng(2).standard_normal(2)]
DATA = np.random.default_rng(3).standard_normal((5, 3))


def loss_of(lib, params, data):
    w, b = params
    return (lib.tanh(data @ w + b) ** 2).sum() + (w ** 4).sum() * 0.1


def trajectory(lib, make_optimizer, steps=20):
    if lib is mg:
        params = [mg.tensor(a, dtype=mg.float64, requires_grad=True) for a in START]
        data = mg.tensor(DATA, dtype=mg.float64)
    else:
        params = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in START]
        data = torch.tensor(DATA, dtype=torch.float64)
    module = optim if lib is mg else torch.optim
    optimizer = make_optimizer(module, params)
    path = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss_of(lib, params, data).backward()
        optimizer.step()
        path.append(np.concatenate([p.detach().numpy().ravel() for p in params]))
    return np.array(path), optimizer


CASES = {
    "sgd": lambda m, p: m.SGD(p, lr=0.05),
    "sgd_momentum": lambda m, p: m.SGD(p, lr=0.05, momentum=0.9),
    "sgd_dampening": lambda m, p: m.SGD(p, lr=0.05, momentum=0.9, dampening=0.3),
    "sgd_nesterov_wd": lambda m, p: m.SGD(p, lr=0.05, momentum=0.8, nesterov=True,
                                          weight_decay=0.1),
    "sgd_weight_decay": lambda m, p: m.SGD(p, lr=0.1, weight_decay=0.5),
    "sgd_maximize": lambda m, p: m.SGD(p, lr=0.01, momentum=0.5, maximize=True),
    "adam": lambda m, p: m.Adam(p, lr=0.05),
    "adam_betas_eps": lambda m, p: m.Adam(p, lr=0.02, betas=(0.8, 0.95), eps=1e-3),
    "adam_weight_decay": lambda m, p: m.Adam(p, lr=0.05, weight_decay=0.3),
    "adamw_default": lambda m, p: m.AdamW(p, lr=0.05),
    "adamw_strong": lambda m, p: m.AdamW(p, lr=0.05, weight_decay=0.5),
    "adam_amsgrad": lambda m, p: m.Adam(p, lr=0.05, amsgrad=True, weight_decay=0.1),
    "adamw_amsgrad_maximize": lambda m, p: m.AdamW(p, lr=0.01, amsgrad=True, maximize=True),
    "groups": lambda m, p: m.SGD([{"params": [p[0]]}, {"params": [p[1]], "lr": 0.5}],
                                 lr=0.05, momentum=0.9),
}


@pytest.mark.parametrize("case", CASES)
def test_trajectory_matches_torch(case):
    ours, _ = trajectory(mg, CASES[case])
    theirs, _ = trajectory(torch, CASES[case])
    start = np.concatenate([a.ravel() for a in START])
    assert np.abs(theirs[-1] - start).max() > 1e-2  # the parameters really moved
    np.testing.assert_allclose(ours, theirs, atol=1e-6, rtol=0)


def test_adam_and_adamw_differ_with_weight_decay():
    adam, _ = trajectory(mg, lambda m, p: m.Adam(p, lr=0.05, weight_decay=0.3))
    adamw, _ = trajectory(mg, lambda m, p: m.AdamW(p, lr=0.05, weight_decay=0.3))
    assert np.abs(adam[-1] - adamw[-1]).max() > 1e-3


def test_state_dict_resumes_the_same_trajectory():
    make = CASES["adam_weight_decay"]
    full, _ = trajectory(mg, make, steps=20)
    params = [mg.tensor(a, dtype=mg.float64, requires_grad=True) for a in START]
    data = mg.tensor(DATA, dtype=mg.float64)
    first = make(optim, params)
    for _ in range(10):
        first.zero_grad()
        loss_of(mg, params, data).backward()
        first.step()
    saved = first.state_dict()
    assert saved["param_groups"][0]["params"] == [0, 1]
    assert saved["state"][0]["step"] == 10
    torch_params = [torch.tensor(a, requires_grad=True) for a in START]
    theirs = torch.optim.Adam(torch_params, lr=0.05, weight_decay=0.3).state_dict()
    assert set(saved["param_groups"][0]) >= set(theirs["param_groups"][0]) - {
        "foreach", "capturable", "differentiable", "fused", "decoupled_weight_decay"}
    second = make(optim, params)
    second.load_state_dict(saved)
    for _ in range(10):
        second.zero_grad()
        loss_of(mg, params, data).backward()
        second.step()
    resumed = np.concatenate([p.numpy().ravel() for p in params])
    np.testing.assert_allclose(resumed, full[-1], atol=1e-12)


def test_non_leaf_is_refused_with_torchs_message():
    leaf = mg.randn(3, requires_grad=True)
    for lib, x in ((mg, leaf * 2), (torch, torch.randn(3, requires_grad=True) * 2)):
        module = optim if lib is mg else torch.optim
        with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
            module.SGD([x], lr=0.1)


@pytest.mark.parametrize("make, message", [
    (lambda m, p: m.SGD(p, lr=-1), "Invalid learning rate"),
    (lambda m, p: m.SGD(p, lr=0.1, momentum=-0.5), "Invalid momentum value"),
    (lambda m, p: m.SGD(p, lr=0.1, weight_decay=-1), "Invalid weight_decay value"),
    (lambda m, p: m.SGD(p, lr=0.1, nesterov=True), "Nesterov momentum requires a momentum"),
    (lambda m, p: m.Adam(p, betas=(1.0, 0.9)), "Invalid beta parameter at index 0"),
    (lambda m, p: m.Adam(p, eps=-1), "Invalid epsilon value"),
    (lambda m, p: m.SGD([], lr=0.1), "optimizer got an empty parameter list"),
])
def test_bad_settings_raise_like_torch(make, message):
    for module, param in ((optim, mg.zeros(1, requires_grad=True)),
                          (torch.optim, torch.zeros(1, requires_grad=True))):
        with pytest.raises(ValueError, match=message):
            make(module, [param])


def test_single_tensor_and_duplicates_refused():
    p = mg.zeros(2, requires_grad=True)
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


def test_a_parameter_twice_in_one_group_warns_as_torch():
    p = mg.zeros(2, requires_grad=True)
    for module, param in ((torch.optim, torch.zeros(2, requires_grad=True)), (optim, p)):
        with pytest.warns(UserWarning, match="duplicate parameters") as record:
            module.AdamW([param, param])
    assert record[0].filename == __file__  # minigrad's points at the user's line


def test_a_model_instead_of_its_parameters_gets_a_hint():
    for model in (mg.nn.Linear(2, 2), mg.nn.Sequential(mg.nn.Linear(2, 2))):
        with pytest.raises(TypeError, match=r"did you mean model.parameters\(\)"):
            optim.SGD(model, lr=0.1)
    assert optim.Adam([mg.zeros(1, requires_grad=True)],
                      betas=np.array([0.8, 0.9])).param_groups[0]["betas"] == (0.8, 0.9)
    with pytest.raises(TypeError, match=r"betas must be a pair"):
        optim.Adam([mg.zeros(1, requires_grad=True)], betas=0.9)


def test_step_with_a_closure_returns_its_loss_as_torch():
    results = []
    for lib, module in ((mg, optim), (torch, torch.optim)):
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        optimizer = module.SGD([w], lr=0.1)

        def closure():
            optimizer.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        loss = optimizer.step(closure)
        results.append([loss.item(), *w.detach().numpy().tolist()])
        assert optimizer.step() is None
    assert results[0] == pytest.approx(results[1])


def test_a_non_leaf_that_retains_its_grad_can_be_optimized_as_in_torch():
    y = mg.ones(2, requires_grad=True) * 2
    y.retain_grad()
    optimizer = optim.SGD([y], lr=0.5)
    (y * y).sum().backward()
    optimizer.step()
    assert y.tolist() == [0.0, 0.0]


def test_loading_state_casts_it_to_the_parameters_dtype_and_refuses_a_bad_dict():
    source = mg.zeros(2, dtype=mg.float64, requires_grad=True)
    first = optim.Adam([source])
    source.grad = mg.ones(2, dtype=mg.float64)
    first.step()
    target = mg.zeros(2, requires_grad=True)
    second = optim.Adam([target])
    second.load_state_dict(first.state_dict())
    assert second.state[target]["exp_avg"].dtype == np.float32
    with pytest.raises(ValueError, match="'state' and 'param_groups'"):
        second.load_state_dict({})


def test_zero_grad_set_to_none_and_zeros():
    p = mg.ones(2, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)
    (p * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad.numpy().tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_zero_grad_to_zeros_detaches_a_gradient_with_a_graph():
    p = mg.tensor([1.0, 2.0], requires_grad=True)
    (p ** 3).sum().backward(create_graph=True)
    grad = p.grad
    optim.SGD([p], lr=0.1).zero_grad(set_to_none=False)
    assert p.grad is grad and not grad.requires_grad and grad.grad_fn is None
    assert grad.numpy().tolist() == [0.0, 0.0]


def test_step_skips_parameters_without_grad_and_bumps_version():
    a, b = mg.ones(2, requires_grad=True), mg.ones(2, requires_grad=True)
    opt = optim.Adam([a, b], lr=0.1)
    (a * 2).sum().backward()
    version = a._version
    opt.step()
    assert b.numpy().tolist() == [1.0, 1.0] and b not in opt.state
    assert a._version > version
    np.testing.assert_allclose(a.numpy(), 0.9, rtol=1e-6)  # Adam's first step is lr·sign(g)


@pytest.mark.parametrize("make", [lambda ps: optim.SGD(ps, lr=0.1),
                                  lambda ps: optim.Adam(ps, lr=0.1),
                                  lambda ps: optim.AdamW(ps, lr=0.1, amsgrad=True)],
                         ids=["SGD", "Adam", "AdamW-amsgrad"])
def test_step_on_a_parameter_saved_by_a_live_graph_is_detected(make):
    w = mg.ones(2, requires_grad=True)
    loss = (w * w).sum()
    loss.backward(retain_graph=True)
    make([w]).step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_step_refuses_a_parameter_whose_elements_share_memory(name):
    """An expand() result stores one value for many elements: PyTorch's in-place update
    refuses it, with the same words here, and the parameter is left as it was."""
    ours = mg.ones(3).expand(2, 3).requires_grad_()
    theirs = torch.ones(3).expand(2, 3).requires_grad_()
    for param in (ours, theirs):
        param.grad = param.detach().clone()
    with pytest.raises(RuntimeError) as expected:
        getattr(torch.optim, name)([theirs], lr=0.1).step()
    with pytest.raises(RuntimeError) as got:
        getattr(optim, name)([ours], lr=0.1).step()
    assert str(got.value) == str(expected.value).split("\n")[0]
    assert ours.numpy().tolist() == [[1.0] * 3] * 2
