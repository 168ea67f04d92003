"""The grader's temporary folders: a killed grader's are removed by the next, a live one's never."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from minigrad.grading.sandbox import tempdirs


def test_sweep_removes_what_a_killed_grader_left_and_nothing_else(tmp_path: Path,
                                                                  monkeypatch) -> None:
    monkeypatch.setattr(tempdirs.tempfile, "tempdir", str(tmp_path))
    # A grader killed outright (SIGKILL): its folder stays, its lock goes with it.
    code = ("import os, sys, time; from minigrad.grading.sandbox import tempdirs; "
            "folder, _ = tempdirs.make('minigrad-grade-'); print(folder, flush=True); "
            "time.sleep(60)")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ, TMPDIR=str(tmp_path)))
    killed = Path(child.stdout.readline().strip())
    child.kill()
    child.wait()
    alive, lock = tempdirs.make("minigrad-runtime-")  # this process's: held
    fresh = tmp_path / "minigrad-grade-fresh"  # an older minigrad's, without a lock file
    stale = tmp_path / "minigrad-grade-stale"
    for folder in (fresh, stale):
        folder.mkdir()
        (folder / "data").write_text("x")
    long_ago = time.time() - 2 * tempdirs.UNLOCKED_AGE
    os.utime(stale, (long_ago, long_ago))
    target = tmp_path / "precious"
    target.mkdir()
    (tmp_path / "minigrad-grade-link").symlink_to(target)
    try:
        removed = tempdirs.sweep(str(tmp_path))
    finally:
        os.close(lock)
    assert sorted(removed) == sorted([killed, stale])
    assert not killed.exists() and not stale.exists()
    assert alive.exists() and fresh.exists() and target.exists()


def test_a_sweep_while_another_grader_makes_its_folder_leaves_it(tmp_path: Path,
                                                                  monkeypatch) -> None:
    """Two graders on one machine: the second swept between the first's creating its lock file
    and locking it, found the lock free and removed the live grader's folder (its student then
    scored 0)."""
    import fcntl

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    real_flock = fcntl.flock
    swept: list = []

    def flock(descriptor: int, operation: int) -> None:
        if operation == fcntl.LOCK_EX and not swept:  # make() about to lock: a sweep now
            swept.append(tempdirs.sweep(str(tmp_path)))
        real_flock(descriptor, operation)

    monkeypatch.setattr(fcntl, "flock", flock)
    folder, descriptor = tempdirs.make("minigrad-grade-")
    try:
        assert swept == [[]] and folder.is_dir()
        monkeypatch.setattr(fcntl, "flock", real_flock)
        assert tempdirs.sweep(str(tmp_path)) == [] and folder.is_dir()  # locked: alive
    finally:
        os.close(descriptor)
    assert tempdirs.sweep(str(tmp_path)) == [folder] and not folder.exists()
