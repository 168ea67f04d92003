"""Lesson 02 exercises: the references pass their checks, and common mistakes do not
(cases run as the grader runs them: see tests/exercise_cases.py)."""

from __future__ import annotations

import math
import sys
from collections import deque
from typing import Callable

import numpy as np
import pytest
from support.exercise_cases import ExerciseCases
from support.wrong_students import assert_named

from minigrad import Value
from minigrad.exercises.lessons import lesson02 as reference
from minigrad.exercises.lessons.lesson02_checks import EXERCISES, WORKED_PROGRAM

SEEDS = range(6)

_cases = ExerciseCases(EXERCISES, reference, SEEDS)
BY_ID = _cases.by_id
_case_sets = _cases.case_sets
failures = _cases.failures


# Well formed, reference passes, hidden cases fresh: tests/exercises/test_every_lesson.py


# ---------------------------------------------------------------------------- 02.1
def test_backward_rule_numbers() -> None:
    assert reference.backward_rule("*", [2.0, 3.0], 10.0) == [30.0, 20.0]
    assert reference.backward_rule("relu", [-1.0], 5.0) == [0.0]
    grad_base, grad_exponent = reference.backward_rule("**", [2.0, 3.0], 1.0)
    assert grad_base == 12.0 and grad_exponent == pytest.approx(8 * math.log(2.0))


def test_backward_rule_matches_the_value_engine() -> None:
    rng = np.random.default_rng(0)
    for op, inputs, grad_output in BY_ID["02.1"].hidden(rng):
        leaves = [Value(x) for x in inputs]
        out = {"+": lambda a, b: a + b, "*": lambda a, b: a * b, "**": lambda a, b: a**b,
               "exp": Value.exp, "log": Value.log, "tanh": Value.tanh,
               "relu": Value.relu}[op](*leaves)
        out.backward()  # seeds d(out)/d(out) = 1
        assert reference.backward_rule(op, inputs, grad_output) == pytest.approx(
            [leaf.grad * grad_output for leaf in leaves], rel=1e-12, abs=1e-15)


def _forgets_grad_output(op: str, inputs: list[float], grad_output: float) -> list[float]:
    return reference.backward_rule(op, inputs, 1.0)


def _tanh_from_input(op: str, inputs: list[float], grad_output: float) -> list[float]:
    if op == "tanh":
        return [(1.0 - inputs[0] ** 2) * grad_output]
    return reference.backward_rule(op, inputs, grad_output)


def _power_without_log(op: str, inputs: list[float], grad_output: float) -> list[float]:
    if op == "**":
        a, b = inputs
        return [b * a ** (b - 1) * grad_output, a**b * grad_output]
    return reference.backward_rule(op, inputs, grad_output)


def _relu_always_passes(op: str, inputs: list[float], grad_output: float) -> list[float]:
    if op == "relu":
        return [grad_output]
    return reference.backward_rule(op, inputs, grad_output)


@pytest.mark.parametrize("wrong", [_forgets_grad_output, _tanh_from_input, _power_without_log,
                                   _relu_always_passes])
def test_backward_rule_mistakes_are_caught(wrong: Callable) -> None:
    messages = failures("02.1", wrong)
    assert messages and messages[0].startswith("expected ") and " in result[" in messages[0]
    # The hidden cases alone catch it too.
    assert failures("02.1", wrong, _case_sets("02.1")[1:])


# ---------------------------------------------------------------------------- 02.2
def _depth_first_order(parents: dict[str, list[str]]) -> list[str]:
    """A different valid order (iterative DFS, not Kahn's): must be accepted too."""
    order, done = [], set()
    for root in parents:
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif node not in done:
                done.add(node)
                stack.append((node, True))
                stack.extend((parent, False) for parent in parents[node] if parent not in done)
    return order


def _recursive_order(parents: dict[str, list[str]]) -> list[str]:
    order, seen = [], set()

    def visit(node: str) -> None:
        if node in seen:
            return
        seen.add(node)
        for parent in parents[node]:
            visit(parent)
        order.append(node)

    for node in parents:
        visit(node)
    return order


