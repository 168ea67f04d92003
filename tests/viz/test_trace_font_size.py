"""`font_size` reaches the trace: the stepper's arithmetic and `trace_backward(font_size=…)`
grow with it, so a lecture room can read them."""

from __future__ import annotations

import re

import pytest

from minigrad import Value
from minigrad.viz import backward_steps, trace_backward


def product() -> Value:
    out = Value(2.0, "a") * Value(3.0, "b")
    out.label = "out"
    return out


def _text_sizes(page: str) -> list[str]:
    return re.findall(r"\.mg-text \{[^}]*font-size: ([^;]+);", page)


@pytest.mark.parametrize("size", [10, 14, 28, 40])
def test_the_steppers_arithmetic_is_set_at_the_font_size(size: int) -> None:
    steps = backward_steps(product(), font_size=size)
    assert _text_sizes(steps.html()) == [f"{size}pt"]
    assert _text_sizes(steps.html(whole_page=False)) == [f"{size}pt"]


def test_trace_backward_shows_its_text_at_the_font_size(capsys) -> None:
    trace = trace_backward(product(), font_size=32)
    assert capsys.readouterr().out == ""  # shown by Jupyter, not printed twice
    assert "font-size: 32pt" in trace._repr_html_()
    assert str(trace).startswith("backward from out") and "∂out/∂a = b" in trace
    plain = trace_backward(product(), file=None)
    assert capsys.readouterr().out == plain == str(trace)


def test_a_font_size_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="font_size"):
        trace_backward(product(), font_size=200)
