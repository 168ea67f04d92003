"""Build step: the wheel carries the course (lessons/, notebooks/, assets/) as package data.

The repository keeps the course at its top level, where `make course` and the readings'
relative links expect it. `minigrad course DIR` (for pip users) needs the same files inside the
installed package, so building copies them to ``minigrad/course_files/`` in the build folder
only; the source tree is never changed. Everything else is in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

COURSE_PARTS = ("lessons", "notebooks", "assets", "examples")


class BuildWithCourse(build_py):
    def run(self) -> None:
        super().run()
        root = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "minigrad" / "course_files"
        for part in COURSE_PARTS:
            for path in sorted((root / part).rglob("*")):
                if path.is_file() and not any(p.startswith(".") for p in path.parts[-3:]):
                    destination = target / path.relative_to(root)
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    self.copy_file(str(path), str(destination))


setup(cmdclass={"build_py": BuildWithCourse})
