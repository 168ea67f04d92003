"""The Gradescope bundle, end to end, in a real container runtime set up like a default Docker
container: ``runc`` with Docker's own default seccomp profile (moby/profiles, vendored in
``tests/grading/container/``) and Docker's default capabilities (no ``CAP_SYS_ADMIN``), on a
root filesystem of read-only bind mounts of this machine (``tests/support/oci_container.py``).

There ``unshare`` is refused, so the namespace mode cannot start; the grader runs as root and
graded code runs as the unprivileged ``minigrad-student`` that ``setup.sh`` makes. In it:
``setup.sh`` (offline: the pinned libraries come from wheels rebuilt from this environment,
with ``--require-hashes``), then ``run_autograder`` on a correct, a wrong, a looping and an
attacking submission (read the key, forge results.json, kill the harness), with Landlock and
as on a kernel without it; and ``setup.sh`` failing the image build where no mode can work.

Opt-in: needs root and runc, and ``MINIGRAD_CONTAINER=1`` (``.ci/run`` sets it and installs
runc); a student's ``make test`` skips it, saying why.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from support.grader_attacks import KEY_LINE, SECRET, attack
from support.grading_results import by_exercise

from minigrad.course.catalog import find_lesson
from minigrad.grading.sandbox.environment import child_environment
from minigrad.data import load_digits
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import source_path, student_file_name

LESSON01 = find_lesson(1)
FILE01 = student_file_name(LESSON01)


def _why_not() -> str:
    if os.environ.get("MINIGRAD_CONTAINER", "0") == "0":
        return "the container test is opt-in: MINIGRAD_CONTAINER=1 (as .ci/run sets it)"
    if sys.platform != "linux" or os.geteuid() != 0:
        return "runc needs root on Linux"
    if shutil.which("runc") is None:
        return "runc is not installed (apt-get install runc)"
    return ""


pytestmark = [pytest.mark.container, pytest.mark.skipif(bool(_why_not()),
                                                        reason=_why_not() or "runs")]

ATTACK = f"""
found.append(_try(lambda: open("/autograder/source/exercises/lesson01.py").read()))
found.append(_try(lambda: os.listdir("/autograder/source/exercises")))
found.append(_try(lambda: open("/autograder/results/results.json", "w").write('{{"score": 99}}')))
found.append(_try(lambda: os.makedirs("/autograder/results", exist_ok=True)
                  or open("/autograder/results/forged", "w")))
found.append(_try(lambda: os.kill(os.getppid(), 9)))
found.append(_try(lambda: os.kill(1, 9)))
found.append(_try(lambda: os.kill(-1, 9)))
found.append(_try(lambda: [os.kill(pid, 9) for pid in range(2, 2000)
                           if pid != os.getpid() and os.path.exists(f"/proc/{{pid}}")]))
