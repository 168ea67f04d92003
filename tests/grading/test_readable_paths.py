"""The child's readable paths are worked out fast, and as before: a lesson-08 file (whose
capstone child may read numpy alone, so every other installed package is a protected path)
took 15-20 s to grade, most of it in pathlib's ``is_relative_to``."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from minigrad.exercises.lessons.lesson08_checks import CAPSTONE_RUNTIME
from minigrad.grading.sandbox import runtime


@pytest.mark.parametrize("path, root", [
    ("/a/b", "/a/b"), ("/a/b/c", "/a/b"), ("/a/bc", "/a/b"), ("/a", "/a/b"), ("/a/b", "/"),
    ("/", "/"), ("/usr/lib/python3/x.py", "/usr/lib/python3"), ("/usr/lib/python3", "/usr"),
])
def test_within_is_is_relative_to(path: str, root: str) -> None:
    assert runtime._within(Path(path), Path(root)) == Path(path).is_relative_to(Path(root))


def test_the_capstones_readable_paths_take_well_under_a_second() -> None:
    runtime.runtime_copy(CAPSTONE_RUNTIME)  # the copy is made once per grader, not timed here
    start = time.process_time()
    grants = runtime.readable_paths(runtime=CAPSTONE_RUNTIME)
    assert time.process_time() - start < 1.0  # 2.5 s of CPU before
    protected = runtime.protected_paths() + runtime._other_packages(CAPSTONE_RUNTIME)
    for path, rights in grants:  # nothing granted is (in) a protected path, but folders to list
        inside = [item for item in protected if Path(path) == item
                  or Path(path).is_relative_to(item)]
        assert not inside or all(item != runtime.PACKAGE for item in inside), path
