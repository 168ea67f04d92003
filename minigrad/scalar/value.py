"""A scalar autograd engine: every number remembers how it was made.

A :class:`Value` holds a float (``data``), the derivative of the final output with respect to
it (``grad``), the Values it was computed from (``parents``, in argument order), the name of
the operation (``op``) and that operation's backward rule. Given the gradient that arrived at
the output (``grad_output``), the rule sends each parent its share by the chain rule::

    out = a * b                          # forward: out.data = a.data * b.data
    a.grad += b.data * grad_output       # backward: d(out)/da = b
    b.grad += a.data * grad_output       #           d(out)/db = a

Gradients are *added* (``+=``), never assigned: a Value used twice (``x * x``) receives one
contribution per use, and leaves keep adding up across separate ``backward()`` calls, as
PyTorch's leaves do, until you reset them (``leaf.grad = 0.0``).

Each rule is one plain function per operation, ``rule(out, grad_output)``, that reads what it
needs from ``out`` and ``out.parents``. Nodes hold no closures and no references to
themselves, so a graph costs two small objects per node and is freed as soon as it is dropped.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Callable, Union

Number = Union[int, float]
BackwardRule = Callable[["Value", float], None]  # rule(out, grad_output)


class Value:
    """One scalar node of a computation graph.

    Attributes:
        data: the number this node holds (a Python float).
        grad: d(root)/d(self) after ``root.backward()``; starts at 0.0.
        label: a name for drawings (``"a"``, ``"loss"``); optional.
        op: the operation that produced this node (``"*"``, ``"tanh"``), ``""`` for a leaf.
        parents: the Values this node was computed from, in argument order.
    """

    __slots__ = ("data", "grad", "label", "op", "parents", "_backward", "_exponent")
    __array_ufunc__ = None  # numpy scalars on the left defer to our reflected operators

    def __init__(self, data: Number, label: str = "", _parents: tuple[Value, ...] = (),
                 _op: str = "", _backward: BackwardRule | None = None) -> None:
        if type(data) is not float:  # the fast path: every op below passes a float
            data = _to_float(data)
        self.data = data
        self.grad = 0.0
        self.label = label
        self.op = _op
        self.parents = _parents
        self._backward = _backward
        self._exponent = 0.0  # the constant b of ``a ** b`` when b is a number (op "**b")

    def __repr__(self) -> str:
        name = f"{self.label}: " if self.label else ""
        return f"Value({name}data={self.data:.6g}, grad={self.grad:.6g})"

    # ------------------------------------------------------------------ arithmetic
    # Each operation computes its output and names its backward rule, which sits right below
    # it: ``rule(out, grad_output)`` adds d(out)/d(parent) * grad_output to each parent's grad.
    def __add__(self, other: Value | Number) -> Value:
        """out = a + b."""
        other = other if isinstance(other, Value) else _as_value(other, "+", self)
        return Value(self.data + other.data, "", (self, other), "+", Value._add_backward)

    @staticmethod
    def _add_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = 1,  d(out)/db = 1."""
        a, b = out.parents
        a.grad += grad_output
        b.grad += grad_output

    def __sub__(self, other: Value | Number) -> Value:
        """out = a - b."""
        other = other if isinstance(other, Value) else _as_value(other, "-", self)
        return Value(self.data - other.data, "", (self, other), "-", Value._sub_backward)

    @staticmethod
    def _sub_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = 1,  d(out)/db = -1."""
        a, b = out.parents
        a.grad += grad_output
        b.grad -= grad_output

    def __mul__(self, other: Value | Number) -> Value:
        """out = a * b."""
        other = other if isinstance(other, Value) else _as_value(other, "*", self)
        return Value(self.data * other.data, "", (self, other), "*", Value._mul_backward)

    @staticmethod
    def _mul_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = b,  d(out)/db = a."""
        a, b = out.parents
        a.grad += b.data * grad_output
        b.grad += a.data * grad_output

    def __truediv__(self, other: Value | Number) -> Value:
        """out = a / b, for b != 0."""
        other = other if isinstance(other, Value) else _as_value(other, "/", self)
        if other.data == 0.0:
            raise ZeroDivisionError(
                f"division by zero: {self!r} / {other!r}; the divisor's data is 0"
            )
        return Value(self.data / other.data, "", (self, other), "/", Value._div_backward)

    @staticmethod
    def _div_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = 1/b,  d(out)/db = -a/b**2."""
        a, b = out.parents
        a.grad += grad_output / b.data
        b.grad -= a.data / (b.data * b.data) * grad_output

    def __pow__(self, other: Value | Number) -> Value:
        """out = a ** b; a negative base needs an integer exponent for a real result.

        A number as exponent (``v ** 2``) is a constant of the op, as in micrograd and
        PyTorch: the node's op reads ``**2`` and its only parent is ``a``. A Value exponent
        is an input like any other, with a gradient of its own.
        """
        if isinstance(other, Value):
            return Value(_power(self, other), "", (self, other), "**", Value._pow_backward)
        exponent = _as_value(other, "**", self)
        out = Value(_power(self, exponent), "", (self,), f"**{_number_text(exponent.data)}",
                    Value._pow_constant_backward)
        out._exponent = exponent.data
        return out

    @staticmethod
    def _pow_constant_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = b * a**(b-1), for a constant b (0 when b == 0, as in PyTorch)."""
        (base,) = out.parents
        b = out._exponent
        if b != 0.0:
            base.grad += b * _power_or_inf(base.data, b - 1.0) * grad_output

    @staticmethod
    def _pow_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = b * a**(b-1),  d(out)/db = a**b * ln(a).

        As in PyTorch: d(out)/da is 0 when b == 0; d(out)/db is 0 where a == 0 (b > 0) and NaN
        where a < 0, since ln(a) is not real there.
        """
        base, exponent = out.parents
        a, b = base.data, exponent.data
        if b != 0.0:
            base.grad += b * _power_or_inf(a, b - 1.0) * grad_output
        if a > 0.0:
            exponent.grad += out.data * math.log(a) * grad_output
        elif a < 0.0:
            exponent.grad += math.nan

    def __neg__(self) -> Value:
        """out = -a."""
        return Value(-self.data, "", (self,), "neg", Value._neg_backward)

    @staticmethod
    def _neg_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = -1."""
        out.parents[0].grad -= grad_output

    # A number on the left (2 + v, 2 / v, 2 ** v) makes Python call these; the number becomes
    # a leaf Value so the graph still shows both operands, in their written order.
    def __radd__(self, other: Number) -> Value:
        return _as_value(other, "+", self, reflected=True) + self

    def __rsub__(self, other: Number) -> Value:
        return _as_value(other, "-", self, reflected=True) - self

    def __rmul__(self, other: Number) -> Value:
        return _as_value(other, "*", self, reflected=True) * self

    def __rtruediv__(self, other: Number) -> Value:
        return _as_value(other, "/", self, reflected=True) / self

    def __rpow__(self, other: Number) -> Value:
        return _as_value(other, "**", self, reflected=True) ** self

    # ------------------------------------------------------------------ functions
    def exp(self) -> Value:
        """out = e**a."""
        try:
            result = math.exp(self.data)
        except OverflowError:
            raise OverflowError(f"exp of {self!r} overflows a float (data > 709.78)") from None
        return Value(result, "", (self,), "exp", Value._exp_backward)

    @staticmethod
    def _exp_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = e**a = out."""
        out.parents[0].grad += out.data * grad_output

    def log(self) -> Value:
        """out = ln(a), defined for a > 0 only."""
        if not self.data > 0.0:
            raise ValueError(f"log of a non-positive number: {self!r}; log needs data > 0")
        return Value(math.log(self.data), "", (self,), "log", Value._log_backward)

    @staticmethod
    def _log_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = 1/a."""
        a = out.parents[0]
        a.grad += grad_output / a.data

    def tanh(self) -> Value:
        """out = tanh(a) = (e**a - e**-a) / (e**a + e**-a)."""
        return Value(math.tanh(self.data), "", (self,), "tanh", Value._tanh_backward)

    @staticmethod
    def _tanh_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = 1 - tanh(a)**2 = 1 - out**2."""
        out.parents[0].grad += (1.0 - out.data * out.data) * grad_output

    def sigmoid(self) -> Value:
        """out = 1 / (1 + e**-a)."""
        x = self.data
        # Two equal forms, so that neither e**-x (x << 0) nor e**x (x >> 0) overflows.
        if x >= 0.0:
            result = 1.0 / (1.0 + math.exp(-x))
        else:
            result = math.exp(x) / (1.0 + math.exp(x))
        return Value(result, "", (self,), "sigmoid", Value._sigmoid_backward)

    @staticmethod
    def _sigmoid_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = out * (1 - out)."""
        out.parents[0].grad += out.data * (1.0 - out.data) * grad_output

    def relu(self) -> Value:
        """out = max(a, 0)."""
        return Value(self.data if self.data > 0.0 else 0.0, "", (self,), "relu",
                     Value._relu_backward)

    @staticmethod
    def _relu_backward(out: Value, grad_output: float) -> None:
        """d(out)/da = 1 where a > 0, else 0 (out > 0 exactly when a > 0)."""
        if out.data > 0.0:
            out.parents[0].grad += grad_output

    # ------------------------------------------------------------------ backward
    def backward(self) -> None:
        """Fill ``.grad`` of every Value this one depends on with d(self)/d(that Value).

        Runs each node's backward rule once, in reverse topological order, so a node passes its
        gradient on only after every consumer has added its share. Leaves *accumulate* across
        calls; intermediate nodes are reset first, so they show this call's gradient only (and
        a stale one never leaks into the leaves through a shared sub-graph).
        """
        order = topological_order(self)
        for node in order:
            if node._backward is not None:
                node.grad = 0.0
        self.grad += 1.0  # d(self)/d(self)
        for node in reversed(order):
            if node._backward is not None:
                node._backward(node, node.grad)


