"""The class-run side of ``minigrad grade``: a whole class, and ``--regrade`` of one student.

A class run grades every member (:func:`.classroom.grade_class`), writes each student's
results, the gradebook CSV (``--lms``) and ``--json``, prints one row per student, and exits
with status 1 when anyone was not graded (the grader failed on them, or their entry was gone
or a link when their turn came: they have no score, and the reason). Students are named by
their :func:`.names.student_id` in all of these, and ``--regrade`` takes that id.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import Optional

from minigrad.course.catalog import Lesson
from minigrad.grading.class_folder import class_members
from minigrad.grading.classroom import (grade_class, grade_student, results_name,
                                        student_results, write_csv, write_results,
                                        write_text_atomic)
from minigrad.grading.gradebook import gradebook_text, with_row_replaced
from minigrad.grading.grader import Options, SubmissionResult
from minigrad.grading.names import printable, student_id
from minigrad.grading.reports import format_table, one_line


def _interrupt(number: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM stops a class run the way Ctrl-C does


def class_member_named(path: Path, name: str) -> tuple[Optional[str], str]:
    """The student of the class folder ``path`` whose :func:`.names.student_id` is ``name``
    (as the table, the CSV and the JSON show them: ``bob\\u{180e}``, ``\\u{3d}bob``), or None
    and why there is none."""
    members = [student for student, _ in class_members(path)]
    found = next((student for student in members if student_id(student) == name), None)
    if found is not None:
        return found, ""
    hint = next((f"; the student named {name!r} is written {student_id(name)}: give "
                 f"--regrade '{student_id(name)}'" for student in members if student == name), "")
    return None, f"--regrade {name}: no such student in {path}{hint}"


def recorded_class_seed(student: str, out: Path) -> tuple[Optional[int], str]:
    """The class run's seed recorded in ``student``'s results in ``out``, or why there is
    none."""
    recorded = out / results_name(student)
    try:
        seed = json.loads(recorded.read_text(encoding="utf-8"))["extra_data"]["class_seed"]
    except (OSError, ValueError, KeyError, TypeError):
        return None, (f"--regrade {student_id(student)}: no class seed recorded in "
                      f"{recorded}; give the class run's --seed (printed by that run, and in "
                      f"each student's results as class_seed)")
    return int(seed), ""


def regrade(args: argparse.Namespace, lesson: Optional[Lesson], options: Options, out: Path,
            csv_path: Optional[Path]) -> int:
    """Grade one student of a class again (``args.regrade``, their name as
    :func:`class_member_named` found it), with the hidden cases of ``options.seed`` (new ones,
    unless ``--same-cases`` or ``--seed`` gave the seed)."""
    members = dict(class_members(args.path))
    if args.regrade not in members:  # (gone since it was looked up)
        print(printable(f"minigrad grade: --regrade {student_id(args.regrade)}: no such "
                        f"student in {args.path}"), file=sys.stderr)
        return 2
    result = grade_student(args.regrade, members[args.regrade], lesson, options)
    print(printable(format_table(result)))
    written = write_results({args.regrade: result}, out)
    write_json(args.json, {args.regrade: result}, single=True)
    print(printable(f"Results: {written[0]} (class seed {options.seed})"))
    if csv_path is not None:
        try:
            old = csv_path.read_text(encoding="utf-8") if csv_path.exists() else ""
            text = (with_row_replaced(old, args.regrade, result, args.lms) if old
                    else gradebook_text({args.regrade: result}, args.lms))
        except (OSError, ValueError) as error:
            print(f"minigrad grade: --csv {csv_path} not updated: {error}", file=sys.stderr)
            return 1
        write_text_atomic(csv_path, text)
        print(printable(f"Scores: {csv_path} ({student_id(args.regrade)}'s row replaced)"))
    return 1 if result.error else 0


def write_json(path: Optional[Path], results: dict[str, SubmissionResult],
               single: bool) -> None:
    """``--json``: Gradescope's results of one student, or of each student by name."""
    if path is None:
        return
    if single:
        (student, result), = results.items()
        write_text_atomic(path, json.dumps(student_results(result, student), indent=2))
        return
    write_text_atomic(path, json.dumps({student_id(student): student_results(result, student)
                                        for student, result in results.items()}, indent=2))


