"""How much of a submission's answers the grader decodes: bounds checked on the JSON text,
before it is parsed.

Decoding is the grader's own work, in its own process: 11 MB of ``[[],[],…]`` parse into
5.5 million lists, about 450 MB, for each submission graded at once. So each exercise says
what its answers may hold (:class:`AnswerLimits`), and :func:`census` counts it in the text,
with work and memory linear in its bytes and no Python object per value:

* strings are blanked first (``"…"`` becomes ``""``), so that brackets, commas and digits
  inside them do not count;
* lists and dicts: the ``[`` and ``{`` left; values: the commas, plus one per list or dict
  (every value but the first of a list or dict follows a comma), plus one;
* nesting: the running count of opening minus closing brackets, over the brackets alone
  (checked once their number is known to be within the limit);
* the longest run of number characters (``-+.eE`` and digits).

The bounds hold for all the answers of one call of the grader (an exercise's visible cases,
or its hidden ones), except nesting and number length, which hold for each answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

import numpy as np

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")


@dataclass(frozen=True)
class AnswerLimits:
    """What the answers of one exercise may hold, as JSON (see the module docstring).

    Attributes:
        bytes: text of all the answers of one call (its visible cases, or its hidden ones).
        values: numbers, strings, lists … in all of them.
        containers: lists and dicts (a tuple, a dict and an array are one or two each).
        depth: how deeply one answer nests (an array in a tuple in a list is about 8).
        number_chars: the longest number, in characters (a float's repr takes at most 24).
    """

    bytes: int = 1_000_000
    values: int = 100_000
    containers: int = 10_000
    depth: int = 32
    number_chars: int = 40

    def __post_init__(self) -> None:
        for name in ("bytes", "values", "containers", "depth", "number_chars"):
            value = getattr(self, name)
            if not (isinstance(value, int) and value > 0):
                raise ValueError(f"AnswerLimits.{name} must be a positive whole number, got "
                                 f"{value!r}")


@dataclass
class Census:
    """What one call's answers held so far: values and containers (see :func:`census`)."""

    values: int = 0
    containers: int = 0


def census(text: bytes, limits: AnswerLimits, seen: Census) -> Optional[str]:
    """Count one answer's JSON ``text`` into ``seen`` and say which of ``limits`` it breaks
    (a sentence naming the limit), or None when it breaks none."""
    bare = _STRING.sub(b'""', text)
    opened = bare.count(b"[") + bare.count(b"{")
    closed = bare.count(b"]") + bare.count(b"}")
    seen.containers += opened
    seen.values += bare.count(b",") + opened + 1
    if seen.containers > limits.containers or closed > limits.containers:
        return (f"its answers hold more than {limits.containers:,} lists and dicts in all, the "
                f"most the grader reads for this exercise")
    if seen.values > limits.values:
        return (f"its answers hold more than {limits.values:,} values (numbers, strings, "
                f"lists…) in all, the most the grader reads for this exercise")
    if re.search(rb"[-+0-9.eE]{%d}" % (limits.number_chars + 1), bare):
        return (f"its answer holds a number written with more than {limits.number_chars} "
                f"characters, the most the grader reads")
    brackets = np.frombuffer(_NOT_BRACKET.sub(b"", bare), dtype=np.uint8)
    if brackets.size:
        steps = np.where((brackets == ord("[")) | (brackets == ord("{")), 1, -1)
        if int(np.cumsum(steps).max()) > limits.depth:
            return (f"its answer nests lists and dicts more than {limits.depth} deep, the "
                    f"most the grader reads")
    return None
