"""A grading child inherits the machine's OpenBLAS settings from the grader, and nothing else.

Some machines set OPENBLAS_CORETYPE (and OPENBLAS_L2_SIZE) because OpenBLAS's own detection
picks kernels that compute wrong results, or crash, on their processor. A child started with
an empty environment lost them: on such a machine numpy in the child ran the kernels the
grader avoids.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support.grading_results import needs_sandbox

SCRIPT = r"""
import json, sys
from minigrad.grading.sandbox import host, zygote
code = ("import os\n"
        "def seen():\n"
        "    return [os.environ.get(name) for name in\n"
        "            ('OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE', 'MINIGRAD_TEST_SECRET')]\n")
found = {}
with host.Sandbox(code, timeout=30) as box:                 # forked by the zygote
    found["zygote"] = box.run("seen", [()])[0].value
zygote.client = lambda path: None                            # no fork server: a fresh child
with host.Sandbox(code, timeout=30) as box:
    found["fresh"] = box.run("seen", [()])[0].value
print(json.dumps(found))
"""


@needs_sandbox
@pytest.mark.parametrize("coretype", ["Haswell", None])
def test_the_child_gets_openblas_settings_and_nothing_else(coretype: str | None) -> None:
    env = {name: value for name, value in os.environ.items()
           if name not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    env["MINIGRAD_TEST_SECRET"] = "not for the child"
    if coretype is not None:
        env.update(OPENBLAS_CORETYPE=coretype, OPENBLAS_L2_SIZE="1048576")
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    expected = [coretype, "1048576" if coretype else None, None]
    assert found == {"zygote": expected, "fresh": expected}