def topological_order(root: Value) -> list[Value]:
    """Every Value that ``root`` depends on, each after all of its parents; ``root`` last.

    A depth-first search with an explicit stack: a node is appended once all its parents are,
    so a chain of 100 000 nodes is fine (a recursive search stops at Python's recursion limit,
    about 1 000 deep). Parents are visited in argument order.
    """
    order: list[Value] = []
    visited: set[Value] = {root}
    # Each entry: a node and an iterator over its remaining parents.
    stack = [(root, iter(root.parents))]
    while stack:
        node, parents = stack[-1]
        for parent in parents:
            if parent not in visited:
                visited.add(parent)
                stack.append((parent, iter(parent.parents)))
                break
        else:  # every parent is already in ``order``
            stack.pop()
            order.append(node)
    return order


def _power(base: Value, exponent: Value) -> float:
    """base.data ** exponent.data as a float, or an error that says what went wrong and why."""
    try:
        result = base.data ** exponent.data
    except ZeroDivisionError:
        raise ZeroDivisionError(
            f"division by zero: {base!r} ** {exponent!r} divides by 0; "
            "a zero base needs a non-negative exponent"
        ) from None
    except OverflowError:
        raise OverflowError(f"{base!r} ** {exponent!r} overflows a float") from None
    if isinstance(result, complex):
        raise ValueError(
            f"non-real power: {base!r} ** {exponent!r} is a complex number; "
            "a negative base needs an integer exponent"
        )
    return result


