"""The lecture tools on a tiny conv net: `minigrad graph` (with --collapse), the stepper and
the trace, whose numbers must be the engine's own gradients."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np

import minigrad as mg
import minigrad.nn as nn
from minigrad import cli
from minigrad.viz import backward_steps, trace_backward

CONV_NET = """\
import minigrad as mg
import minigrad.nn as nn
mg.manual_seed(0)
net = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                    nn.Linear(2 * 2 * 2, 3))
x = mg.randn(1, 1, 4, 4)
loss = nn.functional.cross_entropy(net(x), mg.tensor([1]))
"""


def tiny_conv_net() -> tuple[nn.Module, mg.Tensor]:
    mg.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(2 * 2 * 2, 3))
    loss = nn.functional.cross_entropy(net(mg.randn(1, 1, 4, 4, dtype=mg.float64).float()),
                                       mg.tensor([1]))
    return net, loss


def test_steps_visit_every_node_and_end_with_the_engines_gradients() -> None:
    net, loss = tiny_conv_net()
    steps = backward_steps(loss)
    assert len(steps) >= 8                       # loss, linear, flatten, pool, relu, conv, leaves
    for index in range(len(steps)):
        ElementTree.fromstring(steps.svg(index))   # every frame is a picture
    assert len({frame.node for frame in steps}) == len(steps)   # a new node each step
    text = trace_backward(loss)
    assert "ConvolutionBackward0" in text and "MaxPool2DWithIndicesBackward0" in text
    loss.backward()
    final = [np.asarray(grad) for grad in steps[len(steps) - 1].grads if grad is not None]
    for parameter in net.parameters():
        assert any(grad.shape == parameter.shape and np.allclose(grad, parameter.grad.numpy())
                   for grad in final), parameter.shape


def test_the_graph_command_draws_the_conv_net_collapsed(tmp_path: Path, monkeypatch,
                                                       capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "conv.py").write_text(CONV_NET)
    assert cli.main(["graph", "conv.py", "--root", "loss", "--kind", "backward", "--collapse",
                     "--out", "conv.svg"]) == 0
    svg = (tmp_path / "conv.svg").read_text()
    ElementTree.fromstring(svg)
    for layer in ("Conv2d", "ReLU", "MaxPool2d", "Flatten", "Linear"):
        assert layer in svg, layer
    assert cli.main(["graph", "conv.py", "--root", "loss", "--trace", "--out", "c.dot"]) == 0
    assert "ConvolutionBackward0" in capsys.readouterr().out
