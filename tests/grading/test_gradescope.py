"""`minigrad gradescope`: the autograder bundle, and its two scripts run in Gradescope's layout.

The slow test builds the wheel, unpacks the bundle into a temporary ``/autograder`` (moved by
``MINIGRAD_GRADESCOPE_ROOT``), runs ``setup.sh`` into a venv of its own (offline: the wheel
without its dependencies, which come from this environment) and ``run_autograder`` on a
correct and a wrong submission, and reads the scores from ``results.json``.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support.gradescope_bundles import stub_wheel
from support.grading_results import SANDBOX_PROBLEM

from minigrad.cli import main as cli_main
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import BUILTIN, source_path, student_file_name
from minigrad.grading.gradescope import merge_results
from minigrad.course.catalog import find_lesson

LESSONS = [find_lesson(1), find_lesson(2)]


def private_key(tmp_path: Path) -> Path:
    """An instructor's private sources: the built-in ones of lessons 01 and 02, copied."""
    key = tmp_path / "private-key"
    key.mkdir()
    for lesson in LESSONS:
        for name in (f"lesson{lesson.number:02d}.py", f"lesson{lesson.number:02d}_checks.py"):
            shutil.copy(source_path(lesson).parent / name, key / name)
    return key


def full_marks(lesson) -> float:
    return float(sum(exercise.points for exercise in BUILTIN.exercises(lesson)))


def test_the_bundle_holds_the_scripts_the_wheel_and_the_private_sources(tmp_path: Path) -> None:
    wheel = stub_wheel(tmp_path)
    out = tmp_path / "autograder.zip"
    assert cli_main(["gradescope", "1", "2", "--out",
                     str(out), "--exercises", str(private_key(tmp_path)), "--wheel",
                     str(wheel), "--timeout", "5"]) == 0
    with zipfile.ZipFile(out) as bundle:
        names = sorted(bundle.namelist())
        assert names == sorted(["setup.sh", "run_autograder", wheel.name, "requirements.lock",
                                "exercises/lesson01.py", "exercises/lesson01_checks.py",
                                "exercises/lesson02.py", "exercises/lesson02_checks.py"])
        for script in ("setup.sh", "run_autograder"):
            mode = bundle.getinfo(script).external_attr >> 16
            assert stat.S_ISREG(mode) and mode & 0o111, oct(mode)
        run = bundle.read("run_autograder").decode()
        assert "LESSONS=(01 02)" in run and "--timeout 5" in run and "--no-sandbox" not in run
        assert "--seed" not in run.split("set -uo pipefail")[1]  # fresh hidden cases each run
        setup = bundle.read("setup.sh").decode()
        assert wheel.name in setup and "--no-deps" in setup and "--self-test" in setup
        lock = bundle.read("requirements.lock").decode()
        pins = [line.split("==")[0] for line in lock.splitlines() if "==" in line]
        assert pins == ["numpy", "numba", "llvmlite", "tqdm"]  # no JupyterLab
        assert bundle.read("exercises/lesson01.py") == source_path(LESSONS[0]).read_bytes()


def test_usage_errors_are_found_before_anything_is_written(tmp_path: Path, capsys) -> None:
    out = tmp_path / "autograder.zip"
    assert cli_main(["gradescope", "99", "--out", str(out), "--wheel", str(out)]) == 2
    assert cli_main(["gradescope", "1", "--out", str(out), "--exercises",
                     str(tmp_path / "nowhere")]) == 2
    assert cli_main(["gradescope", "1", "--out", str(tmp_path)]) == 2
    assert not out.exists()
    assert "is not a folder" in capsys.readouterr().err


def test_results_of_several_lessons_are_merged_and_a_failed_one_says_why(tmp_path: Path) -> None:
    """The student reads that a lesson was not graded, and that it is not their fault; the
    instructor's advice in the log ("add --no-sandbox") goes to run_autograder's own output."""
    import io

    first = tmp_path / "01.json"
    first.write_text(json.dumps({"score": 2.5, "output": "seed 7", "tests": [
        {"name": "01.1 visible cases", "score": 2.5, "max_score": 3, "output": "ok"}],
        "extra_data": {"seed": 7, "sandbox": "user (...)"}}))
    log = tmp_path / "02.log"
    log.write_text("minigrad grade: refusing to run graded code: no user namespaces.\n"
                   "  * or add --no-sandbox, only for code you trust (your own).")
    instructor = io.StringIO()
    merged = merge_results([(first, tmp_path / "01.log"), (tmp_path / "02.json", log)],
                           seconds=12.34, log=instructor)
    assert merged["score"] == 2.5 and len(merged["tests"]) == 1
    assert "Lesson 02: not graded" in merged["output"] and "instructor" in merged["output"]
    assert "no-sandbox" not in json.dumps(merged) and "namespaces" not in merged["output"]
    assert "no user namespaces" in instructor.getvalue()
    assert merged["execution_time"] == 12.3
    assert merged["extra_data"] == {"sandbox": "user (...)", "seeds": {"01": 7}}
    assert all(isinstance(test["output"], str) for test in merged["tests"])


