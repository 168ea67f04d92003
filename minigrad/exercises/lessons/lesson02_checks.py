"""Checks for lesson 02's exercises: visible cases, fresh random hidden cases, comparators."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from minigrad.exercises.mistakes import Case, Mistake, Raised, comparator, near
from minigrad.exercises.spec import Exercise, close

UNARY_OPS = ("exp", "log", "tanh", "relu")
BINARY_OPS = ("+", "*", "**")


# ---------------------------------------------------------------------------- comparators
def _lists_for_arrays(expected: Any, got: Any) -> Any:
    """``got`` with 1-D arrays turned into lists where a list is expected (both are fine)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        return {key: _lists_for_arrays(expected.get(key), item) for key, item in got.items()}
    if isinstance(expected, list) and isinstance(got, np.ndarray) and got.ndim == 1:
        return got.tolist()
    return got


def _close_lists_or_arrays(rtol: float, atol: float):
    plain = close(rtol=rtol, atol=atol)

    def compare(expected: Any, got: Any, args: tuple = ()) -> Optional[str]:
        return plain(expected, _lists_for_arrays(expected, got), args)

    return compare


def valid_topological_order(expected: list[str], got: Any, args: tuple) -> Optional[str]:
    """Accept any order that lists every node once, each after all of its parents."""
    (parents,) = args
    if not isinstance(got, (list, tuple)):
        return f"expected a list of node names, got {type(got).__name__}: {str(got)[:60]}"
    position: dict[Any, int] = {}
    for index, node in enumerate(got):
        if not isinstance(node, str) or node not in parents:
            return f"{node!r} (position {index}) is not a node of the graph"
        if node in position:
            return f"node {node!r} appears twice (positions {position[node]} and {index})"
        position[node] = index
    missing = [node for node in parents if node not in position]
    if missing:
        shown = ", ".join(repr(node) for node in missing[:5])
        return f"{len(missing)} of {len(parents)} nodes are missing from the order, e.g. {shown}"
    for node, node_parents in parents.items():
        for parent in node_parents:
            if position[parent] > position[node]:
                return (f"node {node!r} (position {position[node]}) comes before its parent "
                        f"{parent!r} (position {position[parent]}); parents must come first")
    return None


# ---------------------------------------------------------------------------- 02.1 cases
def _rule_cases(rng: np.random.Generator) -> list[tuple]:
    def number(low: float = -2.0, high: float = 2.0) -> float:
        return float(np.round(rng.uniform(low, high), 4))

    cases = [("+", [number(), number()], number()),
             ("*", [number(), number()], number()),
             ("**", [number(0.5, 3.0), number(-2.0, 3.0)], number()),
             ("exp", [number()], number()),
             ("log", [number(0.2, 4.0)], number()),
             ("tanh", [number()], number()),
             ("relu", [number(0.1, 2.0)], number()),
             ("relu", [number(-2.0, -0.1)], number()),
             ("relu", [0.0], number())]  # the kink: derivative 0, as in PyTorch (not a >= 0)
    order = rng.permutation(len(cases))
    return [cases[i] for i in order]


# ---------------------------------------------------------------------------- 02.2 cases
WORKED_GRAPH = {"a": [], "b": [], "c": [], "u": ["a", "b"], "v": ["u", "c"],
                "v2": ["v", "v"], "L": ["v2", "u"]}


def _chain(length: int, prefix: str = "x") -> dict[str, list[str]]:
    """x0 → x1 → … ; listed root first, so the dict order is *not* a valid answer."""
    names = [f"{prefix}{i}" for i in range(length)]
    return {name: ([names[i - 1]] if i else []) for i, name in reversed(list(enumerate(names)))}


