"""The exercise cells of a lesson notebook, generated from the lesson source.

Every generated cell carries the tag ``minigrad-exercise``. For each exercise: a markdown cell
(title, points, task), a code cell with the function (student or solution form) and a code
cell ``check("NN.k", function)``. Before them come a heading and one code cell with the
source's imports. Notebooks are read and written as plain JSON in nbformat's own layout
(indent 1, sorted keys), so cells that are not ours stay byte for byte the same.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

from minigrad.exercises.authoring.source import (BUILTIN, ExerciseBank, remove_markers,
                                                 split_source, strip_solutions)
from minigrad.course.catalog import Lesson

#: The tag of the generated exercise cells; the grader grades those cells of a notebook.
EXERCISE_TAG = "minigrad-exercise"

NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"


def notebook_path(lesson: Lesson, folder: Path = NOTEBOOKS) -> Path:
    return Path(folder) / f"{lesson.name}.ipynb"


def _lines(text: str) -> list[str]:
    """Cell source as nbformat stores it: lines that keep their newline, except the last."""
    text = text.strip("\n")
    return text.splitlines(keepends=True) if text else []


def _cell(kind: str, text: str, cell_id: str) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "id": cell_id,
                            "metadata": {"tags": [EXERCISE_TAG]}, "source": _lines(text)}
    if kind == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    return cell


def _task_text(lesson: Lesson, exercise: Any, bank: ExerciseBank) -> str:
    if exercise.task:
        return exercise.task
    doc = inspect.getdoc(bank.reference_function(lesson, exercise)) or ""
    lines = doc.splitlines()
    # The docstring's first line repeats "Exercise NN.k — title"; the heading shows it already.
    if lines and lines[0].lower().startswith(f"exercise {exercise.id}"):
        lines = lines[1:]
    return "\n".join(lines).strip()


def exercise_cells(lesson: Lesson, solutions: bool = False,
                   bank: ExerciseBank = BUILTIN) -> list[dict[str, Any]]:
    """The tagged cells of ``lesson``'s notebook, student form (or ``solutions=True``), from
    the built-in sources or ``bank``'s."""
    text = bank.source_text(lesson)
    form = remove_markers(text) if solutions else strip_solutions(text)
    items = bank.exercises(lesson)
    parts = split_source(form, [exercise.function for exercise in items])
    prefix = f"minigrad-ex{lesson.number:02d}"
    total = sum(exercise.points for exercise in items)
    intro_lines = parts.docstring.splitlines()[1:] if parts.docstring else []
    intro = "\n".join(intro_lines).strip()
    cells = [
        _cell("markdown",
              f"## Exercises ({total:g} points)\n\n{intro}\n\n"
              f"To grade your work, save this notebook and run `minigrad grade {lesson.name}.ipynb` "
              f"in a terminal, in the notebook's folder: it runs the visible cases and hidden "
              f"ones on fresh random inputs.", f"{prefix}-intro"),
        _cell("code", parts.preamble.rstrip() + "\n\nfrom minigrad.exercises import check",
              f"{prefix}-setup"),
    ]
    for exercise in items:
        slug = exercise.id.replace(".", "-")
        points = f"{exercise.points:g} point" + ("" if exercise.points == 1 else "s")
        cells.append(_cell("markdown",
                           f"### Exercise {exercise.id} — {exercise.title} ({points})\n\n"
                           f"{_task_text(lesson, exercise, bank)}", f"minigrad-ex{slug}-task"))
        cells.append(_cell("code", parts.functions[exercise.function], f"minigrad-ex{slug}-code"))
        cells.append(_cell("code", f'check("{exercise.id}", {exercise.function})',
                           f"minigrad-ex{slug}-check"))
    return cells


def is_exercise_cell(cell: dict[str, Any]) -> bool:
    return EXERCISE_TAG in (cell.get("metadata", {}).get("tags") or [])


def with_exercise_cells(notebook: dict[str, Any], cells: list[dict[str, Any]]) -> dict[str, Any]:
    """A copy of ``notebook`` whose tagged cells are ``cells``: in place of the old tagged
    cells (where the first of them was), or appended at the end. Other cells are untouched."""
    result = dict(notebook)
    old = list(notebook.get("cells", []))
    positions = [index for index, cell in enumerate(old) if is_exercise_cell(cell)]
    kept = [cell for cell in old if not is_exercise_cell(cell)]
    at = positions[0] if positions else len(kept)
    new_cells = [dict(cell) for cell in cells]
    if notebook.get("nbformat", 4) == 4 and notebook.get("nbformat_minor", 5) < 5:
        for cell in new_cells:
            cell.pop("id", None)  # cell ids exist from nbformat 4.5 on
    result["cells"] = kept[:at] + new_cells + kept[at:]
    return result


def read_notebook(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def notebook_text(notebook: dict[str, Any]) -> str:
    """The notebook as nbformat writes it (indent 1, sorted keys, a final newline)."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def empty_notebook() -> dict[str, Any]:
    return {"cells": [], "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}


def without_outputs(notebook: dict[str, Any]) -> dict[str, Any]:
    result = dict(notebook)
    cells = []
    for cell in notebook.get("cells", []):
        cell = dict(cell)
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cells.append(cell)
    result["cells"] = cells
    return result
