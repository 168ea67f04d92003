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


# ------------------------------------------------------------------ the PyTorch oracle
ORACLE_HINT = ("PyTorch, the test oracle, is not installed: `MINIGRAD_ORACLE=1 make test` "
               "installs it (CPU build) and runs these comparisons")


def _explain_missing_torch(report: pytest.CollectReport | pytest.TestReport) -> None:
    """A skip for want of torch says how to run the comparison, not just "could not import"."""
    if report.skipped and isinstance(report.longrepr, tuple):
        path, line, reason = report.longrepr
        if "could not import 'torch'" in reason:
            report.longrepr = (path, line, f"Skipped: {ORACLE_HINT}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # type: ignore[no-untyped-def]
    outcome = yield
    _explain_missing_torch(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):  # type: ignore[no-untyped-def]
    outcome = yield
    _explain_missing_torch(outcome.get_result())