def _random_graph(rng: np.random.Generator, size: int) -> dict[str, list[str]]:
    """A random DAG with shuffled names and shuffled keys; some nodes use a parent twice."""
    names = [f"n{i}" for i in rng.permutation(size)]  # names say nothing about the order
    parents: dict[str, list[str]] = {}
    for i, name in enumerate(names):
        if i < 2 or rng.random() < 0.15:
            parents[name] = []
            continue
        count = int(rng.integers(1, 3))
        chosen = [names[int(j)] for j in rng.integers(0, i, size=count)]
        if rng.random() < 0.2:
            chosen = [chosen[0], chosen[0]]  # x * x
        parents[name] = chosen
    keys = list(parents)
    return {keys[i]: parents[keys[i]] for i in rng.permutation(len(keys))}


def _order_hidden(rng: np.random.Generator) -> list[tuple]:
    return [(_random_graph(rng, int(rng.integers(5, 12))),),
            (_random_graph(rng, int(rng.integers(20, 40))),),
            (_random_graph(rng, 300),),
            # Deeper than the grader's recursion limit (5 000): a recursive search fails.
            (_chain(int(rng.integers(6_000, 8_000)), prefix="h"),)]


# ---------------------------------------------------------------------------- 02.3 cases
WORKED_PROGRAM = [["a", "input", 2.0], ["b", "input", 3.0], ["c", "input", 1.0],
                  ["u", "*", "a", "b"], ["v", "+", "u", "c"], ["v2", "*", "v", "v"],
                  ["L", "+", "v2", "u"]]


def _random_program(rng: np.random.Generator) -> list[list]:
    """Inputs, then random steps on earlier nodes, kept finite and inside every op's domain.

    Every program squares some node (``x * x``) and reuses nodes, so fan-in is always tested.
    """
    program: list[list] = []
    value: dict[str, float] = {}
    for i in range(int(rng.integers(2, 4))):
        name = f"x{i}"
        value[name] = float(np.round(rng.uniform(-1.5, 1.5), 3))
        program.append([name, "input", value[name]])
    forced_square = int(rng.integers(0, 3))
    steps = int(rng.integers(5, 9))
    for step in range(steps):
        names = list(value)
        name = f"s{step}"
        if step == forced_square:
            operand = names[int(rng.integers(len(names)))]
            op, operands = "*", [operand, operand]
        else:
            op = str(rng.choice(BINARY_OPS + UNARY_OPS))
            # Prefer recent nodes, so the graph is deep rather than flat.
            picks = [names[max(0, len(names) - 1 - int(k))] for k in rng.geometric(0.5, 2) - 1]
            operands = picks[:2] if op in BINARY_OPS else picks[:1]
            first = value[operands[0]]
            if (op == "log" and first <= 0.1) or (op == "exp" and first > 3.0) or (
                    op == "**" and (first <= 0.1 or abs(value[operands[1]]) > 3.0)):
                op, operands = "tanh", operands[:1]
        result = _apply(op, [value[operand] for operand in operands])
        if abs(result) > 100.0:  # keep values moderate: squash instead
            op, operands = "tanh", operands[:1]
            result = _apply(op, [value[operands[0]]])
        value[name] = result
        program.append([name, op, *operands])
    # The output combines the last node with an earlier one: more fan-in.
    names = list(value)
    program.append(["L", "+", names[-1], names[int(rng.integers(len(names) - 1))]])
    return program


def _apply(op: str, inputs: list[float]) -> float:
    a = inputs[0]
    if op == "+":
        return a + inputs[1]
    if op == "*":
        return a * inputs[1]
    if op == "**":
        return a ** inputs[1]
    return float({"exp": np.exp, "log": np.log, "tanh": np.tanh,
                  "relu": lambda t: max(t, 0.0)}[op](a))


