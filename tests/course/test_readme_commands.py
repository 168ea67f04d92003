"""Every command that README.md and the site's home page (site/index.md) show runs as written.

Each ```bash block is a scenario, run in order in a fresh folder holding the course (as
`minigrad course` writes it): what a reader types, one line after another. As close as a test
can come to a terminal:

- ``minigrad …`` runs through the command line's own entry point, JupyterLab excepted:
  ``minigrad course`` writes its folder and hands JupyterLab a command that is checked, not
  started; a drawing meant for a slide (``--slide``) or drawn ``--backward`` must show
  gradients, not zeros;
- ``make TARGET`` is a dry run (``make -n``) in the repository: the target exists and its
  recipe resolves (``make test`` and ``make site`` run the suite and the site themselves);
- ``pip install .`` is a dry run of pip on the repository (no index); a name from the package
  index is refused, since the course is not published there;
- ``python -m minigrad.exercises.authoring.sync_notebooks`` runs with ``--check``.

A command of any other kind fails the test until it is given a way to run here. The README's
```python blocks run too, in order, in one namespace (names a notebook would define, such as an
exercise's function, come from the student's exercise file).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import pytest

import minigrad.course.folder as folder
from minigrad.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ("README.md", "site/index.md")
BLOCK = re.compile(r"```(bash|python)\n(.*?)```", re.S)


def blocks(document: str, language: str) -> list[str]:
    text = (ROOT / document).read_text(encoding="utf-8")
    return [body for kind, body in BLOCK.findall(text) if kind == language]


def commands(block: str) -> list[list[str]]:
    """The block's commands as words, comments dropped, ``a && b`` as two commands."""
    found = []
    for line in block.replace("\\\n", " ").splitlines():  # a line ending in \\ goes on
        words = shlex.split(line, comments=True)
        while words:
            end = words.index("&&") if "&&" in words else len(words)
            found.append(words[:end])
            words = words[end + 1:]
    return found


SCENARIOS = [pytest.param(document, index, block, id=f"{document}-{index}",
                          marks=[pytest.mark.slow] if "minigrad gradescope" in block else [])
             for document in DOCUMENTS
             for index, block in enumerate(blocks(document, "bash"))]


