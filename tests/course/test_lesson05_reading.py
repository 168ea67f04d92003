"""Lesson 05's claims about activations in place: the reading and the notebook say the same,
and PyTorch does what they say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IN_PLACE = ("relu_", "sigmoid_", "tanh_")


def _notebook_section_3() -> str:
    cells = json.loads((ROOT / "notebooks" / "05-mlp.ipynb").read_text(encoding="utf-8"))["cells"]
    return next("".join(c["source"]) for c in cells
                if "".join(c["source"]).startswith("## 3. Activations"))


def test_reading_and_notebook_say_all_three_activations_can_run_in_place() -> None:
    reading = (ROOT / "lessons" / "05-mlp.md").read_text(encoding="utf-8")
    notebook = _notebook_section_3()
    for text in (reading, notebook):
        assert all(f"`{name}`" in text for name in IN_PLACE)
    assert "ReLU could even overwrite" not in notebook  # only ReLU: the sentence issue #20 fixed


def test_pytorch_backpropagates_through_each_in_place_activation() -> None:
    torch = pytest.importorskip("torch")
    x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
    slopes = {"relu_": (x > 0).double(), "sigmoid_": torch.sigmoid(x) * (1 - torch.sigmoid(x)),
              "tanh_": 1 - torch.tanh(x) ** 2}
    for name in IN_PLACE:
        x.grad = None
        y = x * 1  # not a leaf: in place is allowed
        getattr(y, name)()
        y.sum().backward()
        assert torch.allclose(x.grad, slopes[name].detach()), name