# ---------------------------------------------------------------------------- 02.4 cases
def _random_events(rng: np.random.Generator) -> tuple:
    events: list[list] = []
    for _ in range(int(rng.integers(6, 11))):
        kind = str(rng.choice(["mul", "mul", "square", "zero_grad", "step"]))
        if kind == "mul":
            events.append(["mul", float(np.round(rng.uniform(-3, 3), 2))])
        elif kind == "step":
            events.append(["step", float(rng.choice([0.01, 0.05, 0.1]))])
        else:
            events.append([kind])
    # At least two backward calls in a row, so accumulation always shows.
    position = int(rng.integers(0, len(events)))
    events[position:position] = [["mul", 2.0], ["square"]]
    return (float(np.round(rng.uniform(-2, 2), 3)), events)


# ---------------------------------------------------------------------------- 02.5 cases
def _neuron_case(rng: np.random.Generator) -> tuple:
    n = int(rng.integers(2, 6))
    w = [float(v) for v in rng.normal(0, 0.7, n)]
    x = [float(v) for v in rng.normal(0, 1.0, n)]
    return (w, x, float(rng.normal(0, 0.5)), float(rng.uniform(-1, 1)))


# ---------------------------------------------------------------------------- mistakes
def _rule(op: str, inputs: list[float], grad_output: float, mistake: str = "") -> list[float]:
    """02.1's answer, or the answer of a ``mistake``: "swapped" (a·b's derivatives
    exchanged), "tanh of input" (1 − a²), "no log" (aᵇ's exponent without ln a)."""
    a = inputs[0]
    if op == "+":
        local = [1.0, 1.0]
    elif op == "*":
        local = [inputs[0], inputs[1]] if mistake == "swapped" else [inputs[1], inputs[0]]
    elif op == "**":
        b = inputs[1]
        local = [b * a ** (b - 1), a ** b * (1.0 if mistake == "no log" else math.log(a))]
    elif op == "exp":
        local = [math.exp(a)]
    elif op == "log":
        local = [1.0 / a]
    elif op == "tanh":
        local = [1.0 - (a * a if mistake == "tanh of input" else math.tanh(a) ** 2)]
    else:
        local = [1.0 if a > 0 else 0.0]
    return [derivative * grad_output for derivative in local]


def _relu_passes(case: Case) -> bool:
    """ReLU's gradient let through where its input is not positive."""
    return case.op == "relu" and case.inputs[0] <= 0 and case.grad_output != 0 \
        and near(case.got, [case.grad_output])


RULE_MISTAKES = [
    Mistake("your gradients are the local derivatives alone: multiply each by grad_output, the "
            "gradient arriving from above",
            gives=lambda case: _rule(case.op, case.inputs, 1.0)
            if case.grad_output != 1.0 else None),
    Mistake(lambda case: "at a = 0 exactly, ReLU's local derivative is 0 here, as in PyTorch: "
                         "it is 1 only where a > 0" if case.inputs[0] == 0 else
                         "for a < 0 ReLU's output does not move with a: its local derivative "
                         "is 0 there", when=_relu_passes),
    Mistake("for a·b each input's local derivative is the OTHER input: yours are swapped",
            gives=lambda case: _rule(case.op, case.inputs, case.grad_output, "swapped")
            if case.op == "*" else None),
    Mistake("tanh's local derivative comes from its output, tanh(a), not from the input a",
            gives=lambda case: _rule(case.op, case.inputs, case.grad_output, "tanh of input")
            if case.op == "tanh" else None),
    Mistake("your exponent's gradient lacks the factor ln(a): aᵇ grows with b like an "
            "exponential, not like a power",
            gives=lambda case: _rule(case.op, case.inputs, case.grad_output, "no log")
            if case.op == "**" else None),
]


