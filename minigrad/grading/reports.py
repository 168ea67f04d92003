"""Reports of a graded submission: Gradescope's ``results.json`` and a plain-text table."""

from __future__ import annotations

import errno
import textwrap
import unicodedata
from typing import Any, Optional

from minigrad.grading.gradescope import VISIBILITIES
from minigrad.grading.grader import ExerciseResult, SubmissionResult
from minigrad.grading.names import printable
from minigrad.i18n.language import current
from minigrad.i18n.messages import _, say


def _case_lines(result: ExerciseResult, visible: bool) -> str:
    lines = []
    chosen = [case for case in result.cases if case.visible == visible]
    messages = {case.message for case in chosen}
    if chosen and not any(case.passed for case in chosen) and len(messages) == 1:
        return _("every case: {message}", message=say(messages.pop()))  # e.g. a syntax error
    for number, case in enumerate(chosen, start=1):
        mark = _("passed") if case.passed else _("FAILED — {message}", message=say(case.message))
        # a hidden case by its number only (its message names the kind of failure only)
        lines.append(_("case {number}: {call}: {mark}", number=number, call=case.call, mark=mark)
                     if visible else _("hidden case {number}: {mark}", number=number, mark=mark))
    if any(not case.passed for case in chosen) and first_hint(result) and not unrun(result):
        lines.append(_("Hint: {hint}", hint=say(first_hint(result))))
    return "\n".join(lines)


def unrun(result: ExerciseResult) -> bool:
    """True when the exercise never ran: its file has a syntax error or does not import (one
    message for the whole file; the exercise's hints do not apply)."""
    return bool(result.cases) and result.cases[0].kind in ("syntax", "import")


def first_hint(result: ExerciseResult) -> str:
    """The grader shows the first tier of an exercise's hint, its idea, and never the formula
    (``check(..., show="formula")`` in the notebook gives that, to a student who asks)."""
    return result.exercise.idea


def gradescope_results(result: SubmissionResult,
                       student: Optional[str] = None) -> dict[str, Any]:
    """The submission's results in Gradescope's ``results.json`` format.

    Each exercise gives a "visible cases" test (visibility ``visible``) and, when it has hidden
    cases, a "hidden cases" test (visibility ``result.hidden_visibility``, one of
    :data:`VISIBILITIES`: ``minigrad grade --visibility``), which names each failed hidden
    case by its number and the kind of failure only. ``extra_data``, which Gradescope keeps
    for the instructor, records the seed (and a class run's seed and the ``student`` it was
    derived for), when grading started and how long it took, and the grader's own ``error``,
    if any; the ``output`` a student reads holds no seed (with the exercise sources, a seed
    gives the hidden cases).
    """
    hidden_visibility = result.hidden_visibility
    if hidden_visibility not in VISIBILITIES:
        raise ValueError(f"unknown visibility {hidden_visibility!r}; choose one of "
                         f"{', '.join(VISIBILITIES)}")
    tests = []
    for item in result.exercises:
        name = f"{item.exercise.id} {say(item.exercise.title)}"
        for visible, label, visibility in ((True, _("visible cases"), "visible"),
                                           (False, _("hidden cases"), hidden_visibility)):
            score, max_score = item.points_for(visible)
            if max_score == 0:
                continue
            tests.append({"name": _("{test} ({cases})", test=name, cases=label),
                          "score": score, "max_score": max_score,
                          "output": _clean(_case_lines(item, visible) or feedback(item)),
                          "visibility": visibility})
    summary = []
    if result.error:
        summary.append(_("NOT GRADED: {error}", error=say(result.error)))
    summary.append(_("minigrad grader; a failed hidden case shows its number and the kind of "
                     "failure, not its inputs or answer"))
    if result.files:
        summary.append(_("graded: {files}", files=", ".join(result.files)))
    summary += [say(note) for note in result.notes]
    extra: dict[str, Any] = {"seed": result.seed,
                             "files": [readable_key(f) for f in result.files],
                             "max_score": result.max_score, "sandbox": result.sandbox,
                             "started": result.started, "seconds": result.seconds}
    if result.class_seed is not None:
        extra.update(class_seed=result.class_seed, student=readable_key(student or ""))
    if result.error:  # not graded: no number that could pass for a score of 0 out of 0
        extra.update(error=_clean(result.error), max_score=None)
    graded = {"score": None if result.error else result.score,
              "output": _clean("\n".join(summary)), "tests": tests, "extra_data": extra}
    if result.seconds is not None:
        graded["execution_time"] = result.seconds
    return graded


def feedback(item: ExerciseResult) -> str:
    """``item.feedback`` (its first failed case and what is wrong) in the current language."""
    failed = [case for case in item.cases if not case.passed]
    if not failed:
        return ""
    first = failed[0]
    if first.kind in ("not_implemented", "missing", "syntax", "import"):
        return say(first.message)
    if first.visible:
        return f"{first.call}: {say(first.message)}"
    hidden = [case for case in item.cases if not case.visible]
    return _("hidden case {number}: {message}", number=hidden.index(first) + 1,
             message=say(first.message))


