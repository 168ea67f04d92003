"""An exercise has one Chinese title: check() and the grader's report (messages.po) name it as
the notebook's heading does ("### 练习 05.1 — …（4 分）"), so the student finds the exercise
a message is about."""

from __future__ import annotations

import re

from minigrad.course.catalog import LESSONS
from minigrad.exercises.selfcheck import all_exercises
from minigrad.i18n import documents
from minigrad.i18n.messages import say

HEADING = re.compile(r"### 练习 (\d\d\.\d) — (.+?)（[\d.]+ 分）")


def test_check_and_the_notebook_give_an_exercise_the_same_title() -> None:
    headings = {}
    for lesson in LESSONS:
        if lesson.ready:
            for entry in documents.catalog("zh", f"notebooks/{lesson.name}").entries.values():
                found = HEADING.match(entry.msgstr)
                if found:
                    headings[found.group(1)] = found.group(2)
    exercises = all_exercises()
    assert sorted(headings) == sorted(exercises)
    differ = {number: (say(exercise.title, "zh"), headings[number])
              for number, (_lesson, exercise) in exercises.items()
              if say(exercise.title, "zh") != headings[number]}
    assert differ == {}