def _kahn_counting_repeats(parents: dict[str, list[str]]) -> list[str]:
    """A topological sort that waits for a parent once per use: x * x never gets ready."""
    waiting = {node: len(node_parents) for node, node_parents in parents.items()}
    children: dict[str, list[str]] = {node: [] for node in parents}
    for node, node_parents in parents.items():
        for parent in set(node_parents):
            children[parent].append(node)
    ready = [node for node, count in waiting.items() if count == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for child in children[node]:
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    return order


def _stuck_on_repeats(case: Case) -> bool:
    parents = case.parents
    return isinstance(case.got, (list, tuple)) and len(case.got) < len(parents) \
        and set(case.got) == set(_kahn_counting_repeats(parents))


ORDER_MISTAKES = [
    Mistake("your search is recursive: a chain of thousands of nodes goes deeper than Python's "
            "recursion limit; keep your own stack or a queue of ready nodes in a loop",
            when=lambda case: isinstance(case.got, Raised)
            and case.got.startswith("RecursionError"), raises=True),
    Mistake("a node that uses one parent twice (x * x) waits for it twice in your count, and "
            "never gets ready: count each parent once", when=_stuck_on_repeats),
    Mistake("your order is the dict's own: its keys come in any order, not parents first",
            when=lambda case: isinstance(case.got, (list, tuple))
            and list(case.got) == list(case.parents)),
    Mistake("your order is reversed: every node must come after its parents (backward then "
            "visits the list from its end)",
            when=lambda case: isinstance(case.got, (list, tuple))
            and valid_topological_order(None, list(case.got)[::-1], (case.parents,)) is None),
    Mistake("a node reached along two paths is listed twice: mark the nodes you have listed, "
            "and list each once", when=lambda case: isinstance(case.got, (list, tuple))
            and len(case.got) > len(set(case.got)) and set(case.got) == set(case.parents)),
]


def _same_answer(got: Any, want: Any) -> bool:
    """``got`` is ``want``, a dict of numbers, lists or dicts of them (numbers near, lists or
    arrays alike)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and set(got) == set(want) and all(
            _same_answer(got[key], want[key]) for key in want)
    return near(got, want)


def _gives(replay: Callable[[Case], dict], says: str) -> Mistake:
    """A mistake whose whole answer (a dict) ``replay`` works out."""
    return Mistake(says, when=lambda case: not _same_answer(case.got, case.expected)
                   and _same_answer(case.got, replay(case)))


def _backpropagated(program: list[list], assign: bool = False, forward_order: bool = False,
                    seed: Optional[float] = 1.0, local_only: bool = False) -> dict:
    """02.3's answer, or a mistaken one: gradients assigned (=), steps visited in the order
    they ran, the output's gradient not set to 1 (``seed=None``: set to L's value), each step
    passing on its local derivatives alone (``local_only``)."""
    value: dict[str, float] = {}
    for name, op, *operands in program:
        value[name] = float(operands[0]) if op == "input" else _apply(
            op, [value[operand] for operand in operands])
    grad = {name: 0.0 for name in value}
    grad[program[-1][0]] = value[program[-1][0]] if seed is None else seed
    for name, op, *operands in (program if forward_order else reversed(program)):
        if op == "input":
            continue
        parts = _rule(op, [value[operand] for operand in operands],
                      1.0 if local_only else grad[name])
        for operand, part in zip(operands, parts):
            grad[operand] = part if assign else grad[operand] + part
    return {"value": value, "grad": grad}


BACKPROP_MISTAKES = [
    _gives(lambda case: _backpropagated(case.program, assign=True),
           "a node used more than once (x * x, or a value feeding two steps) must add up its "
           "gradients (+=): yours keeps only the last contribution"),
    _gives(lambda case: _backpropagated(case.program, forward_order=True),
           "your backward visits the steps in the order they ran: it must go in reverse, so "
           "that a node has all of its gradient before passing it on"),
    _gives(lambda case: _backpropagated(case.program, seed=0.0),
           "every gradient is 0: backward starts from dL/dL = 1 at the output"),
    _gives(lambda case: _backpropagated(case.program, local_only=True),
           "each step passes on its local derivatives alone: multiply them by the step's own "
           "gradient, the one that arrived from the steps after it (the chain rule)"),
    _gives(lambda case: _backpropagated(case.program, seed=None),
           "your backward starts from L's value at the output: it starts from dL/dL, which is "
           "1 whatever L is"),
    Mistake("your grad has the inputs only: return dL/d(name) for every step, the "
            "intermediate ones and L too", when=lambda case: isinstance(case.got, dict)
            and isinstance(case.got.get("grad"), dict) and set(case.got["grad"]) == {
                step[0] for step in case.program if step[1] == "input"}
            and len(case.program) > len(case.got["grad"])),
]


def _accumulated(w: float, events: list[list], assign: bool = False, square: float = 2.0,
                 keeps_zero: bool = False, step_resets: bool = False,
                 value: bool = False) -> dict:
    """02.4's answer, or a mistaken one."""
    grad = 0.0
    for event in events:
        contribution = None
        if event[0] == "mul":
            contribution = event[1]
        elif event[0] == "square":
            contribution = w * w if value else square * w
        elif event[0] == "zero_grad" and not keeps_zero:
            grad = 0.0
        elif event[0] == "step":
            w -= event[1] * grad
            if step_resets:
                grad = 0.0
        if contribution is not None:
            grad = contribution if assign else grad + contribution
    return {"w": w, "grad": grad}


