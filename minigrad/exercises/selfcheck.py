"""``check("01.1", fn)``: try an exercise on its visible cases, in your own kernel.

It calls your function and the reference on the same arguments and prints one line per case.
It never raises: a function that still raises ``NotImplementedError`` is reported as "not
attempted yet", any other error is printed, so a notebook runs top to bottom either way.
(Hidden cases run only in the grader, in a separate process.)

Hints come in tiers, so that a failed check points the way without giving the answer away.
Each case line says what is wrong (and names the mistake, when the checks know it); under them
the first failed check of an exercise prints its *idea* (what to think about); the second adds
where in the reading the idea is worked out (the lesson file and the section); from the third
on, how to ask for the formula. The formula comes only when asked for,
``check("05.1", fn, show="formula")``, and never as code.

It speaks the language of :func:`minigrad.i18n.current` (English, or Chinese in a course folder
made with ``--lang zh``, with ``MINIGRAD_LANG=zh`` or under a Chinese locale): the checks'
English messages are said in it as they are printed (:mod:`minigrad.i18n.messages`).
"""

from __future__ import annotations

import copy
import inspect
import os
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from minigrad.exercises import harness
from minigrad.exercises.codec import CodecError, changed_argument, from_json, to_json
from minigrad.exercises.mistakes import name_raised, plain_words
from minigrad.exercises.authoring.source import all_exercises, reference_function
from minigrad.exercises.spec import Exercise, describe, judge, mutation_message
from minigrad.course.catalog import Lesson
from minigrad.i18n.messages import _, heading, join, say

#: Exercise id -> how many checks of it failed in this kernel (for the hint's tier).
_failed_checks: dict[str, int] = {}


@dataclass
class CheckResult:
    """What :func:`check` found; true when every visible case passed."""

    exercise_id: str
    passed: int = 0
    total: int = 0
    attempted: bool = True
    messages: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.attempted and self.total > 0 and self.passed == self.total

    def _ipython_display_(self) -> None:
        """In a notebook the printed lines say it all; do not echo the result as well."""

    def __repr__(self) -> str:
        if not self.attempted:
            return f"<check {self.exercise_id}: not attempted yet>"
        return f"<check {self.exercise_id}: {self.passed}/{self.total} visible cases passed>"


#: What ``check(..., show=...)`` can show besides the cases.
SHOW = ("", "formula")


def check(exercise_id: str, function: Callable[..., Any], show: str = "") -> CheckResult:
    """Run the visible cases of exercise ``exercise_id`` (e.g. ``"01.1"``) on ``function``;
    ``show="formula"`` adds the exercise's formula to the hint of a failed check."""
    table = all_exercises()
    result = CheckResult(str(exercise_id))
    if show not in SHOW:
        print(_('check(..., show={show}): show can be "formula" (or left out).', show=repr(show)))
        result.attempted = False
        return result
    if exercise_id not in table:
        print(_("No exercise {exercise}; the exercises are {exercises}.",
                exercise=repr(exercise_id), exercises=", ".join(sorted(table))))
        result.attempted = False
        return result
    lesson, exercise = table[exercise_id]
    reference = reference_function(lesson, exercise)
    cases = [tuple(args) for args in exercise.visible()]
    result.total = len(cases)
    print(_("Exercise {id} — {title} ({points} points)", id=exercise.id,
            title=say(exercise.title), points=f"{exercise.points:g}"))
    if not callable(function):
        print(_("  expected a function, got {kind}", kind=type(function).__name__))
        result.attempted = False
        return result
    said: dict[str, int] = {}  # each sentence of a message, and the case that first said it
    for number, args in enumerate(cases, start=1):
        call = f"{exercise.function}({', '.join(describe(arg, 60) for arg in args)})"
        given = copy.deepcopy(args)
        try:
            answer = function(*given)
        except NotImplementedError:
            print(_("  not attempted yet: replace `raise NotImplementedError` with your code."))
            result.attempted = False
            return result
        except Exception as error:  # noqa: BLE001 — report, never raise
            _fail(result, number, call, _raised(exercise, reference, args, error), said)
            continue
        try:
            got = from_json(to_json(answer))  # exactly what the grader would receive
        except CodecError as error:
            _fail(result, number, call, f"returned something that cannot be graded: {error}", said)
            continue
        changed = changed_argument(to_json(args), given)
        if changed is not None:
            _fail(result, number, call, mutation_message(function, changed), said)
            continue
        # The reference runs only now: a stub is told "not attempted" at once, and an
        # exercise that trains a network (the capstone) does not train the reference first.
        solve = exercise.answer or reference
        expected = from_json(to_json(solve(*copy.deepcopy(args))))
        message, _credit = judge(exercise, expected, got, args)
        if message:
            _fail(result, number, call, message, said)
        else:
            result.passed += 1
            print(_("  ✓ case {number}: {call}", number=number, call=call))
    refused = _refused_source(exercise, function) if result.passed == result.total else None
    if refused:  # the cases pass, but the grader reads the code first and would refuse it
        result.passed = 0
        result.messages.append(_("the grader refuses this code: {refused}", refused=say(refused)))
        print(_("  ✗ the grader refuses this code before running it: {refused}",
                refused=say(refused)))
    elif result.passed == result.total:
        print(_("  All {total} visible cases pass. The grader also runs hidden cases.",
                total=result.total))
    else:
        print(_("  {passed}/{total} visible cases pass. {hint}", passed=result.passed,
                total=result.total, hint=hint_for(exercise, lesson, show)))
    return result


