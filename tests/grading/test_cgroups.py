"""A cgroup v2 per grading child (memory.max, memory.swap.max, pids.max, cpu.weight), removed
afterwards; where the grader cannot make one, a note said once.

This machine's memory and pids controllers may be bound to a cgroup v1 hierarchy (then only
the note is real); the cgroup's life cycle is checked against a stand-in folder given as
``$MINIGRAD_CGROUP``, in which the kernel's files are plain files.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.grading_results import needs_sandbox

from minigrad.grading.sandbox import cgroups
from minigrad.grading.sandbox.host import PROCESSES, Sandbox

CODE = "def answer():\n    return 42\n"


@pytest.fixture
def fresh(monkeypatch):  # type: ignore[no-untyped-def]
    """cgroups' once-per-process state, emptied for the test."""
    monkeypatch.setattr(cgroups, "_state", {})
    return monkeypatch


@needs_sandbox
def test_each_child_gets_its_limits_in_a_cgroup_of_its_own(tmp_path: Path, fresh) -> None:
    base = tmp_path / "delegated"
    base.mkdir()
    (base / "cgroup.subtree_control").write_text("")
    fresh.setenv(cgroups.ENVIRONMENT, str(base))
    removed = []
    original = cgroups.remove
    fresh.setattr(cgroups, "remove", lambda path: (removed.append(path), original(path)))
    with Sandbox(CODE, timeout=10, memory_mb=700) as box:
        assert [outcome.value for outcome in box.run("answer", [()])] == [42]
        folder = box._cgroup
        assert folder is not None and folder.parent == base
        assert folder.name.startswith(f"g{__import__('os').getpid()}-")
        files = {name: (folder / name).read_text() for name in
                 ("memory.max", "memory.swap.max", "memory.oom.group", "pids.max",
                  "cpu.weight", "cgroup.procs")}
        assert files == {"memory.max": str(700 * 2**20), "memory.swap.max": "0",
                         "memory.oom.group": "1",
                         "pids.max": str(PROCESSES), "cpu.weight": str(cgroups.CPU_WEIGHT),
                         "cgroup.procs": "0"}  # the child joined it (its own PID, as "0")
    assert removed == [folder]  # removed when the child was stopped
    assert (base / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"


def test_a_cgroup_whose_grader_died_is_removed(tmp_path: Path, fresh) -> None:
    base = tmp_path / "delegated"
    base.mkdir()
    (base / "cgroup.subtree_control").write_text("")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    (base / f"g{dead}-3").mkdir()  # (an empty stand-in: rmdir works on it)
    (base / "other").mkdir()
    fresh.setenv(cgroups.ENVIRONMENT, str(base))
    assert cgroups.base() == (base, "")
    assert sorted(item.name for item in base.iterdir()) == ["cgroup.subtree_control", "other"]


def test_without_a_cgroup_the_fallback_is_said_once(tmp_path: Path, fresh, capsys) -> None:
    """A cgroup v2 whose controllers are elsewhere (bound to v1, as on this machine)."""
    root = tmp_path / "unified"
    root.mkdir()
    (root / "cgroup.controllers").write_text("")
    fresh.delenv(cgroups.ENVIRONMENT, raising=False)
    fresh.setattr(cgroups, "_mount_point", lambda: root)
    for _ in range(3):
        Sandbox(CODE).close()
    said = capsys.readouterr().err
    assert said.count("minigrad grade: cgroup v2 has no memory, pids, cpu controllers") == 1
    assert "RLIMIT_AS (--memory)" in said and "refused by seccomp" in said, said
    assert cgroups.create(2**30, 32) is None and not (root / "minigrad").exists()