def test_a_submission_that_runs_past_gradescope_s_limit_still_gets_a_results_file(
        tmp_path: Path) -> None:
    """Every exercise of a submission may run to its time limit, in a .py and a notebook per
    lesson: longer in all than Gradescope's 10 minutes, after which it has no results at all.
    The lessons share a budget (MINIGRAD_GRADESCOPE_BUDGET); a grader that never finishes (a
    stand-in that sleeps) is stopped and its lesson says so. Before, run_autograder waited."""
    from minigrad.grading.gradescope import RUN

    root, venv = tmp_path / "autograder", tmp_path / "venv"
    (root / "submission").mkdir(parents=True)
    (venv / "bin").mkdir(parents=True)
    scripts = {"minigrad": "exec sleep 600\n",  # the merger, from this checkout:
               "python": f'shift; PYTHONPATH={Path(__file__).parents[2]} exec {sys.executable} "$@"\n'}
    for name, text in scripts.items():
        (venv / "bin" / name).write_text("#!/bin/bash\n" + text)
        (venv / "bin" / name).chmod(0o755)
    (root / "run_autograder").write_text(RUN.format(lessons="01 02", options=""))
    env = dict(os.environ, MINIGRAD_GRADESCOPE_ROOT=str(root), MINIGRAD_GRADESCOPE_VENV=str(venv),
               MINIGRAD_GRADESCOPE_BUDGET="2")
    done = subprocess.run(["bash", str(root / "run_autograder")], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and results["tests"] == []
    assert results["output"].count("not graded") == 2, results["output"]
    assert results["output"].count("time ran out") == 2, results["output"]
    assert "the whole run may take 2 s" in done.stderr  # (the instructor's log)
    assert isinstance(results["execution_time"], float)


# ---------------------------------------------------------------------------- in its layout
def _venv_with_this_environment(venv: Path) -> None:
    """A venv whose dependencies (numpy …) are this environment's, linked entry by entry into
    its site-packages (as if installed there: the grading child reads site-packages only
    under the venv's prefix). No minigrad and no .pth file is linked (an editable minigrad):
    the only minigrad the venv can import is the one setup.sh installs."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    new_site = Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                    "import site; print(site.getsitepackages()[0])"],
                                   check=True, capture_output=True, text=True).stdout.strip())
    for folder in site.getsitepackages():
        for entry in Path(folder).iterdir():
            if ("minigrad" not in entry.name.lower() and entry.suffix != ".pth"
                    and not entry.name.startswith("__editable__")
                    and not os.path.lexists(new_site / entry.name)):
                (new_site / entry.name).symlink_to(entry)


@pytest.mark.slow
def test_the_bundle_grades_a_correct_and_a_wrong_submission_in_gradescope_s_layout(
        tmp_path: Path) -> None:
    options = ["--no-sandbox"] if SANDBOX_PROBLEM else []
    out = tmp_path / "autograder.zip"
    assert cli_main(["gradescope", "1", "2", "--out", str(out), "--exercises",
                     str(private_key(tmp_path)), *options]) == 0  # builds the wheel
    root = tmp_path / "autograder"
    with zipfile.ZipFile(out) as bundle:
        bundle.extractall(root / "source")
        for info in bundle.infolist():  # (extractall drops the modes)
            os.chmod(root / "source" / info.filename, (info.external_attr >> 16) & 0o777
                     or 0o644)
    assert len(list((root / "source").glob("minigrad*.whl"))) == 1
    venv = tmp_path / "venv"
    _venv_with_this_environment(venv)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(MINIGRAD_GRADESCOPE_ROOT=str(root), MINIGRAD_GRADESCOPE_VENV=str(venv),
               PIP_NO_INDEX="1", PIP_NO_DEPS="1")
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env,
                           capture_output=True, text=True, timeout=600)
    assert setup.returncode == 0, setup.stderr
    # Gradescope copies run_autograder to /autograder and runs it from there.
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")

    def grade(files: dict[str, str]) -> dict:
        shutil.rmtree(root / "submission", ignore_errors=True)
        shutil.rmtree(root / "results", ignore_errors=True)
        (root / "submission" / "upload").mkdir(parents=True)
        for name, text in files.items():
            (root / "submission" / "upload" / name).write_text(text)
        done = subprocess.run([str(root / "run_autograder")], env=env, capture_output=True,
                              text=True, timeout=900, cwd=root)
        assert done.returncode == 0, done.stderr
        return json.loads((root / "results" / "results.json").read_text())

    right = grade({student_file_name(lesson): python_file_text(lesson, solutions=True)
                   for lesson in LESSONS})
    assert right["score"] == full_marks(LESSONS[0]) + full_marks(LESSONS[1]), right["output"]
    assert str(venv) in subprocess.run([str(venv / "bin" / "python"), "-c",
                                        "import minigrad; print(minigrad.__file__)"],
                                       env=env, capture_output=True, text=True,
                                       cwd=tmp_path).stdout
    wrong = grade({student_file_name(LESSONS[0]): python_file_text(LESSONS[0])})  # stubs
    exercises = {test["name"].split()[0] for test in right["tests"]}
    assert len(exercises) == len(BUILTIN.exercises(LESSONS[0])) + len(
        BUILTIN.exercises(LESSONS[1]))
    assert wrong["score"] == 0 and {test["name"].split()[0] for test in wrong["tests"]} == exercises
    assert "not attempted" in json.dumps(wrong["tests"]) and "no file for lesson 02" in json.dumps(
        wrong["tests"])


# ---------------------------------------------------------------------------- from a pip install
def _run(command: list[str], **options) -> subprocess.CompletedProcess:  # type: ignore[no-untyped-def]
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env,
                          **options)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout}\n{done.stderr}"
    return done


def _fresh_venv(venv: Path) -> Path:
    """A new venv whose dependencies come from this environment by a plain path line (its own
    .pth files, an editable minigrad among them, are not processed)."""
    _run([sys.executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    new_site = Path(_run([str(python), "-c", "import site; print(site.getsitepackages()[0])"]
                         ).stdout.strip())
    (new_site / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return python


@pytest.mark.slow
def test_gradescope_works_from_a_pip_install(tmp_path: Path) -> None:
    """`pip install minigrad-course`, then `minigrad gradescope 5 8 --out autograder.zip
    --exercises KEY`: no source tree to build a wheel from, so the installed distribution is
    zipped back into its wheel, which installs again."""
    source = tmp_path / "src"
    shutil.copytree(Path(__file__).parents[2], source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache"))
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
          "-w", str(tmp_path / "dist"), str(source)])
    (wheel,) = (tmp_path / "dist").glob("minigrad_course-*.whl")
    python = _fresh_venv(tmp_path / "venv")
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)])
    key = tmp_path / "key"
    key.mkdir()
    for number in ("05", "08"):
        for name in (f"lesson{number}.py", f"lesson{number}_checks.py"):
            shutil.copy(source_path(LESSONS[0]).parent / name, key / name)
    work = tmp_path / "work"
    work.mkdir()
    done = _run([str(tmp_path / "venv" / "bin" / "minigrad"), "gradescope", "5", "8", "--out",
                 "autograder.zip", "--exercises", str(key)], cwd=work)
    assert "Wrote autograder.zip" in done.stdout
    with zipfile.ZipFile(work / "autograder.zip") as bundle:
        names = bundle.namelist()
        (rebuilt,) = [name for name in names if name.endswith(".whl")]
        assert rebuilt == wheel.name and "requirements.lock" in names
        assert "exercises/lesson08_checks.py" in names
        bundle.extract(rebuilt, tmp_path / "rebuilt")
    with zipfile.ZipFile(wheel) as original, \
            zipfile.ZipFile(tmp_path / "rebuilt" / rebuilt) as again:
        same = {name for name in original.namelist() if not name.endswith("RECORD")}
        assert same == {name for name in again.namelist() if not name.endswith("RECORD")}
        for name in same:
            assert original.read(name) == again.read(name), name
    other = _fresh_venv(tmp_path / "venv2")
    _run([str(other), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
          str(tmp_path / "rebuilt" / rebuilt)])  # pip checks the new RECORD
    assert str(tmp_path / "venv2") in _run([str(other), "-c", "import minigrad; "
                                           "print(minigrad.__file__)"], cwd=tmp_path).stdout