ACCUMULATION_MISTAKES = [
    _gives(lambda case: _accumulated(case.w, case.events, assign=True),
           "your backward replaces w.grad: it adds to it (+=), and only zero_grad clears it"),
    _gives(lambda case: _accumulated(case.w, case.events, square=1.0),
           "your w·w sends w once: both of its factors are w, so w collects a contribution "
           "from each"),
    _gives(lambda case: _accumulated(case.w, case.events, keeps_zero=True),
           "your zero_grad left the gradient as it was: it sets w.grad back to 0"),
    _gives(lambda case: _accumulated(case.w, case.events, step_resets=True),
           "your step cleared the gradient: a step changes w and leaves w.grad as it is"),
    _gives(lambda case: _accumulated(case.w, case.events, value=True),
           "your w·w sends its value, w², where its derivative belongs"),
]


def _neuron(w: list[float], x: list[float], b: float, target: float, mistake: str = "") -> dict:
    """02.5's answer, or a mistaken one: "no target" (2·out), "no tanh", "swapped" (grad_w
    and grad_x exchanged), "tanh of z" (1 − z²), "no 2" (the square's 2 left out)."""
    z = sum(w_i * x_i for w_i, x_i in zip(w, x)) + b
    out = math.tanh(z)
    slope = 1.0 if mistake == "no tanh" else 1.0 - (z * z if mistake == "tanh of z" else out ** 2)
    grad_z = (1.0 if mistake == "no 2" else 2.0) * (
        out if mistake == "no target" else out - target) * slope
    first, second = (w, x) if mistake == "swapped" else (x, w)
    return {"out": out, "loss": (out - target) ** 2, "grad_w": [grad_z * v for v in first],
            "grad_x": [grad_z * v for v in second], "grad_b": grad_z}


NEURON_MISTAKES = [
    _gives(lambda case: _neuron(case.w, case.x, case.b, case.target, "no target"),
           "your dloss/dout leaves the target out: the loss is (out − target)², and its "
           "derivative keeps the target in it"),
    _gives(lambda case: _neuron(case.w, case.x, case.b, case.target, "no tanh"),
           "your gradients skip tanh: between the loss and z = w·x + b stands tanh, whose local "
           "derivative multiplies in"),
    _gives(lambda case: _neuron(case.w, case.x, case.b, case.target, "tanh of z"),
           "tanh's local derivative comes from its output out, not from z"),
    _gives(lambda case: _neuron(case.w, case.x, case.b, case.target, "swapped"),
           "your grad_w and grad_x are swapped: w_i's gradient carries x_i, and x_i's "
           "carries w_i"),
    _gives(lambda case: _neuron(case.w, case.x, case.b, case.target, "no 2"),
           "your gradients are half the right ones: the square's derivative brings a factor "
           "2 down"),
]