def _counts_repeated_parents_twice(parents: dict[str, list[str]]) -> list[str]:
    # Kahn's algorithm that counts x twice for y = x * x but is released once: y never comes.
    waiting = {node: len(node_parents) for node, node_parents in parents.items()}
    children: dict[str, list[str]] = {node: [] for node in parents}
    for node, node_parents in parents.items():
        for parent in set(node_parents):
            children[parent].append(node)
    ready = deque(node for node, count in waiting.items() if count == 0)
    order = []
    while ready:
        node = ready.popleft()
        order.append(node)
        for child in children[node]:
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    return order


def _small_sets() -> list[list[tuple]]:
    """Case sets without the long chains (judged separately), to keep the tests fast."""
    return [[args for args in cases if len(args[0]) < 1000] for cases in _case_sets("02.2")]


def test_any_valid_topological_order_is_accepted() -> None:
    assert failures("02.2", _depth_first_order, _case_sets("02.2", range(2))) == []
    assert failures("02.2", _recursive_order, _small_sets()) == []  # right, on small graphs


def test_topological_order_mistakes_are_caught() -> None:
    dict_order = failures("02.2", lambda parents: list(parents), _small_sets())
    assert dict_order and "comes before its parent" in dict_order[0]
    root_first = failures("02.2", lambda parents: reference.topological_sort(parents)[::-1],
                          _small_sets())
    assert root_first and all("comes before its parent" in m for m in root_first)
    duplicates = failures("02.2", lambda parents: reference.topological_sort(parents) * 2,
                          _small_sets())
    assert duplicates and "appears twice" in duplicates[0]
    stuck = failures("02.2", _counts_repeated_parents_twice, _small_sets())
    assert stuck and "missing" in stuck[0]
    # Hidden cases alone catch the dict order: keys are shuffled, names say nothing.
    assert failures("02.2", lambda parents: list(parents), _small_sets()[1:])


def test_a_recursive_search_fails_on_the_long_chain() -> None:
    assert sys.getrecursionlimit() < 3_000  # the visible chain has 3 000 nodes
    visible = [list(BY_ID["02.2"].visible())]
    assert any("RecursionError" in message for message in failures("02.2", _recursive_order,
                                                                   visible))


def test_order_comparator_names_unknown_nodes() -> None:
    compare = BY_ID["02.2"].compare
    parents = {"u": ["a"], "a": []}
    assert "not a node" in compare(["a", "u"], ["a", "b", "u"], (parents,))
    assert "list" in compare(["a", "u"], "au", (parents,))


# ---------------------------------------------------------------------------- 02.3
def test_backpropagate_reproduces_the_worked_example() -> None:
    result = reference.backpropagate(WORKED_PROGRAM)
    assert result["value"]["L"] == 55.0
    assert {name: result["grad"][name] for name in "abcuv"} == {
        "a": 45.0, "b": 30.0, "c": 14.0, "u": 15.0, "v": 14.0}


def test_random_programs_stay_finite_and_use_fan_in() -> None:
    for seed in range(50):
        for (program,) in BY_ID["02.3"].hidden(np.random.default_rng(seed)):
            result = reference.backpropagate(program)
            assert all(abs(v) <= 1e4 for v in result["value"].values())
            assert all(math.isfinite(g) for g in result["grad"].values())
            assert any(step[1] == "*" and step[2] == step[3] for step in program)  # an x * x


def test_backpropagate_matches_the_value_engine() -> None:
    for seed in SEEDS:
        for (program,) in BY_ID["02.3"].hidden(np.random.default_rng(seed)):
            nodes: dict[str, Value] = {}
            for name, op, *operands in program:
                if op == "input":
                    nodes[name] = Value(operands[0])
                    continue
                args = [nodes[operand] for operand in operands]
                nodes[name] = {"+": lambda a, b: a + b, "*": lambda a, b: a * b,
                               "**": lambda a, b: a**b, "exp": Value.exp, "log": Value.log,
                               "tanh": Value.tanh, "relu": Value.relu}[op](*args)
            nodes[program[-1][0]].backward()
            grads = reference.backpropagate(program)["grad"]
            for name, op, *_ in program:
                if op == "input":
                    assert grads[name] == pytest.approx(nodes[name].grad, rel=1e-12, abs=1e-15)


