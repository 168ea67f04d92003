"""`load_state_dict` lists missing and unexpected keys in PyTorch's order: module by module,
root first (a module's own parameters and buffers, then the keys under its prefix that name
nothing it has), not in the checkpoint's order."""

from __future__ import annotations

import pytest

import minigrad as mg


def make_net(library):  # type: ignore[no-untyped-def]
    """A root with its own parameter and buffer between children, one child held twice."""
    nn = library.nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(2, 2)
            self.w = nn.Parameter(library.ones(2))
            self.b = nn.Linear(2, 2, bias=False)
            self.seq = nn.Sequential(self.a, nn.ReLU(), self.a)
            self.register_buffer("buf", library.zeros(1))

    return Net()


def checkpoint(library) -> dict:  # type: ignore[no-untyped-def]
    """Keys in an order unlike the model's: some wrong at the root, some inside children."""
    one = library.ones(1)
    return {"b.weight2": one, "zzz": one, "seq.1.q": one, "b.bias": library.ones(2),
            "a.extra": one, "a.sub.x": one, "w.x": one, "c.q": one,
            "b.weight": library.ones(2, 2), "a": one}


MISSING = ["w", "buf", "a.weight", "a.bias", "seq.0.weight", "seq.0.bias", "seq.2.weight",
           "seq.2.bias"]
UNEXPECTED = ["zzz", "w.x", "c.q", "a", "a.extra", "a.sub.x", "b.weight2", "b.bias", "seq.1.q"]


def test_strict_false_lists_keys_module_by_module_root_first():
    result = make_net(mg).load_state_dict(checkpoint(mg), strict=False)
    assert result.missing_keys == MISSING
    assert result.unexpected_keys == UNEXPECTED


def test_the_strict_error_lists_them_in_the_same_order():
    with pytest.raises(RuntimeError) as error:
        make_net(mg).load_state_dict(checkpoint(mg))
    assert str(error.value) == (  # PyTorch's wording, exactly
        "Error(s) in loading state_dict for Net:\n"
        f"\tMissing key(s) in state_dict: {listed(MISSING)}. \n"
        f"\tUnexpected key(s) in state_dict: {listed(UNEXPECTED)}. ")


def listed(keys: list[str]) -> str:
    return ", ".join(f'"{key}"' for key in keys)


def test_bad_values_follow_the_key_lists_in_module_order():
    state = dict(make_net(mg).state_dict(), buf="x")
    state["seq.2.weight"] = mg.ones(3)
    with pytest.raises(RuntimeError) as error:
        make_net(mg).load_state_dict(state)
    assert str(error.value).split("\n\t")[1:] == [
        'While copying the parameter named "buf", expected minigrad.Tensor or Tensor-like '
        "object from checkpoint but received <class 'str'>",
        "size mismatch for seq.2.weight: copying a param with shape (3,) from checkpoint, "
        "the shape in current model is (2, 2).",
    ]


def test_a_one_element_value_loads_into_a_0d_parameter():
    module = mg.nn.Module()
    module.scale = mg.nn.Parameter(mg.tensor(1.0))
    module.load_state_dict({"scale": mg.tensor([5.0])})
    assert module.scale.shape == () and module.scale.item() == 5.0


def outcome(library) -> tuple:  # type: ignore[no-untyped-def]
    """What both loads report, with PyTorch's module path read as minigrad's."""
    result = make_net(library).load_state_dict(checkpoint(library), strict=False)
    try:
        make_net(library).load_state_dict(checkpoint(library))
        message = None
    except RuntimeError as error:
        message = str(error)
    return result.missing_keys, result.unexpected_keys, message


@pytest.mark.oracle
def test_key_order_and_message_as_torch():
    torch = pytest.importorskip("torch")
    assert outcome(mg) == outcome(torch)