def _sin_graph(x: float, mistake: str) -> dict:
    """02.6's L = sin(x·x)·sin(x) + sin(x) and dL/dx, with a mistaken sin rule: "assigns"
    (=), "sin" (sin for cos), "minus cos", "no slope" (grad_output alone), "no grad_output"."""
    from minigrad import Value

    def sin(a: Value) -> Value:
        def rule(out: Value, grad_output: float) -> None:
            (parent,) = out.parents
            slope = {"sin": math.sin(parent.data), "minus cos": -math.cos(parent.data),
                     "no slope": 1.0}.get(mistake, math.cos(parent.data))
            share = slope * (1.0 if mistake == "no grad_output" else grad_output)
            parent.grad = share if mistake == "assigns" else parent.grad + share
        return Value(math.sin(a.data), "", (a,), "sin", rule)

    leaf = Value(float(x), "x")
    loss = sin(leaf * leaf) * sin(leaf) + sin(leaf)
    loss.backward()
    return {"L": loss.data, "dL_dx": leaf.grad}


SIN_MISTAKES = [
    _gives(lambda case: _sin_graph(case.x, "assigns"),
           "your rule replaces the parent's grad (=): x feeds two sin nodes, and a Value adds "
           "up what each sends (+=)"),
    _gives(lambda case: _sin_graph(case.x, "sin"),
           "your rule multiplies by sin of the parent's value: the local derivative of sin is "
           "cos"),
    _gives(lambda case: _sin_graph(case.x, "no grad_output"),
           "your rule sends the local derivative alone: multiply it by grad_output, the "
           "gradient arriving from above"),
    _gives(lambda case: _sin_graph(case.x, "minus cos"),
           "your rule has the wrong sign: sin's local derivative is +cos"),
    _gives(lambda case: _sin_graph(case.x, "no slope"),
           "your rule passes grad_output on without sin's local derivative, cos of the "
           "parent's value"),
]