def _backpropagate_with_value_engine(program: list[list]) -> dict:
    """A student who builds minigrad Values and calls backward(): must be accepted."""
    nodes: dict[str, Value] = {}
    for name, op, *operands in program:
        if op == "input":
            nodes[name] = Value(operands[0])
        else:
            args = [nodes[operand] for operand in operands]
            nodes[name] = {"+": lambda a, b: a + b, "*": lambda a, b: a * b,
                           "**": lambda a, b: a**b, "exp": Value.exp, "log": Value.log,
                           "tanh": Value.tanh, "relu": Value.relu}[op](*args)
    nodes[program[-1][0]].backward()
    return {"value": {name: node.data for name, node in nodes.items()},
            "grad": {name: node.grad for name, node in nodes.items()}}


def test_backpropagate_accepts_an_answer_built_with_value() -> None:
    assert failures("02.3", _backpropagate_with_value_engine) == []


def _backprop_with(assign: bool = False, forward_order: bool = False, seed: float = 1.0):
    def wrong(program: list[list]) -> dict:
        value = reference.backpropagate(program)["value"]
        grad = {name: 0.0 for name in value}
        grad[program[-1][0]] = seed
        steps = program if forward_order else list(reversed(program))
        for name, op, *operands in steps:
            if op == "input":
                continue
            inputs = [value[operand] for operand in operands]
            for operand, part in zip(operands, reference.backward_rule(op, inputs, grad[name])):
                grad[operand] = part if assign else grad[operand] + part
        return {"value": value, "grad": grad}

    return wrong


@pytest.mark.parametrize("wrong", [_backprop_with(assign=True),
                                   _backprop_with(forward_order=True),
                                   _backprop_with(seed=0.0)],
                         ids=["assigns-instead-of-accumulating", "forward-order", "no-seed"])
def test_backpropagate_mistakes_are_caught(wrong: Callable) -> None:
    messages = failures("02.3", wrong)
    assert messages and "['grad']" in messages[0]
    assert failures("02.3", wrong, _case_sets("02.3")[1:])


def test_forgetting_to_accumulate_fails_the_first_visible_case() -> None:
    x_times_x = [BY_ID["02.3"].visible()[0]]
    (message,) = failures("02.3", _backprop_with(assign=True), [x_times_x])
    assert message.startswith("expected 6.0 in result['grad']['x'], got 3.0; a node used more")


# ---------------------------------------------------------------------------- 02.4
def _with_value_engine(w: float, events: list[list]) -> dict[str, float]:
    """The same semantics with minigrad's Value: a correct answer written differently."""
    leaf = Value(w)
    for event in events:
        if event[0] == "mul":
            (leaf * event[1]).backward()
        elif event[0] == "square":
            (leaf * leaf).backward()
        elif event[0] == "zero_grad":
            leaf.grad = 0.0
        else:
            leaf.data -= event[1] * leaf.grad
    return {"w": leaf.data, "grad": leaf.grad}


def _accumulate_with(assign: bool = False, square: float = 2.0, keeps_zero: bool = False,
                     step_resets: bool = False, square_value: bool = False):
    def wrong(w: float, events: list[list]) -> dict[str, float]:
        grad = 0.0
        for event in events:
            contribution = None
            if event[0] == "mul":
                contribution = event[1]
            elif event[0] == "square":
                contribution = w * w if square_value else square * w
            elif event[0] == "zero_grad" and not keeps_zero:
                grad = 0.0
            elif event[0] == "step":
                w -= event[1] * grad
                if step_resets:
                    grad = 0.0
            if contribution is not None:
                grad = contribution if assign else grad + contribution
        return {"w": w, "grad": grad}

    return wrong


def test_accumulated_gradient_reproduces_the_syllabus() -> None:
    assert reference.accumulated_gradient(2.0, [["mul", 3.0], ["mul", 4.0]])["grad"] == 7.0
    events = [["mul", 3.0], ["mul", 4.0], ["zero_grad"], ["mul", 4.0]]
    assert reference.accumulated_gradient(2.0, events) == {"w": 2.0, "grad": 4.0}
    assert failures("02.4", _with_value_engine) == []


