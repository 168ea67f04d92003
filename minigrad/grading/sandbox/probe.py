"""Can graded code be confined on this machine, and how? One confined test process per mode says.

Two modes (:mod:`.confine` does the work):

* ``namespaces`` — new user, mount, PID and network namespaces, protected folders covered,
  Landlock (ABI 6+), seccomp, rlimits. Wherever the kernel allows it, this one.
* ``user`` — where namespaces are refused (a default Docker container, as on Gradescope) and the
  grader runs as root: graded code runs as the unprivileged user ``minigrad-student``
  (:mod:`.users`), with ``no_new_privs``, Landlock where the kernel has it, seccomp and rlimits.

:func:`sandbox_mode` returns the mode this machine gives (or None, and why not);
:func:`sandbox_problem` is "" when some mode works, else the reasons (shown by ``minigrad grade``
when it refuses). ``MINIGRAD_SANDBOX_MODE=namespaces|user`` allows only that mode;
``MINIGRAD_SIMULATE_NO_SANDBOX=reason`` makes every mode fail with ``reason`` and
``MINIGRAD_SIMULATE_NO_LANDLOCK=1`` makes the user mode run without Landlock, to test (or
demonstrate) them on a machine that has the features.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from minigrad.grading.sandbox.environment import child_environment

#: Set to a reason to make the probe fail, to test (or demonstrate) the refusal.
SIMULATE_ENV = "MINIGRAD_SIMULATE_NO_SANDBOX"
#: Set to allow only one mode ("namespaces" or "user").
MODE_ENV = "MINIGRAD_SANDBOX_MODE"
#: Set (to anything) to run the user mode as on a kernel without Landlock.
NO_LANDLOCK_ENV = "MINIGRAD_SIMULATE_NO_LANDLOCK"
CONFINE_PY = Path(__file__).resolve().parent / "confine.py"
NAMESPACES, USER = "namespaces", "user"


@dataclass(frozen=True)
class Mode:
    """How graded code is confined here: ``name`` (``namespaces`` or ``user``), the Landlock
    ABI in use (0: none), and for the user mode, the user's ids."""

    name: str
    landlock: int
    uid: int = -1
    gid: int = -1
    #: The user mode's student users, one per child graded at once (the first is uid, gid).
    users: tuple[tuple[int, int], ...] = ()

    def label(self) -> str:
        """How the mode names itself in the results and the log."""
        landlock = f"Landlock ABI {self.landlock}" if self.landlock else "no Landlock"
        if self.name == NAMESPACES:
            return f"namespaces (user, mount, PID and network namespaces; {landlock}; " \
                   f"seccomp; rlimits)"
        others = len(self.users) - 1
        each = f" or {others} other user{'s' * (others > 1)}, one per child graded at once" \
            if others > 0 else ", one child at a time"
        return f"user (graded code runs as uid {self.uid}{each}, not root; no_new_privs; " \
               f"{landlock}; seccomp; rlimits)"

    def config(self) -> dict:
        """What a child's configuration needs of the mode."""
        return {"mode": self.name, "uid": self.uid, "gid": self.gid,
                "landlock": self.name == NAMESPACES or self.landlock > 0}


def _confine_module():  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location("minigrad_probe_confine", CONFINE_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_probe(mode: Mode) -> str:
    """Start one confined child in ``mode`` that only reports; "" if it worked, else why not."""
    code = ("import sys, json, importlib.util as u\n"
            "s = u.spec_from_file_location('c', sys.argv[1]); m = u.module_from_spec(s)\n"
            "s.loader.exec_module(m); c = json.loads(sys.argv[3])\n"
            "p = m.problem(c['mode'])\n"
            "if p: print(p); raise SystemExit(3)\n"
            "m.enter(dict(c, work=sys.argv[2], readable=[], memory=1 << 30, cpu=10,\n"
            "             file=1 << 20, tmpfs=1 << 20))\n"
            "open('probe', 'w').write('ok'); print('ok')\n")
    try:
        with tempfile.TemporaryDirectory(prefix="minigrad-probe-") as work:
            if mode.name == USER:
                os.chown(work, mode.uid, mode.gid)
            done = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(CONFINE_PY), work,
                                   json.dumps(mode.config())],
                                  capture_output=True, text=True, timeout=60,
                                  env=child_environment())
    except (OSError, subprocess.SubprocessError) as error:
        return f"a test process could not be started ({error})"
    if done.returncode == 0 and done.stdout.strip() == "ok":
        return ""
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[-1] if lines else f"the test process exited with status {done.returncode}"