EXERCISES = [
    Exercise(
        id="02.1", function="backward_rule", points=3,
        title="The backward rule of one node",
        reading="1. What a node stores",
        idea="Each input gets its own local derivative, taken at the input values of this node, "
             "times the gradient that arrived from above; the table in the task lists the local "
             "derivatives, and a kink belongs to one side of it.",
        hint="Each input receives (local derivative of the output w.r.t. that input) × "
             "grad_output; for aᵇ the exponent's derivative is a^b·ln(a).",
        visible=lambda: [("*", [2.0, 3.0], 10.0), ("+", [1.5, -2.0], 3.0),
                         ("tanh", [0.5], 1.0), ("**", [2.0, 3.0], 1.0),
                         ("exp", [0.0], 2.0), ("log", [4.0], 2.0), ("relu", [-1.0], 5.0),
                         ("relu", [0.0], 4.0)],
        hidden=_rule_cases,
        compare=comparator(RULE_MISTAKES, names=("op", "inputs", "grad_output"),
                           compare=_close_lists_or_arrays(rtol=1e-9, atol=1e-12)),
    ),
    Exercise(
        id="02.2", function="topological_sort", points=3,
        title="A topological order of a graph",
        reading="2. Backward is one pass in reverse topological order",
        idea="A node may be listed only once every node it was computed from is listed. Keep "
             "count of how many parents each node still waits for, and work with a loop and a "
             "queue of ready nodes, not recursion.",
        hint="Emit a node only once all of its parents have been emitted (count the parents "
             "still waiting, or run a depth-first search with your own stack, not recursion).",
        visible=lambda: [({"u": ["a", "b"], "a": [], "b": []},),
                         (WORKED_GRAPH,),
                         ({"y": ["x", "x"], "x": []},),
                         (_chain(3_000),)],
        hidden=_order_hidden,
        compare=comparator(ORDER_MISTAKES, names=("parents",), compare=valid_topological_order),
    ),
    Exercise(
        id="02.3", function="backpropagate", points=5,
        title="Backpropagation through a graph",
        reading="3. Fan-in accumulates",
        idea="Forward once to get every value, then visit the steps in reverse: each step hands "
             "its gradient on to its operands, and a node used in several places collects one "
             "contribution per use.",
        hint="Visit the steps in reverse and ADD (+=) each contribution to the operand's "
             "gradient: a node used twice, as in x * x, gets two contributions.",
        visible=lambda: [([["x", "input", 3.0], ["y", "*", "x", "x"]],),
                         (WORKED_PROGRAM,),
                         ([["a", "input", 0.5], ["b", "input", -1.0], ["t", "tanh", "a"],
                           ["e", "exp", "b"], ["p", "*", "t", "e"], ["L", "+", "p", "a"]],)],
        hidden=lambda rng: [(_random_program(rng),) for _ in range(4)],
        compare=comparator(BACKPROP_MISTAKES, names=("program",),
                           compare=close(rtol=1e-9, atol=1e-12)),
    ),
    Exercise(
        id="02.4", function="accumulated_gradient", points=3,
        title="Gradients accumulate until reset",
        reading="4. Leaf gradients accumulate across backward calls",
        idea="Follow w and w.grad event by event: each backward adds to the gradient, only a "
             "reset clears it, and a step moves w without touching its gradient.",
        hint="backward() adds to w.grad (+=); only zero_grad sets it back to 0; d(w·w)/dw = 2w "
             "at the current w; a step changes w but not w.grad.",
        visible=lambda: [(2.0, [["mul", 3.0], ["mul", 4.0]]),
                         (2.0, [["mul", 3.0], ["mul", 4.0], ["zero_grad"], ["mul", 4.0]]),
                         (1.5, [["square"], ["step", 0.1], ["zero_grad"], ["square"]])],
        hidden=lambda rng: [_random_events(rng) for _ in range(5)],
        compare=comparator(ACCUMULATION_MISTAKES, names=("w", "events"),
                           compare=close(rtol=1e-9, atol=1e-12)),
    ),
    Exercise(
        id="02.5", function="neuron_gradients", points=4,
        title="One neuron, forward and backward",
        reading="6. A neuron, a layer, a network",
        idea="Chain the derivatives from the loss back to each weight: the loss's with respect to "
             "out, then tanh's, then the weighted sum's, each taken at the values of the forward "
             "pass.",
        hint="dloss/dout = 2(out − target), not 2·out; dout/dz = 1 − out²; then z = w·x + b "
             "gives x_i to w_i, w_i to x_i and 1 to b.",
        visible=lambda: [([0.5, -1.0], [1.0, 2.0], 0.1, 0.5),
                         ([2.0, -3.0, 0.0], [0.1, 0.2, 0.3], 0.0, -1.0)],
        hidden=lambda rng: [_neuron_case(rng) for _ in range(5)],
        compare=comparator(NEURON_MISTAKES, names=("w", "x", "b", "target"),
                           compare=_close_lists_or_arrays(rtol=1e-9, atol=1e-12)),
    ),
    Exercise(
        id="02.6", function="value_sin", points=3,
        title="Add an operation to Value: sin",
        reading="1. What a node stores",
        idea="A new node needs its value, its parent and its local rule; the rule gives the "
             "parent its share, sin's local derivative at the parent's value times the gradient "
             "arriving, added to what the parent already holds.",
        hint="sin's local derivative is cos of the parent's value; the rule adds it, times "
             "grad_output, to the parent's grad (+=, as in exp's rule), and the new Value "
             "lists a as its parent.",
        visible=lambda: [(0.0,), (1.0,), (-2.5,)],
        hidden=lambda rng: [(float(x),) for x in rng.uniform(-4, 4, 5)],
        compare=comparator(SIN_MISTAKES, names=("x",), compare=close(rtol=1e-9, atol=1e-12)),
    ),
]