@pytest.mark.parametrize("wrong", [_accumulate_with(assign=True), _accumulate_with(square=1.0),
                                   _accumulate_with(keeps_zero=True),
                                   _accumulate_with(step_resets=True)],
                         ids=["assigns", "square-as-w", "ignores-zero-grad", "step-resets"])
def test_accumulation_mistakes_are_caught(wrong: Callable) -> None:
    assert failures("02.4", wrong)
    assert failures("02.4", wrong, _case_sets("02.4")[1:])


# ---------------------------------------------------------------------------- 02.5
def _neuron_with_value_engine(w, x, b, target):  # type: ignore[no-untyped-def]
    ws, xs, bias = [Value(v) for v in w], [Value(v) for v in x], Value(b)
    out = (sum((wi * xi for wi, xi in zip(ws, xs)), Value(0.0)) + bias).tanh()
    loss = (out - target) ** 2
    loss.backward()
    return {"out": out.data, "loss": loss.data, "grad_w": np.array([v.grad for v in ws]),
            "grad_x": [v.grad for v in xs], "grad_b": bias.grad}


def _neuron_with(errata: bool = False, no_tanh: bool = False, swapped: bool = False,
                 no_two: bool = False):
    def wrong(w, x, b, target):  # type: ignore[no-untyped-def]
        result = reference.neuron_gradients(w, x, b, target)
        out = result["out"]
        grad_z = (1.0 if no_two else 2.0) * (out if errata else out - target) * (
            1.0 if no_tanh else 1.0 - out**2)
        result["grad_b"] = grad_z
        result["grad_w"] = [grad_z * v for v in (w if swapped else x)]
        result["grad_x"] = [grad_z * v for v in (x if swapped else w)]
        return result

    return wrong


def test_neuron_accepts_the_value_engine_and_arrays() -> None:
    assert failures("02.5", _neuron_with_value_engine) == []


@pytest.mark.parametrize("wrong", [_neuron_with(errata=True), _neuron_with(no_tanh=True),
                                   _neuron_with(swapped=True)],
                         ids=["2*out-not-2*(out-target)", "no-tanh-derivative", "w-x-swapped"])
def test_neuron_mistakes_are_caught(wrong: Callable) -> None:
    messages = failures("02.5", wrong)
    assert messages and "in result['grad_" in messages[0]
    assert failures("02.5", wrong, _case_sets("02.5")[1:])


# ---------------------------------------------------------------------------- 02.6
def test_value_sin_matches_central_differences() -> None:
    import math

    def loss(x: float) -> float:
        return math.sin(x * x) * math.sin(x) + math.sin(x)

    for x in (0.0, 1.0, -2.5, 0.7):
        result = reference.value_sin(x)
        assert result["L"] == pytest.approx(loss(x))
        numeric = (loss(x + 1e-6) - loss(x - 1e-6)) / 2e-6
        assert result["dL_dx"] == pytest.approx(numeric, rel=1e-7, abs=1e-9)


def _sin_that_assigns(x):  # type: ignore[no-untyped-def]
    import math

    from minigrad import Value

    def sin(a):  # type: ignore[no-untyped-def]
        def rule(out, grad_output):  # type: ignore[no-untyped-def]
            out.parents[0].grad = math.cos(out.parents[0].data) * grad_output  # '=' not '+='
        return Value(math.sin(a.data), "", (a,), "sin", rule)

    leaf = Value(float(x), "x")
    loss = sin(leaf * leaf) * sin(leaf) + sin(leaf)
    loss.backward()
    return {"L": loss.data, "dL_dx": leaf.grad}


def test_a_sin_rule_that_assigns_is_caught() -> None:
    _cases.caught("02.6", _sin_that_assigns)


# ---------------------------------------------------------------------------- named mistakes
def _relu_at_zero_passes(op: str, inputs: list[float], grad_output: float) -> list[float]:
    if op == "relu" and inputs[0] == 0:
        return [grad_output]
    return reference.backward_rule(op, inputs, grad_output)


