"""A scalar autograd engine: every number remembers how it was made.

A :class:`Value` holds a float (``data``), the derivative of the final output with respect to
it (``grad``), the Values it was computed from (``parents``, in argument order) and a small
``_backward`` rule that sends its gradient on to those parents by the chain rule::

    out = a * b        # forward: out.data = a.data * b.data
    a.grad += b.data * out.grad    # backward: d(out)/da = b
    b.grad += a.data * out.grad    #           d(out)/db = a

Gradients are *added* (``+=``), never assigned: a Value used twice (``x * x``) receives one
contribution per use, and leaves keep adding up across separate ``backward()`` calls, as
PyTorch's leaves do, until you reset them.
"""

from __future__ import annotations

import math
from typing import Callable, Union

Number = Union[int, float]


class Value:
    """One scalar node of a computation graph.

    Attributes:
        data: the number this node holds (a Python float).
        grad: d(root)/d(self) after ``root.backward()``; starts at 0.0 and accumulates.
        label: a name for drawings (``"a"``, ``"loss"``); optional.
        op: the operation that produced this node (``"*"``, ``"tanh"``), ``""`` for a leaf.
        parents: the Values this node was computed from, in argument order.
    """

    __slots__ = ("data", "grad", "label", "op", "parents", "_backward")

    def __init__(self, data: Number, label: str = "", *, _parents: tuple[Value, ...] = (),
                 _op: str = "") -> None:
        if isinstance(data, Value):
            raise TypeError("Value(...) expects a number, got a Value; use the Value itself")
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            try:
                data = float(data)  # numpy scalars and the like
            except (TypeError, ValueError):
                raise TypeError(
                    f"Value(...) expects a real number, got {type(data).__name__}: {data!r}"
                ) from None
        self.data = float(data)
        self.grad = 0.0
        self.label = label
        self.op = _op
        self.parents = _parents
        self._backward: Callable[[], None] | None = None

    def __repr__(self) -> str:
        name = f"{self.label}: " if self.label else ""
        return f"Value({name}data={self.data:.6g}, grad={self.grad:.6g})"

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, other: Value | Number) -> Value:
        """out = a + b;  d(out)/da = 1,  d(out)/db = 1."""
        other = _as_value(other, "+", self)
        out = Value(self.data + other.data, _parents=(self, other), _op="+")

        def _backward() -> None:
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other: Value | Number) -> Value:
        """out = a * b;  d(out)/da = b,  d(out)/db = a."""
        other = _as_value(other, "*", self)
        out = Value(self.data * other.data, _parents=(self, other), _op="*")

        def _backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, other: Value | Number) -> Value:
        """out = a ** b;  d(out)/da = b * a**(b-1),  d(out)/db = a**b * ln(a).

        The exponent's gradient follows PyTorch: 0 where a == 0 and b >= 0, NaN where a < 0
        (ln is undefined there).
        """
        exponent = _as_value(other, "**", self)
        base_data, exponent_data = self.data, exponent.data
        try:
            result = base_data ** exponent_data
        except ZeroDivisionError:
            raise ZeroDivisionError(
                f"0.0 ** {exponent_data:g} is undefined (division by zero); "
                "check for a zero base with a negative exponent"
            ) from None
        if isinstance(result, complex):
            raise ValueError(
                f"({base_data:g}) ** {exponent_data:g} is not a real number: a negative base "
                "needs an integer exponent"
            )
        out = Value(result, _parents=(self, exponent), _op="**")

        def _backward() -> None:
            if exponent_data != 0.0:
                self.grad += exponent_data * _power(base_data, exponent_data - 1) * out.grad
            if base_data > 0.0:
                exponent.grad += result * math.log(base_data) * out.grad
            elif base_data < 0.0 or exponent_data < 0.0:
                exponent.grad += math.nan
            # base == 0 and exponent >= 0: the exponent's gradient is 0.

        out._backward = _backward
        return out

    def __neg__(self) -> Value:
        return self * -1

    def __sub__(self, other: Value | Number) -> Value:
        return self + (-_as_value(other, "-", self))

    def __truediv__(self, other: Value | Number) -> Value:
        divisor = _as_value(other, "/", self)
        if divisor.data == 0.0:
            raise ZeroDivisionError(f"division by zero: {self!r} / {divisor!r}")
        return self * divisor ** -1

    def __radd__(self, other: Number) -> Value:
        return _as_value(other, "+", self) + self

    def __rsub__(self, other: Number) -> Value:
        return _as_value(other, "-", self) - self

    def __rmul__(self, other: Number) -> Value:
        return _as_value(other, "*", self) * self

    def __rtruediv__(self, other: Number) -> Value:
        return _as_value(other, "/", self) / self

    def __rpow__(self, other: Number) -> Value:
        return _as_value(other, "**", self) ** self

    # ------------------------------------------------------------------ functions
    def exp(self) -> Value:
        """out = e**a;  d(out)/da = e**a = out."""
        try:
            result = math.exp(self.data)
        except OverflowError:
            raise OverflowError(f"exp({self.data:g}) overflows a float") from None
        out = Value(result, _parents=(self,), _op="exp")

        def _backward() -> None:
            self.grad += result * out.grad

        out._backward = _backward
        return out

    def log(self) -> Value:
        """out = ln(a);  d(out)/da = 1/a.  Defined for a > 0 only."""
        if self.data <= 0.0:
            raise ValueError(f"log of a non-positive number: {self!r}; log needs data > 0")
        out = Value(math.log(self.data), _parents=(self,), _op="log")

        def _backward() -> None:
            self.grad += out.grad / self.data

        out._backward = _backward
        return out

    def tanh(self) -> Value:
        """out = tanh(a);  d(out)/da = 1 - tanh(a)**2."""
        result = math.tanh(self.data)
        out = Value(result, _parents=(self,), _op="tanh")

        def _backward() -> None:
            self.grad += (1.0 - result * result) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self) -> Value:
        """out = 1 / (1 + e**-a);  d(out)/da = out * (1 - out)."""
        x = self.data
        # Two forms so that neither e**-x nor e**x overflows.
        result = 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))
        out = Value(result, _parents=(self,), _op="sigmoid")

        def _backward() -> None:
            self.grad += result * (1.0 - result) * out.grad

        out._backward = _backward
        return out

    def relu(self) -> Value:
        """out = max(a, 0);  d(out)/da = 1 where a > 0, else 0."""
        out = Value(self.data if self.data > 0.0 else 0.0, _parents=(self,), _op="relu")

        def _backward() -> None:
            if self.data > 0.0:
                self.grad += out.grad

        out._backward = _backward
        return out

    # ------------------------------------------------------------------ backward
    def backward(self) -> None:
        """Fill ``.grad`` of every Value this one depends on with d(self)/d(that Value).

        Seeds ``self.grad`` with 1 (added, like every other gradient) and runs each node's
        backward rule in reverse topological order, so a node passes its gradient on only
        after all of its consumers have added theirs.
        """
        order = topological_order(self)
        self.grad += 1.0
        for node in reversed(order):
            if node._backward is not None:
                node._backward()


