"""The package's layout: folders that read like the course, imports that point one way, and
the first layout's module paths still importing (with a warning) until minigrad 0.2."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad
from minigrad import _compat

PACKAGE = Path(minigrad.__file__).resolve().parent


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports by absolute name, at any depth of its code."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_package_root_holds_few_modules_beside_the_folders() -> None:
    modules = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert modules == ["__init__.py", "__main__.py", "_compat.py", "_threads.py", "cli.py",
                       "training.py"]
    folders = {path.name for path in PACKAGE.iterdir()
               if path.is_dir() and (path / "__init__.py").exists()}
    assert {"scalar", "tensor", "autograd", "ops", "nn", "optim", "data", "kernels", "utils",
            "viz", "figures", "course", "exercises", "grading", "i18n"} == folders


def test_exercises_never_import_the_grader() -> None:
    for path in (PACKAGE / "exercises").rglob("*.py"):
        grading = {name for name in imported_modules(path) if name.startswith("minigrad.grading")}
        assert not grading, f"{path.relative_to(PACKAGE)} imports {sorted(grading)}"


def test_nothing_inside_minigrad_imports_an_old_path() -> None:
    for path in PACKAGE.rglob("*.py"):
        if path.name == "_compat.py":
            continue
        old = {name for name in imported_modules(path) if _compat.new_homes(name)}
        assert not old, f"{path.relative_to(PACKAGE)} imports {sorted(old)}"


def test_the_picture_modules_have_no_import_cycle() -> None:
    modules = {module_name(path): path for path in (PACKAGE / "figures").glob("*.py")}
    edges = {name: {other for other in imported_modules(path) if other in modules and other != name}
             for name, path in modules.items()}
    done: set[str] = set()

    def visit(name: str, trail: tuple[str, ...]) -> None:
        assert name not in trail, f"import cycle: {' -> '.join(trail + (name,))}"
        if name not in done:
            for other in edges[name]:
                visit(other, trail + (name,))
            done.add(name)

    for name in modules:
        visit(name, ())


@pytest.mark.parametrize("old", [*_compat.MOVED, "minigrad.pictures.lesson07",
                                 "minigrad.exercises.grading.grader",
                                 "minigrad.exercises.sandbox.worker"])
def test_every_old_module_path_still_imports_and_names_its_new_home(old: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(FutureWarning, match=r"has moved to minigrad\.") as warned:
        module = importlib.import_module(old)
    homes = _compat.new_homes(old)
    assert all(home in str(warned[0].message) for home in homes)
    for home in homes:
        new = importlib.import_module(home)
        public = [name for name in vars(new) if not name.startswith("_")]
        assert all(getattr(module, name) is getattr(new, name) for name in public)


def test_the_old_paths_students_copied_into_notebooks_work() -> None:
    """The imports lessons 01–08's notebooks used before the move, in a fresh interpreter."""
    code = "\n".join([
        "import warnings; warnings.simplefilter('ignore', FutureWarning)",
        "from minigrad.value import Value, topological_order",
        "from minigrad.numerical import central_difference, difference_errors",
        "from minigrad.scalar_nn import MLP",
        "from minigrad.scalar_training import accuracy, train_classifier",
        "from minigrad.plotting import plot_matrix, plot_difference_errors",
        "from minigrad.training_plots import plot_history, plot_confusion_matrix",
        "from minigrad.lesson_pictures import plot_tangent, plot_mlp, plot_broadcast",
        "from minigrad.pictures.lesson06 import plot_sliding_window",
        "from minigrad.serialization import save, load",
        "from minigrad.lessons import LESSONS",
        "import minigrad",
        "assert Value is minigrad.Value and save is minigrad.save",
        "print('ok')",
    ])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


def test_a_name_that_never_existed_is_still_an_import_error() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("minigrad.no_such_module")
