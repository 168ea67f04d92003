"""No core file from any process of a grading run, whatever the shell allows.

The namespace sandbox's first process (outside the child's PID namespace, runs no student code)
used to re-raise the child's fatal signal on itself: with ``ulimit -c unlimited`` a segfault in
graded code wrote a core of that process into the grader's working folder. Now every
unconfined helper process has core limit 0 and is not dumpable, and the first process exits
with 128 + the signal.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from support.grader_attacks import attack
from support.grading_results import by_exercise, needs_sandbox

pytestmark = needs_sandbox

SEGFAULT = """
found.append("crashing")
ctypes.string_at(0)
"""


def unlimited_cores() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


@pytest.mark.parametrize("zygote", [True, False], ids=["zygote", "direct"])
def test_a_segfault_in_graded_code_leaves_no_core_file(tmp_path: Path, zygote: bool) -> None:
    path = attack(tmp_path / "submission", SEGFAULT)
    work = tmp_path / "cwd"
    work.mkdir()
    results = tmp_path / "results.json"
    code = ("import sys\n"
            + ("" if zygote else
               "import minigrad.grading.sandbox.zygote as z; z.client = lambda path: None\n")
            + "from minigrad.cli import main; sys.exit(main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", code, "grade", str(path), "--lesson", "1",
                           "--json", str(results), "--timeout", "5"], cwd=work,
                          capture_output=True, text=True, timeout=300,
                          preexec_fn=unlimited_cores)
    assert done.returncode == 0, done.stderr
    cores = [item for folder in (work, tmp_path, Path.cwd()) for item in folder.iterdir()
             if item.name.startswith("core")]
    assert cores == []
    table = by_exercise(json.loads(results.read_text()))
    assert table["01.1"][0] == 0 and "SIGSEGV" in table["01.1"][2], table["01.1"]
    assert table["01.2"][0] == table["01.2"][1] > 0
