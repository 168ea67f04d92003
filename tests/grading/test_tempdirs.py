"""The grader's temporary folders: a killed grader's are removed by the next, a live one's never."""

from __future__ import annotations

import os
import subprocess
import sys
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
