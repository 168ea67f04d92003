"""The capstone's source rules: each route to the points without the work, tried
on the reference solution's source, is refused before anything runs; honest code passes."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest

from minigrad.exercises.lessons import lesson08 as reference
from minigrad.exercises.lessons.lesson08_checks import EXERCISES, _check_capstone_source

SOURCE = Path(inspect.getfile(reference)).read_text(encoding="utf-8")
FINAL = "    return capstone_report(model, layers, optimizer, losses, recorder)\n"
TRAIN = "    optimizer = MyAdamW(model.parameters(), lr=base_lr, weight_decay=1e-2)\n"
CHECK = next(e for e in EXERCISES if e.id == "08.5").source_check


def _with(old: str, new: str) -> str:
    assert SOURCE.count(old) == 1, old
    return SOURCE.replace(old, new)


def _before_final(lines: str) -> str:
    return _with(FINAL, textwrap.indent(textwrap.dedent(lines).strip("\n") + "\n", "    ") + FINAL)


def test_the_reference_and_an_honest_variant_keep_the_rules() -> None:
    assert CHECK is _check_capstone_source
    assert _check_capstone_source(SOURCE) is None
    honest = _before_final("""
        import sys
        import time
        from numpy.lib.stride_tricks import sliding_window_view
        from minigrad.autograd import Function, gradcheck
        print("took", time.perf_counter(), file=sys.stderr)
    """)
    assert _check_capstone_source(honest) is None


ROUTES = {
    "a constant answer": (_with(FINAL, "    return {'test_accuracy': 1.0}\n" + FINAL),
                          "return nowhere else"),
    "a constant answer, last line dropped": (_with(FINAL, "    return {'test_accuracy': 1.0}\n"),
                                             "must end with its given line"),
    "the report shadowed": (_before_final("capstone_report = lambda *args: {}"),
                            "capstone_report is given"),
    "the report edited": (_with('    scores = model(mg.tensor(probe))',
                                '    scores = 0 * model(mg.tensor(probe))'),
                          "capstone_report is given"),
    "the library list emptied": (_before_final("LIBRARY_NODES.clear()"), "LIBRARY_NODES"),
    "F.conv2d": (_before_final("out = F.conv2d(mg.zeros(1, 1, 3, 3), mg.zeros(1, 1, 2, 2))"),
                 ".conv2d"),
    "an alias of nn.Conv2d": (_before_final("Layer = nn.Conv2d"), ".Conv2d"),
    "an import of F.linear": (_before_final("from minigrad.nn.functional import linear as lin"),
                              "imports linear"),
    "getattr": (_before_final("conv = getattr(F, 'conv' + '2d')"), "getattr"),
    "F.__dict__": (_before_final("conv = F.__dict__['conv2d']"), "__dict__"),
    "the kernels": (_before_final("from minigrad.kernels import conv"), "minigrad.kernels"),
    "optim.AdamW": (_with(TRAIN, "    optimizer = optim.AdamW(model.parameters())\n"), "optim"),
    "minigrad.optim imported": (_before_final("from minigrad.optim import AdamW as MyOpt"),
                                "imports AdamW"),
    "autograd.grad in a backward": (_before_final("g = mg.autograd.grad"), "autograd"),
    "enable_grad in a forward": (_before_final("with mg.enable_grad():\n    pass"),
                                 "enable_grad"),
    "a renamed wrapper": (_before_final("MaxPool2d.__name__ = 'Pool'"), "__name__"),
    "the checker patched": (_before_final("nn.Module.__call__ = lambda self, x: x"),
                            "changes nn.Module.__call__"),
    "pretrained weights from a file": (_before_final("w = np.load('weights.npy')"), ".load"),
    "pretrained weights pasted in": (_before_final(f"w = '{'0' * 5000}'"), "literal"),
    "the reference read": (_before_final("text = open('lesson08.py').read()"), "open"),
    "the reference imported": (_before_final(
        "from minigrad.exercises.lessons import lesson08"), "minigrad.exercises"),
    "exec": (_before_final("exec('x = 1')"), "exec"),
}


@pytest.mark.parametrize("route", ROUTES)
def test_each_route_around_the_work_is_refused(route) -> None:  # type: ignore[no-untyped-def]
    source, words = ROUTES[route]
    message = _check_capstone_source(source)
    assert message is not None and words in message, message


def test_a_helper_at_the_top_level_is_read_too() -> None:
    """The student's pieces may live outside capstone(): what it uses is checked."""
    source = _with("def capstone(seed: int) -> dict:",
                   "Conv = F.conv2d\n\n\ndef capstone(seed: int) -> dict:")
    assert _check_capstone_source(source) is None  # not used: not the capstone's code
    used = _with(FINAL, "    print(Conv)\n" + FINAL)
    used = used.replace("def capstone(seed: int) -> dict:",
                        "Conv = F.conv2d\n\n\ndef capstone(seed: int) -> dict:")
    assert "Conv (used by capstone)" in _check_capstone_source(used)


