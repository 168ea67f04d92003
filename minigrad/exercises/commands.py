"""The ``minigrad exercises`` and ``minigrad grade`` subcommands (registered in ``minigrad.cli``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from minigrad.exercises.sandbox import DEFAULT_MEMORY_MB

EXERCISES_HELP = "write a lesson's exercises (student version, or --solutions) into a folder"
GRADE_HELP = "grade a submission (folder, .py or notebook) or a class folder of submissions"


# ---------------------------------------------------------------------------- exercises
def add_exercises_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("lesson", help="lesson number (1, 01) or slug (derivatives)")
    parser.add_argument("--to", required=True, type=Path, metavar="DIR",
                        help="folder to write the .py file and the notebook into")
    parser.add_argument("--solutions", action="store_true",
                        help="write the reference solutions instead of the student version")
    parser.add_argument("--force", action="store_true",
                        help="replace existing files even if their content differs")


def run_exercises(args: argparse.Namespace) -> int:
    from minigrad.exercises.generate import WouldOverwrite, write_exercises

    try:
        written = write_exercises(args.lesson, args.to, args.solutions, args.force)
    except (ValueError, WouldOverwrite, NotADirectoryError) as error:
        print(f"minigrad exercises: {error}", file=sys.stderr)
        return 2
    kind = "reference solutions" if args.solutions else "exercises"
    print(f"Wrote the {kind}:")
    for path in written:
        print(f"  {path}")
    if not args.solutions:
        print(f"Grade your work with: minigrad grade {args.to}")
    return 0


# ---------------------------------------------------------------------------- grade
def add_grade_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path,
                        help="a .py file, a notebook, a folder written by `minigrad exercises`, "
                             "or a class folder with one sub-folder per student")
    parser.add_argument("--lesson", help="grade this lesson only (default: infer from file names "
                                         "and the functions defined)")
    parser.add_argument("--json", type=Path, metavar="FILE",
                        help="write results in Gradescope's results.json format (for a class: "
                             "all students in one file)")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                        help="time limit per exercise (all its cases), and for importing "
                             "(default 10)")
    parser.add_argument("--jobs", type=int, default=2, metavar="N",
                        help="submissions graded in parallel, for a class folder (default 2)")
    parser.add_argument("--csv", type=Path, metavar="FILE",
                        help="write a CSV of scores (default for a class: OUT/scores.csv)")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="for a class folder: where the per-student JSON results go "
                             "(default: PATH-grades next to PATH)")
    parser.add_argument("--seed", type=int,
                        help="seed of the hidden cases, to reproduce a run (default: random)")
    parser.add_argument("--memory", type=int, default=DEFAULT_MEMORY_MB, metavar="MB",
                        help=f"address-space limit of student code (default {DEFAULT_MEMORY_MB})")


def run_grade(args: argparse.Namespace) -> int:
    from minigrad.exercises.classroom import (grade_class, write_csv, write_results)
    from minigrad.exercises.grader import (format_table, grade_submission, gradescope_results,
                                           new_seed)
    from minigrad.exercises.source import lesson_for
    from minigrad.exercises.submission import is_class_folder

    if not args.path.exists():
        print(f"minigrad grade: no such file or folder: {args.path}", file=sys.stderr)
        return 2
    try:
        lesson = lesson_for(args.lesson) if args.lesson else None
    except ValueError as error:
        print(f"minigrad grade: {error}", file=sys.stderr)
        return 2
    if args.timeout <= 0 or args.jobs < 1:
        print("minigrad grade: --timeout must be positive and --jobs at least 1", file=sys.stderr)
        return 2
    seed = new_seed() if args.seed is None else args.seed

    if is_class_folder(args.path):
        results = grade_class(args.path, lesson, seed, args.timeout, args.jobs, args.memory)
        out = args.out or args.path.resolve().parent / f"{args.path.resolve().name}-grades"
        write_results(results, out)
        csv_path = args.csv or out / "scores.csv"
        write_csv(results, csv_path)
        if args.json:
            _write_json(args.json, {student: gradescope_results(result)
                                    for student, result in results.items()})
        width = max([len(name) for name in results] + [7])
        print(f"{'student':<{width}}  {'total':>7}  {'max':>5}   (seed {seed})")
        for student, result in results.items():
            print(f"{student:<{width}}  {result.score:>7.2f}  {result.max_score:>5g}")
        print(f"Scores: {csv_path}\nResults per student: {out}")
        return 0

    try:
        result = grade_submission(args.path, lesson, seed, args.timeout, args.memory)
    except Exception as error:  # a grader bug must still leave a results file behind
        if args.json:
            _write_json(args.json, {"score": 0, "tests": [], "output":
                                    f"internal grader error ({type(error).__name__}: {error}); "
                                    "please tell your instructor"})
        raise
    print(format_table(result))
    if args.json:
        _write_json(args.json, gradescope_results(result))
        print(f"Results: {args.json}")
    if args.csv:
        write_csv({args.path.stem: result}, args.csv)
    return 0


def _write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
