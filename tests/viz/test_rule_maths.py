"""The rules in a backward trace and a stepper's captions read as maths, not Python:
``2v`` rather than ``2 * v**(2-1)``, ``1 − tanh²(n)`` rather than ``1 - tanh(n)**2``."""

from __future__ import annotations

from minigrad.scalar import Value
from minigrad.viz import backward_steps
from minigrad.viz.frames import maths


def _trace(root: Value) -> str:
    return backward_steps(root).trace()


def test_rules_are_written_in_maths_notation() -> None:
    v = Value(3.0, "v")
    square = v ** 2
    square.label = "s"
    assert "rule  ∂s/∂v = 2v" in _trace(square)
    n = Value(0.5, "n")
    o = n.tanh()
    o.label = "o"
    assert "rule  ∂o/∂n = 1 − tanh²(n) = 1 − o²" in _trace(o)
    p = n.sigmoid()
    p.label = "p"
    assert "rule  ∂p/∂n = p·(1 − p)" in _trace(p)  # the whole rule, not "p *"
    a, b = Value(2.0, "a"), Value(4.0, "b")
    q = a / b
    q.label = "q"
    assert "∂q/∂a = 1/b,  ∂q/∂b = −a/b²" in _trace(q)


def test_maths_keeps_what_it_cannot_shorten() -> None:
    assert maths("3 * v**(3-1)") == "3v²"
    assert maths("a**b * ln(a)") == "a^b·ln(a)"
    assert maths("w2 * x2") == "w2·x2"
    assert maths("x1") == "x1"