def test_the_notebooks_own_cells_do_not_count_against_it() -> None:
    """A notebook's other cells may use optim at the top level: the capstone's own `model` and
    `optimizer` are its locals, not those globals."""
    from minigrad.grading.submission import notebook_code

    notebook = Path(__file__).parents[2] / "notebooks" / "08-weight-decay.ipynb"
    assert _check_capstone_source(notebook_code(notebook)) is None
    cells = ("import minigrad.optim as optim\nmodel = nn.Linear(2, 2)\n"
             "optimizer = optim.SGD(model.parameters(), lr=0.1)\n\n\n")
    source = SOURCE.replace("def capstone(seed: int) -> dict:",
                            cells + "def capstone(seed: int) -> dict:")
    assert _check_capstone_source(source) is None


def test_the_grader_refuses_before_running_anything(tmp_path: Path) -> None:
    """A constant answer gets 0 with the rule's message, and the child is never asked."""
    from minigrad.grading import grader
    from minigrad.grading.submission import SourceFile

    class NoSandbox:
        timeout = 10.0

        def run(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise AssertionError("the student's code ran")

    capstone = next(e for e in EXERCISES if e.id == "08.5")
    source = SourceFile(tmp_path / "lesson08.py", None,  # type: ignore[arg-type]
                        ROUTES["a constant answer"][0])
    cases = [grader.Case(True, (0,), None, "capstone(0)"),
             grader.Case(False, (7,), None, "capstone(7)")]
    graded = grader._ExerciseGrader(source, capstone, cases)
    for visible in (True, False):
        graded.run(NoSandbox(), visible)  # type: ignore[arg-type]
    result = graded.result()
    assert [case.kind for case in result.cases] == ["rules", "rules"]
    assert result.points_for() == (0.0, 5.0)
    assert "return nowhere else" in result.cases[0].message
    assert grader.STATUS_BY_KIND["rules"] == "refused"  # fits the table's status column


def test_check_in_the_notebook_says_what_the_grader_will_refuse(tmp_path: Path) -> None:
    """check("08.5", fn) passed a capstone that minigrad grade then refused; now both agree."""
    import importlib.util

    from minigrad.exercises import selfcheck

    exercise = next(e for e in EXERCISES if e.id == "08.5")
    for name, text, refused in (
            ("honest", SOURCE, False),
            ("forged", _with(FINAL, "    return {'accuracy': 0.99}\n"), True)):
        path = tmp_path / f"{name}.py"
        path.write_text(text, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(f"student_{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        message = selfcheck._refused_source(exercise, getattr(module, exercise.function))
        assert bool(message) == refused, message


def test_a_long_docstring_is_not_pasted_data() -> None:
    """The capstone's own docstring (near 2 000 characters already) may grow in a key or a
    student's notes without the literal rule refusing the file; a long string elsewhere is
    still refused."""
    first = '    """Exercise 08.5 — the capstone: a CNN made of your own pieces, trained to ≥ 97 %.\n'
    source = _with(first, first + "    " + "more words " * 300 + "\n")
    assert _check_capstone_source(source) is None
    assert "literal" in _check_capstone_source(_before_final(f"w = '{'0' * 5000}'"))
