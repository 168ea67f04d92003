"""The environment a grading child starts with: empty, but for the machine's numpy settings.

A child inherits nothing from the grader's environment (no paths, no tokens), except the
variables that make numpy's OpenBLAS work on this processor: some machines set
``OPENBLAS_CORETYPE`` (and ``OPENBLAS_L2_SIZE``) because OpenBLAS's own detection picks
kernels that give wrong results or crash there. Without them the child would compute with
the kernels the grader avoids, and an honest submission could lose marks, or die, on such a
machine only.
"""

from __future__ import annotations

import os

#: Set by the machine for numpy's OpenBLAS; the only variables a child inherits.
HARDWARE_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def child_environment() -> dict[str, str]:
    """The grader's values of :data:`HARDWARE_VARIABLES`, where it has them."""
    return {name: os.environ[name] for name in HARDWARE_VARIABLES if name in os.environ}
