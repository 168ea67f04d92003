"""Small graphs the viz tests draw, trace and step through."""

from __future__ import annotations

from minigrad import Value


def lesson01_loss() -> Value:
    """Lesson 01's worked example: u = a·b, v = u + c, L = v² + u at a = 2, b = 3, c = 1."""
    a, b, c = Value(2.0, "a"), Value(3.0, "b"), Value(1.0, "c")
    u = a * b
    u.label = "u"
    v = u + c
    v.label = "v"
    loss = v ** 2 + u
    loss.label = "L"
    return loss
