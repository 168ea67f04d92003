"""Mistakes as data: how a check says what a wrong answer got wrong.

A lesson's checks know its typical mistakes. Each is a :class:`Mistake`: a function that
produces the answer the mistake gives, on the same case, and the sentence that names it.
When a student's answer is wrong, :func:`explain` replays every mistake of the exercise and
adds the sentence of each one that reproduces the answer to the comparator's message:

    "expected 0.85, got 0.95; your update matches Adam without weight decay: ..."

A few mistakes show in what the answer *is* rather than in its numbers (a gradient of the
wrong shape, a backward that raised): those give a test, ``when``, instead of ``gives``. A
mistake that makes the student's function raise is a ``when`` too: it sees the error's text as
``case.got``, a :class:`Raised` (see :func:`name_raised`, which ``check`` and the grader call).

    MISTAKES = [
        Mistake("your dL/db is not summed over the batch", part=3,
                gives=lambda case: case.g),
        Mistake("your backward is not written yet", when=lambda case: ...),
    ]
    compare = comparator(MISTAKES)

Every check uses the one tolerance, :func:`near`, to decide "this is what that mistake gives".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from minigrad.exercises.spec import Comparator, close

#: How close an answer must be to a mistake's answer to be taken for it.
RTOL, ATOL = 1e-9, 1e-12


def near(got: Any, want: Any, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """True when ``got`` has ``want``'s shape and is close to it, entry by entry (numbers,
    arrays, and lists or tuples of them); anything that cannot be compared is not near."""
    try:
        got_array = np.asarray(got, dtype=np.float64)
        want_array = np.asarray(want, dtype=np.float64)
    except (TypeError, ValueError):  # several values of different shapes: one by one
        return (isinstance(got, (list, tuple)) and isinstance(want, (list, tuple))
                and len(got) == len(want) and all(near(g, w, rtol, atol)
                                                  for g, w in zip(got, want)))
    return got_array.shape == want_array.shape and bool(
        np.allclose(got_array, want_array, rtol=rtol, atol=atol, equal_nan=True))


class Case:
    """What a mistake sees: the case's arguments by position (``case.args``) and by the names
    the checks give them (``case.x``), the right answer (``case.expected``) and the student's
    (``case.got``)."""

    def __init__(self, args: tuple, expected: Any, got: Any, names: Sequence[str] = ()) -> None:
        self.args, self.expected, self.got = args, expected, got
        for name, value in zip(names, args):
            setattr(self, name, value)


class Raised(str):
    """What a student's function raised, as its text ("ZeroDivisionError: float division by
    zero"): the ``case.got`` a ``when`` mistake sees when the function gave no answer."""


Sentence = Union[str, Callable[[Case], str]]


@dataclass(frozen=True)
class Mistake:
    """One typical mistake of an exercise.

    Attributes:
        says: the sentence that names it (or a function of the :class:`Case` that writes it,
            when it quotes the case's numbers).
        gives: ``(case) -> the answer this mistake produces`` (the whole answer, or the value
            at ``part``); ``None`` when the mistake cannot show in this case.
        part: which of the returned values the mistake shows in; ``None``: the whole answer.
        when: instead of ``gives``, a test ``(case) -> bool`` for a mistake that shows in what
            the answer is (a shape, a None, a verdict) rather than in its numbers.
        group: mistakes of one group explain the same thing in different ways (the shape of
            dL/dx, say): only the first of a group that the answer shows is named.
        raises: the mistake can make the function raise: its ``when`` is also asked when
            there is no answer, with the error's text (a :class:`Raised`) as ``case.got``.
    """

    says: Sentence
    gives: Optional[Callable[[Case], Any]] = None
    part: Optional[int] = None
    when: Optional[Callable[[Case], bool]] = None
    group: str = ""
    raises: bool = False

    def __post_init__(self) -> None:
        if (self.gives is None) == (self.when is None):
            raise ValueError("a Mistake gives a wrong answer or a test `when`, exactly one")

    def shown_by(self, case: Case) -> bool:
        """Does the student's answer show this mistake?"""
        try:
            if isinstance(case.got, Raised) and not self.raises:
                return False
            if self.when is not None:
                return bool(self.when(case))
            got, expected = case.got, case.expected
            if self.part is not None:
                if not isinstance(got, (list, tuple)) or len(got) <= self.part:
                    return False
                got, expected = got[self.part], expected[self.part]
            if near(got, expected):
                return False  # right here: this is not where the answer went wrong
            wrong = self.gives(case)
            return wrong is not None and near(got, wrong)
        except Exception:  # noqa: BLE001 — a strange answer shows no mistake
            return False

    def sentence(self, case: Case) -> str:
        return self.says(case) if callable(self.says) else self.says


def explain(message: Optional[str], mistakes: Sequence[Mistake], case: Case,
            first_only: bool = False, otherwise: Sequence[Mistake] = ()) -> Optional[str]:
    """``message`` followed by the sentence of every mistake the answer shows (of the first
    only, with ``first_only``, for mistakes listed from the most to the least specific); when
    it shows none of them, those of ``otherwise`` (a last, vaguer word) that it shows."""
    if message is None:
        return None
    named = _named(mistakes, case, first_only)
    return "; ".join([message, *(named or _named(otherwise, case, first_only))])


def _named(mistakes: Sequence[Mistake], case: Case, first_only: bool) -> list[str]:
    found: list[str] = []
    named_groups: set[str] = set()
    for mistake in mistakes:
        if mistake.group in named_groups or not mistake.shown_by(case):
            continue
        sentence = mistake.sentence(case)
        if sentence not in found:
            found.append(sentence)
        if first_only:
            break
        if mistake.group:
            named_groups.add(mistake.group)
    return found


