"""A module held twice by one parent: PyTorch's walks visit it once.

`children()`, `named_children()` and `apply()` skip a repeat among one module's own children;
`modules()`, `named_modules()` and `parameters()` skip every repeat in the tree. A module
under two *different* parents is still visited under each by `apply()` (its children
lists are separate), as in PyTorch.
"""

from __future__ import annotations

import pytest

import minigrad as mg
from minigrad import nn


def held_twice(library):  # type: ignore[no-untyped-def]
    """Sequential(shared, ReLU, shared): one Linear under the names "0" and "2"."""
    shared = library.nn.Linear(2, 2)
    return library.nn.Sequential(shared, library.nn.ReLU(), shared)


def under_two_parents(library):  # type: ignore[no-untyped-def]
    """One Linear inside two different Sequentials."""
    inner = library.nn.Linear(2, 2)
    return library.nn.Sequential(library.nn.Sequential(inner), library.nn.Sequential(inner))


def visits(module) -> list[str]:  # type: ignore[no-untyped-def]
    seen: list[str] = []
    module.apply(lambda m: seen.append(type(m).__name__))
    return seen


def walks(library, make):  # type: ignore[no-untyped-def]
    """Everything the tree walks give, by name, for one model."""
    model = make(library)
    return {
        "children": [type(child).__name__ for child in model.children()],
        "named_children": [name for name, _ in model.named_children()],
        "apply": visits(model),
        "modules": [type(module).__name__ for module in model.modules()],
        "named_modules": [name for name, _ in model.named_modules()],
        "parameters": [tuple(p.shape) for p in model.parameters()],
        "named_parameters": [name for name, _ in model.named_parameters()],
        "state_dict": list(model.state_dict()),
    }


def test_a_child_held_twice_is_walked_once():
    assert walks(mg, held_twice) == {
        "children": ["Linear", "ReLU"],
        "named_children": ["0", "1"],
        "apply": ["Linear", "ReLU", "Sequential"],
        "modules": ["Sequential", "Linear", "ReLU"],
        "named_modules": ["", "0", "1"],
        "parameters": [(2, 2), (2,)],
        "named_parameters": ["0.weight", "0.bias"],
        "state_dict": ["0.weight", "0.bias", "2.weight", "2.bias"],  # saved under both names
    }


def test_a_module_under_two_parents_is_applied_under_each():
    assert walks(mg, under_two_parents) == {
        "children": ["Sequential", "Sequential"],
        "named_children": ["0", "1"],
        "apply": ["Linear", "Sequential", "Linear", "Sequential", "Sequential"],
        "modules": ["Sequential", "Sequential", "Linear", "Sequential"],
        "named_modules": ["", "0", "0.0", "1"],
        "parameters": [(2, 2), (2,)],
        "named_parameters": ["0.0.weight", "0.0.bias"],
        "state_dict": ["0.0.weight", "0.0.bias", "1.0.weight", "1.0.bias"],
    }


def test_apply_initialises_a_shared_layer_once():
    calls = []

    def init(module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            calls.append(module)
            module.weight.data.mul_(2.0)

    model = held_twice(mg)
    before = model[0].weight.numpy().copy()
    model.apply(init)
    assert calls == [model[0]]
    assert (model[0].weight.numpy() == 2.0 * before).all()  # doubled once, not four times


@pytest.mark.oracle
@pytest.mark.parametrize("make", [held_twice, under_two_parents])
def test_tree_walks_as_torch(make):
    torch = pytest.importorskip("torch")
    assert walks(mg, make) == walks(torch, make)
