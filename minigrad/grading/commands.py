"""The ``minigrad exercises`` and ``minigrad grade`` subcommands (registered in ``minigrad.cli``)."""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from minigrad.grading.gradescope import VISIBILITIES
from minigrad.grading.sandbox.host import DEFAULT_MEMORY_MB

if TYPE_CHECKING:
    from minigrad.course.catalog import Lesson
    from minigrad.exercises.authoring.source import ExerciseBank
    from minigrad.grading.grader import Options

EXERCISES_HELP = "write a lesson's exercises (student version, or --solutions) into a folder"
GRADE_HELP = "grade a submission (folder, .py or notebook) or a class folder of submissions"
# The sandboxed Python with numpy and minigrad imported needs about 115 MB of address space
# before a student's line runs (measured on Linux x86-64 with lesson 01's solutions; every
# lesson's solutions pass at 130). Below this floor every exercise would fail as "ran out of
# memory", blaming the student for the grader's own needs.
MIN_MEMORY_MB = 256


# ---------------------------------------------------------------------------- exercises
def add_exercises_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("lesson", help="lesson number (1, 01) or slug (derivatives)")
    parser.add_argument("--to", required=True, type=Path, metavar="DIR",
                        help="folder to write the .py file and the notebook into")
    parser.add_argument("--solutions", action="store_true",
                        help="write the reference solutions instead of the student version")
    parser.add_argument("--force", action="store_true",
                        help="replace existing files even if their content differs")
    parser.add_argument("--exercises", type=Path, metavar="KEY",
                        help="write from the exercise sources in KEY (your private key, as "
                             "given to `minigrad grade --exercises`) instead of the built-in "
                             "ones, so that the handout and the key cannot differ")
    parser.add_argument("--lang", metavar="LANG",
                        help="the language of the notebook's text: en or zh (default: "
                             "MINIGRAD_LANG, a .minigrad-lang file in this folder or above, or "
                             "the locale); its code and the .py file are the same in both")


def run_exercises(args: argparse.Namespace) -> int:
    from minigrad.exercises.authoring.generate import WouldOverwrite, write_exercises
    from minigrad.exercises.authoring.source import BUILTIN

    from minigrad.i18n.cli_text import line
    from minigrad.i18n.language import current, mark_folder, resolve

    try:
        language = resolve(args.lang) if getattr(args, "lang", None) else current()
    except ValueError as error:
        print(f"minigrad exercises: --lang: {error}", file=sys.stderr)
        return 2
    try:
        bank = BUILTIN if args.exercises is None else _private_bank(args.exercises)
        written = write_exercises(args.lesson, args.to, args.solutions, args.force, bank,
                                  language)
        mark_folder(Path(args.to), language)  # so that check() speaks it in those notebooks
    except (ValueError, WouldOverwrite, NotADirectoryError) as error:
        print(f"minigrad exercises: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"minigrad exercises: cannot write into {args.to}: {error.strerror or error}",
              file=sys.stderr)
        return 2
    print(line("Wrote the reference solutions:", language) if args.solutions
          else line("Wrote the exercises:", language))
    for path in written:
        print(f"  {path}")
    if not args.solutions:
        print(line("Grade your work with: {command}", language,
                   command=f"minigrad grade {args.to}"))
    return 0


def _private_bank(folder: Path) -> ExerciseBank:
    """The exercise sources in ``folder``; ValueError when it holds none."""
    from minigrad.exercises.authoring.source import ExerciseBank

    bank = ExerciseBank(folder)
    if not bank.lessons():
        raise ValueError(f"--exercises {folder} holds no lessonNN.py with its "
                         f"lessonNN_checks.py")
    return bank


