"""The lesson catalog, `minigrad lessons`, and the files every ready lesson must have."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from minigrad.cli import main
from minigrad.course.catalog import LESSONS, find_lesson

ROOT = Path(__file__).resolve().parents[2]


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
    assert "01  Derivatives and the chain rule  (about 1.5 hours)\n" in printed  # no "coming soon"
    assert "you build: an NCHW Conv2d Function" in printed


def test_console_script_runs() -> None:
    script = Path(sys.executable).parent / "minigrad"
    if not script.exists():
        pytest.skip("the minigrad console script is not installed next to this Python")
    result = subprocess.run([str(script), "lessons"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "Tensors, Jacobians" in result.stdout


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.name)
def test_the_catalog_and_the_readme_give_the_readings_time(lesson) -> None:  # type: ignore[no-untyped-def]
    """Each reading states a student's time; `minigrad lessons` and the README's table say
    the same (hours as 1.5 or 1½ alike)."""
    reading = (ROOT / "lessons" / f"{lesson.name}.md").read_text(encoding="utf-8")
    stated = reading.split("**Time:** ", 1)[1].split(" —", 1)[0]
    assert lesson.time == stated
    hours = stated.removeprefix("about ").split(" hour")[0].replace("½", ".5")
    row = next(line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
               if line.startswith(f"| {lesson.number:02d} |"))
    shown = row.split(" | ")[3].removesuffix(" h").replace("½", ".5")
    assert float(hours) == float(shown), (stated, row)
    assert lesson.builds, "every lesson says what the student builds"