found.append(_try(lambda: open("/proc/1/environ").read()))
found.append(_try(lambda: os.setuid(0)))
found.append("uid " + str(os.getuid()))
"""


@pytest.fixture(scope="module")
def container(tmp_path_factory):  # type: ignore[no-untyped-def]
    """The bundle unpacked in an /autograder of its own, a root filesystem, and a function
    that runs a command in a fresh container over them (as Gradescope does per submission)."""
    from support.oci_container import bind, config, rootfs, runc_run

    from minigrad.grading.gradescope import write_bundle
    from minigrad.grading.wheels import (GRADING_DEPENDENCIES, build_wheel,
                                         wheel_from_installed)

    base = tmp_path_factory.mktemp("runc")
    base.chmod(0o755)
    wheels = base / "wheels"
    for project in GRADING_DEPENDENCIES:  # the index, offline: this environment's versions
        wheel_from_installed(wheels, project, compression=zipfile.ZIP_STORED)
    import hashlib
    from importlib import metadata

    lock = "".join(
        f"{project}=={metadata.version(project)} --hash=sha256:"
        f"{hashlib.sha256(next(wheels.glob(project + '-*.whl')).read_bytes()).hexdigest()}\n"
        for project in GRADING_DEPENDENCIES)
    key = base / "key"
    key.mkdir()
    for name in ("lesson01.py", "lesson01_checks.py", "lesson08.py", "lesson08_checks.py"):
        shutil.copy(source_path(LESSON01).parent / name, key / name)
    held_out, labels = load_digits("test", as_numpy=True)  # (as the instructor's own digits)
    np.savez(key / "capstone-digits.npz", images=held_out[:200], labels=labels[:200],
             pass_mark=np.float64(0.9))
    bundle = base / "autograder.zip"
    write_bundle(bundle, build_wheel(base / "scratch"), key, ["01", "08"], " --timeout 3",
                 lock, hashed=True)
    autograder = base / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(autograder / "source")
        for info in archive.infolist():
            os.chmod(autograder / "source" / info.filename,
                     (info.external_attr >> 16) & 0o777 or 0o644)
    root = rootfs(base)
    prefix = Path(os.path.realpath(sys.base_prefix))
    (root / prefix.relative_to("/")).mkdir(parents=True, exist_ok=True)
    for folder in (root / prefix.relative_to("/")).parents:
        if folder.is_relative_to(root) and folder != root:
            folder.chmod(0o755)
    mounts = [bind("/usr", "/usr"), bind(prefix, str(prefix)), bind(wheels, "/wheels"),
              bind(autograder, "/autograder", writable=True),
              bind(base / "opt", "/opt", writable=True)]
    (base / "opt").mkdir()
    for name in ("lib", "lib32", "lib64", "libx32", "bin", "sbin"):
        if Path("/" + name).is_dir() and not Path("/" + name).is_symlink():
            mounts.append(bind("/" + name, "/" + name))
    env = {"PATH": f"{prefix}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "HOME": "/root", "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "/wheels",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "LANG": "C.UTF-8"}
    # The machine's OpenBLAS settings, as its Docker users pass them (-e) where it needs them.
    env.update(child_environment())
    runs = iter(range(1000))

    def run(command: str, timeout: float = 600, **extra: str):  # type: ignore[no-untyped-def]
        spec = config(root, ["/bin/bash", "-c", command], {**env, **extra}, mounts)
        return runc_run(base, spec, f"minigrad-test-{os.getpid()}-{next(runs)}", timeout)

    setup = run("cd /autograder/source && bash ./setup.sh")
    return autograder, run, setup


def grade_in_container(container, files: dict[str, str], **extra: str) -> dict:  # type: ignore[no-untyped-def]
    autograder, run, _ = container
    for folder in ("submission", "results"):
        shutil.rmtree(autograder / folder, ignore_errors=True)
    (autograder / "submission").mkdir()
    for name, text in files.items():
        (autograder / "submission" / name).write_text(text)
    shutil.copy2(autograder / "source" / "run_autograder", autograder / "run_autograder")
    done = run("cd /autograder && ./run_autograder", **extra)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((autograder / "results" / "results.json").read_text())
    results["log"] = done.stdout + done.stderr
    return results


def test_setup_sh_builds_the_image_and_says_which_mode(container) -> None:  # type: ignore[no-untyped-def]
    _, run, setup = container
    assert setup.returncode == 0, setup.stdout + setup.stderr
    assert "sandbox mode: user (graded code runs as uid" in setup.stdout, setup.stdout
    assert "FAILS" not in setup.stdout and "protections hold" in setup.stdout
    assert "namespace mode" not in setup.stdout  # (the namespace mode was refused, as in Docker)
    done = run("/opt/minigrad-venv/bin/python -c 'import minigrad, jupyterlab'")
    assert "No module named 'jupyterlab'" in done.stderr  # only what grading needs


def test_a_correct_and_a_wrong_submission(container) -> None:  # type: ignore[no-untyped-def]
    right = grade_in_container(container, {FILE01: python_file_text(LESSON01, solutions=True)})
    assert right["score"] == 15, right
    assert right["extra_data"]["sandbox"].startswith("user (graded code runs as uid")
    assert isinstance(right["execution_time"], float)
    assert all(isinstance(test["output"], str) for test in right["tests"])
    wrong = grade_in_container(container, {FILE01: python_file_text(LESSON01)})
    assert wrong["score"] == 0 and "not attempted" in json.dumps(wrong["tests"])


def test_the_capstone_is_scored_on_the_keys_held_out_digits(container) -> None:  # type: ignore[no-untyped-def]
    """Lesson 08 in the bundle: 08.5's network, trained in the container's user mode against
    the stripped minigrad, is run by the grader on the held-out digits the bundle carries."""
    autograder, _, _ = container
    assert stat.S_IMODE((autograder / "source" / "exercises" / "capstone-digits.npz").stat()
                        .st_mode) & 0o077 == 0  # setup.sh made it root's only
    results = grade_in_container(container, {"lesson08.py": python_file_text(
        find_lesson(8), solutions=True)})
    table = by_exercise(results)
    assert table["08.5"][0] == table["08.5"][1] == 5, table["08.5"]
    assert all(score == most for score, most, _ in
               (table[key] for key in table if key.startswith("08."))), table


def test_a_looping_submission(container, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = attack(tmp_path, "\nwhile True:\n    pass\n")
    results = grade_in_container(container, {FILE01: path.read_text()})
    table = by_exercise(results)
    assert table["01.1"][0] == 0 and "took longer than" in table["01.1"][2], table["01.1"]
    assert results["score"] == 15 - table["01.1"][1]


@pytest.mark.parametrize("landlock", ["with Landlock", "without Landlock"])
def test_an_attacking_submission(container, tmp_path: Path, landlock: str) -> None:  # type: ignore[no-untyped-def]
    """Read the key, forge results.json, kill the harness: 0 for the exercise that tries,
    full marks for the others, the key nowhere in the results, the results the grader's."""
    extra = {"MINIGRAD_SIMULATE_NO_LANDLOCK": "1"} if landlock == "without Landlock" else {}
    path = attack(tmp_path, ATTACK)
    results = grade_in_container(container, {FILE01: path.read_text()}, **extra)
    table = by_exercise(results)
    assert table["01.1"][0] == 0, table
    for exercise in ("01.2", "01.3", "01.4", "01.5"):
        assert table[exercise][0] == table[exercise][1] > 0, (exercise, table)
    output = table["01.1"][2]
    assert "PermissionError" in output and "uid 0" not in output, output
    text = json.dumps(results)
    assert SECRET not in text and KEY_LINE not in text and '"score": 99' not in text
    assert ("no Landlock" in results["extra_data"]["sandbox"]) == bool(extra)


