"""Shared test set-up: a non-interactive matplotlib backend and deterministic seeds."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def warm_kernels() -> str:
    """Compile the numba kernels once per test run (or load them from numba's disk cache),
    so that no single test pays the compilation. Returns the backend in use."""
    import numpy as np

    from minigrad import kernels

    return kernels.warm_up((np.float32, np.float64))  # the kernel tests call jit in both
