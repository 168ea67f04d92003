"""The lesson catalog, `minigrad lessons`, and the files every ready lesson must have."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from minigrad.cli import main
from minigrad.lessons import LESSONS, find_lesson

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("key", [3, "3", "03", "tensors", "03-tensors", " Tensors "])
def test_find_lesson_by_number_slug_or_name(key: object) -> None:
    assert find_lesson(key).number == 3  # type: ignore[arg-type]


@pytest.mark.parametrize("key", [0, "9", "tensor", ""])
def test_unknown_lesson_names_the_known_ones(key: object) -> None:
    with pytest.raises(ValueError, match=r"no lesson .*1 \(derivatives\)"):
        find_lesson(key)  # type: ignore[arg-type]


def test_numbers_are_in_order_and_names_unique() -> None:
    assert [lesson.number for lesson in LESSONS] == list(range(1, len(LESSONS) + 1))
    assert len({lesson.slug for lesson in LESSONS}) == len(LESSONS)


@pytest.mark.parametrize("lesson", [lesson for lesson in LESSONS if lesson.ready],
                         ids=lambda lesson: lesson.name)
def test_a_ready_lesson_has_its_reading_notebook_and_exercises(lesson) -> None:  # type: ignore[no-untyped-def]
    assert (ROOT / "lessons" / f"{lesson.name}.md").is_file()
    assert (ROOT / "notebooks" / f"{lesson.name}.ipynb").is_file()
    assert (ROOT / "minigrad" / "exercises" / "lessons" / f"lesson{lesson.number:02d}.py").is_file()


def test_lessons_command_lists_every_lesson(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lessons"]) == 0
    printed = capsys.readouterr().out
    for lesson in LESSONS:
        assert f"{lesson.number:02d}  {lesson.title}" in printed
    assert "01  Derivatives and the chain rule\n" in printed  # ready: no "coming soon"


def test_console_script_runs() -> None:
    script = Path(sys.executable).parent / "minigrad"
    if not script.exists():
        pytest.skip("the minigrad console script is not installed next to this Python")
    result = subprocess.run([str(script), "lessons"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "Tensors, Jacobians" in result.stdout
