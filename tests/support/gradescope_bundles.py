"""Gradescope bundles made by `minigrad gradescope` for a test, around a stand-in wheel."""

from __future__ import annotations

import zipfile
from pathlib import Path

from minigrad.cli import main


def stub_wheel(folder: Path) -> Path:
    """A file named as the course's wheel: the bundle only copies it, so its bytes do not
    matter."""
    wheel = folder / "minigrad_course-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"not really a wheel")
    return wheel


def run_autograder(folder: Path, *arguments: str) -> str:
    """The ``run_autograder`` script of ``minigrad gradescope ARGUMENTS`` (the lessons and
    options), bundled into ``folder/autograder.zip`` around a stub wheel."""
    out = folder / "autograder.zip"
    assert main(["gradescope", *arguments, "--out", str(out), "--wheel",
                 str(stub_wheel(folder))]) == 0
    with zipfile.ZipFile(out) as bundle:
        return bundle.read("run_autograder").decode()
