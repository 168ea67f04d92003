"""``check()`` in the student's kernel, the JSON codec and the comparators."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minigrad.exercises import NamedFunction, check, close, exact
from minigrad.exercises.codec import FUNCTIONS, CodecError, decode, encode
from minigrad.exercises.authoring.notebook import exercise_cells
from minigrad.exercises.authoring.source import (all_exercises, exercises, lessons_with_exercises,
                                       reference_function)
from minigrad.course.catalog import find_lesson
from minigrad.exercises.spec import describe

LESSONS = lessons_with_exercises()


# ---------------------------------------------------------------------------- check()
def test_the_reference_passes_every_check(capsys) -> None:
    for exercise_id, (lesson, exercise) in all_exercises().items():
        result = check(exercise_id, reference_function(lesson, exercise))
        assert result and result.passed == result.total > 0, exercise_id
    assert "✗" not in capsys.readouterr().out


def test_a_stub_is_not_attempted_and_does_not_raise(capsys) -> None:
    def composite_derivative(x):
        raise NotImplementedError

    result = check("01.1", composite_derivative)
    assert not result and not result.attempted
    assert "not attempted yet" in capsys.readouterr().out
    assert "not attempted" in repr(result)


def test_a_stub_is_answered_without_running_the_reference(capsys, monkeypatch) -> None:
    """The capstone's reference trains a network: a stub must not wait for it."""
    import minigrad.exercises.selfcheck as selfcheck

    def reference_must_not_run(*args):
        raise AssertionError("the reference ran before the student's function")

    monkeypatch.setattr(selfcheck, "reference_function", lambda *args: reference_must_not_run)

    def composite_derivative(x):
        raise NotImplementedError

    assert not check("01.1", composite_derivative).attempted
    assert "not attempted yet" in capsys.readouterr().out


def test_a_wrong_answer_shows_the_case_and_the_hint(capsys) -> None:
    result = check("01.1", lambda x: 2 * x)  # forgot the outer derivatives
    out = capsys.readouterr().out
    assert not result and result.total == 3
    assert "✗ case 1: composite_derivative(1.0): expected 2.506761534986894, got 2.0" in out
    assert "Idea:" in out and "sin(x²)" not in out  # the formula only when asked
    assert result.passed == 1  # x = 0 is right by accident
    assert "1/3" in repr(result)


def test_errors_and_ungradeable_answers_are_reported(capsys) -> None:
    assert not check("01.1", lambda x: 1 / 0)
    assert "raised ZeroDivisionError" in capsys.readouterr().out
    assert not check("01.1", lambda x: object())
    assert "cannot be graded" in capsys.readouterr().out
    assert not check("01.2", lambda a, b, c: {"L": 55.0})
    assert "missing keys" in capsys.readouterr().out
    assert not check("99.9", lambda: None)
    assert "No exercise '99.9'" in capsys.readouterr().out
    assert not check("01.1", 3.0)


def test_check_cannot_change_the_cases() -> None:
    def mutating(f, x, eps_values):
        eps_values[:] = 1.0  # a bad habit: changing an input in place
        return np.zeros_like(eps_values)

    result = check("01.5", mutating)
    assert not result and "changed its argument `eps_values` in place" in result.messages[0]
    lesson, exercise = all_exercises()["01.5"]
    assert check("01.5", reference_function(lesson, exercise))


def test_student_notebook_cells_run_and_report(capsys) -> None:
    lesson = find_lesson(1)
    namespace: dict = {}
    for cell in exercise_cells(lesson):
        if cell["cell_type"] == "code":
            exec("".join(cell["source"]), namespace)  # noqa: S102 — our own generated code
    out = capsys.readouterr().out
    assert out.count("not attempted yet") == len(exercises(lesson))


# ---------------------------------------------------------------------------- codec
@pytest.mark.parametrize("value", [
    None, True, 3, -2.5, "text", [1, 2.0, "x"], (1, (2, 3)), {"a": [1, (2,)], "b": None},
    [], (), {}, 2**70, [True, False],
])
def test_codec_round_trip(value) -> None:
    back = decode(encode(value))
    assert back == value and type(back) is type(value)