def hint_for(exercise: Exercise, lesson: Lesson | None = None, show: str = "") -> str:
    """The hint for a failed check, one tier more at each failure of the exercise: 1) its idea;
    2) the idea and the section of the reading that works it out; 3) from the third on, the
    same and how to ask for the formula. The formula itself only with ``show="formula"``, at
    any tier. An exercise without an ``idea`` has one tier, its ``hint``."""
    failures = _failed_checks[exercise.id] = _failed_checks.get(exercise.id, 0) + 1
    if not exercise.idea:
        return _("Hint: {hint}", hint=say(exercise.hint))
    text = _("Idea: {idea}", idea=say(exercise.idea))
    if failures > 1 and exercise.reading:
        where = f"lessons/{lesson.name}.md" if lesson is not None else _("the lesson's reading")
        section = heading(exercise.reading, lesson.name if lesson is not None else "")
        text += _(" Read “{section}” in {where}.", section=section, where=where)
    if show == "formula":
        return text + _(" Formula: {formula}", formula=say(exercise.hint))
    if failures > 2:
        text += _(' Still stuck after that: check("{id}", ..., show="formula") '
                  "shows the formula (never the code).", id=exercise.id)
    return text


def _fail(result: CheckResult, number: int, call: str, message: str,
          said: dict[str, int]) -> None:
    """Print a failed case. A sentence an earlier case said already (a mistake's name, an
    error) is not said again: the line points at that case instead."""
    pieces = _sentences(message)
    kept = [pieces[0]] if pieces[0] not in said else []
    earlier = sorted({said[piece] for piece in pieces if piece in said})
    kept += [piece for piece in pieces[1:] if piece not in said]
    for piece in pieces:
        said.setdefault(piece, number)
    text = say("; ".join(kept))
    if earlier:
        cases = _(" and ").join(_("case {number}", number=k) for k in earlier)
        text = join([text, _("see {cases}", cases=cases)]) if kept \
            else _("the same as {cases}", cases=cases)
    line = _("  ✗ case {number}: {call}: {message}", number=number, call=call, message=text)
    result.messages.append(line.strip())
    print(line)


def _sentences(message: str) -> list[str]:
    """``message`` cut at each ``"; "`` outside brackets: "wrong values (right: y; wrong: dx);
    see the hint" is two sentences, the bracket kept whole."""
    pieces, depth, start = [], 0, 0
    for at, char in enumerate(message):
        depth += (char in "([{") - (char in ")]}")
        if depth <= 0 and message.startswith("; ", at):
            pieces.append(message[start:at])
            start = at + 2
    return pieces + [message[start:]]


def _raised(exercise: Exercise, reference: Callable[..., Any], args: tuple,
            error: Exception) -> str:
    """What the student's function raised, in plain words, where in their code, and the
    mistake that raises it when the checks know one."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()][:4]
    text = plain_words(f"{type(error).__name__}: {'; '.join(lines)}".replace(":; ", ": "))
    if getattr(exercise.compare, "names_raised", False):
        try:
            solve = exercise.answer or reference
            expected = from_json(to_json(solve(*copy.deepcopy(args))))
            text = name_raised(exercise.compare, expected, text, args)
        except Exception:  # noqa: BLE001 — the error itself is said all the same
            pass
    return f"raised {text}{your_line(error)}"


def your_line(error: BaseException) -> str:
    """" (line 12 of lesson03_tensors.py, in backward: y = x ** 3)": the deepest frame of the
    traceback in the student's own code; the given runners' frames and minigrad's, numpy's
    and Python's own are not the student's. Empty when there is none."""
    mine = [frame for frame in traceback.extract_tb(error.__traceback__)
            if _is_yours(frame.filename) and frame.name not in GIVEN_NAMES]
    if not mine:
        return ""
    frame = mine[-1]
    where = ("your notebook cell" if "ipykernel" in frame.filename or frame.filename.startswith("<")
             else os.path.basename(frame.filename))
    code = f": {frame.line.strip()}" if frame.line else ""
    return f" (line {frame.lineno} of {where}, in {frame.name}{code})"


#: Folders whose code is not the student's: minigrad, numpy and Python's own library.
_NOT_YOURS = tuple(os.path.dirname(os.path.abspath(path)) + os.sep for path in (
    __file__.rsplit(os.sep, 2)[0] + os.sep + "__init__.py", np.__file__, os.__file__))
#: The given code in a student's file: the runners and what they use (see harness).
GIVEN_NAMES = frozenset(name for name, value in vars(harness).items()
                        if callable(value) and getattr(value, "__module__", "") == harness.__name__)


def _is_yours(filename: str) -> bool:
    path = os.path.abspath(filename) if not filename.startswith("<") else filename
    return not path.startswith(_NOT_YOURS) and "site-packages" not in path \
        and not filename.startswith("<frozen")


def _refused_source(exercise: Exercise, function: Callable[..., Any]) -> str | None:
    """What the grader's ``source_check`` says of the code ``function`` comes from: its
    module's file, or in a notebook every cell run so far (the check follows names from the
    exercise's function, so other cells do not count). None when it is accepted or unknown."""
    if exercise.source_check is None:
        return None
    source = None
    try:
        filename = inspect.getsourcefile(function)
        if filename and os.path.isfile(filename) and "ipykernel" not in filename:
            with open(filename, encoding="utf-8") as file:
                source = file.read()
        else:
            from IPython import get_ipython

            shell = get_ipython()
            if shell is not None:
                source = "\n".join(shell.user_ns.get("In", []))
    except (ImportError, OSError, TypeError):
        return None
    return exercise.source_check(source) if source else None
