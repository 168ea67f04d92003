"""What a submission leaves behind is removed, and its removal never stops grading.

A folder chain 3 000 levels deep (here 1 200: past Python's recursion limit as well) made
``shutil.rmtree`` raise ``RecursionError`` in ``Sandbox.close`` and in ``tempdirs.sweep``: every
lesson of the run said "not graded", and every later run's clean-up crashed on the folder left
behind. The removal now walks down and up through folder descriptors, without recursion, and
reports (never raises) what it cannot do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from support.grader_attacks import attack, only_01_1_lost
from support.grading_results import by_exercise
from support.student_user import needs_user_mode, user_mode_command, user_mode_env

from minigrad.grading.sandbox import tempdirs
from minigrad.grading.sandbox.host import Sandbox

#: Past Python's recursion limit (shutil.rmtree and os.fwalk raise RecursionError at 1 200
#: levels, as at the 3 000 of the route), and quick to make.
DEPTH = 1200


@pytest.fixture(autouse=True)
def _no_chain_left(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Whatever the test leaves in tmp_path goes with ``rm -rf`` (pytest's own clean-up of old
    temporary folders would raise RecursionError on a chain, as shutil.rmtree did)."""
    yield
    subprocess.run(["rm", "-rf", "--", *map(str, tmp_path.iterdir())], check=False)


def deep_chain(top: Path, depth: int = DEPTH) -> None:
    """``top/d/d/.../d`` (``depth`` folders, each with a file and a link out of the tree),
    made through descriptors: the whole path is far past PATH_MAX."""
    top.mkdir(parents=True, exist_ok=True)
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for level in range(depth):
            with open(os.open("f", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as handle:
                handle.write("x" * level)
            os.symlink("/", "out", dir_fd=fd)
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


def test_a_deep_chain_is_removed_without_following_links(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("kept")
    top = tmp_path / "top"
    deep_chain(top)
    (top / "link").symlink_to(outside)
    assert tempdirs.remove_tree(top) is True
    assert not top.exists() and (outside / "keep").read_text() == "kept"
    assert tempdirs.remove_tree(top) is True  # (already gone: nothing to do)


def test_a_removal_that_fails_is_reported_not_raised(tmp_path: Path, monkeypatch,
                                                    capsys) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # (what fails stays in tmp_path)
    top = tmp_path / "top"
    deep_chain(top, 5)
    box = Sandbox("x = 1\n", timeout=5, confine=False)
    deep_chain(box.directory / "work-left", 5)

    def busy(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(16, "Device or resource busy")

    with monkeypatch.context() as patch:
        patch.setattr(os, "rmdir", busy)
        assert tempdirs.remove_tree(top) is False
        box.close()  # logged, not raised
    err = capsys.readouterr().err
    assert f"could not remove {top}" in err and f"could not remove {box.directory}" in err
    assert "Device or resource busy" in err
    assert tempdirs.remove_tree(top) is True and not top.exists()
    assert tempdirs.remove_tree(box.directory) is True


def test_sandbox_close_removes_a_deep_chain(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    box = Sandbox("def f():\n    return 1\n", timeout=5, confine=False)
    deep_chain(box.directory / "work-left")
    box.close()  # raised RecursionError
    assert not box.directory.exists()


def test_the_sweep_removes_a_deep_chain_a_killed_grader_left(tmp_path: Path,
                                                             monkeypatch) -> None:
    left = tmp_path / "minigrad-grade-left"
    deep_chain(left / "work")
    (left / tempdirs.LOCK).write_text("")  # its grader is gone: nobody holds the lock
    neighbour = tmp_path / "minigrad-grade-neighbour"  # a second one: the first must not stop it
    deep_chain(neighbour, 10)
    (neighbour / tempdirs.LOCK).write_text("")
    assert sorted(tempdirs.sweep(str(tmp_path))) == [left, neighbour]  # RecursionError before
    assert not left.exists() and not neighbour.exists()


def test_the_supervisors_count_reaches_the_bottom_of_a_deep_chain(tmp_path: Path) -> None:
    """The user mode's supervisor adds up the child's folder: os.fwalk recursed, and a chain
    this deep raised RecursionError in it (the child died, its folder stayed)."""
    from minigrad.grading.sandbox.namespaces import bytes_below

    deep_chain(tmp_path / "top")
    (tmp_path / "top" / "big").write_bytes(b"x" * 100_000)
    counted = bytes_below(str(tmp_path / "top"), 1 << 40)
    assert 3 * DEPTH * 4096 <= counted <= 3 * DEPTH * 4096 + 2 * DEPTH * 4096 + 200_000
    assert bytes_below(str(tmp_path / "top"), 50_000) < 3 * DEPTH * 4096  # stops past the cap


CHAIN = """
    for depth in range(1500):  # (past Python's recursion limit, as 3 000 is)
        os.mkdir("d")
        os.chdir("d")
        open("f", "w").write("x")
    found.append("made the chain")
"""


@needs_user_mode
def test_a_submission_that_leaves_a_deep_chain_is_graded_and_removed(tmp_path: Path) -> None:
    """In the user mode the child's folder is a real one: its chain is the grader's to remove.
    The lesson is graded (0 for the exercise that raises, full marks for the rest: it said
    "not graded" for every exercise) and no folder of the run is left."""
    temporary = Path(tempfile.mkdtemp(prefix="minigrad-test-cleanup-", dir="/tmp"))
    try:
        temporary.chmod(0o755)  # (the student user walks through it to its own folder)
        stash = tmp_path / "stash"
        stash.mkdir()
        results = tmp_path / "results.json"
        command = user_mode_command([sys.executable, "-m", "minigrad.cli", "grade",
                                     str(attack(tmp_path / "submission", CHAIN)), "--json",
                                     str(results), "--timeout", "60", "--lesson", "1"], stash)
        done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                              env=user_mode_env(TMPDIR=str(temporary)))
        assert done.returncode == 0, done.stderr
        data = json.loads(results.read_text())
        assert "made the chain" in only_01_1_lost(data)
        assert "NOT GRADED" not in json.dumps(data), by_exercise(data)
        assert "could not remove" not in done.stderr, done.stderr
        assert [entry.name for entry in temporary.iterdir()] == [], done.stderr
    finally:
        subprocess.run(["rm", "-rf", "--", str(temporary)], check=False)
