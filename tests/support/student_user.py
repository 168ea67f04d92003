"""Running the grader in the unprivileged-user sandbox mode on this machine (as root).

The mode needs a user to run graded code as (the tests use ``nobody``, through
``MINIGRAD_STUDENT_USER``) and a Python that user can read. Where the interpreter lives under a
folder only root may enter (pyenv in ``/root``), :func:`user_mode_command` runs the command in
a private mount namespace in which that folder is an empty, searchable tmpfs with the
interpreter's tree bound back in: the same files, as a container would mount them.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from minigrad.grading.sandbox import users

STUDENT = "nobody"
IDS = users.student_ids(STUDENT)


def _hidden_ancestor() -> Path | None:
    """The first folder above the interpreter that the student user cannot search."""
    real = Path(os.path.realpath(sys.executable))
    for folder in [*reversed(real.parents)][1:]:
        if IDS and not users.reachable(str(folder), *IDS):
            return folder
    return None


def why_not() -> str:
    if os.geteuid() != 0:
        return "the unprivileged-user mode needs a grader running as root"
    if IDS is None:
        return f"no user {STUDENT} here"
    if _hidden_ancestor() is not None and shutil.which("unshare") is None:
        return "the interpreter is in a folder only root may enter, and there is no unshare"
    return ""


needs_user_mode = pytest.mark.skipif(bool(why_not()), reason=why_not() or "runs")


def user_mode_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, MINIGRAD_SANDBOX_MODE="user", MINIGRAD_STUDENT_USER=STUDENT)
    env.update(extra)
    return env


def user_mode_command(argv: list[str], stash: Path) -> list[str]:
    """``argv``, wrapped so that the student user can read the interpreter (``stash``: an
    empty folder of the test's own, where the hidden tree is bound while the tmpfs goes on)."""
    hidden = _hidden_ancestor()
    if hidden is None:
        return argv
    real = Path(os.path.realpath(sys.executable))
    inner = real.parents[len(real.parents) - len(hidden.parts) - 1]  # hidden's child on the way
    script = (f'set -e; mount --bind "{inner}" "{stash}"; '
              f'mount -t tmpfs -o mode=755 tmpfs "{hidden}"; mkdir -p "{inner}"; '
              f'mount --bind "{stash}" "{inner}"; exec "$@"')
    return ["unshare", "--mount", "sh", "-c", script, "sh", *argv]


def grade_in_user_mode(tmp_path: Path, *args: str, **env: str) -> "subprocess.CompletedProcess":
    """``minigrad ARGS`` as root in the unprivileged-user mode, in a process of its own."""
    import subprocess

    stash = tmp_path / f"stash-{len(list(tmp_path.glob('stash-*')))}"
    stash.mkdir()
    command = user_mode_command([sys.executable, "-m", "minigrad.cli", *args], stash)
    return subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env=user_mode_env(**env))