def status(item: ExerciseResult) -> str:
    """``item.status`` in the current language ("passed", "2.5/5 cases", "timed out" …)."""
    text = item.status
    if text == "passed":
        return _("passed")
    if text.endswith(" cases") and "/" in text:
        return _("{count} cases", count=text[: -len(" cases")])
    return say(text)


def readable_key(name: str) -> str:
    """A file or student name as valid JSON text: an undecodable byte (a lone surrogate) is
    written as its escape (``\\udcff``), so two such names stay two keys."""
    return name.encode("utf-8", "backslashreplace").decode("utf-8")


def _clean(text: str) -> str:
    """``text`` without lone surrogates (from odd file names or student messages), which some
    JSON readers, Gradescope's among them, refuse."""
    return text.encode("utf-8", "replace").decode("utf-8")


def format_table(result: SubmissionResult, width: int = 60) -> str:
    """A plain-text table: one row per exercise with points, max, status and feedback."""
    lines = [_("Grading {path}  (seed {seed})", path=one_line(str(result.path)), seed=result.seed)]
    if result.error:
        lines.append(_("  NOT GRADED: {error}", error=one_line(say(result.error))))
    if result.files:
        lines.append(_("  graded: {files}", files=one_line(", ".join(result.files))))
    lines += [_("  note: {note}", note=one_line(say(note))) for note in result.notes]
    if not result.exercises:
        lines.append(_("  nothing to grade"))
        return "\n".join(lines)
    for message in dict.fromkeys(feedback(item) for item in result.exercises if unrun(item)):
        lines.append(f"  {one_line(message)}")  # once, not under every exercise of the file
    lines.append(f"  {pad(_('id'), 6)}{pad(_('exercise'), 34)}{pad(_('points'), 7, '>')}"
                 f"{pad(_('max'), 5, '>')}  {pad(_('status'), 15)}{_('feedback')}")
    for item in result.exercises:
        said = _("not run: see above") if unrun(item) else one_line(feedback(item))
        if width_of(said) > width:
            said = cut(said, width - 1) + "…"
        title = say(item.exercise.title)
        title = title if width_of(title) <= 32 else cut(title, 31) + "…"
        lines.append(f"  {item.exercise.id:<6}{pad(title, 34)}{item.score:>7.2f}"
                     f"{item.max_score:>5g}  {pad(one_line(status(item)), 15)}{said}")
    lines.append(f"  {pad(_('total'), 40)}{result.score:>7.2f}{result.max_score:>5g}")
    def needs_details(item: ExerciseResult) -> bool:  # a cut message, or a hint to give
        attempted = item.status not in ("not attempted", "missing")
        return bool(item.feedback) and not unrun(item) and (
            width_of(one_line(feedback(item))) > width or (attempted and bool(first_hint(item))))

    details = [item for item in result.exercises if needs_details(item)]
    if details:  # the table cuts feedback short: here it is whole, with the hint
        lines.append("")
        for item in details:
            lines += textwrap.wrap(f"{item.exercise.id}: {one_line(feedback(item))}",
                                   width=100, initial_indent="  ", subsequent_indent="      ")
            if first_hint(item) and item.status not in ("not attempted", "missing"):
                lines += textwrap.wrap(_("hint: {hint}", hint=one_line(say(first_hint(item)))),
                                       width=100, initial_indent="      ",
                                       subsequent_indent="      ")
    return "\n".join(lines)


def width_of(text: str) -> int:
    """Columns ``text`` takes in a terminal: a wide (CJK) character takes two (in English,
    its length: the English table is laid out as it always was)."""
    if current() == "en":
        return len(text)
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def pad(text: str, width: int, align: str = "<") -> str:
    """``text`` padded with spaces to ``width`` columns (``format``'s ``:<`` and ``:>``, for
    text that may hold wide characters)."""
    room = " " * max(width - width_of(text), 0)
    return text + room if align == "<" else room + text


def cut(text: str, width: int) -> str:
    """The longest start of ``text`` that takes at most ``width`` columns."""
    taken = 0
    for at, char in enumerate(text):
        taken += width_of(char)
        if taken > width:
            return text[:at]
    return text


def hidden_details(result: SubmissionResult) -> str:
    """The failed hidden cases with their calls and full messages, for the instructor who
    looks into a run (``minigrad grade --show-hidden``): never written into results."""
    lines = []
    for item in result.exercises:
        hidden = [case for case in item.cases if not case.visible]
        lines += [f"  {item.exercise.id} hidden case {number}: {one_line(case.detail)}"
                  for number, case in enumerate(hidden, start=1) if case.detail]
    return "\n".join(["Failed hidden cases (for you, not the student):", *lines]) if lines \
        else ""


def one_line(text: str) -> str:
    """Runs of whitespace, line breaks included, as one space: a row stays one row. Invisible
    characters are escaped first (:func:`.names.printable`): an odd space such as U+3000 at the
    end of a name must show, not vanish into the join."""
    return " ".join(printable(text).split())


def disk_full(error: BaseException) -> bool:
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


def grader_failure(error: BaseException) -> str:
    """What to tell the user when grading itself failed (not the student's code): a full
    disk is named as such, since it is the one such failure the user can fix themselves."""
    if disk_full(error):
        return (f"the grader could not write its files: the disk is full ({error}); free some "
                f"space and grade again")
    return f"internal grader error ({type(error).__name__}: {error})"
