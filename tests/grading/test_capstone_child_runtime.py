"""What the capstone's (08.5) child can reach: no installed library but numpy (not even the base
interpreter's), not the test split or the source tree; and a forged report that crashes the
grader's comparator is graded 0, not lost.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from support.capstone_routes import REFERENCE, capstone_score, with_capstone_body
from support.grading_results import needs_sandbox

pytestmark = needs_sandbox


# ---------------------------------------------------------------------------- the child's reach
def _with_top_level(body: str, top: str) -> str:
    """The reference with ``body`` as the capstone's code and ``top`` at the top level inside a
    ``try:`` (which the rules do not read), before the given capstone_report."""
    text = with_capstone_body(REFERENCE, body)
    top = "\ntry:\n" + textwrap.indent(textwrap.dedent(top).strip("\n"), "    ") \
        + "\nexcept ImportError:\n    pass\n"
    return text.replace("\ndef capstone_report(", top + "\n\ndef capstone_report(", 1)


def _base_site_packages() -> str:
    import sys
    import sysconfig
    return sysconfig.get_paths(vars={"base": sys.base_prefix,
                                     "platbase": sys.base_prefix})["purelib"]


def test_the_base_interpreters_packages_cannot_be_imported(tmp_path: Path) -> None:
    """Under a virtualenv, the base interpreter's site-packages (pyenv keeps it inside the
    standard library's folder, which the child reads) held scipy, sympy, IPython: after
    sys.path.insert(0, it) the capstone's child imported scipy.signal's correlate2d. Now every
    package folder of the machine is closed to it but numpy's entries."""
    site = _base_site_packages()
    if not Path(site, "scipy").is_dir():
        pytest.skip(f"no scipy in {site} here")
    top = f'''
        import sys as _sys
        import importlib as _importlib
        def _other_library():
            _sys.path.insert(0, {site!r})
            found = []
            for name in ("scipy.signal", "scipy.optimize", "sympy", "IPython"):
                try:
                    _importlib.import_module(name)
                    found.append(name)
                except Exception:
                    pass
            raise AssertionError(f"imported {{found}}" if found else "imported nothing")
    '''
    score, feedback = capstone_score(tmp_path, "scipy", _with_top_level(
        "_other_library()\nmodel = layers = optimizer = None\nlosses = [1.0]\n", top))
    assert score == 0.0 and "AssertionError: imported nothing" in feedback, feedback


def test_the_test_split_and_the_source_tree_stay_unreadable(tmp_path: Path) -> None:
    """The full digits file (with the test split) in the installed package and in the
    grader's unstripped runtime copy in /tmp, /tmp itself, the parent's processes: refused.
    (The stripped copy's own digits.npz is readable and holds only the 1 437 training
    images, as test_capstone_routes checks.)"""
    from minigrad.grading.sandbox.runtime import DIGITS, PACKAGE, runtime_copy

    base = runtime_copy() / DIGITS  # the grader process's own, made before the child
    paths = [str(PACKAGE / "data/files/digits.npz"), str(base), "/tmp", "/proc/1/../2"]
    top = f'''
        import os as _os
        def _reach():
            got = []
            for path in {paths!r}:
                try:
                    got.append(f"{{path}}: listed {{len(_os.listdir(path))}}"
                               if _os.path.isdir(path) else
                               f"{{path}}: read {{len(open(path, 'rb').read())}}")
                except OSError as error:
                    got.append(f"{{path}}: {{type(error).__name__}}")
            raise AssertionError(" ; ".join(got))
    '''
    score, feedback = capstone_score(tmp_path, "reach", _with_top_level(
        "_reach()\nmodel = layers = optimizer = None\nlosses = [1.0]\n", top))
    assert score == 0.0 and "read " not in feedback and "listed" not in feedback, feedback
    assert f"{base}: PermissionError" in feedback, feedback


# ---------------------------------------------------------------------------- the comparator
FORGED_CRASH = '''
import sys
try:
    raise ValueError
except ValueError:
    namespace = sys.exc_info()[2].tb_frame.f_globals
namespace["capstone_report"] = lambda *rest: {
    "layers": [("flatten",), ("linear", np.zeros((10, 64)), np.zeros(10))],
    "probe_scores": np.zeros((64, 10)), "probe_gradients": [], "losses": [1.0],
    "your_functions": ["A", "B", "C"], "library_layers": np.array([0, 0]),
    "optimizer": "X", "library_optimizers": []}
model = layers = optimizer = None
losses = [1.0]
'''


def test_a_report_that_crashes_the_comparator_scores_nothing(tmp_path: Path) -> None:
    """A forged report whose library_layers is an array (its truth value raises in
    _compare_capstone): the grader catches it and scores 0, graded, not 'NOT GRADED'."""
    score, feedback = capstone_score(tmp_path, "crash", with_capstone_body(REFERENCE,
                                                                           FORGED_CRASH))
    assert score == 0.0 and "could not be compared: ValueError" in feedback, feedback
