"""What an exercise is: the :class:`Exercise` record and the standard comparators.

A lesson's checks (``lessons/lessonNN_checks.py``) list one :class:`Exercise` per exercise
function of the lesson source (``lessons/lessonNN.py``). Expected outputs are never stored:
the grader calls the reference (solution) function on the same arguments and compares.

A *comparator* is called as ``compare(expected, got, args)`` — the reference's answer, the
student's, and the case's arguments (to accept any valid answer, e.g. any topological order,
or to name a mistake, see :mod:`.mistakes`) — and returns ``None`` when ``got`` is right, or a
short message for the student saying what is wrong.
"""

from __future__ import annotations

import copy
import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import numpy as np

from minigrad.exercises.answer_limits import AnswerLimits

Comparator = Callable[[Any, Any, tuple], Optional[str]]
Cases = Sequence[tuple]


@dataclass(frozen=True)
class Runtime:
    """minigrad as the grader's child gives it to one exercise, when not the whole package.

    The exercise then runs in a child of its own, against a copy of minigrad in which the
    modules of ``absent`` do not exist (their files are not there, and what the remaining
    modules imported from them is gone too): what is not there cannot be reached, whatever
    the code does. With ``digits_test=False`` the copy's digits hold the training split only,
    so the test split's labels, which the grader keeps, cannot be read in the child. With
    ``packages``, the child can read only these of the installed packages (say ``("numpy",)``:
    no other library's layers, wherever the grader is installed); ``None``: all of them.
    """

    absent: tuple[str, ...] = ()
    digits_test: bool = True
    packages: Optional[tuple[str, ...]] = None


@dataclass(frozen=True)
class Exercise:
    """One graded exercise.

    Attributes:
        id: ``"NN.k"``, e.g. ``"01.1"``; shown to students and used by ``check("01.1", fn)``.
        function: name of the exercise function in the lesson source.
        points: what the exercise is worth (2–5); split evenly over all its cases.
        title: a few words, shown in notebooks and grade tables.
        hint: the formula tier of the hint, in maths and words, never code: shown by
            ``check(..., show="formula")`` and in the grader's details (a failed ``check``
            shows ``idea``, then ``reading``). Without an ``idea``, the only tier.
        visible: ``() -> [args, ...]`` — argument tuples a student sees (``check`` runs these).
        hidden: ``(rng) -> [args, ...]`` — fresh random cases drawn from a
            ``numpy.random.Generator`` on each grading run; ``None`` for none.
        compare: a comparator (see the module docstring); :func:`close` by default.
        task: markdown shown above the exercise in the notebook; defaults to the function's
            docstring.
        idea: the first tier of the hint: what to think about, without the formula. Shown at
            every failed check and in the grader's table; empty means ``hint`` from the start.
        reading: the second tier: the heading of the reading's section that works the idea
            out (``"2. Linear"``), shown from the second failed check on.
        parts: names of the values the function returns, when it returns several (say
            ``("E", "dE/dw", "new weights")``): each is scored on its own, an equal share of
            the case. Empty: the case is right or wrong as a whole.
        weights: what each of ``parts`` is worth, relative to the others, when they are not
            worth the same: the parts that carry the exercise's point weigh more (say
            ``(1, 1, 4, 1, 1)``: the third is half the case). Empty: equal shares.
        source_check: ``(source) -> message or None``, run by ``check`` and by the grader on
            the submitted file's code before the cases: a message fails every case with it (an
            early, readable message; see source_rules).
        timeout: seconds that all the cases of this exercise may take together in the
            grader, when they need more than the run's ``--timeout`` (a training run, say);
            ``None``: the run's limit.
        answer: ``(*args) -> expected``: the expected answer of a case, computed from its
            arguments where the grader (or ``check``) holds it, instead of by the reference
            solution (the capstone: the labels of the test images it sends).
        runtime: the minigrad this exercise's graded code runs against (see :class:`Runtime`);
            ``None``: the whole package, in the child shared by the file's exercises.
        limits: how much of the answers the grader decodes (decoding is the grader's own work:
            see :mod:`.answer_limits`); the defaults take 10 times what the built-in
            exercises' answers need, the capstone's networks excepted.
    """

    id: str
    function: str
    points: float
    title: str
    hint: str
    visible: Callable[[], Cases]
    hidden: Optional[Callable[[np.random.Generator], Cases]] = None
    compare: Comparator = field(default_factory=lambda: close())
    task: str = ""
    idea: str = ""
    reading: str = ""
    parts: tuple[str, ...] = ()
    weights: tuple[float, ...] = ()
    timeout: Optional[float] = None
    source_check: Optional[Callable[[str], Optional[str]]] = None
    answer: Optional[Callable[..., Any]] = None
    runtime: Optional[Runtime] = None
    limits: AnswerLimits = field(default_factory=AnswerLimits)

    def __post_init__(self) -> None:
        if not (isinstance(self.points, (int, float)) and self.points > 0):
            raise ValueError(f"exercise {self.id}: points must be positive, got {self.points!r}")
        if not self.function.isidentifier():
            raise ValueError(f"exercise {self.id}: function {self.function!r} is not a name")
        if self.weights and (len(self.weights) != len(self.parts) or not all(
                isinstance(w, (int, float)) and w > 0 for w in self.weights)):
            raise ValueError(f"exercise {self.id}: weights must give each of the "
                             f"{len(self.parts)} parts a positive number, got {self.weights!r}")
        if self.timeout is not None and not (isinstance(self.timeout, (int, float))
                                             and math.isfinite(self.timeout) and self.timeout > 0):
            raise ValueError(f"exercise {self.id}: timeout must be a positive number of "
                             f"seconds, got {self.timeout!r}")