def test_setup_sh_fails_the_build_where_no_mode_can_work(container) -> None:  # type: ignore[no-untyped-def]
    """Graded code may not run as root: with the student user set to root, no mode works
    here (namespaces refused, no other user), and setup.sh must fail, saying so."""
    _, run, _ = container
    done = run("cd /autograder/source && bash ./setup.sh", MINIGRAD_STUDENT_USER="root")
    assert done.returncode != 0
    assert "no sandbox mode works here" in done.stdout and "setup.sh: FAILED" in done.stderr


def test_a_class_run_without_landlock_keeps_classmates_apart(container, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A class graded by root in the container, as on a department server without Landlock:
    the results folder beside the class would be readable by the student user, so that is
    refused; in a private one, the last student graded reads neither a classmate's work nor
    the results of those graded before."""
    autograder, run, _ = container
    classroom = autograder / "class"
    shutil.rmtree(classroom, ignore_errors=True)
    for name in ("bob", "zed"):
        (classroom / name).mkdir(parents=True)
    (classroom / "bob" / FILE01).write_text(python_file_text(LESSON01, solutions=True))
    steal = f"""
    found.append(_try(lambda: open("/autograder/class/bob/{FILE01}").read()))
    found.append(_try(lambda: open("/autograder/private/grades/bob.json").read()))
    found.append(_try(lambda: os.listdir("/autograder/private/grades")))
    """
    (classroom / "zed" / FILE01).write_text(attack(tmp_path, steal).read_text())
    classroom.chmod(0o700)
    grade = ("/opt/minigrad-venv/bin/minigrad grade /autograder/class --lesson 1 --timeout 3 "
             "--exercises /autograder/source/exercises --jobs 2")
    beside = run(grade, MINIGRAD_SIMULATE_NO_LANDLOCK="1")
    assert beside.returncode == 3 and "class-grades" in beside.stderr, beside.stderr
    private = autograder / "private"
    shutil.rmtree(private, ignore_errors=True)
    private.mkdir(mode=0o700)
    done = run(grade + " --out /autograder/private/grades", MINIGRAD_SIMULATE_NO_LANDLOCK="1")
    assert done.returncode == 0, done.stderr
    assert "--jobs 1" in done.stderr  # no signal scope without Landlock: one at a time
    bob = json.loads((private / "grades" / "bob.json").read_text())
    zed = by_exercise(json.loads((private / "grades" / "zed.json").read_text()))
    assert bob["score"] == 15
    assert zed["01.1"][0] == 0, zed["01.1"]
    assert "PermissionError[13] | PermissionError[13] | PermissionError[13]" in zed["01.1"][2]
    assert KEY_LINE not in zed["01.1"][2]
