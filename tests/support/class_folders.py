"""A class folder of students who each hand in lesson 01's reference solution."""

from __future__ import annotations

from pathlib import Path

from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import student_file_name

LESSON01 = find_lesson(1)
FILE01 = student_file_name(LESSON01)
SOLVED = python_file_text(LESSON01, solutions=True)


def make_class(root: Path, students: list[str]) -> Path:
    """``root/class/<student>/`` with the solved lesson 01 file, for each student."""
    klass = root / "class"
    for student in students:
        (klass / student).mkdir(parents=True)
        (klass / student / FILE01).write_text(SOLVED, encoding="utf-8")
    return klass