def judge(exercise: Exercise, expected: Any, got: Any, args: tuple) -> tuple[Optional[str], float]:
    """Compare one case: ``(message or None, credit)``, the credit between 0 and 1.

    Without ``exercise.parts`` the credit is 1 or 0. With parts, each returned value is
    judged in context by the exercise's own comparator: the expected answer with only that
    value replaced by the student's; the credit is the right parts' share of the
    ``exercise.weights`` (equal shares without). The message (the comparator's, on the whole
    answer) then says which parts are right.
    """
    message, credit, _ = judge_parts(exercise, expected, got, args)
    return message, credit


def judge_parts(exercise: Exercise, expected: Any, got: Any,
                args: tuple) -> tuple[Optional[str], float, tuple[str, ...]]:
    """:func:`judge`, with the names of the parts that are right (empty without parts)."""
    message = exercise.compare(expected, got, copy.deepcopy(args))
    if message is None:
        return None, 1.0, exercise.parts
    parts = exercise.parts
    if not parts or not isinstance(got, (list, tuple)) or not isinstance(expected, (list, tuple)) \
            or len(got) != len(parts) or len(expected) != len(parts):
        return message, 0.0, ()
    right = []
    for index in range(len(parts)):
        patched = list(expected)
        patched[index] = got[index]
        try:
            verdict = exercise.compare(expected, type(expected)(patched), copy.deepcopy(args))
        except Exception:  # noqa: BLE001 — a strange part is a wrong part
            verdict = "could not be compared"
        if verdict is None:
            right.append(parts[index])
    if right:
        wrong = [name for name in parts if name not in right]
        message = f"{message} (right: {', '.join(right)}; wrong: {', '.join(wrong)})"
    weights = exercise.weights or (1.0,) * len(parts)
    earned = sum(weight for name, weight in zip(parts, weights) if name in right)
    return message, earned / sum(weights), tuple(right)


def difference(expected: Any, got: Any) -> str:
    """How a wrong answer differs from the expected one, named without a value of either
    (what a hidden case may say): ``"kind"`` when somewhere in it a value is of another kind
    (a list where a number is expected, a str, None …), ``"shape"`` when the kinds agree but
    an array's shape, a list's length or a dict's keys do not, else ``"values"``."""
    found = _difference(expected, got, 0)
    return found or "values"


