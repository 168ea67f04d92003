"""`minigrad exercises N --lang zh` (or a Chinese locale) writes the exercise notebook in
Chinese: its Markdown from the lesson notebook's catalog, its code cells and the .py file the
English ones."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import write_exercises
from minigrad.exercises.authoring.source import student_file_name
from minigrad.i18n import blocks

CJK = re.compile(r"[\u4e00-\u9fff]")


def _cells(folder: Path, kind: str) -> list[str]:
    notebook = json.loads((folder / "05-mlp.ipynb").read_text(encoding="utf-8"))
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == kind]


def test_the_chinese_exercise_notebook_has_chinese_prose_and_the_english_code(tmp_path) -> None:
    lesson = find_lesson(5)
    write_exercises(lesson, tmp_path / "en")
    write_exercises(lesson, tmp_path / "zh", language="zh")
    assert _cells(tmp_path / "zh", "code") == _cells(tmp_path / "en", "code")
    assert (tmp_path / "zh" / student_file_name(lesson)).read_text(encoding="utf-8") \
        == (tmp_path / "en" / student_file_name(lesson)).read_text(encoding="utf-8")
    markdown = _cells(tmp_path / "zh", "markdown")
    assert len(markdown) == len(_cells(tmp_path / "en", "markdown"))
    assert any(cell.startswith("### 练习 05.2 — ") for cell in markdown)
    english = [block for cell in markdown for block in blocks.messages(cell)
               if not CJK.search(block) and not block.startswith("    ")]
    assert english == []


def test_the_command_line_follows_lang_and_the_locale(tmp_path) -> None:
    command = [sys.executable, "-m", "minigrad.cli", "exercises", "5", "--to"]
    english = {key: value for key, value in os.environ.items()
               if not key.startswith(("LC_", "LANG", "MINIGRAD_LANG"))}
    runs = {"flag": (["--lang", "zh"], {**english, "LANG": "C.UTF-8"}),
            "locale": ([], {**english, "LANG": "zh_CN.UTF-8"}),
            "english": ([], {**english, "LANG": "C.UTF-8"})}
    for name, (options, environment) in runs.items():
        done = subprocess.run(command + [str(tmp_path / name)] + options, capture_output=True,
                              text=True, env=environment, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert any(cell.startswith("## 练习") for cell in _cells(tmp_path / "flag", "markdown"))
    assert _cells(tmp_path / "locale", "markdown") == _cells(tmp_path / "flag", "markdown")
    assert any(cell.startswith("## Exercises") for cell in _cells(tmp_path / "english", "markdown"))
    # A Chinese folder is marked, so that check() in its notebooks speaks Chinese whatever
    # the locale JupyterLab is started with; an English one is not.
    assert (tmp_path / "flag" / ".minigrad-lang").read_text(encoding="utf-8").strip() == "zh"
    assert (tmp_path / "locale" / ".minigrad-lang").read_text(encoding="utf-8").strip() == "zh"
    assert not (tmp_path / "english" / ".minigrad-lang").exists()
    checked = subprocess.run([sys.executable, "-c", "from minigrad.i18n.language import "
                              "current; print(current())"], capture_output=True, text=True,
                             env={**english, "LANG": "C.UTF-8"}, cwd=tmp_path / "flag")
    assert checked.stdout.strip() == "zh", checked.stderr
    wrong = subprocess.run(command + [str(tmp_path / "x"), "--lang", "fr"], capture_output=True,
                           text=True)
    assert wrong.returncode == 2 and "--lang" in wrong.stderr and "zh" in wrong.stderr