# ---------------------------------------------------------------------------- grade
def add_grade_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, nargs="?",
                        help="a .py file, a notebook, a folder written by `minigrad exercises`, "
                             "or a class folder with one sub-folder per student")
    parser.add_argument("--self-test", action="store_true",
                        help="grade nothing: say which sandbox mode this machine gives and run "
                             "the attacks that matter against it (read the answer key, forge "
                             "the results, kill the grader, ...); exit status 0 only if every "
                             "protection holds (with --exercises: against those sources)")
    parser.add_argument("--lesson", help="grade this lesson only (default: infer from file names "
                                         "and the functions defined)")
    parser.add_argument("--json", type=Path, metavar="FILE",
                        help="write results in Gradescope's results.json format (for a class: "
                             "all students in one file)")
    parser.add_argument("--one", action="store_true",
                        help="grade PATH as one student's submission, whatever it holds (use "
                             "it in Gradescope's run_autograder)")
    parser.add_argument("--class", dest="whole_class", action="store_true",
                        help="PATH is a class: each folder, .py and .ipynb at its top is one "
                             "student (without --class or --one, a folder of sub-folders is a "
                             "class, one of files a submission, and a mix is refused)")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                        help="time limit per exercise (all its cases), and for importing "
                             "(default 10)")
    parser.add_argument("--jobs", type=int, default=2, metavar="N",
                        help="submissions graded in parallel, for a class folder (default 2)")
    parser.add_argument("--csv", type=Path, metavar="FILE",
                        help="write a CSV of scores (default for a class: OUT/scores.csv)")
    parser.add_argument("--lms", choices=("minigrad", "canvas", "moodle"), default="minigrad",
                        help="layout of the CSV: minigrad (default: student_id, total, "
                             "points_possible, one column per exercise, error, seed, seconds, "
                             "graded_at), canvas (Canvas's gradebook import, with its Points "
                             "Possible row) or moodle (Moodle's grade import)")
    parser.add_argument("--regrade", metavar="STUDENT",
                        help="class folders: grade this one student again, with new hidden "
                             "cases (a new seed, recorded in their results); --same-cases or "
                             "--seed for the same ones")
    parser.add_argument("--same-cases", action="store_true",
                        help="with --regrade: the hidden cases of the student's last grading "
                             "(the seed recorded in their results in --out) instead of new "
                             "ones. Only when you must: a student who has read her results, "
                             "and sees the inputs of the cases her code is given, can then "
                             "hand in the answers")
    parser.add_argument("--visibility", choices=VISIBILITIES, default="after_published",
                        help="Gradescope visibility of the hidden cases' tests in --json "
                             "(default after_published: students see them once you publish "
                             "the grades); the visible cases' tests are always visible")
    parser.add_argument("--show-hidden", action="store_true",
                        help="one submission: also print each failed hidden case's call and "
                             "full message (for you, looking into a run: give the seed from "
                             "its results); never written into --json or --csv")
    parser.add_argument("--verbose", action="store_true",
                        help="say more about how graded code is confined")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="for a class folder: where the per-student JSON results go "
                             "(default: PATH-grades next to PATH)")
    parser.add_argument("--seed", type=int,
                        help="seed of the hidden cases, to reproduce a run (default: a new "
                             "random one each run). Only to reproduce: graded code sees the "
                             "inputs of the cases it is given, hidden ones included (e.g. "
                             "through sys._getframe(1).f_locals), so with a fixed seed a "
                             "student graded twice can learn them and hard-code the answers")
    parser.add_argument("--memory", type=int, default=DEFAULT_MEMORY_MB, metavar="MB",
                        help=f"address-space limit of student code (default {DEFAULT_MEMORY_MB})")
    parser.add_argument("--exercises", type=Path, metavar="DIR",
                        help="grade against the exercise sources in DIR (lessonNN.py and "
                             "lessonNN_checks.py, as in minigrad/exercises/lessons) instead of "
                             "the built-in ones, whose solutions are public")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run graded code unconfined, where the sandbox cannot work: only "
                             "for code you trust, such as your own")
    parser.add_argument("--lang", metavar="LANG",
                        help="the language of the report (the table, the results' feedback): "
                             "en or zh (default: MINIGRAD_LANG, a .minigrad-lang file in this "
                             "folder or above, or the locale; never the submission's)")
    parser.add_argument("--container", metavar="IMAGE",
                        help="run this same command inside IMAGE with docker or podman (no "
                             "network, the submission mounted read-only)")