def _product_swapped(op: str, inputs: list[float], grad_output: float) -> list[float]:
    if op == "*":
        return [inputs[0] * grad_output, inputs[1] * grad_output]
    return reference.backward_rule(op, inputs, grad_output)


def _sin_with(mistake: str):  # type: ignore[no-untyped-def]
    import math

    def answer(x):  # type: ignore[no-untyped-def]
        def sin(a):  # type: ignore[no-untyped-def]
            def rule(out, grad_output):  # type: ignore[no-untyped-def]
                (parent,) = out.parents
                if mistake == "sin":
                    parent.grad += math.sin(parent.data) * grad_output
                elif mistake == "minus cos":
                    parent.grad += -math.cos(parent.data) * grad_output
                elif mistake == "no slope":
                    parent.grad += grad_output
                else:  # forgets grad_output
                    parent.grad += math.cos(parent.data)
            return Value(math.sin(a.data), "", (a,), "sin", rule)

        leaf = Value(float(x), "x")
        loss = sin(leaf * leaf) * sin(leaf) + sin(leaf)
        loss.backward()
        return {"L": loss.data, "dL_dx": leaf.grad}
    return answer


@pytest.mark.parametrize("exercise_id, wrong, words", [
    ("02.1", _forgets_grad_output, "the local derivatives alone"),
    ("02.1", _tanh_from_input, "from its output, tanh(a), not from the input"),
    ("02.1", _power_without_log, "lacks the factor ln(a)"),
    ("02.1", _relu_always_passes, "ReLU's"),
    ("02.1", _relu_at_zero_passes, "at a = 0 exactly, ReLU's local derivative is 0"),
    ("02.1", _product_swapped, "the OTHER input: yours are swapped"),
    ("02.2", _counts_repeated_parents_twice, "waits for it twice"),
    ("02.2", _recursive_order, "your search is recursive"),
    ("02.3", _backprop_with(assign=True), "must add up its gradients (+=)"),
    ("02.3", _backprop_with(forward_order=True), "in the order they ran"),
    ("02.3", _backprop_with(seed=0.0), "starts from dL/dL = 1"),
    ("02.4", _accumulate_with(assign=True), "your backward replaces w.grad"),
    ("02.4", _accumulate_with(square=1.0), "both of its factors are w"),
    ("02.4", _accumulate_with(keeps_zero=True), "your zero_grad left the gradient"),
    ("02.4", _accumulate_with(step_resets=True), "your step cleared the gradient"),
    ("02.5", _neuron_with(errata=True), "leaves the target out"),
    ("02.5", _neuron_with(no_tanh=True), "your gradients skip tanh"),
    ("02.5", _neuron_with(swapped=True), "your grad_w and grad_x are swapped"),
    ("02.6", _sin_that_assigns, "your rule replaces the parent's grad (=)"),
    ("02.6", _sin_with("sin"), "the local derivative of sin is cos"),
    ("02.6", _sin_with("no grad_output"), "your rule sends the local derivative alone"),
    ("02.6", _sin_with("minus cos"), "sin's local derivative is +cos"),
    ("02.6", _sin_with("no slope"), "without sin's local derivative"),
    ("02.2", lambda parents: list(parents), "the dict's own"),
    ("02.2", lambda parents: reference.topological_sort(parents)[::-1], "your order is reversed"),
    ("02.2", lambda parents: reference.topological_sort(parents) * 2, "listed twice"),
    ("02.4", _accumulate_with(square_value=True), "sends its value, w²"),
    ("02.5", _neuron_with(no_two=True), "half the right ones"),
])
def test_each_mistake_gets_its_sentence(exercise_id: str, wrong: Callable, words: str) -> None:
    """Lesson 02's checks said only which number differed ("expected 6.0, got 3.0")."""
    messages = failures(exercise_id, wrong)
    assert messages and any(words in message for message in messages), messages
    named = [message for message in messages if words in message]
    assert len(named) >= len(messages) / 2, messages  # where the mistake shows, it is named


