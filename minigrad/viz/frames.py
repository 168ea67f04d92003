"""From a replayed backward pass to frames: what every node holds after each step.

A :class:`Frame` is one step of the engine: the node it processes, the gradient that arrived
there, what it sent along each edge, and every node's gradient so far (``None`` while nothing
has arrived). Frames know nothing about pictures; :mod:`minigrad.viz.frame_drawing` draws
them and :mod:`minigrad.viz.trace` writes them out as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from minigrad.viz.labels import (MAX_LISTED_ELEMENTS, format_number, format_shape,
                                  summarize_array)
from minigrad.viz.replay import Replay, ReplayNode, Send

MAX_EXPRESSION = 20  # longer made-up names are replaced by "#<step>"


@dataclass
class Frame:
    """The state after step ``step`` (1, 2, …) of the backward pass."""

    step: int
    node: int                   # the node processed in this step
    grad_in: Any                # the gradient that arrived at it (float, array or None)
    sends: list[Send]           # what went along each edge, in argument order
    before: dict[int, Any]      # the gradient of each receiving node before this step
    grads: list[Any]            # every node's gradient so far, after this step
    done: set[int]              # nodes processed so far, this one included

    @property
    def changed(self) -> list[int]:
        """Nodes whose gradient this step changed, in the order they received it."""
        return list(dict.fromkeys(send.parent for send in self.sends))


def build_frames(replay: Replay) -> list[Frame]:
    """One frame per visit, in the engine's order, with running gradients."""
    grads: list[Any] = [None] * len(replay.nodes)
    if replay.visits:
        grads[replay.visits[0].node] = replay.visits[0].grad_in  # the seed: 1, or v
    frames, done = [], set()
    for step, visit in enumerate(replay.visits, start=1):
        before = {send.parent: grads[send.parent] for send in visit.sends}
        for send in visit.sends:
            previous = grads[send.parent]
            grads[send.parent] = send.sent if previous is None else previous + send.sent
        done.add(visit.node)
        frames.append(Frame(step, visit.node, visit.grad_in, visit.sends, before, list(grads),
                            set(done)))
    return frames


# ---------------------------------------------------------------------- names
def node_names(replay: Replay) -> list[str]:
    """A short name per node: its label, else an expression (``v ** 2``), else ``#step``.

    Tensor nodes are named by the tensor (``x``) or the node (``MulBackward0``), with the step
    number when a name is used twice.
    """
    names = [""] * len(replay.nodes)
    # Parents come after their children in the engine's order: name from the end.
    for node in reversed(replay.nodes):
        names[node.index] = _own_name(node, names)
    if replay.is_tensor:
        counts: dict[str, int] = {}
        for name in names:
            counts[name] = counts.get(name, 0) + 1
        names = [f"{name} #{index + 1}" if counts[name] > 1 or not name else name
                 for index, name in enumerate(names)]
    return names


def _own_name(node: ReplayNode, names: list[str]) -> str:
    if node.label:
        return node.label
    if node.kind == "function":
        return node.op
    if node.kind == "leaf":
        if node.op == "AccumulateGrad":
            return f"leaf {format_shape(node.shape or ())}"
        return format_number(node.data)  # an unnamed scalar leaf: a constant such as 2
    text = _expression(node, names)
    return text if len(text) <= MAX_EXPRESSION else f"#{node.index + 1}"


def _expression(node: ReplayNode, names: list[str]) -> str:
    """``a * b``, ``(a - b) * (a + b)``, ``tanh(a + b)``: the node's op applied to its parents."""
    parents = [names[parent] for parent in node.parents if parent is not None]
    if len(parents) == 1 and node.op.startswith("**"):  # a constant exponent: v ** 2
        return f"{operand(parents[0], '**', left=True)} ** {node.op[2:]}"
    if len(parents) == 2:
        return (f"{operand(parents[0], node.op, left=True)} {node.op} "
                f"{operand(parents[1], node.op, left=False)}")
    return f"{node.op}({', '.join(parents)})"


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "@": 2, "**": 3}


def operand(name: str, op: str | None = None, left: bool = True) -> str:
    """``name`` as an operand of ``op`` (None: before ``.grad``), bracketed where Python's
    precedence needs it: ``(a - b) * c``, ``a - (b + c)``, ``(a - b).grad``, but ``a * b + c``."""
    inner = _top_operator(name)
    if inner is None:
        return name
    if op not in _PRECEDENCE:
        return f"({name})"
    mine, theirs = _PRECEDENCE[inner], _PRECEDENCE[op]
    if mine < theirs:
        return f"({name})"
    if mine == theirs:  # Python groups from the left, ** from the right
        if op == "**":
            return f"({name})" if left else name
        regroupable = op == "+" or (op == "*" and inner == "*")  # a + (b - c) = a + b - c
        if not left and not regroupable:
            return f"({name})"
    return name


def _top_operator(name: str) -> str | None:
    """The operator of an expression outside all brackets with the lowest precedence (the one
    applied last), or None for a plain name (``a``, ``2``, ``tanh(a + b)``, ``#3``)."""
    depth, found = 0, None
    for token in name.split(" "):
        if depth == 0 and token in _PRECEDENCE and (
                found is None or _PRECEDENCE[token] <= _PRECEDENCE[found]):
            found = token
        depth += token.count("(") - token.count(")")
    return found


