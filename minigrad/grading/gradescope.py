"""``minigrad gradescope LESSON… --out autograder.zip``: a Gradescope autograder bundle.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` there once when it
builds the image, then, for each submission, copies the student's upload into
``/autograder/submission``, runs ``/autograder/run_autograder`` (as root, in a fresh container)
and reads ``/autograder/results/results.json``. The bundle holds:

* ``setup.sh`` — makes a venv and installs the minigrad wheel into it;
* ``run_autograder`` — grades the submission once per lesson with ``minigrad grade --one
  --lesson N --exercises … --visibility V [--lang L]`` (a fresh seed each run; ``V``: when
  students see the hidden cases' tests, :data:`VISIBILITIES`; ``L``: the language of the
  feedback) and merges the results into one
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

from minigrad.i18n.messages import _

#: The oldest Python minigrad runs on (pyproject.toml's requires-python).
PYTHON = "3.10"
#: Gradescope's visibility settings of a test; the hidden cases' tests get the one chosen
#: (``--visibility``), the visible cases' tests are ``visible``.
VISIBILITIES = ("after_published", "after_due_date", "visible", "hidden")
HELP = ("write a Gradescope autograder bundle (setup.sh, run_autograder, the minigrad wheel, "
        "the exercise sources) for one or more lessons")

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source, when it builds the autograder
# image. Written by `minigrad gradescope`. Any failure fails the image build, with a message:
# better than a class of zeros.
#  1. Python >= {python} and a venv in /opt/minigrad-venv;
#  2. the libraries grading needs, pinned (requirements.lock{hash_note}), then this
#     minigrad's wheel, checked against its sha256, without dependencies (no JupyterLab);
#  3. the user graded code runs as where namespaces are refused (a default Docker container);
#  4. the exercise sources and the installed minigrad readable by root only;
#  5. `minigrad grade --self-test`: graded code can be confined here, or the build fails.
set -euo pipefail
ROOT="${{MINIGRAD_GRADESCOPE_ROOT:-/autograder}}"
VENV="${{MINIGRAD_GRADESCOPE_VENV:-/opt/minigrad-venv}}"
STUDENT="${{MINIGRAD_STUDENT_USER:-minigrad-student}}"
fail() {{ echo "setup.sh: FAILED: $*" >&2; exit 1; }}
cd "$ROOT/source"
if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    command -v apt-get >/dev/null || fail "no python3 with venv, and no apt-get to install it"
    apt-get update && apt-get install -y python3 python3-venv python3-pip \\
        || fail "could not install python3 and python3-venv"
fi
python3 -c 'import sys; sys.exit(sys.version_info < ({python_tuple}))' \\
    || fail "minigrad needs Python {python} or later; this image has $(python3 --version 2>&1)"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" || fail "could not make a venv in $VENV"
"$VENV/bin/python" -m pip install --no-cache-dir {require_hashes}-r requirements.lock \\
    || fail "could not install the pinned grading libraries of requirements.lock"
echo "{wheel_sha256}  {wheel}" | sha256sum -c --quiet - || fail "{wheel} is not the wheel bundled"
"$VENV/bin/python" -m pip install --no-cache-dir --no-deps {wheel} || fail "could not install {wheel}"
if ! id -u "$STUDENT" >/dev/null 2>&1; then
    useradd --system --no-create-home --user-group --shell /usr/sbin/nologin "$STUDENT" \\
        || fail "could not create the user $STUDENT that graded code runs as"
fi
PACKAGE="$("$VENV/bin/python" -I -c 'import minigrad, os; print(os.path.dirname(minigrad.__file__))')"
chmod -R go-rwx "$ROOT/source" "$PACKAGE" || fail "could not make the exercise sources private"
"$VENV/bin/minigrad" grade --self-test --exercises "$ROOT/source/exercises" \\
    || {self_test_failure}
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
# Where graded code runs as an unprivileged user without Landlock, the file modes keep the keys
# and the upload from it (the grader reads them as root).
chmod -R go-rwx "$ROOT/source" "$ROOT/submission" 2>/dev/null || true
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
# -I: nothing from the current folder or the environment on the merger's import path. The
# logs go to this script's output, which Gradescope shows the instructor, not the student.
"$VENV/bin/python" -I -m minigrad.grading.gradescope "$ROOT/results/results.json" \\
    "--seconds=$SECONDS" "${{PARTS[@]}}"
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
    parser.add_argument("--visibility", choices=VISIBILITIES, default="after_published",
                        help="when students see the hidden cases' tests (which show each "
                             "failed case's number and kind of failure, never its inputs or "
                             "answer): after_published (default: once you publish grades), "
                             "after_due_date, visible (at once) or hidden (never); the visible "
                             "cases' tests are always visible")
    parser.add_argument("--lang", choices=("en", "zh"),
                        help="passed to minigrad grade: the language of what students read "
                             "(en, the default, or zh)")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="grade without the kernel sandbox, where Gradescope's container "
                             "does not allow it: student code can then read the exercise "
                             "sources and tamper with the results (see the README)")


def run(args: argparse.Namespace) -> int:
    import tempfile

    from minigrad.exercises.authoring.source import ExerciseBank
    from minigrad.grading.wheels import build_wheel, lock_file

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
        ("--timeout", args.timeout), ("--memory", args.memory),
        ("--visibility", args.visibility), ("--lang", args.lang)) if value is not None)
    options += " --no-sandbox" if args.no_sandbox else ""
    with tempfile.TemporaryDirectory(prefix="minigrad-gradescope-") as scratch:
        try:
            wheel = args.wheel or build_wheel(Path(scratch))
            lock, hashed = lock_file()
        except (OSError, RuntimeError) as error:
            print(f"minigrad gradescope: {error}", file=sys.stderr)
            return 1
        write_bundle(args.out, wheel, bank.folder,
                     [f"{lesson.number:02d}" for lesson in lessons], options, lock, hashed,
                     strict=not args.no_sandbox)
    print(f"Wrote {args.out}: upload it as the autograder of a Gradescope assignment "
          f"(lessons {', '.join(f'{lesson.number:02d}' for lesson in lessons)})")
    for lesson in lessons:
        for name in key_data(f"{lesson.number:02d}"):
            if not (bank.folder / name).is_file():
                print(f"minigrad gradescope: warning: no {name} in "
                      f"{'the built-in sources' if bank.builtin else bank.folder}: the "
                      f"capstone (08.5) is scored on the digits' test split, which ships "
                      f"with minigrad, labels included; `minigrad held-out-digits FILE --to "
                      f"KEY` adds digits of your own (see the instructor guide)",
                      file=sys.stderr)
    if not hashed:
        print("minigrad gradescope: warning: the package index could not be reached for the "
              "libraries' hashes: requirements.lock pins versions only", file=sys.stderr)
    if args.no_sandbox:
        print("minigrad gradescope: warning: --no-sandbox: graded code can read the exercise "
              "sources and change the results in the container", file=sys.stderr)
    return 0


def key_data(lesson: str) -> tuple[str, ...]:
    """The data files lesson ``lesson``'s checks read from beside themselves (bundled when the
    key has them): lesson 08's held-out digits."""
    from minigrad.exercises.lessons.lesson08_checks import HELD_OUT_FILE

    return (HELD_OUT_FILE,) if lesson == "08" else ()


