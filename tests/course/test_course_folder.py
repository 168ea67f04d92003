"""`minigrad course DIR`: the whole course lands in DIR, student work is never overwritten, and
a wheel built from the repository carries the course (installed into an empty venv)."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from minigrad.cli import main
from minigrad.course.folder import (FIRST_NOTEBOOK, PARTS, course_files, jupyter_lab_command,
                             write_course)
from minigrad.course.catalog import LESSONS

ROOT = Path(__file__).resolve().parents[2]
READY = [lesson for lesson in LESSONS if lesson.ready]


def _expected_files() -> set[str]:
    """The course's files; the Chinese figures (assets/zh/) belong to the Chinese course only."""
    return {str(path.relative_to(ROOT)) for part in PARTS for path in (ROOT / part).rglob("*")
            if path.is_file() and ".ipynb_checkpoints" not in path.parts
            and path.parent != ROOT / "assets" / "zh"}


def _assert_whole_course(folder: Path) -> None:
    for lesson in READY:
        assert (folder / "lessons" / f"{lesson.name}.md").is_file()
        assert (folder / "notebooks" / f"{lesson.name}.ipynb").is_file()
    written = {str(path.relative_to(folder)) for part in PARTS
               for path in (folder / part).rglob("*") if path.is_file()}
    assert written == _expected_files()
    for relative in written:  # byte for byte
        assert (folder / relative).read_bytes() == (ROOT / relative).read_bytes(), relative


def test_the_course_files_are_the_repository_folders() -> None:
    assert {str(path) for path in course_files()} == _expected_files()
    assert {"lessons/04-autograd-in-practice.md", FIRST_NOTEBOOK} <= \
        {str(path) for path in course_files()}


def test_write_course_copies_everything(tmp_path: Path) -> None:
    report = write_course(tmp_path / "course")
    assert report.kept == [] and len(report.written) == len(_expected_files())
    _assert_whole_course(tmp_path / "course")


def test_student_work_is_never_overwritten(tmp_path: Path) -> None:
    folder = tmp_path / "course"
    write_course(folder)
    mine = folder / FIRST_NOTEBOOK
    mine.write_text("my answers", encoding="utf-8")
    (folder / "assets" / "epsilon_error.png").unlink()  # a deleted file comes back
    report = write_course(folder)
    assert mine.read_text(encoding="utf-8") == "my answers"
    assert Path(FIRST_NOTEBOOK) in report.kept
    assert report.written == [Path("assets/epsilon_error.png")]


def test_a_symlink_in_the_way_is_not_followed(tmp_path: Path) -> None:
    folder = tmp_path / "course"
    (folder / "lessons").mkdir(parents=True)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep", encoding="utf-8")
    (folder / "lessons" / "01-derivatives.md").symlink_to(outside)
    write_course(folder)
    assert outside.read_text(encoding="utf-8") == "keep"


def test_course_command_without_opening(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["course", str(tmp_path / "c"), "--no-open"]) == 0
    printed = capsys.readouterr().out
    assert "wrote" in printed and "jupyter lab" in printed
    _assert_whole_course(tmp_path / "c")
    assert main(["course", str(tmp_path / "c"), "--no-open"]) == 0
    assert "never overwritten" in capsys.readouterr().out


