"""``minigrad gradescope LESSON… --out autograder.zip``: a Gradescope autograder bundle.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` there once when it
builds the image, then, for each submission, copies the student's upload into
``/autograder/submission``, runs ``/autograder/run_autograder`` (as root, in a fresh container)
and reads ``/autograder/results/results.json``. The bundle holds:

* ``setup.sh`` — makes a venv and installs the minigrad wheel into it;
* ``run_autograder`` — grades the submission once per lesson with ``minigrad grade --one
  --lesson N --exercises …`` (a fresh seed each run) and merges the results into one
  ``results.json`` (:func:`merge_results`); a lesson that could not be graded (say, the sandbox
  cannot work in the container, or the run's time budget ran out: ``MINIGRAD_GRADESCOPE_BUDGET``
  seconds, 540 by default, under Gradescope's 10 minutes) still gives a results file that says
  why;
* ``minigrad-….whl`` — this minigrad, built from its source tree (or the wheel given);
* ``exercises/`` — the lessons' exercise sources (``lessonNN.py``, ``lessonNN_checks.py``):
  the instructor's private ones with ``--exercises DIR``, else the built-in ones.

``MINIGRAD_GRADESCOPE_ROOT`` (default ``/autograder``) and ``MINIGRAD_GRADESCOPE_VENV`` (default
``/opt/minigrad-venv``) move the two places, for trying the bundle outside Gradescope.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Optional

HELP = ("write a Gradescope autograder bundle (setup.sh, run_autograder, the minigrad wheel, "
        "the exercise sources) for one or more lessons")

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source, when it builds the autograder
# image: a venv with minigrad installed from the wheel beside this file. Written by
# `minigrad gradescope`.
set -euo pipefail
ROOT="${{MINIGRAD_GRADESCOPE_ROOT:-/autograder}}"
VENV="${{MINIGRAD_GRADESCOPE_VENV:-/opt/minigrad-venv}}"
cd "$ROOT/source"
if [ ! -x "$VENV/bin/python" ]; then
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        apt-get update && apt-get install -y python3 python3-venv python3-pip
    fi
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --no-cache-dir {wheel}
"$VENV/bin/minigrad" grade --help > /dev/null
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for each submission, as root, in a fresh container: it grades
# /autograder/submission into /autograder/results/results.json. Written by
# `minigrad gradescope`. No --seed: each run draws fresh hidden cases.
set -uo pipefail
ROOT="${{MINIGRAD_GRADESCOPE_ROOT:-/autograder}}"
VENV="${{MINIGRAD_GRADESCOPE_VENV:-/opt/minigrad-venv}}"
LESSONS=({lessons})
mkdir -p "$ROOT/results"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PARTS=()
# Gradescope kills a run past its time limit (10 minutes by default) and then has no results:
# a submission whose every exercise runs to its time limit, in a .py and a notebook per lesson,
# would take longer. So the lessons share a budget, and one stopped still gives a results file.
BUDGET="${{MINIGRAD_GRADESCOPE_BUDGET:-540}}"
for LESSON in "${{LESSONS[@]}}"; do
    LEFT=$((BUDGET - SECONDS))
    if [ "$LEFT" -gt 0 ]; then
        timeout -k 5 "$LEFT" "$VENV/bin/minigrad" grade "$ROOT/submission" --one \\
            --lesson "$LESSON" --exercises "$ROOT/source/exercises" \\
            --json "$WORK/$LESSON.json"{options} > "$WORK/$LESSON.log" 2>&1
        STATUS=$?
    else
        STATUS=124
    fi
    if [ "$STATUS" -eq 124 ] || [ "$STATUS" -eq 137 ]; then  # (137: killed after -k)
        echo "stopped: the whole run may take $BUDGET s (MINIGRAD_GRADESCOPE_BUDGET)" \\
            >> "$WORK/$LESSON.log"
    fi
    PARTS+=("$WORK/$LESSON.json" "$WORK/$LESSON.log")
done
# -I: nothing from the current folder or the environment on the merger's import path.
"$VENV/bin/python" -I -m minigrad.grading.gradescope "$ROOT/results/results.json" \\
    "${{PARTS[@]}}"
"""


# ---------------------------------------------------------------------------- the command
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("lessons", nargs="+", metavar="LESSON",
                        help="the lessons graded by this autograder (number or slug)")
    parser.add_argument("--out", required=True, type=Path, metavar="FILE",
                        help="the zip to write (upload it as the assignment's autograder)")
    parser.add_argument("--exercises", type=Path, metavar="DIR",
                        help="your private exercise sources (lessonNN.py, lessonNN_checks.py) "
                             "instead of the built-in ones, whose solutions are public")
    parser.add_argument("--wheel", type=Path, metavar="FILE",
                        help="a minigrad wheel already built (default: build one from this "
                             "minigrad's source tree with pip wheel)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="passed to minigrad grade (time limit per exercise)")
    parser.add_argument("--memory", type=int, metavar="MB",
                        help="passed to minigrad grade (address-space limit of student code)")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="grade without the kernel sandbox, where Gradescope's container "
                             "does not allow it: student code can then read the exercise "
                             "sources and tamper with the results (see the README)")