def test_codec_special_floats_and_arrays() -> None:
    back = decode(encode([math.nan, math.inf, -math.inf, 0.1]))
    assert math.isnan(back[0]) and back[1:] == [math.inf, -math.inf, 0.1]
    for array in (np.array([[1.5, np.nan], [np.inf, -0.0]], dtype=np.float32),
                  np.arange(6, dtype=np.int64).reshape(2, 3, 1),
                  np.array([True, False]), np.zeros((0, 3)), np.array(2.5)):
        back = decode(encode(array))
        assert back.dtype == array.dtype and back.shape == array.shape
        np.testing.assert_array_equal(back, array)
    assert decode(encode(np.float64(1.25))) == 1.25 and decode(encode(np.int32(4))) == 4
    x = np.float64(0.1) + np.float64(0.2)
    assert decode(encode(x)) == x  # floats round-trip bit for bit


def test_named_functions() -> None:
    sine = decode(encode(NamedFunction("sin")))
    assert sine == NamedFunction("sin") and sine(0.5) == math.sin(0.5)
    assert isinstance(sine(0.5), float)
    np.testing.assert_allclose(sine(np.array([0.0, 1.0])), np.sin([0.0, 1.0]))
    for name in FUNCTIONS:
        f = NamedFunction(name)
        x = 0.7
        numeric = (f(x + 1e-6) - f(x - 1e-6)) / 2e-6
        assert numeric == pytest.approx(f.derivative(x), rel=1e-6, abs=1e-8), name
    with pytest.raises(CodecError, match="no function named"):
        NamedFunction("os.system")
    with pytest.raises(CodecError):
        decode('{"__function__": "eval"}')


@pytest.mark.parametrize("bad", [object(), {1: 2}, np.array(["a"]), lambda: 1, {1.5},
                                 np.array([1 + 2j])])
def test_codec_refuses_what_it_cannot_carry(bad) -> None:
    with pytest.raises(CodecError):
        encode(bad)


@pytest.mark.parametrize("text", ["", "{", '{"__pickle__": "x"}', '{"a": 1, "b": 2}',
                                  '{"__ndarray__": {"dtype": "object", "shape": [1], "data": [1]}}',
                                  '{"__ndarray__": {"dtype": "float64", "shape": [3], "data": [1]}}',
                                  "[" * 5000 + "]" * 5000, '{"__float__": "1e5"}'])
def test_codec_refuses_garbage(text) -> None:
    with pytest.raises(CodecError):
        decode(text)


# ---------------------------------------------------------------------------- comparators
def test_close_comparator() -> None:
    compare = close(rtol=1e-6, atol=1e-9)
    assert compare(1.0, 1.0 + 1e-7) is None
    assert "expected 1.0, got 1.1" in compare(1.0, 1.1)
    assert compare(math.nan, math.nan) is None and compare(math.inf, math.inf) is None
    assert compare(math.inf, -math.inf) and compare(1.0, math.nan)
    assert compare((1.0, [2.0]), [1.0, (2.0,)]) is None  # list and tuple interchangeable
    assert "in result[1]" in compare([1.0, 2.0], [1.0, 3.0])
    assert "expected 2 items" in compare([1.0, 2.0], [1.0])
    assert "in result['b']" in compare({"a": 1.0, "b": 2.0}, {"a": 1.0, "b": 0.0})
    assert "expected a number" in compare(1.0, "1.0")
    assert "expected True" in compare(True, 1)
    array = np.array([[1.0, 2.0], [3.0, np.nan]])
    assert compare(array, array.copy()) is None
    assert compare(array[0], [1.0, 2.0]) is None
    assert "shape (2, 2)" in compare(array, np.ones(4))
    message = compare(array, np.array([[1.0, 2.0], [3.5, np.nan]]))
    assert "1 of 4 entries differ" in message and "(1, 0)" in message


def test_describe_writes_small_arrays_out_so_a_case_can_be_redone_by_hand() -> None:
    four_by_four = np.arange(16.0).reshape(4, 4)
    text = describe(four_by_four, 60)  # longer than the limit, but shown whole
    assert text.startswith("array([[ 0., 1., 2., 3.]") and text.endswith("[12., 13., 14., 15.]])")
    assert describe(np.arange(17.0)) == "array of shape (17,), dtype float64"
    assert describe(np.ones(2, dtype=np.float32)) == "array([1., 1.], dtype=float32)"
    assert describe("x" * 100, 10) == "'xxxxxxxx…"


def test_a_list_answer_is_not_cast_to_the_expected_dtype() -> None:
    """An int64 array expected, a list of floats given: 3.999 must not pass as 3."""
    message = close()(np.array([3, 1]), [3.999, 1.0])
    assert message and "expected 3, got 3.999" in message  # an integer is shown as one
    assert close()(np.array([3, 1]), [3, 1]) is None


