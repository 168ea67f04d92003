"""The module paths of minigrad 0.1's first layout, kept importing until minigrad 0.2.

The package was regrouped so that its folders read like the course (``scalar/``,
``figures/``, ``course/``, ``grading/``). Students' notebooks may still say
``from minigrad.value import Value`` or ``from minigrad.plotting import plot_matrix``; such an
import finds the module at its new home and warns once, naming that home (a FutureWarning,
which Python and Jupyter show: it is meant for the student who wrote the import). Nothing
inside minigrad imports an old path.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

#: old module -> the module(s) now holding its names (several when one module was split).
MOVED: dict[str, tuple[str, ...]] = {
    "minigrad.value": ("minigrad.scalar.value",),
    "minigrad.numerical": ("minigrad.scalar.numerical",),
    "minigrad.scalar_nn": ("minigrad.scalar.nn",),
    "minigrad.scalar_training": ("minigrad.scalar.training",),
    "minigrad.serialization": ("minigrad.utils.serialization",),
    "minigrad.lessons": ("minigrad.course.catalog",),
    "minigrad.plotting": ("minigrad.figures.plots",),
    "minigrad.training_plots": ("minigrad.figures.training",),
    "minigrad.lesson_pictures": ("minigrad.figures.lesson01", "minigrad.figures.lesson02",
                                 "minigrad.figures.lesson03"),
    "minigrad.viz.lecture_figures": ("minigrad.figures.lecture",),
    "minigrad.pictures": ("minigrad.figures",),
    "minigrad.exercises.grading": ("minigrad.grading",),
    "minigrad.exercises.sandbox": ("minigrad.grading.sandbox",),
}
#: old package prefix -> new prefix, for the modules inside a moved package.
MOVED_PACKAGES: dict[str, str] = {
    "minigrad.pictures.": "minigrad.figures.",
    "minigrad.exercises.grading.": "minigrad.grading.",
    "minigrad.exercises.sandbox.": "minigrad.grading.sandbox.",
}


def new_homes(old: str) -> tuple[str, ...] | None:
    """The module(s) that now hold what ``old`` held, or None if ``old`` did not move."""
    if old in MOVED:
        return MOVED[old]
    for prefix, replacement in MOVED_PACKAGES.items():
        if old.startswith(prefix):
            return (replacement + old[len(prefix):],)
    return None


class MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old path as a module holding the names of its new home(s).

    It sits last on ``sys.meta_path``, so it is only asked about names no file provides.
    """

    def find_spec(self, fullname: str, path: object = None, target: object = None
                  ) -> importlib.machinery.ModuleSpec | None:
        homes = new_homes(fullname)
        if homes is None:
            return None
        is_package = any(importlib.util.find_spec(home).submodule_search_locations is not None
                         for home in homes)
        return importlib.machinery.ModuleSpec(fullname, self, is_package=is_package)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return types.ModuleType(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        homes = new_homes(module.__name__) or ()
        warnings.warn(f"{module.__name__} has moved to {' and '.join(homes)}; the old path "
                      "works until minigrad 0.2", FutureWarning, stacklevel=2)
        for home in homes:
            target = importlib.import_module(home)
            module.__dict__.update({name: value for name, value in vars(target).items()
                                    if not (name.startswith("__") and name.endswith("__"))})
            if hasattr(target, "__all__"):
                module.__all__ = [*getattr(module, "__all__", []), *target.__all__]


def install() -> None:
    """Put :class:`MovedModuleFinder` last on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
