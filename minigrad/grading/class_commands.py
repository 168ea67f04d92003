"""The class-run side of ``minigrad grade``: a whole class, and ``--regrade`` of one student.

A class run grades every member (:func:`.classroom.grade_class`), writes each student's
results, the gradebook CSV (``--lms``) and ``--json``, prints one row per student, and exits
with status 1 when the grader itself failed on anyone (they have no score, and the reason).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import Optional

from minigrad.course.catalog import Lesson
from minigrad.grading.classroom import (grade_class, grade_student, results_name, write_csv,
                                        write_results, write_text_atomic)
from minigrad.grading.gradebook import gradebook_text, with_row_replaced
from minigrad.grading.grader import Options, SubmissionResult
from minigrad.grading.names import printable, visible_name
from minigrad.grading.reports import format_table, gradescope_results, one_line, readable_key
from minigrad.grading.submission import class_members


def _interrupt(number: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM stops a class run the way Ctrl-C does


def class_member_named(path: Path, name: str) -> Optional[str]:
    """The student of the class folder ``path`` called ``name``, or shown as ``name`` in the
    table and the CSV (``bob\\u{180e}``); None when there is none."""
    members = [student for student, _ in class_members(path)]
    if name in members:
        return name
    return next((student for student in members if visible_name(student) == name), None)


def recorded_class_seed(student: str, out: Path) -> tuple[Optional[int], str]:
    """The class run's seed recorded in ``student``'s results in ``out``, or why there is
    none."""
    recorded = out / results_name(student)
    try:
        seed = json.loads(recorded.read_text(encoding="utf-8"))["extra_data"]["class_seed"]
    except (OSError, ValueError, KeyError, TypeError):
        return None, (f"--regrade {student}: no class seed recorded in {recorded}; give the "
                      f"class run's --seed (printed by that run, and in each student's "
                      f"results as class_seed)")
    return int(seed), ""


def regrade(args: argparse.Namespace, lesson: Optional[Lesson], options: Options, out: Path,
            csv_path: Optional[Path]) -> int:
    """Grade one student of a class again, with the hidden cases of ``options.seed`` (new
    ones, unless ``--same-cases`` or ``--seed`` gave the seed)."""
    members = dict(class_members(args.path))
    args.regrade = class_member_named(args.path, args.regrade)
    if args.regrade is None:
        print(printable(f"minigrad grade: --regrade: no such student in {args.path}"),
              file=sys.stderr)
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
        print(printable(f"Scores: {csv_path} ({visible_name(args.regrade)}'s row replaced)"))
    return 1 if result.error else 0


def write_json(path: Optional[Path], results: dict[str, SubmissionResult],
               single: bool) -> None:
    """``--json``: Gradescope's results of one student, or of each student by name."""
    if path is None:
        return
    if single:
        (student, result), = results.items()
        write_text_atomic(path, json.dumps(gradescope_results(result, student), indent=2))
        return
    write_text_atomic(path, json.dumps({readable_key(student): gradescope_results(result, student)
                                        for student, result in results.items()}, indent=2))


def grade_class_run(args: argparse.Namespace, lesson: Optional[Lesson], options: Options,
                    out: Path, csv_path: Path) -> int:
    """Grade the class folder ``args.path``: see the module docstring."""
    print(f"Grading the class in {args.path} (class seed {options.seed}: each student's own "
          f"seed is derived from it); results go to {out} as each student is graded",
          file=sys.stderr)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        results = grade_class(args.path, lesson, options, args.jobs, out=out, csv_path=csv_path,
                              layout=args.lms)
    except KeyboardInterrupt:
        print(f"\nminigrad grade: interrupted; the students graded so far are in {out} "
              f"(finishing the ones being graded now)", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    write_results(results, out)
    write_csv(results, csv_path, args.lms)
    write_json(args.json, results, single=False)
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
    names = {student: visible_name(student)[:60] for student in results}
    width = max([len(name) for name in names.values()] + [7])
    print(f"{'student':<{width}}  {'total':>7}  {'max':>5}   (class seed {options.seed})")
    for student, result in results.items():
        if result.error:
            print(printable(f"{names[student]:<{width}}  {'ERROR':>7}  {'':>5}   "
                            f"{one_line(result.error)}"[:200]))
            continue
        note = (f"   {one_line(result.notes[0])}"
                if result.notes and not result.exercises else "")
        print(printable(f"{names[student]:<{width}}  {result.score:>7.2f}  "
                        f"{result.max_score:>5g}{note}"[:200]))
    print(f"Scores: {csv_path}\nResults per student: {out}")
    failed = [names[student] for student, result in results.items() if result.error]
    if failed:
        print(printable(f"minigrad grade: the grader failed on {len(failed)} student(s), who "
                        f"have no score: {', '.join(failed)} (the error column of {csv_path}); "
                        f"grade each again with --regrade STUDENT --seed {options.seed}"),
              file=sys.stderr)
        return 1
    return 0
