"""The ``minigrad`` command line: ``minigrad lessons``, and more subcommands as the course grows.

Each subcommand lives in its own module and registers itself in :data:`SUBCOMMANDS` with a
function that adds its arguments and a function that runs it.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Sequence

from minigrad.course.catalog import LESSONS
from minigrad.course import slides as slides_command
from minigrad.course.folder import (COURSE_HELP, JUPYTER_OPTION, add_course_arguments,
                                    run_course)
from minigrad.figures import command as figures_command
from minigrad.grading import gradescope, held_out
from minigrad.grading.commands import (EXERCISES_HELP, GRADE_HELP,
                                       add_exercises_arguments, add_grade_arguments,
                                       run_exercises, run_grade)
from minigrad.viz import command as graph_command


def _lessons_command(args: argparse.Namespace) -> int:
    """The table of contents, in the course's language (the lessons' titles and summaries
    are the site's, so both say the same)."""
    from minigrad.i18n.cli_text import line
    from minigrad.i18n.documents import text
    from minigrad.i18n.language import current

    language = args.lang or current()
    for lesson in LESSONS:
        title, covers, builds = (text(part, "site", language)
                                 for part in (lesson.title, lesson.covers, lesson.builds))
        status = "" if lesson.ready else "  " + line("(coming soon)", language)
        time = lesson.time if language == "en" else text(lesson.time.removeprefix("about "),
                                                         "site", language)
        print(f"{lesson.number:02d}  {title}{status}" + (f"  ({time})" if time else ""))
        print(f"    {covers}")
        if builds:
            print("    " + line("you build: {builds}", language, builds=builds))
    return 0


def _add_lessons_arguments(parser: argparse.ArgumentParser) -> None:
    from minigrad.i18n.language import language_argument

    parser.add_argument("--lang", default=None, type=language_argument, metavar="LANG",
                        help="en or zh (中文); default: MINIGRAD_LANG, then the locale")


# name -> (help, add_arguments, run)
SUBCOMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None],
                             Callable[[argparse.Namespace], int]]] = {
    "lessons": ("list the lessons, in order, with what each covers", _add_lessons_arguments,
                _lessons_command),
    "course": (COURSE_HELP, add_course_arguments, run_course),
    "figures": ("regenerate the course figures (PNG/SVG) into a folder",
                figures_command.add_arguments, figures_command.run),
    "exercises": (EXERCISES_HELP, add_exercises_arguments, run_exercises),
    "grade": (GRADE_HELP, add_grade_arguments, run_grade),
    "gradescope": (gradescope.HELP, gradescope.add_arguments, gradescope.run),
    "held-out-digits": (held_out.HELP, held_out.add_arguments, held_out.run),
    "graph": (graph_command.HELP, graph_command.add_arguments, graph_command.run),
    "slides": (slides_command.HELP, slides_command.add_arguments, slides_command.run),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="minigrad", description="The minigrad course.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, add_arguments, run) in SUBCOMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        add_arguments(sub)
        sub.set_defaults(run=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    # `minigrad course` hands JupyterLab's own options (--ServerApp.port=8890 …) to JupyterLab.
    passed = [word for word in unknown if JUPYTER_OPTION.fullmatch(word)]
    if args.command != "course" or len(passed) != len(unknown):
        if unknown:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    args.jupyter_options = passed
    try:
        code = args.run(args)
        sys.stdout.flush()  # a closed pipe shows up here, while we can still handle it
        return code
    except BrokenPipeError:
        return _reader_went_away()


def _reader_went_away() -> int:
    """The output was piped into a command that stopped reading (``minigrad lessons | head``).
    That is not an error: end quietly, as ``cat`` does. stdout is pointed at /dev/null so that
    Python's own flush at exit does not fail again and print a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is no real file (a test's capture): nothing to do
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