def _difference(expected: Any, got: Any, depth: int) -> Optional[str]:
    if depth > 100:
        return None
    if isinstance(expected, np.ndarray):
        if isinstance(got, (list, tuple)) or _is_number(got):
            try:
                got = np.asarray(got)
            except (TypeError, ValueError):
                return "kind"
        if not isinstance(got, np.ndarray) or got.dtype.kind not in "biuf":
            return "kind"
        return "shape" if got.shape != expected.shape else None
    if isinstance(expected, (bool, np.bool_)):
        return None if isinstance(got, (bool, np.bool_)) else "kind"
    if _is_number(expected):
        return None if _is_number(got) else "kind"
    if isinstance(expected, (list, tuple)):
        if not isinstance(got, (list, tuple)):
            return "kind"
        if len(got) != len(expected):
            return "shape"
        inner = [_difference(want, have, depth + 1) for want, have in zip(expected, got)]
        return "kind" if "kind" in inner else ("shape" if "shape" in inner else None)
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return "kind"
        if set(got) != set(expected):
            return "shape"
        inner = [_difference(expected[key], got[key], depth + 1) for key in expected]
        return "kind" if "kind" in inner else ("shape" if "shape" in inner else None)
    return None if type(got) is type(expected) else "kind"


# ---------------------------------------------------------------------------- comparators
def close(rtol: float = 1e-6, atol: float = 1e-9) -> Comparator:
    """Numbers and arrays equal within ``|got − expected| ≤ atol + rtol·|expected|``.

    Works through nested lists, tuples and dicts (a list and a tuple are interchangeable);
    ``nan`` matches ``nan``; ``inf`` matches an ``inf`` of the same sign; ints, bools and
    strings must be equal; an array must have the expected shape (lists are accepted).
    """

    def compare(expected: Any, got: Any, args: tuple = ()) -> Optional[str]:
        return _compare(expected, got, "", rtol, atol, exact=False)

    compare.__name__ = f"close(rtol={rtol:g}, atol={atol:g})"
    return compare


def exact() -> Comparator:
    """Equal values, element for element (``nan`` matches ``nan``); containers as in :func:`close`."""

    def compare(expected: Any, got: Any, args: tuple = ()) -> Optional[str]:
        return _compare(expected, got, "", 0.0, 0.0, exact=True)

    compare.__name__ = "exact()"
    return compare


SHOWN_IN_FULL = 16  # arrays with at most this many entries are written out in messages


def describe(value: Any, limit: int = 80) -> str:
    """A one-line description of a value for messages. Small arrays (up to SHOWN_IN_FULL
    entries) are written out in full, so that a student can redo a case by hand; larger ones
    are given by shape and dtype; anything else is cut to ``limit`` characters."""
    if isinstance(value, np.ndarray) and value.size <= SHOWN_IN_FULL:
        dtype = "" if value.dtype == np.float64 else f", dtype={value.dtype}"
        text = f"array({np.array2string(value, precision=6, separator=', ')}{dtype})"
        return " ".join(text.split())
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape}, dtype {value.dtype}"
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def mutation_message(function: Callable[..., Any], position: int) -> str:
    """What to tell a student whose function changed its argument at ``position``."""
    try:
        names = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        names = []
    name = f"`{names[position]}`" if position < len(names) else f"number {position + 1}"
    return (f"changed its argument {name} in place; leave the values you are given as they "
            "are and return new ones")


def _where(path: str) -> str:
    """Where in the returned value: ``result[2]`` is the third of the values returned."""
    return f" in result{path}" if path else ""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_))