# ---------------------------------------------------------------------------- through the grader
RECURSIVE_ORDER = '''
def topological_sort(parents):
    order, seen = [], set()

    def visit(node):
        if node not in seen:
            seen.add(node)
            for parent in parents[node]:
                visit(parent)
            order.append(node)

    for node in parents:
        visit(node)
    return order
'''

ASSIGNING_BACKPROP = '''
def backpropagate(program):
    value = _reference_backpropagate(program)["value"]
    grad = {name: 0.0 for name in value}
    grad[program[-1][0]] = 1.0
    for name, op, *operands in reversed(program):
        if op != "input":
            inputs = [value[operand] for operand in operands]
            for operand, part in zip(operands, backward_rule(op, inputs, grad[name])):
                grad[operand] = part  # overwrites instead of adding
    return {"value": value, "grad": grad}
'''


def _graded(tmp_path, extra: str = ""):  # type: ignore[no-untyped-def]
    from minigrad.exercises.authoring.generate import python_file_text
    from support.grading_results import SANDBOX_PROBLEM

    from minigrad.grading.grader import grade_submission
    from minigrad.course.catalog import find_lesson

    if SANDBOX_PROBLEM:
        pytest.skip(f"graded code cannot be confined here: {SANDBOX_PROBLEM}")

    lesson = find_lesson(2)
    text = python_file_text(lesson, solutions=True)
    if extra:  # a later definition replaces the reference one
        text = text.replace("def backpropagate(", "def _reference_backpropagate(", 1)
        text += "\n\nbackpropagate = _reference_backpropagate\n" + extra
    path = tmp_path / "lesson02_scalar_autograd.py"
    path.write_text(text, encoding="utf-8")
    result = grade_submission(path, lesson, seed=7)
    return {item.exercise.id: item for item in result.exercises}


def test_the_grader_catches_recursion_and_overwritten_gradients(tmp_path) -> None:
    results = _graded(tmp_path, RECURSIVE_ORDER + ASSIGNING_BACKPROP)
    order = results["02.2"]
    failed = [case for case in order.cases if not case.passed]
    # The long chains: the visible one of 3 000 nodes, as check() says in the notebook (the
    # grader keeps Python's recursion limit), and the deeper hidden one.
    assert [case.visible for case in failed] == [True, False]
    assert all("RecursionError" in case.message for case in failed)
    backprop = results["02.3"]
    assert backprop.score < backprop.max_score
    assert "expected 6.0 in result['grad']['x'], got 3.0" in backprop.feedback
    assert all(results[key].status == "passed" for key in ("02.1", "02.4", "02.5"))


def test_check_reports_a_mistake_with_the_hint(capsys) -> None:  # type: ignore[no-untyped-def]
    from minigrad.exercises import check

    result = check("02.4", _accumulate_with(assign=True))
    printed = capsys.readouterr().out
    assert not result and "✗ case 1" in printed and "expected 7.0 in result['grad'], got 4.0" in printed
    assert "your backward replaces w.grad" in printed  # the mistake, by name
    assert f"Idea: {BY_ID['02.4'].idea}" in printed and BY_ID["02.4"].hint not in printed
    assert check("02.4", reference.accumulated_gradient)


# ---------------------------------------------------------------------------- named mistakes
# 02.3: a wrong solution as a student writes it (a line of the reference replaced), and the
# sentence that names its mistake.
BACKPROP_NAMED = [
    (("backward_rule(op, inputs, grad[name])", "backward_rule(op, inputs, 1.0)"),
     "each step passes on its local derivatives alone"),
    (("    grad[program[-1][0]] = 1.0\n", "    grad[program[-1][0]] = value[program[-1][0]]\n"),
     "your backward starts from L's value"),
    (('    return {"value": value, "grad": grad}\n',
      '    return {"value": value, "grad": {name: grad[name] for name, op, *_ in program\n'
      '                                     if op == "input"}}\n'),
     "your grad has the inputs only"),
]


@pytest.mark.parametrize("replaced, sentence", BACKPROP_NAMED,
                         ids=[sentence[:30] for _, sentence in BACKPROP_NAMED])
def test_backpropagate_names_each_mistake(replaced: tuple[str, str], sentence: str) -> None:
    assert_named("02.3", replaced, sentence)
