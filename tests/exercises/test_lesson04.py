"""Lesson 04 exercises: the references pass their checks, and common mistakes do not
(cases run as the grader runs them: see tests/exercise_cases.py)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from support.exercise_cases import ExerciseCases
from support.wrong_students import assert_named

import minigrad as mg
from minigrad.exercises.codec import NamedFunction
from minigrad.exercises.lessons import lesson04 as reference
from minigrad.exercises.lessons.lesson04_checks import EXERCISES

SEEDS = range(8)

_cases = ExerciseCases(EXERCISES, reference, SEEDS)
BY_ID = _cases.by_id
_case_sets = _cases.case_sets
failures = _cases.failures
caught = _cases.caught


# Well formed, reference passes, hidden cases fresh: tests/exercises/test_every_lesson.py


# ---------------------------------------------------------------------------- 04.1
def _exact_jacobian(f: NamedFunction, weights: np.ndarray, x: np.ndarray,
                    eps: float = 1e-6) -> np.ndarray:
    """diag(f'(W x)) W — the true Jacobian; within ~ε² of any central difference."""
    return np.asarray(f.derivative(weights @ x))[:, None] * weights


def _jacobian_with(transpose: bool = False, one_sided: bool = False, halves: bool = False):
    def wrong(f, weights, x, eps=1e-6):  # type: ignore[no-untyped-def]
        columns = []
        for j in range(x.size):
            step = np.zeros_like(x)
            step[j] = eps
            plus = f(weights @ (x + step))
            if one_sided:
                columns.append((plus - f(weights @ x)) / eps)
            else:
                columns.append((plus - f(weights @ (x - step))) / (eps if halves else 2 * eps))
        return np.stack(columns, axis=0 if transpose else 1)

    return wrong


def test_numerical_jacobian_accepts_the_exact_jacobian() -> None:
    assert failures("04.1", _exact_jacobian) == []


def test_numerical_jacobian_does_not_change_x() -> None:
    x = np.array([0.1, -0.2, 0.3])
    reference.numerical_jacobian(NamedFunction("tanh"), np.eye(3), x, 1e-6)
    assert x.tolist() == [0.1, -0.2, 0.3]


@pytest.mark.parametrize("wrong", [_jacobian_with(transpose=True), _jacobian_with(one_sided=True),
                                   _jacobian_with(halves=True)],
                         ids=["transposed", "one-sided", "divides-by-eps"])
def test_numerical_jacobian_mistakes_are_caught(wrong: Callable) -> None:
    caught("04.1", wrong)


def test_a_transposed_jacobian_is_told_its_shape() -> None:
    messages = failures("04.1", _jacobian_with(transpose=True), _case_sets("04.1")[:1])
    assert messages[0].startswith("expected an array of shape (2, 3), got shape (3, 2); your J "
                                  "is transposed")


def _jacobian_of_f_alone(f, weights, x, eps=1e-6):  # type: ignore[no-untyped-def]
    columns = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step[j] = eps
        columns.append((f(x + step) - f(x - step)) / (2 * eps))
    return np.stack(columns, axis=1)


@pytest.mark.parametrize("wrong, words", [
    (_jacobian_with(one_sided=True), "one-sided differences"),
    (_jacobian_with(halves=True), "twice the right one"),
    (_jacobian_with(transpose=True), "your J is transposed"),
    (_jacobian_of_f_alone, "misses the layer's weights"),
], ids=["one-sided", "divides-by-eps", "transposed", "no-weights"])
def test_numerical_jacobian_mistakes_are_named(wrong: Callable, words: str) -> None:
    """A one-sided difference got numbers only ("expected 0.98, got 0.97")."""
    messages = caught("04.1", wrong)
    assert sum(words in message for message in messages) >= len(messages) / 2, messages


# ---------------------------------------------------------------------------- 04.2
def test_higher_derivatives_reproduce_the_syllabus_example() -> None:
    assert reference.higher_derivatives([0.0, 0.0, 0.0, 1.0], 2.0) == [12.0, 12.0, 6.0]


def test_higher_derivatives_match_numpy_polyder() -> None:
    for coeffs, x in BY_ID["04.2"].hidden(np.random.default_rng(3)):
        polynomial = np.polynomial.Polynomial(coeffs)
        expected = [polynomial.deriv(k)(x) for k in (1, 2, 3)]
        np.testing.assert_allclose(reference.higher_derivatives(coeffs, x), expected,
                                   rtol=1e-9, atol=1e-9)


def _first_derivative_three_times(coeffs, x):  # type: ignore[no-untyped-def]
    first = sum(k * c * x ** (k - 1) for k, c in enumerate(coeffs) if k > 0)
    return [first, first, first]


def test_repeating_the_first_derivative_is_caught() -> None:
    caught("04.2", _first_derivative_three_times)


# ---------------------------------------------------------------------------- 04.3
def test_hook_trace_reproduces_its_example() -> None:
    result = reference.hook_trace(np.array([1.0, 2.0]), [10.0])
    np.testing.assert_allclose(result["seen"][0], [4.0, 8.0])
    np.testing.assert_allclose(result["x_grad"], [80.0, 160.0])


def _hooks_with_late_binding(x, factors):  # type: ignore[no-untyped-def]
    import minigrad as mg

    leaf = mg.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
    h = leaf * 2
    seen = []
    for factor in factors:
        h.register_hook(lambda g: (seen.append(g.numpy().copy()), g * factor)[1])
    (h * h).sum().backward()
    return {"seen": seen, "x_grad": leaf.grad.numpy()}


def _hooks_that_only_look(x, factors):  # type: ignore[no-untyped-def]
    seen = [4 * np.asarray(x) for _ in factors]
    return {"seen": seen, "x_grad": 8 * np.asarray(x) * np.prod(factors)}


@pytest.mark.parametrize("wrong", [_hooks_with_late_binding, _hooks_that_only_look],
                         ids=["late-binding", "every-hook-sees-the-original"])
def test_hook_mistakes_are_caught(wrong: Callable) -> None:
    caught("04.3", wrong)


# ---------------------------------------------------------------------------- 04.4
def test_two_backwards_add_up() -> None:
    x = np.array([0.5, -1.0, 2.0])
    result = reference.two_backwards(x)
    d1 = 1 - np.tanh(x) ** 2
    np.testing.assert_allclose(result["after_first"], d1)
    np.testing.assert_allclose(result["after_both"], d1 + 2 * np.tanh(x) * d1)


def test_reporting_only_the_second_loss_is_caught() -> None:
    def second_only(x):  # type: ignore[no-untyped-def]
        d1 = 1 - np.tanh(x) ** 2
        return {"after_first": d1, "after_both": 2 * np.tanh(x) * d1}

    caught("04.4", second_only)


def test_check_reports_a_transposed_jacobian(capsys) -> None:  # type: ignore[no-untyped-def]
    from minigrad.exercises import check

    assert not check("04.1", _jacobian_with(transpose=True))
    printed = capsys.readouterr().out
    assert "expected an array of shape (2, 3), got shape (3, 2)" in printed
    assert BY_ID["04.1"].idea in printed or BY_ID["04.1"].hint in printed
    assert not check("04.1", _jacobian_with(transpose=True))  # from the second failure on:
    assert BY_ID["04.1"].reading in capsys.readouterr().out  # the reading's section


# ---------------------------------------------------------------------------- 04.5
def _softplus_with(numpy_backward: bool = False, attribute: bool = False):  # type: ignore[no-untyped-def]
    """An answer to 04.5 with a numpy backward and/or x kept as a ctx attribute."""
    from minigrad.autograd import Function

    class Softplus(Function):
        @staticmethod
        def forward(ctx, x):  # type: ignore[no-untyped-def]
            if attribute:
                ctx.x = x
            else:
                ctx.save_for_backward(x)
            return np.logaddexp(0.0, x)

        @staticmethod
        def backward(ctx, grad_output):  # type: ignore[no-untyped-def]
            x = mg.tensor(ctx.x) if attribute else ctx.saved_tensors[0]
            if numpy_backward:
                return grad_output.numpy() / (1 + np.exp(-x.numpy()))
            return grad_output * x.sigmoid()

    def answer(x, grad_output):  # type: ignore[no-untyped-def]
        return reference.run_graph_behaviour(Softplus, x, grad_output)
    return answer


def test_softplus_matches_torch_to_the_second_derivative() -> None:
    torch = pytest.importorskip("torch")
    for x, v in BY_ID["04.5"].hidden(np.random.default_rng(0)):
        y, first, second, verdict, retained = reference.softplus_function(x, v)
        tx = torch.tensor(x, requires_grad=True)
        ty = torch.nn.functional.softplus(tx)
        (tfirst,) = torch.autograd.grad(ty, tx, torch.tensor(v), create_graph=True)
        (tsecond,) = torch.autograd.grad(tfirst.sum(), tx)
        np.testing.assert_allclose(y, ty.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(first, tfirst.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(second, tsecond.numpy(), rtol=1e-10)
        np.testing.assert_allclose(retained, 2 * tfirst.detach().numpy(), rtol=1e-12)
        assert verdict == "RuntimeError: retain_graph"


def _credits(exercise_id, function):  # type: ignore[no-untyped-def]
    from minigrad.exercises.spec import judge
    exercise, earned = BY_ID[exercise_id], []
    for cases in _case_sets(exercise_id):
        for args in cases:
            expected = getattr(reference, exercise.function)(*args)
            earned.append(judge(exercise, expected, function(*args), args)[1])
    return earned


def test_a_numpy_backward_is_named_and_earns_the_other_parts() -> None:
    wrong = _softplus_with(numpy_backward=True)
    messages = caught("04.5", wrong)
    assert len(messages) == sum(len(cases) for cases in _case_sets("04.5"))
    assert all("cannot be differentiated again" in m for m in messages), messages
    # the second derivative is half a case (3.2 of 4 points before)
    assert set(_credits("04.5", wrong)) == {1 / 2}


def test_a_ctx_attribute_instead_of_save_for_backward_is_named() -> None:
    messages = caught("04.5", _softplus_with(attribute=True))
    assert len(messages) == sum(len(cases) for cases in _case_sets("04.5"))
    assert all("ctx.save_for_backward" in m and "cannot be differentiated" in m
               for m in messages), messages


def test_a_backward_without_grad_output_fails_every_case_and_is_named() -> None:
    """σ(x) alone, not v·σ(x): no visible case may have v = 1 (the first one had)."""
    from minigrad.autograd import Function

    class Slope(Function):
        @staticmethod
        def forward(ctx, x):  # type: ignore[no-untyped-def]
            ctx.save_for_backward(x)
            return np.logaddexp(0.0, x)

        @staticmethod
        def backward(ctx, grad_output):  # type: ignore[no-untyped-def]
            return ctx.saved_tensors[0].sigmoid()

    def wrong(x, grad_output):  # type: ignore[no-untyped-def]
        return reference.run_graph_behaviour(Slope, x, grad_output)
    messages = caught("04.5", wrong)
    assert len(messages) == sum(len(cases) for cases in _case_sets("04.5"))
    assert all("grad_output" in m and "from above" in m for m in messages), messages


def test_the_numpy_backward_message_is_not_the_solution_line() -> None:
    """It said "compute it with minigrad operations on ctx.saved_tensors (x.sigmoid(), *)"."""
    for message in caught("04.5", _softplus_with(numpy_backward=True)):
        assert "sigmoid" not in message and "saved_tensors" not in message, message
        assert "cannot be differentiated again" in message



def _softplus_backward(derivative):  # type: ignore[no-untyped-def]
    from minigrad.autograd import Function

    class Softplus(Function):
        @staticmethod
        def forward(ctx, x):  # type: ignore[no-untyped-def]
            ctx.save_for_backward(x)
            return np.logaddexp(0.0, x)

        @staticmethod
        def backward(ctx, grad_output):  # type: ignore[no-untyped-def]
            return grad_output * derivative(ctx.saved_tensors[0])

    return lambda x, v: reference.run_graph_behaviour(Softplus, x, v)


@pytest.mark.parametrize("derivative, words", [
    (lambda x: (1 + x.exp()).log(), "by softplus itself"),
    (lambda x: x.sigmoid() * (1 - x.sigmoid()), "second derivative"),
], ids=["softplus", "second-derivative"])
def test_softplus_backward_mistakes_are_named(derivative, words) -> None:  # type: ignore
    messages = caught("04.5", _softplus_backward(derivative))
    assert all(words in message for message in messages), messages


# ---------------------------------------------------------------------------- named mistakes
# Each: a wrong solution as a student writes it (code of the reference replaced), and the
# sentence that names its mistake.
LATE_BINDING = ("    for factor in factors:\n"
                "        def hook(grad):  # type: ignore[no-untyped-def]\n"
                "            seen.append(grad.numpy().copy())\n"
                "            return grad * factor\n"
                "        h.register_hook(hook)\n")
POLYNOMIAL = ("    value = mg.tensor(float(coeffs[0]), dtype=mg.float64)\n"
              "    for power, coefficient in enumerate(coeffs):\n"
              "        if power > 0:\n"
              "            value = value + coefficient * t ** power\n")
POLYNOMIAL_FROM = ("    value = mg.tensor(0.0, dtype=mg.float64)\n"
                   "    for power, coefficient in enumerate({}):\n"
                   "        value = value + coefficient * t ** power\n")
NAMED_MISTAKES = [
    ("04.2", ("    derivatives = []\n    for order in range(3):\n",
              "    derivatives = [value.item()]\n    for order in range(2):\n"),
     "your list starts with p(x) itself"),
    ("04.2", ("create_graph=order < 2", "create_graph=False"), "your p″ and p‴ are 0"),
    ("04.2", ("(value,) = mg.autograd.grad(value, t, create_graph=order < 2)\n"
              "        derivatives.append(value.item())",
              "(first,) = mg.autograd.grad(value, t, create_graph=True)\n"
              "        derivatives.append(first.item())"),
     "your entries are all p′(x)"),
    ("04.2", (POLYNOMIAL, POLYNOMIAL_FROM.format("reversed(coeffs)")),
     "reads coeffs from the highest power down"),
    ("04.2", (POLYNOMIAL, POLYNOMIAL_FROM.format("coeffs, start=1")), "your powers are one too high"),
    ("04.2", ("        if not value.requires_grad:", "        if False:"),
     "differentiated a derivative that carries no graph"),
    ("04.3", ("    for factor in factors:\n        h.register_hook(make_hook(factor))\n",
              LATE_BINDING), "your hooks all multiply by the last factor"),
    ("04.3", ("seen.append(grad.numpy().copy())", "seen.append((grad * factor).numpy().copy())"),
     "record the gradient after multiplying it"),
    ("04.3", ("            return grad * factor\n", "            grad * factor\n"),
     "your hooks return nothing"),
    ("04.3", ("    for factor in factors:\n", "    for factor in reversed(factors):\n"),
     "run in the reverse order of factors"),
    ("04.3", ("h.register_hook(make_hook(factor))", "leaf.register_hook(make_hook(factor))"),
     "your hooks see the gradient of x"),
    ("04.4", ("    (h * h).sum().backward()\n", "    leaf.grad = None\n    (h * h).sum().backward()\n"),
     "your after_both is dL2/dx alone"),
    ("04.4", ('"after_both": leaf.grad.numpy()', '"after_both": after_first + leaf.grad.numpy()'),
     "counts dL1/dx twice"),
    ("04.4", ("    h.sum().backward(retain_graph=True)\n    after_first = leaf.grad.numpy().copy()\n"
              "    (h * h).sum().backward()\n",
              "    (h * h).sum().backward(retain_graph=True)\n"
              "    after_first = leaf.grad.numpy().copy()\n    h.sum().backward()\n"),
     "your after_first is dL2/dx"),
    ("04.4", ("    after_first = leaf.grad.numpy().copy()\n    (h * h).sum().backward()\n",
              "    (h * h).sum().backward()\n    after_first = leaf.grad.numpy().copy()\n"),
     "your after_first is x.grad after both"),
    ("04.4", ("h.sum().backward(retain_graph=True)", "h.sum().backward()"),
     "ask the first backward to retain the graph"),
    ("04.4", ("(h * h).sum().backward()", "(h * h).backward()"),
     "a loss must be a single number"),
]


@pytest.mark.parametrize("exercise_id, replaced, sentence", NAMED_MISTAKES,
                         ids=[f"{m[0]}-{m[2][:30]}" for m in NAMED_MISTAKES])
def test_a_wrong_solution_gets_the_sentence_that_names_its_mistake(
        exercise_id: str, replaced: tuple[str, str], sentence: str) -> None:
    assert_named(exercise_id, replaced, sentence)