def verdict(case: Case, slot: int) -> str:
    """The text a given runner put at ``slot`` of the answer ("" when it is not text)."""
    got = case.got
    value = got[slot] if isinstance(got, (list, tuple)) and len(got) > slot else None
    return value if isinstance(value, str) else ""


def backward_not_written(slot: int, forward: str) -> Mistake:
    """The runners of 05.1, 06.5 and 07.5 grade the forward even when backward raises, and say
    at ``slot`` what it raised: ``NotImplementedError`` means "not written yet"."""
    return Mistake(f"your backward is not written yet (it raises NotImplementedError): {forward} "
                   "is scored on its own, and earns its part; write backward next",
                   when=lambda case: verdict(case, slot).startswith(
                       "your backward raised NotImplementedError"), group="backward raised")


def backward_raised(slot: int, advice: str) -> Mistake:
    """A backward that raised something else: what it raised, and ``advice``."""
    return Mistake(lambda case: f"{verdict(case, slot)}: {advice}",
                   when=lambda case: verdict(case, slot).startswith("your backward raised"),
                   group="backward raised")


def comparator(mistakes: Sequence[Mistake], names: Sequence[str] = (),
               compare: Optional[Comparator] = None, first_only: bool = False,
               otherwise: Sequence[Mistake] = ()) -> Comparator:
    """A comparator: ``compare`` (``close`` at the shared tolerance by default), and when the
    answer is wrong, the sentences of the mistakes it shows (see :func:`explain`); ``names``
    name the case's arguments for the mistakes (``case.x``)."""
    compare = compare or close(rtol=RTOL, atol=ATOL)

    def judge(expected: Any, got: Any, args: tuple = ()) -> Optional[str]:
        case = Case(args, expected, got, names)
        if isinstance(got, Raised):  # no answer: only the sentences of what raised it
            raising = [mistake for mistake in mistakes if mistake.raises]
            return "; ".join(_named(raising, case, first_only)) or None
        return explain(compare(expected, got, args), mistakes, case, first_only, otherwise)

    judge.names_raised = True  # type: ignore[attr-defined]
    return judge


def name_raised(compare: Comparator, expected: Any, error: str, args: tuple) -> str:
    """``error`` (what the student's function raised, in words; its first line, then perhaps
    where) with, after its first line, the sentence of each mistake of the exercise known to
    raise it; the comparator of an exercise without such mistakes leaves it as it is."""
    if not getattr(compare, "names_raised", False):
        return error
    first, newline, rest = error.partition("\n")
    try:
        named = compare(expected, Raised(first), args)
    except Exception:  # noqa: BLE001 — a diagnosis must never hide the error itself
        named = None
    return f"{first}; {named}{newline}{rest}" if named else error


#: numpy's words for a shape error, and the course's: (pattern, replacement).
_PLAIN_WORDS = (
    (re.compile(r"matmul: Input operand \d+ has a mismatch in its core dimension \d+, with "
                r"gufunc signature \S+ \(size (\d+) is different from (\d+)\)"),
     r"a matrix product A @ B whose sizes do not fit: B has \1 rows where A has \2 columns "
     r"(the last size of A must equal the first size of B)"),
    (re.compile(r"operands could not be broadcast together with remapped shapes "
                r"\[original->remapped\]: ([^-\s]+)->\S+ ([^-\s]+)->\S+"),
     r"arrays of shapes \1 and \2 whose sizes do not fit together"),
    (re.compile(r"operands could not be broadcast together with remapped shapes "
                r"\[original->remapped\]: (\S+)\s+and requested shape (\S+)"),
     r"an array of shape \1 that cannot be stretched (broadcast) to shape \2"),
    (re.compile(r"operands could not be broadcast together with shapes (\S+) (\S+)\s*"),
     r"arrays of shapes \1 and \2 cannot be combined entry by entry: compare the shapes from "
     r"the right; each pair of sizes must be equal or one of them 1"),
    (re.compile(r"shapes (\S+) and (\S+) not aligned: (\d+) \(dim \d+\) != (\d+) \(dim \d+\)"),
     r"a matrix product of shapes \1 and \2 whose sizes do not fit (\3 against \4)"),
)


#: gradcheck's "worst entry d output[0][1, 0] / d input[0][2]".
_WORST_ENTRY = re.compile(r"worst entry d output\[(\d+)\](\[[^\]]*\])? / "
                          r"d input\[(\d+)\](\[[^\]]*\])?")


def _worst_entry(match: re.Match) -> str:
    output, out_entry, source, in_entry = match.groups()
    out = f"entry {out_entry} of output {output}" if out_entry else f"output {output}"
    into = f"entry {in_entry} of input {source}" if in_entry else f"input {source}"
    return f"the derivative that is most wrong: how {out} moves with {into}"


def plain_words(error: str) -> str:
    """An error's text with numpy's jargon ("gufunc signature", "remapped shapes") and
    gradcheck's "worst entry d output[0][0] / d input[0][1]" said in the course's words; any
    other text as it is."""
    for pattern, words in _PLAIN_WORDS:
        error = pattern.sub(words, error)
    return _WORST_ENTRY.sub(_worst_entry, error)


def entry_mistake(key: str, says: Sentence, wrong: Callable[[Case], Any],
                  group: str = "") -> Mistake:
    """A mistake of an exercise whose answer is a dict: it shows in the entry ``key``, which is
    wrong and is what ``wrong`` computes for the case."""
    def shows(case: Case) -> bool:
        got, expected = case.got, case.expected
        return (isinstance(got, dict) and key in got and not near(got[key], expected[key])
                and near(got[key], wrong(case)))

    return Mistake(says, when=shows, group=group)
