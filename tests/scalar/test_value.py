"""The scalar engine: values, gradients (against central differences), the syllabus numbers,
accumulation, deep graphs and error messages."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minigrad import Value
from minigrad.scalar.numerical import central_difference, numerical_gradient
from minigrad.scalar.value import topological_order

# ---------------------------------------------------------------------------- every op
# (name, function of Values and numbers, point); the same lambda also runs on plain floats
BINARY_OPS = [
    ("add", lambda a, b: a + b, (1.3, -0.7)),
    ("sub", lambda a, b: a - b, (1.3, -0.7)),
    ("mul", lambda a, b: a * b, (1.3, -0.7)),
    ("div", lambda a, b: a / b, (1.3, -0.7)),
    ("pow", lambda a, b: a ** b, (1.3, 2.4)),
    ("pow_negative_exponent", lambda a, b: a ** b, (0.8, -1.7)),
]

UNARY_OPS = [
    ("neg", lambda a: -a, 0.9),
    ("exp", lambda a: a.exp(), 0.9),
    ("log", lambda a: a.log(), 0.9),
    ("tanh", lambda a: a.tanh(), -0.6),
    ("sigmoid", lambda a: a.sigmoid(), -0.6),
    ("sigmoid_large", lambda a: a.sigmoid(), 3.5),
    ("relu_positive", lambda a: a.relu(), 0.7),
    ("relu_negative", lambda a: a.relu(), -0.7),
    ("square", lambda a: a ** 2, -1.1),
    ("cube_int_exponent", lambda a: a ** 3, -1.1),
    ("sqrt", lambda a: a ** 0.5, 2.0),
]

class Plain(float):
    """A float with the Value methods, so one lambda serves both the engine and the oracle."""

    def exp(self): return math.exp(self)
    def log(self): return math.log(self)
    def tanh(self): return math.tanh(self)
    def sigmoid(self): return 1 / (1 + math.exp(-self))
    def relu(self): return max(float(self), 0.0)


def as_float_function(f):
    return lambda *xs: float(f(*(Plain(x) for x in xs)))


@pytest.mark.parametrize("name,f,point", BINARY_OPS, ids=[op[0] for op in BINARY_OPS])
def test_binary_op_value_and_both_gradients(name, f, point):
    a, b = Value(point[0]), Value(point[1])
    out = f(a, b)
    out.backward()
    expected_data = as_float_function(f)(*point)
    expected_grads = numerical_gradient(as_float_function(f), point)
    assert out.data == pytest.approx(expected_data, rel=1e-12)
    assert a.grad == pytest.approx(expected_grads[0], rel=1e-6)
    assert b.grad == pytest.approx(expected_grads[1], rel=1e-6)
    assert out.parents == (a, b)


@pytest.mark.parametrize("name,f,point", BINARY_OPS, ids=[op[0] for op in BINARY_OPS])
def test_binary_op_with_a_number_on_either_side(name, f, point):
    float_f = as_float_function(f)
    left = Value(point[0])
    out = f(left, point[1])  # Value op number
    out.backward()
    assert out.data == pytest.approx(float_f(*point), rel=1e-12)
    assert left.grad == pytest.approx(
        central_difference(lambda x: float_f(x, point[1]), point[0]), rel=1e-6)

    right = Value(point[1])
    out = f(point[0], right)  # number op Value: the reflected form
    out.backward()
    assert isinstance(out, Value)
    assert out.data == pytest.approx(float_f(*point), rel=1e-12)
    assert right.grad == pytest.approx(
        central_difference(lambda x: float_f(point[0], x), point[1]), rel=1e-6)
    # The number became a leaf on the left, so the graph reads in the written order.
    assert out.parents[1] is right and out.parents[0].data == point[0]


@pytest.mark.parametrize("name,f,x", UNARY_OPS, ids=[op[0] for op in UNARY_OPS])
def test_unary_op_value_and_gradient(name, f, x):
    a = Value(x)
    out = f(a)
    out.backward()
    float_f = as_float_function(f)
    assert out.data == pytest.approx(float_f(x), rel=1e-12)
    assert a.grad == pytest.approx(central_difference(float_f, x), rel=1e-6, abs=1e-10)


def test_value_to_the_power_of_a_value_sends_gradient_to_the_exponent():
    a, b = Value(1.5), Value(2.5)
    out = a ** b
    out.backward()
    assert out.data == pytest.approx(1.5 ** 2.5)
    assert a.grad == pytest.approx(2.5 * 1.5 ** 1.5)
    assert b.grad == pytest.approx(1.5 ** 2.5 * math.log(1.5))


def test_number_to_the_power_of_a_value():
    x = Value(3.0)
    out = 2 ** x
    out.backward()
    assert out.data == 8.0
    assert x.grad == pytest.approx(8.0 * math.log(2.0))


def test_power_edge_gradients_follow_pytorch():
    base, exponent = Value(0.0), Value(2.0)
    (base ** exponent).backward()
    assert base.grad == 0.0 and exponent.grad == 0.0  # 2·0¹ = 0; ln 0 masked to 0
    base, exponent = Value(-2.0), Value(3.0)
    (base ** exponent).backward()
    assert base.grad == 12.0 and math.isnan(exponent.grad)  # ln(−2) is not real
    base = Value(5.0)
    (base ** 0).backward()
    assert base.grad == 0.0


def test_sigmoid_does_not_overflow_far_from_zero():
    assert Value(-800.0).sigmoid().data == 0.0
    assert Value(800.0).sigmoid().data == 1.0


def test_ops_record_their_name_and_leaves_have_none():
    a, b = Value(2.0, label="a"), Value(3.0)
    assert a.op == "" and a.parents == () and a.label == "a" and a.grad == 0.0
    assert isinstance(a.grad, float) and isinstance(Value(3).data, float)
    assert [(a + b).op, (a - b).op, (a * b).op, (a / b).op, (a ** b).op] == \
        ["+", "-", "*", "/", "**"]
    assert [a.exp().op, a.log().op, a.tanh().op, a.sigmoid().op, a.relu().op] == \
        ["exp", "log", "tanh", "sigmoid", "relu"]


def test_numpy_scalars_work_on_either_side():
    x = Value(np.float32(2.0))
    out = np.float64(3.0) * x + np.int64(1)
    assert isinstance(out, Value) and out.data == 7.0
    out.backward()
    assert x.grad == 3.0


# ---------------------------------------------------------------------------- lesson 01
def test_lesson01_worked_graph():
    a, b, c = Value(2.0), Value(3.0), Value(1.0)
    u = a * b
    v = u + c
    loss = v ** 2 + u
    loss.backward()
    assert (u.data, v.data, loss.data) == (6.0, 7.0, 55.0)
    assert v.grad == 14.0
    assert u.grad == 15.0  # 14 through v, +1 directly
    assert (a.grad, b.grad, c.grad) == (45.0, 30.0, 14.0)


def test_lesson01_worked_graph_against_central_differences():
    def loss(a, b, c):
        u = a * b
        return (u + c) ** 2 + u

    assert numerical_gradient(loss, [2.0, 3.0, 1.0]) == pytest.approx([45.0, 30.0, 14.0],
                                                                       rel=1e-8)


def test_lesson01_small_network():
    w1, w2, w3, w4, a = (Value(x) for x in (0.5, -1.5, 2.0, 0.7, 1.3))
    b = w1 * a
    c = w2 * a
    d = w3 * b + w4 * c
    loss = 10 - d
    loss.backward()
    assert w1.grad == pytest.approx(-w3.data * a.data)
    assert a.grad == pytest.approx(-(w3.data * w1.data + w4.data * w2.data))


def test_lesson01_chain_rule_on_a_composite():
    for x0 in (-1.5, 0.3, 2.0):
        x = Value(x0)
        ((x ** 2 + 1) ** 3).backward()
        assert x.grad == pytest.approx(6 * x0 * (x0 ** 2 + 1) ** 2, rel=1e-12)


# ---------------------------------------------------------------------------- lesson 02
def test_a_value_used_twice_counts_twice():
    x = Value(3.0)
    (x * x).backward()
    assert x.grad == 6.0


def test_leaf_gradients_accumulate_across_backward_calls():
    w = Value(2.0)
    (w * 3).backward()
    (w * 4).backward()
    assert w.grad == 7.0
    w.grad = 0.0
    (w * 4).backward()
    assert w.grad == 4.0


def test_a_shared_intermediate_does_not_leak_a_stale_gradient():
    w = Value(2.0)
    u = w * 3
    (u * u).backward()          # d(9w²)/dw = 18w = 36
    assert w.grad == 36.0
    (u * 4).backward()          # + d(12w)/dw = 12, as PyTorch gives
    assert w.grad == 48.0
    assert u.grad == 4.0        # the intermediate shows this call's gradient only


def test_parents_keep_argument_order():
    a, b = Value(1.0), Value(2.0)
    assert (a - b).parents == (a, b)
    assert (b - a).parents == (b, a)
    assert (a * a).parents == (a, a)
    assert a.tanh().parents == (a,)


def test_topological_order_puts_every_node_after_its_parents():
    a, b = Value(2.0), Value(3.0)
    u = a * b
    loss = (u + a) * u
    order = topological_order(loss)
    assert order[-1] is loss and len(order) == 5 and len(set(map(id, order))) == 5
    position = {id(node): i for i, node in enumerate(order)}
    for node in order:
        assert all(position[id(p)] < position[id(node)] for p in node.parents)


def test_backward_through_a_chain_of_100000_nodes():
    x = Value(1.0)
    out = x
    for _ in range(100_000):
        out = out * 1.00001
    out.backward()
    assert x.grad == pytest.approx(1.00001 ** 100_000, rel=1e-9)
    assert len(topological_order(out)) == 200_001  # 100 000 products + their constants + x


# ---------------------------------------------------------------------------- errors
def test_log_of_a_non_positive_number_names_the_value():
    with pytest.raises(ValueError, match=r"log of a non-positive number.*-1"):
        Value(-1.0).log()
    with pytest.raises(ValueError, match="non-positive"):
        Value(0.0).log()


def test_unsupported_operand_types_name_both_sides():
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Value'.*'str'"):
        Value(1.0) + "2"
    with pytest.raises(TypeError, match=r"for \*: 'list' \(\[1\]\) and 'Value'"):
        [1] * Value(1.0)
    with pytest.raises(TypeError, match="'NoneType'"):
        Value(1.0) ** None
    with pytest.raises(TypeError, match="'complex'"):
        Value(1.0) * 2j


def test_value_needs_a_real_number():
    with pytest.raises(TypeError, match="real number.*str"):
        Value("3")
    with pytest.raises(TypeError, match="got a Value"):
        Value(Value(1.0))


def test_non_real_power_is_refused():
    with pytest.raises(ValueError, match=r"non-real power.*-8.*0\.5"):
        Value(-8.0) ** 0.5


def test_division_by_zero_names_the_values():
    with pytest.raises(ZeroDivisionError, match=r"division by zero: Value\(data=3"):
        Value(3.0) / 0
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        1 / Value(0.0)
    with pytest.raises(ZeroDivisionError, match="zero base"):
        Value(0.0) ** -1


def test_exp_overflow_is_explained():
    with pytest.raises(OverflowError, match="exp of"):
        Value(1000.0).exp()


# ---------------------------------------------------------------------------- PyTorch oracle
@pytest.mark.oracle
@pytest.mark.parametrize("a0,b0", [(1.3, -0.7), (0.4, 2.5), (-2.0, 3.0), (0.0, 2.0)])
def test_every_op_matches_pytorch(a0, b0):
    torch = pytest.importorskip("torch")

    def expression(a, b, exp, log, tanh, sigmoid, relu):
        terms = [a + b, a - b, a * b, 2.5 - a, 3 / (b + 10), -a, exp(a), tanh(b),
                 sigmoid(a - b), relu(a), relu(b), a ** b, (b + 10) ** 0.5, 1.5 ** a]
        if a0 > 0:
            terms.append(log(a))
        return sum(terms[1:], terms[0])

    a, b = Value(a0), Value(b0)
    out = expression(a, b, Value.exp, Value.log, Value.tanh, Value.sigmoid, Value.relu)
    out.backward()
    ta = torch.tensor(a0, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b0, dtype=torch.float64, requires_grad=True)
    t_out = expression(ta, tb, torch.exp, torch.log, torch.tanh, torch.sigmoid, torch.relu)
    t_out.backward()
    assert out.data == pytest.approx(t_out.item(), rel=1e-12)
    assert a.grad == pytest.approx(ta.grad.item(), rel=1e-10, nan_ok=True)
    assert b.grad == pytest.approx(tb.grad.item(), rel=1e-10, nan_ok=True)


# ------------------------------------------------------------------ a number as exponent
def test_a_number_exponent_is_a_constant_of_the_op_not_an_input() -> None:
    """v ** 2 has one parent and the op '**2', as in micrograd and PyTorch: the 2 got a
    gradient of its own (49·ln 7 = 95.35) and an extra backward step before."""
    v = Value(7.0, "v")
    square = v ** 2
    assert square.op == "**2" and square.parents == (v,)
    square.backward()
    assert v.grad == 14.0
    assert (Value(2.0) ** 0.5).op == "**0.5" and (Value(2.0) ** -1).op == "**-1"


def test_a_negative_base_with_a_constant_exponent_has_a_finite_gradient() -> None:
    x = Value(-3.0)
    (x ** 2).backward()
    assert x.grad == -6.0  # it was nan: d/d(exponent) of a negative base leaked into the sum
    y = Value(-2.0)
    (y ** 3 + y ** 2).backward()
    assert y.grad == 3 * 4 - 2 * 2


def test_a_value_exponent_is_still_an_input_with_its_own_gradient() -> None:
    a, b = Value(2.0, "a"), Value(3.0, "b")
    out = a ** b
    assert out.op == "**" and out.parents == (a, b)
    out.backward()
    assert a.grad == 12.0 and abs(b.grad - 8 * math.log(2)) < 1e-12


def test_a_zero_exponent_sends_no_gradient_even_at_zero() -> None:
    x = Value(0.0)
    out = x ** 0
    out.backward()
    assert out.data == 1.0 and x.grad == 0.0
    z = Value(0.0)
    (z ** 2).backward()
    assert z.grad == 0.0


def test_the_readme_example_has_seven_nodes_and_four_backward_steps() -> None:
    """Seven nodes, and a step for each of the four rules backward runs (leaves run none):
    the drawing, the trace and the stepper number the same steps."""
    from minigrad.viz import backward_steps
    from minigrad.figures.lecture import readme_graph

    loss = readme_graph()
    assert len(topological_order(loss)) == 7
    assert "(4 steps" in backward_steps(readme_graph(backward=False)).trace()


def test_the_readme_figures_are_drawn_from_the_readme_code() -> None:
    """The README's first code block and the graph its figures are drawn from build the same
    nodes (they disagreed: the figures drew v * v, the text computed v**2)."""
    from pathlib import Path

    from minigrad.figures.lecture import readme_graph

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("```python\n", 1)[1].split("```", 1)[0]
    code = "\n".join(line for line in block.splitlines() if ".save(" not in line)
    scope: dict = {}
    exec(code, scope)  # noqa: S102 — our own README

    def shape(root: Value) -> list[tuple[str, str, float, float]]:
        return [(value.label, value.op, value.data, value.grad)
                for value in topological_order(root)]

    assert shape(scope["L"]) == shape(readme_graph())
