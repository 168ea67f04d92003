"""Lesson 02 exercises — a scalar autograd engine.

Each function below is one exercise. Replace the body marked ``# YOUR CODE HERE`` and run
``check("02.N", function)`` to test it on the visible cases; the grader also runs hidden cases
on fresh random inputs. You may use ``math``, ``numpy`` and ``minigrad.Value`` inside your
functions — but the point of these exercises is to write the rules yourself.

Graphs are passed as plain data (names, lists, dicts) so that they can be graded:

* a graph as ``{node: [its parents]}``, e.g. ``{"a": [], "b": [], "u": ["a", "b"]}``;
* a program as a list of steps ``[name, op, operand, ...]``, in the order they run, e.g.
  ``[["a", "input", 2.0], ["b", "input", 3.0], ["u", "*", "a", "b"]]``.
"""

from __future__ import annotations

import math
from collections import deque

from minigrad import Value


def backward_rule(op: str, inputs: list[float], grad_output: float) -> list[float]:
    """Exercise 02.1 — the backward rule of one node.

    A node computed ``out = op(*inputs)`` and has received ``grad_output = dL/d(out)``. Return
    the gradient it sends to each input, ``dL/d(input_i) = d(out)/d(input_i) · grad_output``,
    as a list with one float per input, in the same order.

    ``op`` is one of (a, b are the inputs):

    | op       | inputs | local derivatives                                  |
    |----------|--------|----------------------------------------------------|
    | `"+"`    | [a, b] | d/da = 1,  d/db = 1                                |
    | `"*"`    | [a, b] | d/da = b,  d/db = a                                |
    | `"**"`   | [a, b] | d/da = b·a^(b−1),  d/db = a^b·ln(a)   (a > 0 here) |
    | `"exp"`  | [a]    | e^a                                                |
    | `"log"`  | [a]    | 1/a   (a > 0)                                      |
    | `"tanh"` | [a]    | 1 − tanh(a)²                                       |
    | `"relu"` | [a]    | 1 where a > 0, else 0                              |

    Example: ``backward_rule("*", [2.0, 3.0], 10.0) == [30.0, 20.0]``.
    """
    ### BEGIN SOLUTION
    if op == "+":
        local = [1.0, 1.0]
    elif op == "*":
        a, b = inputs
        local = [b, a]
    elif op == "**":
        a, b = inputs
        local = [b * a ** (b - 1), a**b * math.log(a)]
    elif op == "exp":
        local = [math.exp(inputs[0])]
    elif op == "log":
        local = [1.0 / inputs[0]]
    elif op == "tanh":
        local = [1.0 - math.tanh(inputs[0]) ** 2]
    elif op == "relu":
        local = [1.0 if inputs[0] > 0 else 0.0]
    else:
        raise ValueError(f"unknown op {op!r}")
    return [derivative * grad_output for derivative in local]
    ### END SOLUTION


def topological_sort(parents: dict[str, list[str]]) -> list[str]:
    """Exercise 02.2 — a topological order of a graph.

    ``parents`` maps every node of a graph to the list of nodes it was computed from (``[]``
    for a leaf); every node appears as a key. Return a list of all the nodes, each exactly once,
    in which every node comes *after* all of its parents. Backward then visits this list in
    reverse, so a node passes its gradient on only after every consumer has sent it theirs.

    Many orders are usually valid (``a`` and ``b`` below can swap); any valid one is accepted.
    Graphs can be chains of thousands of nodes: a recursive search would hit Python's
    recursion limit (~1000), so use a loop; and keep the work proportional to the number of
    nodes and edges (a chain of 3 000 nodes should take milliseconds).

    Example: ``topological_sort({"u": ["a", "b"], "a": [], "b": []})`` → ``["a", "b", "u"]``.
    """
    ### BEGIN SOLUTION
    # Kahn's algorithm: repeatedly emit a node whose parents have all been emitted.
    waiting_on = {node: len(set(node_parents)) for node, node_parents in parents.items()}
    children: dict[str, list[str]] = {node: [] for node in parents}
    for node, node_parents in parents.items():
        for parent in set(node_parents):
            children[parent].append(node)
    ready = deque(node for node, count in waiting_on.items() if count == 0)
    order: list[str] = []
    while ready:
        node = ready.popleft()
        order.append(node)
        for child in children[node]:
            waiting_on[child] -= 1
            if waiting_on[child] == 0:
                ready.append(child)
    return order
    ### END SOLUTION


