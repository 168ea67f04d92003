"""Exercises: generated from one source per lesson, checked in the notebook, graded in isolation.

* ``check("01.1", fn)`` — run an exercise's visible cases in your own kernel (:mod:`.selfcheck`).
* ``minigrad exercises LESSON --to DIR`` — write a lesson's exercises (:mod:`.authoring`).
* ``minigrad grade PATH`` — grade submissions, each confined by the kernel (:mod:`.grading`).

Three layers, each one place: :mod:`.authoring` (the lesson sources in :mod:`.lessons`, their
student and solution forms, notebooks), :mod:`.grading` (finding students' code, scoring it
against the answer keys, reports and class runs) and :mod:`.sandbox` (the confined child
process; small enough to audit in one sitting). Authoring never imports grading or the sandbox.
The format every exercise follows: :mod:`.spec` (the :class:`Exercise` record and comparators)
and :mod:`.codec` (how arguments and results cross the process boundary, as JSON).
"""

from __future__ import annotations

from typing import Any

from minigrad.exercises.codec import NamedFunction
from minigrad.exercises.spec import Exercise, close, exact

__all__ = ["Exercise", "NamedFunction", "check", "close", "exact"]


def check(exercise_id: str, function: Any, show: str = "") -> Any:
    """Run exercise ``exercise_id``'s visible cases on ``function`` and print what passed;
    ``show="formula"`` adds the formula to the hint.

    See :func:`minigrad.exercises.selfcheck.check`.
    """
    from minigrad.exercises.selfcheck import check as run_check

    return run_check(exercise_id, function, show)