def write_bundle(out: Path, wheel: Path, sources: Path, lessons: list[str],
                 options: str = "", lock: str = "", hashed: bool = False,
                 strict: bool = True) -> None:
    """The zip: the two scripts (executable), the wheel, ``requirements.lock`` and
    ``exercises/lessonNN*.py``. ``strict``: ``setup.sh`` fails when the self-test does."""
    import hashlib
    import zipfile

    from minigrad.grading.wheels import lock_file

    if not lock:
        lock, hashed = lock_file(hashes=None)
    failure = ('fail "graded code cannot be confined in this image (see above): an autograder '
               'built here would grade unconfined"' if strict else
               'echo "setup.sh: warning: graded code cannot be confined here (--no-sandbox '
               'bundle)" >&2')
    out.parent.mkdir(parents=True, exist_ok=True)
    scripts = {"setup.sh": SETUP.format(
                   wheel=shlex.quote(wheel.name),
                   wheel_sha256=hashlib.sha256(wheel.read_bytes()).hexdigest(),
                   require_hashes="--require-hashes " if hashed else "",
                   hash_note=", with hashes" if hashed else "", python=PYTHON,
                   python_tuple=PYTHON.replace(".", ", "), self_test_failure=failure),
               "run_autograder": _with_language(RUN.format(lessons=" ".join(lessons),
                                                           options=options), options)}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, text in scripts.items():
            entry = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            entry.external_attr = 0o100755 << 16  # a regular file, executable
            entry.compress_type = zipfile.ZIP_DEFLATED
            bundle.writestr(entry, text)
        bundle.writestr("requirements.lock", lock)
        bundle.write(wheel, wheel.name)
        for number in lessons:
            for name in (f"lesson{number}.py", f"lesson{number}_checks.py",
                         *key_data(number)):
                if (sources / name).is_file():
                    bundle.write(sources / name, f"exercises/{name}")