def test_integers_are_reported_as_integers_and_exact_wants_one() -> None:
    assert close()(14, 15.5) == "expected 14, got 15.5"
    assert exact()(14, 15) == "expected 14, got 15"
    assert exact()(14, 14.0) == "expected the integer 14, got 14.0"  # typed -> int
    assert exact()(14, np.int64(14)) is None


def test_exact_comparator_and_argument_aware_comparators() -> None:
    assert exact()(["a", 1], ["a", 1]) is None
    assert exact()(0.3, 0.1 + 0.2) is not None
    assert exact()(np.array([1, 2]), np.array([1, 3])) is not None

    def any_permutation(expected, got, args):
        return None if sorted(got) == sorted(args[0]) else "not a permutation"

    assert any_permutation([1, 2], [2, 1], ([1, 2],)) is None
    assert close()(1.0, 1.0, (0,)) is None  # one signature: (expected, got, args)


@pytest.mark.parametrize("lesson", LESSONS, ids=[f"{lesson.number:02d}" for lesson in LESSONS])
def test_every_case_crosses_the_process_boundary(lesson) -> None:
    """Arguments and reference answers of every case survive the codec unchanged (and pass,
    against the expected answer the grader holds, where it holds one: the capstone's labels)."""
    rng = np.random.default_rng(0)
    for exercise in exercises(lesson):
        cases = list(exercise.visible()) + list(exercise.hidden(rng) if exercise.hidden else [])
        assert cases, exercise.id
        reference = reference_function(lesson, exercise)
        for args in cases:
            answer = reference(*args)
            expected = exercise.answer(*args) if exercise.answer else answer
            assert exercise.compare(expected, decode(encode(answer)), tuple(args)) is None
            assert encode(decode(encode(tuple(args)))) == encode(tuple(args))


# ---------------------------------------------------------------------------- lesson 01 mistakes
def _passes(exercise_id: str, function) -> bool:
    """Does ``function`` pass every visible and hidden case (seed 0) of the exercise?"""
    from minigrad.grading.grader import draw_cases

    lesson, exercise = all_exercises()[exercise_id]
    reference = reference_function(lesson, exercise)
    for _, args in draw_cases(exercise, seed=0):
        expected = decode(encode(reference(*args)))
        try:
            got = decode(encode(function(*args)))
        except Exception:  # noqa: BLE001
            return False
        if exercise.compare(expected, got, args) is not None:
            return False
    return True


def test_lesson01_common_mistakes_fail() -> None:
    # 01.1: forgetting the inner derivative; a different but correct form passes.
    assert not _passes("01.1", lambda x: math.cos(x * x) * math.exp(math.sin(x * x)))
    assert _passes("01.1", lambda x: (math.exp(math.sin(x**2)) * math.cos(x**2)) * x * 2)

    # 01.2: dropping u's direct path to L.
    def one_path(a, b, c):
        u = a + b
        v = u * c
        dL_du = (u + 1) * c  # only through v
        return {"L": u * v + v, "dL_dv": u + 1, "dL_du": dL_du, "dL_da": dL_du,
                "dL_db": dL_du, "dL_dc": (u + 1) * u}

    assert not _passes("01.2", one_path)

    # 01.3: only the path through b for a (the skip connection forgotten).
    def half(a, w1, w2, w3, w4):
        b, c = w1 * a, w2 * w1 * a
        d = w3 * a + w4 * c
        g = 2 * (d - 1)
        return {"L": (d - 1) ** 2, "dL_dw1": g * w4 * w2 * a, "dL_dw2": g * w4 * b,
                "dL_dw3": g * a, "dL_dw4": g * c, "dL_da": g * w4 * w2 * w1}

    assert not _passes("01.3", half)

    # 01.4: the one-sided difference, and dividing by ε instead of 2ε.
    assert not _passes("01.4", lambda f, x, eps: (f(x + eps) - f(x)) / eps)
    assert not _passes("01.4", lambda f, x, eps: (f(x + eps) - f(x - eps)) / eps)
    assert _passes("01.4", lambda f, x, eps: (f(x + eps) - f(x - eps)) * 0.5 / eps)

    # 01.5: a signed error, or a forward difference.
    def signed(f, x, eps_values):
        return np.array([(f(x + e) - f(x - e)) / (2 * e) - f.derivative(x) for e in eps_values])

    def forward(f, x, eps_values):
        return np.array([abs((f(x + e) - f(x)) / e - f.derivative(x)) for e in eps_values])

    def vectorised(f, x, eps_values):
        return np.abs((f(x + eps_values) - f(x - eps_values)) / (2 * eps_values) - f.derivative(x))

    assert not _passes("01.5", signed)
    assert not _passes("01.5", forward)
    assert _passes("01.5", vectorised)


