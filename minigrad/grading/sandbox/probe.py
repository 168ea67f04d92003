"""Can graded code be confined on this machine? One confined test process says.

:func:`sandbox_problem` is "" when it can, else the reason (shown by ``minigrad grade`` when it
refuses). Setting ``MINIGRAD_SIMULATE_NO_SANDBOX=reason`` makes it report ``reason``, to test
or demonstrate the refusal on a machine that has the features.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: Set to a reason to make the probe fail, to test (or demonstrate) the refusal.
SIMULATE_ENV = "MINIGRAD_SIMULATE_NO_SANDBOX"
CONFINE_PY = Path(__file__).resolve().parent / "confine.py"


@functools.lru_cache(maxsize=None)
def _probe() -> str:
    """Start one confined child that only reports; "" if it worked, else why not."""
    code = ("import sys, importlib.util as u\n"
            "s = u.spec_from_file_location('c', sys.argv[1]); m = u.module_from_spec(s)\n"
            "s.loader.exec_module(m); p = m.problem()\n"
            "if p: print(p); raise SystemExit(3)\n"
            "m.enter(dict(work=sys.argv[2], readable=[], memory=1 << 30, cpu=10, file=1 << 20,\n"
            "            tmpfs=1 << 20))\n"
            "open('probe', 'w').write('ok'); print('ok')\n")
    try:
        with tempfile.TemporaryDirectory(prefix="minigrad-probe-") as work:
            done = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(CONFINE_PY), work],
                                  capture_output=True, text=True, timeout=60, env={})
    except (OSError, subprocess.SubprocessError) as error:
        return f"a test process could not be started ({error})"
    if done.returncode == 0 and done.stdout.strip() == "ok":
        return ""
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[-1] if lines else f"the test process exited with status {done.returncode}"


def sandbox_problem() -> str:
    """Why graded code cannot be confined on this machine, or "" when it can."""
    simulated = os.environ.get(SIMULATE_ENV)
    if simulated:
        return simulated
    if sys.platform != "linux":
        return f"the grading sandbox needs Linux's namespaces and Landlock (this is {sys.platform})"
    return _probe()