# ---------------------------------------------------------------------- the kinds of command
def run_make(words: list[str]) -> None:
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    done = subprocess.run([make, "-n", "--no-print-directory", "-C", str(ROOT), *words[1:]],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{shlex.join(words)}: {done.stderr}"


def run_pip(words: list[str]) -> None:
    assert words[1] == "install", words
    targets = [word for word in words[2:] if not word.startswith("-")]
    assert targets == ["."], (
        f"{shlex.join(words)}: only a clone (`pip install .`) or a wheel installs the course "
        "today; minigrad-course is not on the package index")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps",
                           "--no-build-isolation", "--no-index", "--quiet", "--report", "-",
                           "."], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (install,) = json.loads(done.stdout)["install"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert install["metadata"]["name"] == project["name"] == "minigrad-course"


def run_python(words: list[str]) -> None:
    assert words[1:3] == ["-m", "minigrad.exercises.authoring.sync_notebooks"], words
    done = subprocess.run([sys.executable, *words[1:], "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


GRADIENT = re.compile(r">grad (-?[\d.]+(?:e-?\d+)?)<")


def pdf_tools_missing() -> bool:
    """True where `minigrad slides … --out deck.pdf` cannot print: no playwright or no Chromium."""
    import importlib.util

    from minigrad.course.deck_pdf import find_chromium
    return importlib.util.find_spec("playwright") is None or find_chromium() is None


def run_minigrad(words: list[str], started: list[list[str]], capsys) -> None:
    if words[1] == "slides" and words[-1].endswith(".pdf") and pdf_tools_missing():
        # The README says what a PDF needs; without it the command must say so and fail.
        assert main(words[1:]) == 1, shlex.join(words)
        assert "playwright" in capsys.readouterr().err
        return
    assert main(words[1:]) == 0, shlex.join(words)
    if words[1] == "course":
        jupyterlab = started[-1]
        where = Path(words[2]).resolve()
        assert f"--ServerApp.root_dir={where}" in jupyterlab
        assert f"--LabApp.default_url=/lab/tree/{folder.FIRST_NOTEBOOK}" in jupyterlab
        assert (where / folder.FIRST_NOTEBOOK).is_file()
    if "--out" in words:
        out = Path(words[words.index("--out") + 1])
        assert out.is_file() and out.stat().st_size > 0, out
        if out.suffix == ".svg" and ("--slide" in words or "--backward" in words):
            gradients = [float(value) for value in GRADIENT.findall(out.read_text("utf-8"))]
            assert gradients and any(gradients), (
                f"{shlex.join(words)} draws every gradient as 0 (backward never ran)")


# ---------------------------------------------------------------------- the scenarios
@pytest.fixture
def course_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """A folder with the course in it, as the working directory; JupyterLab never starts
    (the commands it would have been given are returned)."""
    folder.write_course(tmp_path)
    monkeypatch.chdir(tmp_path)
    started: list[list[str]] = []

    class JupyterLab:
        def __init__(self, command: list[str], env: dict | None = None) -> None:
            started.append(command)

        def wait(self) -> int:
            return 0

    # Only minigrad.course.folder's subprocess is replaced; make, pip and the grader's own
    # processes start as usual.
    monkeypatch.setattr(folder, "subprocess", types.SimpleNamespace(Popen=JupyterLab))
    return started


def instructors_folders(scenario: str) -> None:
    """What the instructors' commands grade: one submission, a class of two, a drop box of three,
    a private key."""
    if "submission/" not in scenario:
        return
    assert main(["exercises", "2", "--to", "submission", "--solutions"]) == 0
    for student, solved in (("ada", True), ("bob", False)):
        assert main(["exercises", "2", "--to", f"class/{student}",
                     *(["--solutions"] if solved else [])]) == 0
    # A drop box: a folder, a .py file and a notebook, one per student (graded with --class).
    shutil.copytree("class/ada", "drop/carol")
    shutil.copy(next(Path("class/bob").glob("*.py")), "drop/dan.py")
    shutil.copy(next(Path("class/ada").glob("*.ipynb")), "drop/eve.ipynb")
    key = Path("private-key")
    key.mkdir()
    for lesson in ("lesson01", "lesson02"):  # the sources and their checks, as for the built-in
        for path in (ROOT / "minigrad" / "exercises" / "lessons").glob(f"{lesson}*.py"):
            shutil.copy(path, key)


@pytest.mark.parametrize(("document", "index", "block"), SCENARIOS)
def test_every_command_runs_as_written(document: str, index: int, block: str,
                                       course_folder: list[list[str]], capsys) -> None:
    instructors_folders(block)
    for words in commands(block):
        runner = {"make": run_make, "pip": run_pip, "python": run_python}.get(words[0])
        if words[0] == "minigrad":
            run_minigrad(words, course_folder, capsys)
        elif runner is not None:
            runner(words)
        else:
            pytest.fail(f"{document}: no way to test `{shlex.join(words)}` here; add one")


def test_the_documents_show_the_commands_a_reader_starts_with() -> None:
    """The scenarios above really cover the install, the course and the slide recipe."""
    readme = [shlex.join(words) for block in blocks("README.md", "bash")
              for words in commands(block)]
    site = [shlex.join(words) for block in blocks("site/index.md", "bash")
            for words in commands(block)]
    assert readme[:2] == ["make course", "make test"]
    assert site[0] == "pip install ." and "pip install ." in readme
    assert any(command.startswith("minigrad graph") and "--slide" in command
               for command in readme)
    assert len(readme) >= 25 and len(site) >= 4


def test_the_readmes_python_runs_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from minigrad.course.catalog import LESSONS
    from minigrad.exercises.authoring.generate import planned_files
    from minigrad.exercises.authoring.source import student_file_name

    monkeypatch.chdir(tmp_path)
    lesson01 = next(lesson for lesson in LESSONS if lesson.number == 1)
    scope: dict = {"__name__": "readme"}
    # `check("01.1", composite_derivative)` follows the student's own cell in a notebook.
    exec(planned_files(lesson01)[student_file_name(lesson01)], scope)  # noqa: S102
    for block in blocks("README.md", "python"):
        exec(block, scope)  # noqa: S102 — our own README
    assert [scope[name].grad for name in "abc"] == [45.0, 30.0, 14.0]
    for made in ("graph.svg", "backward.png", "steps.html", "steps.gif", "frames/step01.svg"):
        assert (tmp_path / made).stat().st_size > 0, made
    assert "not attempted" in capsys.readouterr().out  # the stub's check ran and said so