# ---------------------------------------------------------------------------- where and how
def _load(tmp_path, text: str):  # type: ignore[no-untyped-def]
    """A student's file on disk, imported: its functions' frames name it."""
    import importlib.util
    import textwrap

    path = tmp_path / "my_lesson03.py"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("my_lesson03", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_error_names_the_students_own_file_and_line_in_plain_words(tmp_path, capsys) -> None:
    """check() said "raised ValueError: matmul: Input operand 1 has a mismatch in its core
    dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) …", and not where."""
    student = _load(tmp_path, """
        import numpy as np

        def matmul_backward(a, b, grad_output):
            grad_a = grad_output @ b
            return grad_a, a.T @ grad_output
        """)
    assert not check("03.2", student.matmul_backward)
    out = capsys.readouterr().out
    assert "line 5 of my_lesson03.py, in matmul_backward: grad_a = grad_output @ b" in out, out
    assert "gufunc" not in out and "matrix product" in out
    assert "selfcheck.py" not in out and "numpy" not in out.split("raised", 1)[1]


def test_the_given_runner_is_not_the_students_line(tmp_path, capsys) -> None:
    """A Function whose backward raises: the line is in backward, not in the given runner."""
    from minigrad.exercises.lessons import lesson03

    def cube_function(x, grad_output):  # the student's exercise function, given runner and all
        return lesson03.run_function(Cube, [x], grad_output)

    from minigrad.autograd import Function

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):  # type: ignore[no-untyped-def]
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_output):  # type: ignore[no-untyped-def]
            (x,) = ctx.saved_tensors
            return grad_output * undefined_name * x  # noqa: F821 — the mistake

    assert not check("03.5", cube_function)
    out = capsys.readouterr().out
    assert "in backward: return grad_output * undefined_name * x" in out, out
    assert "in run_function" not in out


def test_a_sentence_every_case_shares_is_said_once(capsys) -> None:
    """Each failing case repeated the whole sentence; now the first says it, the others
    point at it."""
    from minigrad.exercises.lessons import lesson08

    def adam_without_decay(weights, scales, targets, groups, defaults, steps):  # type: ignore
        groups = [{**group, "weight_decay": 0.0} for group in groups]
        return lesson08.adamw_optimizer(weights, scales, targets, groups,
                                        {**defaults, "weight_decay": 0.0}, steps)

    assert not check("08.4", adam_without_decay)
    out = capsys.readouterr().out
    assert out.count("your update matches Adam without weight decay") == 1, out
    assert "; see case 1" in out


def test_a_gradcheck_error_is_shown_whole_in_plain_words(capsys) -> None:
    """check() showed gradcheck's "worst entry d output[0][0] / d input[0][1]"."""
    from minigrad.autograd import Function
    from minigrad.exercises.lessons import lesson03

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):  # type: ignore[no-untyped-def]
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_output):  # type: ignore[no-untyped-def]
            return 2 * ctx.saved_tensors[0] ** 2  # forgot grad_output, and 3 is 2

    assert not check("03.5", lambda x, g: lesson03.run_function(Cube, [x], g))
    out = capsys.readouterr().out
    assert "whatever grad_output is" in out and "numerical = " in out, out
    assert "the derivative that is most wrong" in out and "worst entry d output" not in out


def test_a_later_case_keeps_its_brackets_whole(capsys) -> None:
    """A sentence said by an earlier case is left out of a later one, but a "; " inside
    brackets does not end a sentence: the later case still closes what it opens."""
    from minigrad.exercises.selfcheck import CheckResult, _fail

    result, said = CheckResult("05.1"), {}
    _fail(result, 1, "f(1)", "wrong values (right: y; wrong: dx)", said)
    _fail(result, 2, "f(2)", "wrong values (right: b; wrong: dx)", said)
    _fail(result, 3, "f(3)", "wrong values (right: y; wrong: dx); dx is twice too large", said)
    first, second, third = capsys.readouterr().out.splitlines()
    assert first.endswith("f(1): wrong values (right: y; wrong: dx)")
    assert second.endswith("f(2): wrong values (right: b; wrong: dx)"), second
    assert third.endswith("f(3): dx is twice too large; see case 1"), third