def _usage_error(args: argparse.Namespace) -> str:
    """What is wrong with the options of ``minigrad grade``, or "" when nothing is."""
    if args.path is None:
        return "give the submission or class folder to grade (or --self-test)"
    if args.whole_class and args.one:
        return "--class and --one contradict each other: give one of them"
    if args.one and args.regrade is not None:
        return f"--regrade {args.regrade} grades a student of a class; it cannot go with --one"
    if not args.path.exists():
        return f"no such file or folder: {args.path}"
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        return f"--timeout must be a positive number of seconds, got {args.timeout:g}"
    if args.jobs < 1:
        return f"--jobs must be at least 1, got {args.jobs}"
    if args.seed is not None and args.seed < 0:
        return f"--seed must be a whole number 0 or more, got {args.seed}"
    if args.same_cases and args.regrade is None:
        return ("--same-cases goes with --regrade STUDENT (a student's last hidden cases); "
                "to grade one submission with given cases, use --seed")
    if args.show_hidden and args.regrade is not None:
        return ("--show-hidden prints one submission's hidden cases: grade the student's "
                "folder itself with the seed recorded in their results (extra_data.seed)")
    if args.same_cases and args.seed is not None:
        return ("give --same-cases (the seed recorded in the student's results) or --seed, "
                "not both")
    if args.memory < 1:
        return f"--memory must be a positive number of MB, got {args.memory}"
    if args.memory < MIN_MEMORY_MB:
        return (f"--memory {args.memory} MB is below the {MIN_MEMORY_MB} MB minimum: the "
                f"sandboxed Python, numpy and minigrad take about 120 MB before any student "
                f"code runs, and a limit near that would fail exercises as 'ran out of "
                f"memory'; give at least {MIN_MEMORY_MB} (the default is {DEFAULT_MEMORY_MB})")
    for option, target, folder in (("--json", args.json, False), ("--csv", args.csv, False),
                                   ("--out", args.out, True)):
        if target is None:
            continue
        if target.is_dir() != folder and target.exists():
            kind = "a folder" if target.is_dir() else "a file"
            return f"{option} {target} is {kind}; give a {'folder' if folder else 'file'}"
        parent = next((item for item in target.parents if item.exists()), None)
        if parent is not None and not parent.is_dir():
            return f"{option} {target}: {parent} is a file, not a folder"
    return ""


def _unwritable(destinations: list[tuple[str, Path | None, bool]]) -> str:
    """Which results destination (option, path, is a folder) cannot be written, and why; "" if
    all can. Grading may take an hour: results that cannot be written at the end are lost."""
    for option, target, is_folder in destinations:
        if target is None:
            continue
        reason = _cannot_create_file_in(target if is_folder else target.parent)
        if reason:
            return f"cannot write {option} {target}: {reason}"
    return ""


def _cannot_create_file_in(folder: Path) -> str:
    """Why no file can be created in ``folder``, or "". A folder that does not exist yet is
    made by the writers when they first write, so its nearest existing parent is tried. Probes
    with a hidden file that is removed at once (a class folder skips hidden names)."""
    existing = next((item for item in (folder, *folder.parents) if item.is_dir()), None)
    if existing is None:
        return f"no folder of {folder} exists"
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".minigrad-grade-check-"):
            pass
    except OSError as error:
        return error.strerror or str(error)
    return ""


REFUSAL = """minigrad grade: refusing to run graded code: {problem}.
Graded code runs confined by the kernel: in its own user, PID and network namespaces, or, where
those are refused (a default Docker container), as the unprivileged user minigrad-student with
the grader running as root; with Landlock, seccomp and rlimits. Without that, a submission
could read the answer keys or harm this machine. `minigrad grade --self-test` says what holds
here. Ways forward (see minigrad/grading/README.md and SECURITY.md):
  * as root in a container: `useradd --system --no-create-home minigrad-student` (the
    Gradescope setup.sh does this), and keep the keys readable by root only;
  * grade inside a container with `minigrad grade ... --container IMAGE` (docker or podman);
  * or add --no-sandbox, only for code you trust (your own)."""


