"""`collapse=True` folds each nn.Module call into one box (Module.__call__ records a group)."""

from __future__ import annotations

import re

import minigrad as mg
import minigrad.nn as nn
from minigrad.viz import draw_graph


def test_each_layer_call_becomes_one_box() -> None:
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    loss = model(mg.randn(3, 4)).sum()
    source = draw_graph(loss, kind="backward", collapse=True).source
    boxes = re.findall(r'label="(\w+)\\n\((\d+) nodes?\)"', source)
    assert [name for name, _ in boxes] == ["Linear", "ReLU", "Linear"]
    # A Linear call is its fused op plus the AccumulateGrad nodes of weight and bias.
    assert [int(count) for _, count in boxes] == [3, 1, 3]
    assert "AccumulateGrad" not in source


def test_recording_groups_keeps_no_graph_alive() -> None:
    import gc
    import weakref

    model = nn.Linear(4, 2)
    out = model(mg.randn(1, 4))
    node = weakref.ref(out.grad_fn)
    del out
    gc.collect()
    assert node() is None


def test_a_group_may_mark_nothing_or_several_outputs() -> None:
    from minigrad.viz import group

    x = mg.randn(2, 3, requires_grad=True)
    with group("nothing", x) as scope:
        scope.output()  # no tensors: nothing recorded, no error
    with group("pair", x) as scope:
        a, b = x * 2, x + 1
        scope.output((a, {"b": b}), 3.0)  # nested containers are searched, numbers ignored
    assert [record.name for record in a.grad_fn._groups] == ["pair"]
    assert [record.name for record in b.grad_fn._groups] == ["pair"]