# ---------------------------------------------------------------------------- run_autograder
def _with_language(script: str, options: str) -> str:
    """run_autograder, giving the merger the language of ``--lang`` when there is one (the
    merger says in it that a lesson was not graded)."""
    words = shlex.split(options)
    if "--lang" not in words[:-1]:
        return script
    line = f"export MINIGRAD_LANG={shlex.quote(words[words.index('--lang') + 1])}"
    return script.replace("set -uo pipefail\n", f"set -uo pipefail\n{line}\n", 1)


def merge_results(parts: list[tuple[Path, Path]], seconds: Optional[float] = None,
                  log=None) -> dict:  # type: ignore[no-untyped-def]
    """One ``results.json`` from each lesson's (results, log): scores added, tests joined,
    ``execution_time`` (Gradescope's field: seconds) and how graded code was confined.

    Everything in it is for the student. A lesson without results (``minigrad grade`` refused,
    failed or ran out of time) says so in plain words; the end of its log, which may hold
    advice for the instructor ("add --no-sandbox"), goes to ``log`` (run_autograder's own
    output, which Gradescope shows the instructor only)."""
    log = log or sys.stderr
    merged: dict = {"score": 0.0, "tests": [], "output": ""}
    outputs, sandboxes, seeds = [], set(), {}
    for results, lesson_log in parts:
        try:
            data = json.loads(results.read_text(encoding="utf-8"))
            merged["score"] += float(data["score"])
            merged["tests"] += list(data.get("tests", []))
            outputs.append(str(data.get("output", "")))
            extra = data.get("extra_data") or {}
            sandboxes.add(str(extra.get("sandbox", "")))
            seeds[results.stem] = extra.get("seed")
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            try:
                tail = lesson_log.read_text(encoding="utf-8", errors="replace")[-1500:]
            except OSError:
                tail = ""
            stopped = "stopped: the whole run may take" in tail
            outputs.append(
                _("Lesson {lesson}: not graded: the autograder's time ran out before it.",
                  lesson=results.stem) if stopped else
                _("Lesson {lesson}: not graded: the autograder could not grade it. This is not "
                  "your code's fault; please tell your instructor.", lesson=results.stem))
            print(f"run_autograder: lesson {results.stem} has no results; the end of its "
                  f"log:\n{tail}", file=log)
    merged["score"] = round(merged["score"], 4)
    merged["output"] = "\n".join(output for output in outputs if output)
    if seconds is not None:
        merged["execution_time"] = round(seconds, 1)
    merged["extra_data"] = {"sandbox": "; ".join(sorted(item for item in sandboxes if item)),
                            "seeds": seeds}
    return merged


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m minigrad.grading.gradescope RESULTS [--seconds=N] PART.json PART.log …``."""
    argv = sys.argv[1:] if argv is None else argv
    seconds = None
    if len(argv) > 1 and argv[1].startswith("--seconds="):
        seconds = float(argv[1].split("=", 1)[1])
        argv = [argv[0], *argv[2:]]
    out, rest = Path(argv[0]), [Path(item) for item in argv[1:]]
    from minigrad.grading.classroom import write_text_atomic

    write_text_atomic(out, json.dumps(merge_results(list(zip(rest[::2], rest[1::2])), seconds),
                                      indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