def run_grade(args: argparse.Namespace) -> int:
    """``minigrad grade``, its report in the language of ``--lang`` when given (the
    instructor's choice, made in this process: graded code runs in children of its own)."""
    from minigrad.i18n import language

    if not getattr(args, "lang", None):
        return _run_grade(args)
    before = language._chosen  # restored after: an in-process caller keeps its own
    try:
        language.use(args.lang)
    except ValueError as error:
        print(f"minigrad grade: --lang: {error}", file=sys.stderr)
        return 2
    try:
        return _run_grade(args)
    finally:
        language.use(before)


def _run_grade(args: argparse.Namespace) -> int:
    from minigrad.exercises.authoring.source import BUILTIN
    from minigrad.grading.class_commands import (class_member_named, grade_class_run,
                                                 recorded_class_seed, regrade)
    from minigrad.grading.grader import Options, confinement_problem, new_seed
    from minigrad.grading.class_folder import is_course_folder, run_kind
    from minigrad.grading.names import printable
    from minigrad.grading.sandbox import cgroups
    from minigrad.grading.sandbox.probe import sandbox_mode

    # Messages may quote what a submission printed or raised: never fail to print them.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    if args.self_test:
        from minigrad.grading.selftest import run_self_test

        return run_self_test(args.exercises)
    problem = _usage_error(args)
    if problem:
        print(f"minigrad grade: {problem}", file=sys.stderr)
        return 2
    try:
        class_run = run_kind(args.path, asked_kind(args)) == "class"
    except ValueError as error:  # Ambiguous, or --class for a file
        print(printable(f"minigrad grade: {error}"), file=sys.stderr)
        return 2
    except OSError as error:
        print(f"minigrad grade: cannot read {args.path}: {error.strerror or error}",
              file=sys.stderr)
        return 2
    if args.container:
        from minigrad.grading.container import run_in_container

        return run_in_container(args)
    try:
        bank = BUILTIN if args.exercises is None else _private_bank(args.exercises)
        lesson = bank.lesson_for(args.lesson) if args.lesson is not None else None
    except ValueError as error:
        print(f"minigrad grade: {error}", file=sys.stderr)
        return 2
    cgroups.say_fallback(class_run or args.verbose)
    if not class_run and is_course_folder(args.path):
        print(f"minigrad grade: {args.path} is a course folder (made by `minigrad course`): "
              f"graded as one student's work, its notebooks included; add --lesson N to grade "
              f"one lesson", file=sys.stderr)
    if args.show_hidden and class_run:
        print(f"minigrad grade: --show-hidden prints one submission's hidden cases: grade a "
              f"student's folder of {args.path} with the seed recorded in their results "
              f"(extra_data.seed)", file=sys.stderr)
        return 2
    if args.regrade is not None and not class_run:
        print(f"minigrad grade: --regrade {args.regrade} needs a class folder; {args.path} is "
              f"one submission", file=sys.stderr)
        return 2
    out = csv_path = None
    if class_run:
        out = args.out or args.path.resolve().parent / f"{args.path.resolve().name}-grades"
    if class_run and args.regrade is None:
        csv_path = args.csv or out / "scores.csv"
    # Graded code must reach none of these (the default results folder too: a student graded
    # later in a class run must not read the messages of one graded before).
    private = tuple(dict.fromkeys(path.resolve() for path in (
        args.path, args.out, args.json, args.csv, out, csv_path) if path is not None))
    problem = confinement_problem(Options(0, bank=bank, confine=not args.no_sandbox,
                                          private=private))
    if problem:
        print(REFUSAL.format(problem=problem.rstrip(".")), file=sys.stderr)
        return 3
    mode = None if args.no_sandbox else sandbox_mode()[0]
    if mode is not None and mode.name == "user" and mode.landlock < 6 and args.jobs > 1:
        # Without Landlock's signal scope, one student's code could signal another's child
        # (same user): one at a time, no other child is alive.
        print("minigrad grade: --jobs 1: graded code runs as one user without Landlock's "
              "signal scope here", file=sys.stderr)
        args.jobs = 1
    if class_run and args.regrade is None:
        destinations = [("--out" if args.out else "the results folder (default --out)", out, True),
                        ("--csv" if args.csv else "the scores file (default --csv)", csv_path,
                         False), ("--json", args.json, False)]
    elif class_run:  # --regrade: the class's CSV, when there is one, gets the new row
        csv_path = args.csv or (out / "scores.csv" if (out / "scores.csv").is_file() else None)
        destinations = [("--out" if args.out else "the results folder (default --out)", out, True),
                        ("--json", args.json, False), ("--csv", args.csv, False)]
    else:
        csv_path = args.csv
        destinations = [("--json", args.json, False), ("--csv", args.csv, False)]
    problem = _unwritable(destinations)
    if problem:
        print(f"minigrad grade: {problem} (checked before grading, so that no results are "
              f"lost)", file=sys.stderr)
        return 2
    print(f"minigrad grade: sandbox: {mode.label() if mode else 'none (--no-sandbox)'}",
          file=sys.stderr)  # (after the usage checks: their message comes first)
    seed = args.seed
    if args.regrade is not None:
        args.regrade, problem = class_member_named(args.path, args.regrade)
        if args.regrade is None:
            print(printable(f"minigrad grade: {problem}"), file=sys.stderr)
            return 2
    if args.regrade is not None and args.same_cases:
        seed, problem = recorded_class_seed(args.regrade, out)
        if problem:
            print(f"minigrad grade: {problem}", file=sys.stderr)
            return 2
    seed = new_seed() if seed is None else seed  # a regrade's own, unless asked otherwise
    options = Options(seed, args.timeout, args.memory, bank, confine=not args.no_sandbox,
                      private=private, hidden_visibility=args.visibility)
    if args.regrade is not None:
        return regrade(args, lesson, options, out, csv_path)
    if class_run:
        return grade_class_run(args, lesson, options, out, csv_path)
    return _grade_one(args, lesson, options)