def children_at_once(jobs: int, options: Options) -> int:
    """``--jobs``, or fewer in the unprivileged-user mode: each child graded at once runs as a
    student user of its own (one user's children share its thread count and its permission
    checks), so at most as many as there are such users (said on stderr)."""
    from minigrad.grading.sandbox.probe import USER, sandbox_mode

    mode = sandbox_mode()[0] if options.confine else None
    if mode is None or mode.name != USER or jobs <= len(mode.users):
        return jobs
    allowed = max(1, len(mode.users))
    print(f"minigrad grade: --jobs {allowed}: graded code runs as {allowed} student "
          f"user{'s' * (allowed > 1)} here, and no two children graded at once share one "
          f"(for more at once, add users minigrad-student-2, -3, ...: useradd --system "
          f"--no-create-home minigrad-student-2)", file=sys.stderr)
    return allowed


def grade_class_run(args: argparse.Namespace, lesson: Optional[Lesson], options: Options,
                    out: Path, csv_path: Path) -> int:
    """Grade the class folder ``args.path``: see the module docstring."""
    print(f"Grading the class in {args.path} (class seed {options.seed}: each student's own "
          f"seed is derived from it); results go to {out} as each student is graded",
          file=sys.stderr)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        results = grade_class(args.path, lesson, options, children_at_once(args.jobs, options),
                              out=out, csv_path=csv_path, layout=args.lms)
    except KeyboardInterrupt:
        print(f"\nminigrad grade: interrupted; the students graded so far are in {out} "
              f"(finishing the ones being graded now)", file=sys.stderr)
        return 130
    except OSError as error:  # before anyone was graded: the class folder could not be listed
        print(printable(f"minigrad grade: no one was graded: {error}"), file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGTERM, previous)
    status = 0
    for what, write in (("the results in", lambda: write_results(results, out)),
                        ("the scores in", lambda: write_csv(results, csv_path, args.lms)),
                        ("--json", lambda: write_json(args.json, results, single=False))):
        try:
            write()
        except OSError as error:
            print(f"minigrad grade: could not write {what} {error}", file=sys.stderr)
            status = 1
    lessons = sorted({item.lesson.number for result in results.values()
                      for item in result.exercises})
    from minigrad.exercises.lessons.lesson08_checks import HELD_OUT_FILE

    if 8 in lessons and not (options.bank.folder / HELD_OUT_FILE).is_file():
        print("minigrad grade: note: the capstone (08.5) was scored on the digits' test split, "
              "which ships with minigrad, labels included; `minigrad held-out-digits FILE "
              "--to KEY` adds digits of your own to your key", file=sys.stderr)
    if lesson is None and len(lessons) > 1:
        print(f"minigrad grade: warning: the students' files are for different lessons "
              f"({', '.join(f'{number:02d}' for number in lessons)}); add --lesson N to "
              f"grade everyone on the same exercises", file=sys.stderr)
    print(class_table(results, options.seed))
    print(f"Scores: {csv_path}\nResults per student: {out}")
    failed = [student_id(student) for student, result in results.items() if result.error]
    if failed:
        print(printable(f"minigrad grade: {len(failed)} student(s) not graded, who have no "
                        f"score: {', '.join(failed)} (the error column of {csv_path} says "
                        f"why); grade each again with --regrade STUDENT --seed {options.seed}"),
              file=sys.stderr)
        return 1
    return status


def class_table(results: dict[str, SubmissionResult], seed: int) -> str:
    """One line per student: their id (whole: two students never share a line), total and
    maximum, or ERROR and why they were not graded."""
    names = {student: student_id(student) for student in results}
    width = min(max([len(name) for name in names.values()] + [7]), 40)
    lines = [f"{'student':<{width}}  {'total':>7}  {'max':>5}   (class seed {seed})"]
    for student, result in results.items():
        if result.error:
            lines.append(f"{names[student]:<{width}}  {'ERROR':>7}  {'':>5}   "
                         f"{one_line(result.error)[:120]}")
            continue
        note = (f"   {one_line(result.notes[0])[:120]}"
                if result.notes and not result.exercises else "")
        lines.append(f"{names[student]:<{width}}  {result.score:>7.2f}  "
                     f"{result.max_score:>5g}{note}")
    return printable("\n".join(lines))