def definition(node: ReplayNode, names: list[str]) -> str:
    """``u = a * b`` for a named Value with a rule, the plain name otherwise."""
    name = names[node.index]
    if node.kind == "function" and node.label:
        return f"{name} ({node.op})"
    if node.kind != "value":
        return name
    text = _expression(node, names)
    return name if text == name else f"{name} = {text}"


# ---------------------------------------------------------------------- rules
_DERIVATIVE = re.compile(
    r"d\(out\)/d([A-Za-z]+)(_[a-z])?\s*=\s*(.+?)"
    r"(?=,\s+d\(out\)|;|,\s+(?:for|as|converted)\b|(?<![*/+-])\s\(|\.\s*$|\.\s+[A-Z]|$)")


def rule_text(node: ReplayNode, names: list[str]) -> str:
    """The node's local derivatives written with the graph's own names, so no letter of the
    op's docstring can be mistaken for a variable: for ``u = a * b`` with parents named ``b``
    and ``a`` the rule reads ``∂u/∂b = a,  ∂u/∂a = b``. ``∂`` marks a derivative; a name that
    is not a plain identifier is bracketed, ``∂L/∂(v ** 2) = 1``. In a Tensor graph the names
    are the nodes' (``MulBackward0 #3`` stands for that node's output), as in the trace's
    ``->`` lines; an input that needs no gradient is ``const``."""
    if not node.rule:
        return ""
    derivatives = _DERIVATIVE.findall(node.rule)
    if not derivatives:
        return node.rule
    letters = list(dict.fromkeys(letter for letter, _, _ in derivatives))
    mapping = {"out": _bracketed(names[node.index])}
    for letter, parent in zip(letters, node.parents):
        mapping[letter] = "const" if parent is None else _bracketed(names[parent])
    if node.op.startswith("**") and len(node.op) > 2:  # Value's constant exponent: v ** 2
        mapping.setdefault("b", node.op[2:])
    words = re.compile(r"\b(" + "|".join(map(re.escape, mapping)) + r")\b")
    parts = []
    for letter, suffix, expression in derivatives:
        if letter not in mapping:
            return node.rule  # a docstring this reader does not follow: show it as it is
        # Names go in after the maths is written, so a name such as (v ** 2) stays as it is.
        held = {f"\0{number}\0": name for number, name in enumerate(mapping.values())}
        marks = {letter: (name if re.fullmatch(r"[\d.]+", name) else f"\0{number}\0")
                 for number, (letter, name) in enumerate(mapping.items())}
        expression = maths(words.sub(lambda match: marks[match[1]], expression.strip()))
        expression = re.sub("\0\\d+\0", lambda match: held[match[0]], expression)
        parts.append(f"∂{mapping['out']}/∂{mapping[letter]}{suffix} = {expression}")
    return ",  ".join(parts)


_SUPERSCRIPT_DIGITS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def maths(expression: str) -> str:
    """A docstring's derivative, written in Python, in maths notation: ``2 * v**(2-1)`` reads
    ``2v``, ``1 - tanh(n)**2`` reads ``1 − tanh²(n)``, ``out * (1 - out)`` reads
    ``o·(1 − o)``; a power that is not a whole number keeps a caret (``a^b·ln(a)``)."""
    text = re.sub(r"\*\*\((\d+)\s*-\s*1\)", lambda m: f"**{int(m[1]) - 1}", expression)
    text = re.sub(r"\*\*1\b", "", text)
    text = re.sub(r"\b([a-z]+)\(([^()]*)\)\*\*(\d+)\b",
                  lambda m: f"{m[1]}{m[3].translate(_SUPERSCRIPT_DIGITS)}({m[2]})", text)
    text = re.sub(r"\*\*(\d+)\b", lambda m: m[1].translate(_SUPERSCRIPT_DIGITS), text)
    text = text.replace("**", "^")
    text = re.sub(r"(?<![\w.])(\d+(?:\.\d+)?) \* (?=[A-Za-z(\0])", r"\1", text)  # 2 * v: 2v
    return text.replace(" * ", "·").replace("-", "−")


def _bracketed(name: str) -> str:
    return name if re.fullmatch(r"[\w.·]+", name) else f"({name})"


# ---------------------------------------------------------------------- numbers
def describe(value: Any, digits: int = 4, brief: bool = False) -> str:
    """A number as a number; an array as its shape and a short preview (``brief``: an array
    too large to list, by its shape alone)."""
    if value is None:
        return "none yet"
    array = np.asarray(value)
    if array.ndim == 0 and not isinstance(value, np.ndarray):
        return format_number(float(value), digits)
    if brief and array.size > MAX_LISTED_ELEMENTS:
        return format_shape(array.shape)
    return f"{format_shape(array.shape)} {summarize_array(array, digits)}"


def is_scalar(value: Any) -> bool:
    return value is not None and not isinstance(value, np.ndarray)
