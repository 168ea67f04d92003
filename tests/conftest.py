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


# ------------------------------------------------------------------ one case, both libraries
def _picture(value):  # type: ignore[no-untyped-def]
    """What a result looks like, comparably across libraries: tensors and arrays as (kind,
    dtype, shape, values), graph nodes by name, numbers with their type."""
    import numpy as np

    if isinstance(value, (tuple, list)):
        return tuple(_picture(item) for item in value)
    if isinstance(value, np.ndarray):
        return ("ndarray", str(value.dtype), value.shape, value.tolist())
    if isinstance(value, np.generic):
        return ("numpy scalar", str(value.dtype), value.item())
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # a minigrad or torch tensor
        array = value.detach().numpy()
        values = np.round(array, 5) if array.dtype.kind == "f" else array
        return ("tensor", str(array.dtype), array.shape, values.tolist())
    if callable(getattr(value, "name", None)):  # a graph node
        return ("node", value.name().removeprefix("torch::autograd::"))
    return (type(value).__name__, value)


@pytest.fixture
def same_as_torch():  # type: ignore[no-untyped-def]
    """`same_as_torch(case)` calls `case(L)` with L = minigrad and with L = torch: both give
    the same picture (values, dtypes, shapes, node names), or both raise the same exception
    type with PyTorch's message (its first line, `torch.` read as `minigrad.`) inside ours."""
    torch = pytest.importorskip("torch")
    import minigrad

    def compare(case):  # type: ignore[no-untyped-def]
        try:
            theirs = _picture(case(torch))
        except Exception as error:  # noqa: BLE001 - compared with ours below
            with pytest.raises(type(error)) as mine:
                case(minigrad)
            first_line = str(error).split("\n")[0]  # (later lines list torch's overloads)
            assert first_line.replace("torch.", "minigrad.") in str(mine.value)
            return
        assert _picture(case(minigrad)) == theirs

    return compare


# ------------------------------------------------------------------ the browser tests
@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    """Chromium through playwright (tests/support/browser.py), one per test module."""
    from support.browser import launched_chromium

    yield from launched_chromium()