def topological_order(root: Value) -> list[Value]:
    """Every Value that ``root`` depends on, each after all of its parents; ``root`` last.

    An iterative depth-first search with an explicit stack, so a chain of 100 000 nodes is
    fine (a recursive one stops at Python's recursion limit, ~1 000).
    """
    order: list[Value] = []
    visited: set[int] = set()
    stack: list[tuple[Value, bool]] = [(root, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            order.append(node)
            continue
        if id(node) in visited:
            continue
        visited.add(id(node))
        stack.append((node, True))
        for parent in reversed(node.parents):
            if id(parent) not in visited:
                stack.append((parent, False))
    return order


def _power(base: float, exponent: float) -> float:
    """base ** exponent, with 0 ** negative = inf (as in PyTorch) instead of an exception."""
    try:
        return base ** exponent
    except ZeroDivisionError:
        return math.inf


def _as_value(other: object, op: str, value: Value) -> Value:
    """Wrap a number in a Value; refuse anything else with a message naming both sides."""
    if isinstance(other, Value):
        return other
    if isinstance(other, (int, float)) and not isinstance(other, bool):
        return Value(other)
    try:
        import numpy as np

        if isinstance(other, np.ndarray) or not isinstance(other, np.generic):
            raise TypeError
        return Value(float(other))
    except TypeError:
        raise TypeError(
            f"unsupported operand type(s) for {op}: 'Value' ({value!r}) and "
            f"'{type(other).__name__}' ({other!r}); Values combine with Values, ints and floats"
        ) from None