def _compare(expected: Any, got: Any, path: str, rtol: float, atol: float,
             exact: bool) -> Optional[str]:
    if isinstance(expected, np.ndarray):
        return _compare_arrays(expected, got, path, rtol, atol, exact)
    if isinstance(expected, (bool, np.bool_)):
        if not isinstance(got, (bool, np.bool_)) or bool(got) != bool(expected):
            return f"expected {bool(expected)}{_where(path)}, got {describe(got)}"
        return None
    if _is_number(expected):
        if not _is_number(got):
            return f"expected a number{_where(path)}, got {type(got).__name__}: {describe(got)}"
        if exact and isinstance(expected, (int, np.integer)) and not isinstance(
                got, (int, np.integer)):
            return f"expected the integer {int(expected)}{_where(path)}, got {got!r}"
        return _compare_numbers(expected, got, path, rtol, atol, exact)
    if isinstance(expected, (list, tuple)):
        if not isinstance(got, (list, tuple)):
            kind = type(expected).__name__
            return f"expected a {kind} of {len(expected)}{_where(path)}, got {describe(got)}"
        if len(got) != len(expected):
            return (f"expected {len(expected)} items{_where(path)}, got {len(got)}: "
                    f"{describe(got)}")
        for index, (want, have) in enumerate(zip(expected, got)):
            message = _compare(want, have, f"{path}[{index}]", rtol, atol, exact)
            if message:
                return message
        return None
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return f"expected a dict with keys {sorted(expected)}{_where(path)}, got {describe(got)}"
        missing = [key for key in expected if key not in got]
        extra = [key for key in got if key not in expected]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing keys {missing}")
            if extra:
                parts.append(f"unexpected keys {extra}")
            return f"dict{_where(path)}: " + ", ".join(parts)
        for key in expected:
            message = _compare(expected[key], got[key], f"{path}[{key!r}]", rtol, atol, exact)
            if message:
                return message
        return None
    if expected != got or type(expected) is not type(got):
        return f"expected {describe(expected)}{_where(path)}, got {describe(got)}"
    return None


def _compare_numbers(wanted: Any, given: Any, path: str, rtol: float, atol: float,
                     exact: bool) -> Optional[str]:
    expected, got = float(wanted), float(given)
    if math.isnan(expected) or math.isnan(got) or math.isinf(expected) or math.isinf(got):
        same = (math.isnan(expected) and math.isnan(got)) or expected == got
    elif exact:
        same = expected == got
    else:
        same = abs(got - expected) <= atol + rtol * abs(expected)
    if same:
        return None
    if isinstance(wanted, (int, np.integer)):  # an integer is shown as one: 14, not 14.0
        return f"expected {int(wanted)}{_where(path)}, got {given!r}"
    return f"expected {expected!r}{_where(path)}, got {got!r}"


def _compare_arrays(expected: np.ndarray, got: Any, path: str, rtol: float, atol: float,
                    exact: bool) -> Optional[str]:
    if isinstance(got, (list, tuple)) or _is_number(got):
        try:  # (not cast to expected's dtype: that would turn 3.999 into a right index 3)
            got = np.asarray(got)
        except (TypeError, ValueError):
            return f"expected an array{_where(path)}, got {describe(got)}"
    if not isinstance(got, np.ndarray):
        return f"expected an array{_where(path)}, got {type(got).__name__}: {describe(got)}"
    if got.shape != expected.shape:
        return f"expected an array of shape {expected.shape}{_where(path)}, got shape {got.shape}"
    if expected.dtype.kind not in "biufc" or got.dtype.kind not in "biufc":
        if not np.array_equal(expected, got):
            return f"expected {describe(expected)}{_where(path)}, got {describe(got)}"
        return None
    want = expected.astype(np.float64)
    have = got.astype(np.float64)
    tolerance = 0.0 if exact else atol + rtol * np.abs(np.where(np.isfinite(want), want, 0.0))
    both_nan = np.isnan(want) & np.isnan(have)
    same_inf = np.isinf(want) & (want == have)
    with np.errstate(invalid="ignore"):
        ok = both_nan | same_inf | (np.abs(have - want) <= tolerance)
    if ok.all():
        return None
    index = tuple(int(i) for i in np.argwhere(~ok)[0])
    count = int((~ok).sum())
    shown = [int(value) if kind in "biu" and float(value).is_integer() else float(value)
             for kind, value in ((expected.dtype.kind, want[index]), (got.dtype.kind, have[index]))]
    return (f"{count} of {want.size} entries differ{_where(path)}; first at index {index}: "
            f"expected {shown[0]!r}, got {shown[1]!r}")