def asked_kind(args: argparse.Namespace) -> Optional[str]:
    """What the instructor said ``args.path`` is: ``"one"`` (``--one``), ``"class"``
    (``--class``, or ``--regrade``: a student of a class), or None."""
    if getattr(args, "one", False):
        return "one"
    if getattr(args, "whole_class", False) or getattr(args, "regrade", None) is not None:
        return "class"
    return None


def _grade_one(args: argparse.Namespace, lesson: Optional[Lesson], options: Options) -> int:
    from minigrad.grading.class_commands import write_json
    from minigrad.grading.classroom import write_csv, write_text_atomic
    from minigrad.grading.grader import grade_submission
    from minigrad.grading.names import printable
    from minigrad.grading.reports import disk_full, format_table, grader_failure, hidden_details

    try:
        result = grade_submission(args.path, lesson, options=options)
    except Exception as error:  # a grader bug must still leave a results file behind
        if args.json:
            try:
                write_text_atomic(args.json, json.dumps({  # no score: never a 0 that looks real
                    "score": None, "tests": [],
                    "output": f"NOT GRADED: {grader_failure(error)}; this is not your code's "
                              "fault: please tell your instructor",
                    "extra_data": {"error": grader_failure(error)}}, indent=2))
            except OSError:  # the same full disk, most likely: the message below says so
                pass
        if disk_full(error):
            print(f"minigrad grade: {grader_failure(error)}", file=sys.stderr)
            return 1
        raise
    print(printable(format_table(result)))
    if args.show_hidden and hidden_details(result):
        print(printable(hidden_details(result)))
    if args.json:
        write_json(args.json, {args.path.stem: result}, single=True)
        print(f"Results: {args.json}")
    if args.csv:
        write_csv({args.path.stem: result}, args.csv, args.lms)
    for problem in result.problems:
        print(printable(f"minigrad grade: error: {problem}"), file=sys.stderr)
    return 1 if result.problems else 0