def run(args: argparse.Namespace) -> int:
    import tempfile

    from minigrad.exercises.authoring.source import ExerciseBank

    try:
        if args.exercises is not None and not args.exercises.is_dir():
            raise ValueError(f"--exercises {args.exercises} is not a folder")
        bank = ExerciseBank(args.exercises)
        lessons = [bank.lesson_for(key) for key in args.lessons]
        if args.wheel is not None and not (args.wheel.is_file()
                                           and args.wheel.name.endswith(".whl")):
            raise ValueError(f"--wheel {args.wheel} is not a .whl file")
        if args.out.is_dir():
            raise ValueError(f"--out {args.out} is a folder; give the zip file to write")
    except ValueError as error:
        print(f"minigrad gradescope: {error}", file=sys.stderr)
        return 2
    options = "".join(f" {option} {shlex.quote(str(value))}" for option, value in (
        ("--timeout", args.timeout), ("--memory", args.memory)) if value is not None)
    options += " --no-sandbox" if args.no_sandbox else ""
    with tempfile.TemporaryDirectory(prefix="minigrad-gradescope-") as scratch:
        try:
            wheel = args.wheel or build_wheel(Path(scratch))
        except (OSError, RuntimeError) as error:
            print(f"minigrad gradescope: {error}", file=sys.stderr)
            return 1
        write_bundle(args.out, wheel, bank.folder,
                     [f"{lesson.number:02d}" for lesson in lessons], options)
    print(f"Wrote {args.out}: upload it as the autograder of a Gradescope assignment "
          f"(lessons {', '.join(f'{lesson.number:02d}' for lesson in lessons)})")
    if args.no_sandbox:
        print("minigrad gradescope: warning: --no-sandbox: graded code can read the exercise "
              "sources and change the results in the container", file=sys.stderr)
    return 0


def write_bundle(out: Path, wheel: Path, sources: Path, lessons: list[str],
                 options: str = "") -> None:
    """The zip: the two scripts (executable), the wheel and ``exercises/lessonNN*.py``."""
    import zipfile

    out.parent.mkdir(parents=True, exist_ok=True)
    scripts = {"setup.sh": SETUP.format(wheel=shlex.quote(wheel.name)),
               "run_autograder": RUN.format(lessons=" ".join(lessons), options=options)}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, text in scripts.items():
            entry = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            entry.external_attr = 0o100755 << 16  # a regular file, executable
            entry.compress_type = zipfile.ZIP_DEFLATED
            bundle.writestr(entry, text)
        bundle.write(wheel, wheel.name)
        for number in lessons:
            for name in (f"lesson{number}.py", f"lesson{number}_checks.py"):
                bundle.write(sources / name, f"exercises/{name}")


def build_wheel(scratch: Path) -> Path:
    """A wheel of this minigrad, built with ``pip wheel`` from a copy of its source tree (so
    that no build folder is left in it); offline when setuptools is installed here."""
    import shutil
    import subprocess

    import minigrad

    tree = Path(minigrad.__file__).resolve().parents[1]
    if not (tree / "pyproject.toml").is_file():
        raise RuntimeError(f"minigrad is installed from a wheel ({tree}), not from its source "
                           f"tree: give that wheel with --wheel")
    copy = scratch / "source"
    shutil.copytree(tree, copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
        ".pytest_cache", ".ipynb_checkpoints"))
    command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
               str(scratch / "wheels"), str(copy)]
    try:
        import setuptools  # noqa: F401  (then the build needs no network)
        command.insert(5, "--no-build-isolation")
    except ImportError:
        pass
    done = subprocess.run(command, capture_output=True, text=True)
    wheels = sorted((scratch / "wheels").glob("minigrad*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        raise RuntimeError(f"pip wheel failed: {done.stderr.strip()[-800:]}")
    return wheels[0]


# ---------------------------------------------------------------------------- run_autograder
def merge_results(parts: list[tuple[Path, Path]]) -> dict:
    """One ``results.json`` from each lesson's (results, log): scores added, tests joined. A
    lesson without results (``minigrad grade`` refused or failed) adds a note with the end of
    its log, so that the student and the instructor see why."""
    merged: dict = {"score": 0.0, "tests": [], "output": ""}
    outputs = []
    for results, log in parts:
        try:
            data = json.loads(results.read_text(encoding="utf-8"))
            merged["score"] += float(data["score"])
            merged["tests"] += list(data.get("tests", []))
            outputs.append(str(data.get("output", "")))
        except (OSError, ValueError, KeyError, TypeError):
            try:
                tail = log.read_text(encoding="utf-8", errors="replace")[-1500:]
            except OSError:
                tail = ""
            outputs.append(f"{results.stem}: could not be graded; please tell your "
                           f"instructor.\n{tail}")
    merged["score"] = round(merged["score"], 4)
    merged["output"] = "\n".join(output for output in outputs if output)
    return merged


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m minigrad.grading.gradescope RESULTS PART.json PART.log …``."""
    argv = sys.argv[1:] if argv is None else argv
    out, rest = Path(argv[0]), [Path(item) for item in argv[1:]]
    from minigrad.grading.classroom import write_text_atomic

    write_text_atomic(out, json.dumps(merge_results(list(zip(rest[::2], rest[1::2]))),
                                      indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
