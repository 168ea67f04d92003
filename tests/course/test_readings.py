"""Every ready lesson's reading starts with its prerequisites and a time estimate, ends with
self-check questions and a table of its graded exercises (ids and points as the grader has
them), and embeds only figures that exist in assets/ and are drawn by the project's code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from minigrad import figures
from minigrad.exercises.authoring.source import exercises, lessons_with_exercises
from minigrad.course.catalog import LESSONS

ROOT = Path(__file__).resolve().parents[2]
READY = [lesson for lesson in LESSONS if lesson.ready]


def _reading(lesson) -> str:  # type: ignore[no-untyped-def]
    return (ROOT / "lessons" / f"{lesson.name}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("lesson", READY, ids=lambda lesson: lesson.name)
def test_reading_opens_with_prerequisites_and_time(lesson) -> None:  # type: ignore[no-untyped-def]
    head = _reading(lesson)[:1200]
    assert "**Prerequisites:**" in head and "**Time:**" in head


@pytest.mark.parametrize("lesson", READY, ids=lambda lesson: lesson.name)
def test_reading_ends_with_self_check_and_its_graded_exercises(lesson) -> None:  # type: ignore[no-untyped-def]
    text = _reading(lesson)
    check_at, exercises_at = text.find("## Check yourself"), text.find("## Graded exercises")
    assert 0 < check_at < exercises_at
    assert len(re.findall(r"^\d+\. ", text[check_at:exercises_at], re.MULTILINE)) >= 3
    if lesson in lessons_with_exercises():
        table = dict(re.findall(r"^\| (\d\d\.\d+) \|.*\| (\d+) \|$", text[exercises_at:],
                                re.MULTILINE))
        assert table == {item.id: f"{item.points:g}" for item in exercises(lesson)}


@pytest.mark.parametrize("lesson", READY, ids=lambda lesson: lesson.name)
def test_reading_figures_exist_and_are_registered(lesson) -> None:  # type: ignore[no-untyped-def]
    figures.find_figures()  # import every module that registers figures
    for name in re.findall(r"\]\(\.\./assets/([^)]+)\)", _reading(lesson)):
        assert (ROOT / "assets" / name).is_file(), name
        assert name in figures.FIGURES, f"{name} is not drawn by minigrad figures"