def test_a_file_where_the_folder_should_be_is_refused(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "taken").write_text("x")
    assert main(["course", str(tmp_path / "taken"), "--no-open"]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_jupyter_opens_at_the_folder_on_notebook_01(tmp_path: Path) -> None:
    command = jupyter_lab_command(tmp_path)
    assert command[1:3] == ["-m", "jupyterlab"]
    assert f"--ServerApp.root_dir={tmp_path}" in command
    # The server's default URL: the page the browser opens and the URL JupyterLab prints
    # (a file named on the command line would open, but the printed URL is the Launcher's).
    assert f"--LabApp.default_url=/lab/tree/{FIRST_NOTEBOOK}" in command


def test_make_course_opens_the_repository_root_on_notebook_01() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ncourse:", 1)[1].split("\n\n", 1)[0]
    assert 'minigrad course "$(CURDIR)"' in recipe


def test_the_course_in_its_own_folder_copies_nothing_and_opens_there(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    import minigrad.course.folder as course

    started = []

    class FakeServer:
        def __init__(self, command: list[str]) -> None:
            started.append(command)

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(course.subprocess, "Popen", FakeServer)
    assert main(["course", str(course.course_source())]) == 0
    out = capsys.readouterr().out
    assert "nothing to copy" in out and "Ctrl-C" in out
    (command,) = started
    assert f"--ServerApp.root_dir={course.course_source().resolve()}" in command
    assert f"--LabApp.default_url=/lab/tree/{FIRST_NOTEBOOK}" in command


def test_the_course_turns_jupyterlab_news_off_with_a_setting_its_schema_knows() -> None:
    """JupyterLab asks "get notified about official Jupyter news?" while `fetchNews` is
    "none"; the course's overrides (installed into the environment) set it to "false"."""
    schema = json.loads(next(Path(sys.prefix, "share", "jupyter", "lab", "schemas").glob(
        "@jupyterlab/apputils-extension/notification.json")).read_text(encoding="utf-8"))
    overrides = json.loads((ROOT / "jupyter" / "minigrad-course.json").read_text(encoding="utf-8"))
    ours = overrides["@jupyterlab/apputils-extension:notification"]
    allowed = [choice["const"] for choice in schema["properties"]["fetchNews"]["oneOf"]]
    assert ours["fetchNews"] == "false" and "false" in allowed
    assert ours["checkForUpdates"] is False
    installed = Path(sys.prefix, "share", "jupyter", "lab", "settings", "overrides.d",
                     "minigrad-course.json")
    assert installed.exists(), "make's set-up (or the wheel) installs the course's overrides"
    assert json.loads(installed.read_text(encoding="utf-8")) == overrides  # and this version


def test_the_readings_open_in_the_markdown_preview() -> None:
    """JupyterLab opens a `.md` in its text editor unless told otherwise; the course's
    overrides make the Markdown preview (its factory is named "Markdown Preview") the
    default viewer, with the key its docmanager schema defines."""
    schemas = Path(sys.prefix, "share", "jupyter", "lab", "schemas", "@jupyterlab")
    docmanager = json.loads((schemas / "docmanager-extension" / "plugin.json").read_text(
        encoding="utf-8"))
    assert docmanager["properties"]["defaultViewers"]["type"] == "object"
    overrides = json.loads((ROOT / "jupyter" / "minigrad-course.json").read_text(encoding="utf-8"))
    viewers = overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers == {"markdown": "Markdown Preview"}
    # The factory's name as this JupyterLab spells it (its bundles are the only place it is
    # written; tests/course/test_first_screen_browser.py opens a reading to see it rendered).
    static = Path(sys.prefix, "share", "jupyter", "lab", "static")
    assert any('"Markdown Preview"' in path.read_text(encoding="utf-8", errors="replace")
               for path in static.glob("*.js"))


def test_jupyterlab_asks_no_news_question_and_kernels_use_local_sockets(tmp_path: Path) -> None:
    command = jupyter_lab_command(tmp_path)
    assert "--LabApp.news_url=None" in command  # no "get notified about Jupyter news?" pop-up
    assert "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate" in command
    if os.name == "posix":  # no "Kernel is running over TCP without encryption" per kernel
        assert "--KernelManager.transport=ipc" in command


@pytest.mark.slow
def test_a_built_wheel_installed_in_an_empty_venv_writes_the_whole_course(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
        ".ipynb_checkpoints"))
    wheels = tmp_path / "wheels"
    built = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                  "--no-build-isolation", "-w", str(wheels), str(source)])
    # No build warnings (a license given as a TOML table printed ~20 lines of deprecation).
    warnings = [line for line in built.stderr.splitlines()
                if "Warning" in line or "deprecated" in line.lower()]
    assert warnings == [], built.stderr
    (wheel,) = wheels.glob("minigrad_course-*.whl")  # the distribution's name on the index
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"pip install dist/{wheel.name}" in readme  # the README's install line, as written

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    # Dependencies (numpy …) come from this environment's site-packages, added by a plain
    # path line: its own .pth files (an editable minigrad) are not processed, so the only
    # minigrad the new venv sees is the wheel's.
    new_site = Path(subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                                   check=True, capture_output=True, text=True).stdout.strip())
    (new_site / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)])

    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    location = subprocess.run([str(python), "-c", "import minigrad; print(minigrad.__file__)"],
                              check=True, capture_output=True, text=True, cwd=tmp_path,
                              env=env).stdout
    assert str(venv) in location, location
    wheel_overrides = json.loads((venv / "share" / "jupyter" / "lab" / "settings" / "overrides.d" /
                                  "minigrad-course.json").read_text(encoding="utf-8"))
    # JupyterLab's news question off, and the readings open rendered, for the course.
    assert wheel_overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"] == \
        {"markdown": "Markdown Preview"}
    assert wheel_overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    folder = tmp_path / "student"
    result = subprocess.run([str(venv / "bin" / "minigrad"), "course", str(folder), "--no-open"],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    _assert_whole_course(folder)
    # The Chinese course comes from the wheel too: catalogs, figures with Chinese labels, font.
    chinese = tmp_path / "学生"
    result = subprocess.run([str(venv / "bin" / "minigrad"), "course", str(chinese), "--lang",
                             "zh", "--no-open"], capture_output=True, text=True, timeout=300,
                            cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert (chinese / ".minigrad-lang").read_text(encoding="utf-8") == "zh\n"
    for drawn in (ROOT / "assets" / "zh").iterdir():
        assert (chinese / "assets" / drawn.name).read_bytes() == drawn.read_bytes()
    shipped = subprocess.run([str(python), "-c", "from minigrad.i18n import fonts, documents; "
                              "print(fonts.FONT.is_file(), fonts.LICENCE.is_file(), "
                              "len(documents.catalog('zh', 'slides').entries) > 100)"],
                             check=True, capture_output=True, text=True, cwd=tmp_path, env=env)
    assert shipped.stdout.split() == ["True", "True", "True"]


def _run(command: list[str]) -> subprocess.CompletedProcess:
    """Run a packaging command; when it fails, the failure shows what pip printed."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, (f"{' '.join(command)} exited {done.returncode}\n"
                                  f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}")
    return done
