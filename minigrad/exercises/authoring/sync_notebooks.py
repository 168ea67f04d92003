"""Rewrite the exercise cells of every lesson notebook from the lesson sources.

    python -m minigrad.exercises.authoring.sync_notebooks [--check] [LESSON ...]

For each lesson that has exercises and a notebook ``notebooks/NN-slug.ipynb``, the cells tagged
``minigrad-exercise`` are replaced by freshly generated ones (student form), or appended at the
end if the notebook has none. Every other cell is left exactly as it was. Running it twice
changes nothing the second time. ``--check`` only reports notebooks that are out of date
(exit status 1 if any).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from minigrad.exercises.authoring.notebook import (NOTEBOOKS, exercise_cells, notebook_path, notebook_text,
                                                   read_notebook, with_exercise_cells)
from minigrad.exercises.authoring.source import lesson_for, lessons_with_exercises
from minigrad.course.catalog import Lesson


def sync_notebook(lesson: Lesson, folder: Path = NOTEBOOKS, write: bool = True) -> bool | None:
    """Bring one notebook's exercise cells up to date; True if it changed, None if absent."""
    path = notebook_path(lesson, folder)
    if not path.exists():
        return None
    before = path.read_text(encoding="utf-8")
    after = notebook_text(with_exercise_cells(read_notebook(path), exercise_cells(lesson)))
    if after == before:
        return False
    if write:
        path.write_text(after, encoding="utf-8")
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minigrad.exercises.authoring.sync_notebooks",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson numbers or slugs (default: all)")
    parser.add_argument("--check", action="store_true", help="report only; change nothing")
    parser.add_argument("--notebooks", type=Path, default=NOTEBOOKS, help="notebook folder")
    args = parser.parse_args(argv)
    lessons = [lesson_for(key) for key in args.lessons] or lessons_with_exercises()
    stale = 0
    for lesson in lessons:
        changed = sync_notebook(lesson, args.notebooks, write=not args.check)
        name = notebook_path(lesson, args.notebooks).name
        if changed is None:
            print(f"{name}: no notebook yet, skipped")
        elif changed:
            stale += 1
            print(f"{name}: {'out of date' if args.check else 'exercise cells updated'}")
        else:
            print(f"{name}: up to date")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