def _number_text(number: float) -> str:
    """A number as it reads in an op's name: ``2``, ``0.5``, ``-1``."""
    return f"{number:.6g}"


def _power_or_inf(base: float, exponent: float) -> float:
    """base ** exponent, with 0 ** negative = inf (as in PyTorch) instead of an exception."""
    try:
        return base ** exponent
    except ZeroDivisionError:
        return math.inf


def _to_float(data: object) -> float:
    """The float in ``data`` (an int, a float, a numpy scalar), or a TypeError naming it."""
    if isinstance(data, Value):
        raise TypeError(f"Value(...) expects a number, got a Value ({data!r}); use it directly")
    if not isinstance(data, Real):
        raise TypeError(
            f"Value(...) expects a real number (int or float), got "
            f"{type(data).__name__}: {data!r}"
        )
    return float(data)


def _as_value(other: object, op: str, value: Value, reflected: bool = False) -> Value:
    """Wrap a number in a leaf Value; refuse anything else with a message naming both sides."""
    if isinstance(other, Value):
        return other
    if isinstance(other, Real):
        return Value(float(other))
    sides = [f"'Value' ({value!r})", f"'{type(other).__name__}' ({other!r})"]
    if reflected:
        sides.reverse()
    raise TypeError(
        f"unsupported operand type(s) for {op}: {sides[0]} and {sides[1]}; "
        "a Value combines with Values, ints and floats"
    )