def backpropagate(program: list[list]) -> dict[str, dict[str, float]]:
    """Exercise 02.3 — backpropagation through a whole graph.

    ``program`` lists the steps of a computation in the order they run. A step is
    ``[name, "input", number]`` (a leaf holding that number) or ``[name, op, operand, ...]``
    with an ``op`` of exercise 02.1 and operands naming earlier steps. The last step is the
    output L.

    Return ``{"value": {name: forward value}, "grad": {name: dL/d(name)}}`` for every step.

    Run the steps forward, set dL/dL = 1, then visit the steps in reverse and let each send
    its gradient to its operands (your ``backward_rule`` from 02.1 does one step's work). Gradients *add up* (``+=``): a node used twice — ``x * x``,
    or ``u`` feeding two later steps — receives one contribution per use.

    Example: ``[["x", "input", 3.0], ["y", "*", "x", "x"]]`` →
    ``{"value": {"x": 3.0, "y": 9.0}, "grad": {"x": 6.0, "y": 1.0}}``.
    """
    ### BEGIN SOLUTION
    value: dict[str, float] = {}
    for name, op, *operands in program:
        if op == "input":
            value[name] = float(operands[0])
        elif op == "+":
            value[name] = value[operands[0]] + value[operands[1]]
        elif op == "*":
            value[name] = value[operands[0]] * value[operands[1]]
        elif op == "**":
            value[name] = value[operands[0]] ** value[operands[1]]
        else:  # exp, log, tanh, relu
            function = {"exp": math.exp, "log": math.log, "tanh": math.tanh,
                        "relu": lambda a: max(a, 0.0)}[op]
            value[name] = function(value[operands[0]])

    grad = {name: 0.0 for name in value}
    grad[program[-1][0]] = 1.0
    for name, op, *operands in reversed(program):
        if op == "input":
            continue
        inputs = [value[operand] for operand in operands]
        for operand, contribution in zip(operands, backward_rule(op, inputs, grad[name])):
            grad[operand] += contribution
    return {"value": value, "grad": grad}
    ### END SOLUTION


def accumulated_gradient(w: float, events: list[list]) -> dict[str, float]:
    """Exercise 02.4 — gradients accumulate until you reset them.

    A leaf ``w`` (starting with ``w.grad = 0``) goes through ``events``, in order:

    * ``["mul", k]``: build L = w·k and call ``L.backward()``;
    * ``["square"]``: build L = w·w and call ``L.backward()``;
    * ``["zero_grad"]``: reset ``w.grad`` to 0;
    * ``["step", lr]``: a gradient-descent step, w ← w − lr·w.grad (the grad is kept).

    ``backward()`` *adds* dL/dw to ``w.grad``, as PyTorch does for leaves. Return
    ``{"w": final value of w, "grad": final w.grad}``.

    Example: w = 2, events mul 3, mul 4 → grad 7; then zero_grad, mul 4 → grad 4.
    """
    ### BEGIN SOLUTION
    grad = 0.0
    for event in events:
        if event[0] == "mul":
            grad += event[1]  # d(w·k)/dw = k
        elif event[0] == "square":
            grad += 2.0 * w  # d(w·w)/dw = 2w: both factors are w
        elif event[0] == "zero_grad":
            grad = 0.0
        elif event[0] == "step":
            w -= event[1] * grad
        else:
            raise ValueError(f"unknown event {event!r}")
    return {"w": w, "grad": grad}
    ### END SOLUTION


def neuron_gradients(w: list[float], x: list[float], b: float,
                     target: float) -> dict[str, float | list[float]]:
    """Exercise 02.5 — one neuron, forward and backward.

    The neuron computes out = tanh(w·x + b) with w, x of the same length n, and is scored by
    the squared error loss = (out − target)². Return

    ``{"out": out, "loss": loss, "grad_w": [dloss/dw_i], "grad_x": [dloss/dx_i],
    "grad_b": dloss/db}``

    Chain rule, outside in: dloss/dout = 2(out − target); dout/dz = 1 − out² for
    z = w·x + b; dz/dw_i = x_i, dz/dx_i = w_i, dz/db = 1.
    """
    ### BEGIN SOLUTION
    z = sum(w_i * x_i for w_i, x_i in zip(w, x)) + b
    out = math.tanh(z)
    loss = (out - target) ** 2
    grad_z = 2.0 * (out - target) * (1.0 - out**2)
    return {
        "out": out,
        "loss": loss,
        "grad_w": [grad_z * x_i for x_i in x],
        "grad_x": [grad_z * w_i for w_i in w],
        "grad_b": grad_z,
    }
    ### END SOLUTION


def value_sin(x: float) -> dict[str, float]:
    """Exercise 02.6 — add an operation to Value: sin.

    Write ``sin(a)`` for a Value ``a`` the way ``minigrad/scalar/value.py`` writes its ops: a new
    ``Value(data, "", (a,), "sin", rule)`` whose local ``rule(out, grad_output)`` sends the
    gradient on to the parent, ``out.parents[0]``, with d sin(a)/da = cos(a). Add (``+=``),
    never assign: one Value may feed several ``sin`` nodes.

    The given lines below your ``sin`` use it in L = sin(x·x)·sin(x) + sin(x), run backward
    and return ``{"L": L, "dL_dx": x.grad}``.

    Example: at x = 0, L = 0 and dL/dx = 1 (only the last sin(x) has a slope there).
    """
    def sin(a: Value) -> Value:
        def rule(out: Value, grad_output: float) -> None:
            ### BEGIN SOLUTION
            (parent,) = out.parents
            parent.grad += math.cos(parent.data) * grad_output
            ### END SOLUTION

        ### BEGIN SOLUTION
        return Value(math.sin(a.data), "", (a,), "sin", rule)
        ### END SOLUTION

    leaf = Value(float(x), "x")
    loss = sin(leaf * leaf) * sin(leaf) + sin(leaf)
    loss.backward()
    return {"L": loss.data, "dL_dx": leaf.grad}