def _user_mode() -> tuple[Optional[Mode], str]:
    from minigrad.grading.sandbox import users

    if os.geteuid() != 0:
        return None, "the grader does not run as root, so it cannot run graded code as " \
                     "another user"
    pool = users.student_pool()
    ids = pool[0] if pool else None
    if ids is None:
        name = os.environ.get(users.USER_ENV) or users.DEFAULT_USER
        return None, f"there is no user {name} to run graded code as (the Gradescope " \
                     f"setup.sh makes it: useradd --system --no-create-home {name})"
    import sysconfig

    for what, path in (("Python", os.path.realpath(sys.executable)),
                       ("its standard library", sysconfig.get_paths()["stdlib"]),
                       ("its site-packages", sysconfig.get_paths()["purelib"])):
        if not users.reachable(path, *ids):
            return None, f"the student user (uid {ids[0]}) cannot read {what} at {path}: " \
                         f"make the folders above it readable by all (in Gradescope, " \
                         f"Python is in /usr and the venv in /opt)"
    pool = [other for other in pool if other == ids or all(
        users.reachable(path, *other) for path in (os.path.realpath(sys.executable),
                                                   sysconfig.get_paths()["stdlib"],
                                                   sysconfig.get_paths()["purelib"]))]
    landlock = 0 if os.environ.get(NO_LANDLOCK_ENV) else _confine_module().landlock_abi()
    mode = Mode(USER, landlock, *ids, users=tuple(pool))
    problem = _run_probe(mode)
    return (None, problem) if problem else (mode, "")


@functools.lru_cache(maxsize=None)
def _choose(allowed: str, simulated: str, no_landlock: str,
            student_users: str) -> tuple[Optional[Mode], str]:
    """The mode (``student_users``: ``MINIGRAD_STUDENT_USER``, which the user mode reads)."""
    if simulated:
        return None, simulated
    if sys.platform != "linux":
        return None, f"the grading sandbox needs Linux (this is {sys.platform})"
    reasons = []
    if allowed in ("", NAMESPACES):
        confine = _confine_module()
        problem = confine.problem(NAMESPACES) or _run_probe(Mode(NAMESPACES, 0))
        if not problem:
            return Mode(NAMESPACES, confine.landlock_abi()), ""
        reasons.append(f"namespace mode: {problem.rstrip('.')}")
    if allowed in ("", USER):
        mode, problem = _user_mode()
        if mode is not None:
            return mode, ""
        reasons.append(f"unprivileged-user mode: {problem.rstrip('.')}")
    if not reasons:
        return None, f"{MODE_ENV}={allowed} names no mode (namespaces, user)"
    return None, "; ".join(reasons)


def sandbox_mode() -> tuple[Optional[Mode], str]:
    """The mode graded code is confined in on this machine, or (None, why none works)."""
    return _choose(os.environ.get(MODE_ENV, ""), os.environ.get(SIMULATE_ENV, ""),
                   os.environ.get(NO_LANDLOCK_ENV, ""),
                   os.environ.get("MINIGRAD_STUDENT_USER", ""))


def sandbox_problem() -> str:
    """Why graded code cannot be confined on this machine, or "" when it can."""
    return sandbox_mode()[1]


def readable_secrets(mode: Mode, protected: Iterable[Path]) -> list[str]:
    """In the user mode without Landlock, the file modes are the boundary: the protected
    paths (exercise sources, class folder, results, the installed package) the student user
    could reach. [] in every other case."""
    from minigrad.grading.sandbox import users

    if mode.name != USER or mode.landlock:
        return []
    return list(dict.fromkeys(str(path) for path in protected
                              if users.reachable(str(path), mode.uid, mode.gid)))
