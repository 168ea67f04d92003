"""Lesson 05 exercises: the references agree with the library (and PyTorch), and each typical
mistake fails, earns the credit of the parts it got right, and gets its own message (cases run
as the grader runs them: see tests/exercise_cases.py)."""

from __future__ import annotations

import numpy as np
import pytest
from support.exercise_cases import ExerciseCases
from support.wrong_students import assert_named

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.autograd import Function
from minigrad.exercises.codec import decode, encode
from minigrad.exercises.lessons import lesson05 as reference
from minigrad.exercises.lessons.lesson05_checks import CLASSIC, EXERCISES
from minigrad.exercises.spec import judge
from minigrad.nn import Module, Parameter

SEEDS = range(6)

_cases = ExerciseCases(EXERCISES, reference, SEEDS)
BY_ID = _cases.by_id
caught = _cases.caught


def credits(exercise_id: str, function, sets=None) -> list[float]:  # type: ignore[no-untyped-def]
    """The credit ``function`` earns on every case (visible, then the hidden sets)."""
    exercise = BY_ID[exercise_id]
    expected_function = getattr(reference, exercise.function)
    earned = []
    for cases in sets if sets is not None else _cases.case_sets(exercise_id):
        for args in cases:
            args = decode(encode(args))
            expected = decode(encode(expected_function(*args)))
            got = decode(encode(function(*decode(encode(args)))))
            earned.append(judge(exercise, expected, got, args)[1])
    return earned


def named(exercise_id: str, wrong, words: str) -> list[str]:  # type: ignore[no-untyped-def]
    """``wrong`` fails every case, and every message says ``words``."""
    messages = caught(exercise_id, wrong)
    total = sum(len(cases) for cases in _cases.case_sets(exercise_id))
    assert len(messages) == total, messages
    assert all(words in message for message in messages), messages
    return messages


# ---------------------------------------------------------------------------- the engine agrees
def test_linear_function_matches_f_linear_and_torch() -> None:
    torch = pytest.importorskip("torch")
    for x, w, b, g in BY_ID["05.1"].hidden(np.random.default_rng(0)):
        z, dx, dw, db, verdict = reference.linear_function(x, w, b, g)
        leaves = [mg.tensor(a, dtype=mg.float64, requires_grad=True) for a in (x, w, b)]
        out = F.linear(*leaves)
        out.backward(mg.tensor(g, dtype=mg.float64))
        for ours, engine in zip((z, dx, dw, db), (out, *leaves)):
            np.testing.assert_allclose(ours, (engine if engine is out else engine.grad).numpy(),
                                       rtol=1e-12)
        tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
        torch.nn.functional.linear(tx, tw, tb).backward(torch.tensor(g))
        for ours, theirs in zip((dx, dw, db), (tx, tw, tb)):
            np.testing.assert_allclose(ours, theirs.grad.numpy(), rtol=1e-12)
        assert verdict == "passed"


def test_linear_module_matches_nn_linear() -> None:
    for x, w, b, g, seed in BY_ID["05.5"].hidden(np.random.default_rng(1)):
        parameters, init, graph, y, (dx, dw, db) = reference.linear_module(x, w, b, g, seed)
        layer = nn.Linear(w.shape[1], w.shape[0], dtype=mg.float64)
        assert parameters == sorted([name, list(p.shape)] for name, p in layer.named_parameters())
        layer.load_state_dict({"weight": mg.tensor(w, dtype=mg.float64),
                               "bias": mg.tensor(b, dtype=mg.float64)})
        xt = mg.tensor(x, dtype=mg.float64, requires_grad=True)
        out = layer(xt)
        out.backward(mg.tensor(g, dtype=mg.float64))
        np.testing.assert_allclose(y, out.numpy(), rtol=1e-12)
        for ours, theirs in zip((dx, dw, db), (xt, layer.weight, layer.bias)):
            np.testing.assert_allclose(ours, theirs.grad.numpy(), rtol=1e-12)
        assert (init, graph) == ("like PyTorch", "your Function")


def _library_training(images, labels, weights, lr, steps):  # type: ignore[no-untyped-def]
    """The loop of 05.6 with minigrad's own nn.Linear and optim.SGD."""
    first = nn.Linear(weights[0].shape[1], weights[0].shape[0], dtype=mg.float64)
    second = nn.Linear(weights[2].shape[1], weights[2].shape[0], dtype=mg.float64)
    model = nn.Sequential(first, nn.ReLU(), second)
    model.load_state_dict({"0.weight": mg.tensor(weights[0]), "0.bias": mg.tensor(weights[1]),
                           "2.weight": mg.tensor(weights[2]), "2.bias": mg.tensor(weights[3])})
    optimizer = mg.optim.SGD(model.parameters(), lr=lr)
    x, y, losses = mg.tensor(images, dtype=mg.float64), mg.tensor(labels), []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, float((model(x).numpy().argmax(axis=1) == labels).mean())


def test_train_mlp_matches_the_library_and_learns() -> None:
    for case in BY_ID["05.6"].visible():
        losses, accuracy = reference.train_mlp(*case)
        library_losses, library_accuracy = _library_training(*case)
        np.testing.assert_allclose(losses, library_losses, rtol=1e-10)
        assert accuracy == library_accuracy
        assert losses[-1] < 0.6 * losses[0] and accuracy > 0.8


def test_syllabus_numbers_of_the_classic_network() -> None:
    error, hidden, output, new = reference.network_step(*CLASSIC, 0.5)
    assert error == pytest.approx(0.298371109, abs=1e-9)
    assert output[0] == pytest.approx(0.082167041, abs=1e-9)
    assert hidden[0] == pytest.approx(0.000438568, abs=1e-9)
    assert new[4] == pytest.approx(0.40 - 0.5 * 0.082167041, abs=1e-9)


def test_network_step_matches_the_engine() -> None:
    for inputs, targets, w, b, lr in BY_ID["05.4"].hidden(np.random.default_rng(3)):
        wt = mg.tensor(w, dtype=mg.float64, requires_grad=True)
        i1, i2 = inputs
        h1 = (wt[0] * i1 + wt[1] * i2 + b[0]).sigmoid()
        h2 = (wt[2] * i1 + wt[3] * i2 + b[0]).sigmoid()
        o1 = (wt[4] * h1 + wt[5] * h2 + b[1]).sigmoid()
        o2 = (wt[6] * h1 + wt[7] * h2 + b[1]).sigmoid()
        error = 0.5 * (targets[0] - o1) ** 2 + 0.5 * (targets[1] - o2) ** 2
        error.backward()
        _, hidden, output, _ = reference.network_step(inputs, targets, w, b, lr)
        np.testing.assert_allclose(np.concatenate([hidden, output]), wt.grad.numpy(),
                                   rtol=1e-10, atol=1e-14)


# ---------------------------------------------------------------------------- 05.1 mistakes
def _linear_variant(forward, backward):  # type: ignore[no-untyped-def]
    """An answer to 05.1 whose Function has the given forward and backward (numpy in/out)."""
    class Variant(Function):
        @staticmethod
        def forward(ctx, x, weight, bias):  # type: ignore[no-untyped-def]
            ctx.save_for_backward(x, weight)
            return forward(x, weight, bias)

        @staticmethod
        def backward(ctx, grad_output):  # type: ignore[no-untyped-def]
            x, weight = (t.numpy() for t in ctx.saved_tensors)
            return backward(x, weight, grad_output.numpy())

    def answer(x, weight, bias, grad_output):  # type: ignore[no-untyped-def]
        return reference.run_linear_function(Variant, x, weight, bias, grad_output)
    answer.function = Variant  # type: ignore[attr-defined]
    return answer


def _right_forward(x, w, b):  # type: ignore[no-untyped-def]
    return x @ w.T + b


def _right_backward(x, w, g):  # type: ignore[no-untyped-def]
    return g @ w, g.T @ x, g.sum(axis=0)


def test_a_forgotten_bias_sum_is_named_and_the_rest_earns_credit() -> None:
    wrong = _linear_variant(_right_forward, lambda x, w, g: (g @ w, g.T @ x, g))
    messages = named("05.1", wrong, "summed over the rows")
    assert "gradcheck says" in messages[0]
    assert set(credits("05.1", wrong)) == {3 / 5}  # Z, dL/dX, dL/dW


def test_a_transposed_weight_gradient_is_named() -> None:
    wrong = _linear_variant(_right_forward, lambda x, w, g: (g @ w, x.T @ g, g.sum(axis=0)))
    messages = caught("05.1", wrong)
    assert all("W's transposed" in m or "transpose of the right one" in m for m in messages)
    assert any("transpose of the right one" in m for m in messages)  # the square cases


def test_a_bias_gradient_summed_over_the_wrong_axis_is_named() -> None:
    wrong = _linear_variant(_right_forward, lambda x, w, g: (g @ w, g.T @ x, g.sum(axis=1)))
    messages = caught("05.1", wrong)
    assert any("sum over the rows (axis 0)" in m for m in messages), messages


def test_an_input_gradient_with_w_transposed_is_named() -> None:
    def transposed(x, w, g):  # type: ignore[no-untyped-def]
        return g @ w.T, g.T @ x, g.sum(axis=0)  # fails outright unless h = d
    square = [[args for args in cases if args[1].shape[0] == args[1].shape[1]]
              for cases in _cases.case_sets("05.1")]
    messages = _cases.failures("05.1", _linear_variant(_right_forward, transposed), square)
    assert messages and all("G Wᵀ" in m for m in messages), messages


def test_dividing_by_the_batch_again_is_named() -> None:
    def divided(x, w, g):  # type: ignore[no-untyped-def]
        return g @ w, g.T @ x / len(x), g.sum(axis=0) / len(x)
    named("05.1", _linear_variant(_right_forward, divided), "do not divide again")


def test_a_forward_without_bias_is_named() -> None:
    named("05.1", _linear_variant(lambda x, w, b: x @ w.T, _right_backward),
          "leaves out the bias")


def test_a_missing_gradient_is_named() -> None:
    named("05.1", _linear_variant(_right_forward, lambda x, w, g: (g @ w, g.T @ x, None)),
          "returned None for dL/db")


def test_a_backward_that_disagrees_with_its_forward_fails_gradcheck() -> None:
    # forward without bias and backward for it: consistent dX, dW, but db is not 0
    def doubled(x, w, g):  # type: ignore[no-untyped-def]
        return 2 * g @ w, g.T @ x, g.sum(axis=0)
    messages = caught("05.1", _linear_variant(_right_forward, doubled))
    assert all("gradcheck says: GradcheckError" in m for m in messages), messages


def test_a_forward_only_answer_fails_every_case() -> None:
    zeros = _linear_variant(_right_forward, lambda x, w, g: (0 * x, 0 * w, 0 * g[0]))
    assert max(credits("05.1", zeros)) <= 1 / 5


# ---------------------------------------------------------------------------- 05.5 mistakes
def _module_variant(init, forward, parameters=True):  # type: ignore[no-untyped-def]
    LinearFunction = reference.linear_function()

    class Variant(Module):
        def __init__(self, in_features, out_features):  # type: ignore[no-untyped-def]
            super().__init__()
            weight, bias = init(in_features, out_features)
            wrap = Parameter if parameters else (lambda t: t)
            self.weight, self.bias = wrap(weight), wrap(bias)

        def forward(self, x):  # type: ignore[no-untyped-def]
            return forward(LinearFunction, x, self.weight, self.bias)

    def answer(x, weight, bias, grad_output, seed):  # type: ignore[no-untyped-def]
        return reference.run_linear_module(Variant, LinearFunction, x, weight, bias,
                                           grad_output, seed)
    return answer


def _uniform(in_features, out_features):  # type: ignore[no-untyped-def]
    bound = 1 / np.sqrt(in_features)
    return (mg.rand(out_features, in_features) * 2 * bound - bound,
            mg.rand(out_features) * 2 * bound - bound)


def _own(function, x, weight, bias):  # type: ignore[no-untyped-def]
    return function.apply(x, weight, bias)


def test_a_forward_that_returns_numpy_is_named() -> None:
    wrong = _module_variant(_uniform, lambda f, x, w, b: f.apply(x, w, b).numpy())
    named("05.5", wrong, "no graph: forward returned a numpy.ndarray, not a Tensor")
    assert set(credits("05.5", wrong)) == {3 / 8}  # parameters, init, output (2.4/4 before)


def test_a_detached_weight_is_named() -> None:
    named("05.5", _module_variant(_uniform, lambda f, x, w, b: f.apply(x, w.detach(), b)),
          "weight.grad is None")


def test_the_library_op_instead_of_the_own_function_is_named() -> None:
    named("05.5", _module_variant(_uniform, lambda f, x, w, b: F.linear(x, w, b)),
          "not from your LinearFunction")


def test_plain_tensors_instead_of_parameters_are_named() -> None:
    named("05.5", _module_variant(_uniform, _own, parameters=False), "is not registered")


def test_initialisations_unlike_pytorch_are_named() -> None:
    def zero_bias(i, o):  # type: ignore[no-untyped-def]
        return _uniform(i, o)[0], mg.zeros(o)
    named("05.5", _module_variant(zero_bias, _own), "bias is all zeros")
    named("05.5", _module_variant(lambda i, o: (mg.randn(o, i), mg.randn(o)), _own),
          "beyond 1/√in_features")
    named("05.5", _module_variant(lambda i, o: (mg.randn(o, i) * 0.01, _uniform(i, o)[1]),
                                  _own), "far inside")


# ---------------------------------------------------------------------------- 05.6 mistakes
def _loop_variant(zero=True, sign=1.0, scale=lambda loss, batch: loss,  # type: ignore[no-untyped-def]
                  rebind=False):
    def answer(images, labels, weights, lr, steps):  # type: ignore[no-untyped-def]
        Linear = reference.linear_module()
        first = Linear(weights[0].shape[1], weights[0].shape[0])
        second = Linear(weights[2].shape[1], weights[2].shape[0])
        reference.load_parameters([first, second], weights)
        parameters = [*first.parameters(), *second.parameters()]
        x, y, losses = mg.tensor(images, dtype=mg.float64), mg.tensor(labels), []
        for _ in range(steps):
            if zero:
                first.zero_grad()
                second.zero_grad()
            loss = scale(F.cross_entropy(second(first(x).relu()), y), len(labels))
            loss.backward()
            with mg.no_grad():
                for p in parameters:
                    if rebind:
                        p = p - lr * p.grad  # a new tensor bound to the loop name: no update
                    else:
                        p -= sign * lr * p.grad
            losses.append(loss.item())
        predicted = second(first(x).relu()).numpy().argmax(axis=1)
        return losses, float((predicted == labels).mean())
    return answer


def test_the_loop_variant_without_mistakes_is_right() -> None:
    assert set(credits("05.6", _loop_variant())) == {1.0}


def test_gradients_piling_up_across_steps_are_named() -> None:
    named("05.6", _loop_variant(zero=False), "gradients pile up across steps")


def test_a_step_up_the_gradient_is_named() -> None:
    named("05.6", _loop_variant(sign=-1.0), "the update climbs the gradient")


def test_an_update_that_never_reaches_the_parameters_is_named() -> None:
    named("05.6", _loop_variant(rebind=True), "your loss never changes")


def test_a_second_division_by_the_batch_is_named() -> None:
    named("05.6", _loop_variant(scale=lambda loss, batch: loss / batch), "divided by B")


def test_a_summed_loss_is_named() -> None:
    named("05.6", _loop_variant(scale=lambda loss, batch: loss * batch), "times the mean")


# ---------------------------------------------------------------------------- 05.2 mistakes
def _relu_ge(name, y, g):  # type: ignore[no-untyped-def]
    if name == "relu":
        return g * (y >= 0)
    return reference.activation_backward(name, y, g)


def _sigmoid_from_input(name, y, g):  # type: ignore[no-untyped-def]
    if name == "sigmoid":
        s = 1 / (1 + np.exp(-y))  # treats the output as if it were the input
        return g * s * (1 - s)
    return reference.activation_backward(name, y, g)


def _tanh_sign(name, y, g):  # type: ignore[no-untyped-def]
    if name == "tanh":
        return g * (1 + y * y)
    return reference.activation_backward(name, y, g)


@pytest.mark.parametrize("wrong", [_relu_ge, _sigmoid_from_input, _tanh_sign])
def test_activation_mistakes_are_caught(wrong) -> None:  # type: ignore[no-untyped-def]
    caught("05.2", wrong)


def test_the_relu_erratum_costs_half_of_the_activation_exercise() -> None:
    """y ≥ 0 instead of y > 0, the lesson's erratum, fails every relu case (each has an
    output of exactly 0), and relu is half of the cases."""
    for cases in _cases.case_sets("05.2"):
        relu = [args for args in cases if args[0] == "relu"]
        assert len(relu) * 2 == len(cases)
        assert len(_cases.failures("05.2", _relu_ge, [cases])) == len(relu)


# ---------------------------------------------------------------------------- 05.3 mistakes
def _batch_cases(exercise_id: str) -> list[list[tuple]]:
    """Only the cases with a batch of more than one (where 1/B can be told apart)."""
    return [[args for args in cases if len(args[-1] if exercise_id == "05.3" else args[1]) > 1]
            for cases in _cases.case_sets(exercise_id)]


def test_a_missing_one_over_b_is_named() -> None:
    def no_batch_division(logits, targets):  # type: ignore[no-untyped-def]
        loss, grad = reference.softmax_cross_entropy(logits, targets)
        return loss, grad * logits.shape[0]
    caught("05.3", no_batch_division)
    messages = _cases.failures("05.3", no_batch_division, _batch_cases("05.3"))
    assert messages and all("times too large" in m for m in messages)
    assert set(credits("05.3", no_batch_division, _batch_cases("05.3"))) == {0.5}


def test_dividing_by_b_twice_is_named() -> None:
    def twice(logits, targets):  # type: ignore[no-untyped-def]
        loss, grad = reference.softmax_cross_entropy(logits, targets)
        return loss, grad / logits.shape[0]
    messages = _cases.failures("05.3", twice, _batch_cases("05.3"))
    assert messages and all("divided by B" in m and "twice" in m for m in messages)


def test_a_summed_cross_entropy_is_named() -> None:
    def summed(logits, targets):  # type: ignore[no-untyped-def]
        loss, grad = reference.softmax_cross_entropy(logits, targets)
        return loss * logits.shape[0], grad
    messages = _cases.failures("05.3", summed, _batch_cases("05.3"))
    assert messages and all("sum over the batch" in m for m in messages)


def _unstable(logits, targets):  # type: ignore[no-untyped-def]
    with np.errstate(all="ignore"):
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        rows = np.arange(len(targets))
        loss = -np.log(p[rows, targets]).mean()
        p[rows, targets] -= 1
    return float(loss), p / len(targets)


def test_an_unstable_softmax_is_caught() -> None:
    caught("05.3", _unstable)


# ---------------------------------------------------------------------------- 05.4 mistakes
def _one_path(path: int):  # type: ignore[no-untyped-def]
    """05.4 with the hidden δ taken through output ``path`` only."""
    from minigrad.exercises.lessons.lesson05_checks import one_path_gradients

    def answer(inputs, targets, w, b, lr):  # type: ignore[no-untyped-def]
        error, _, output, _ = reference.network_step(inputs, targets, w, b, lr)
        hidden = one_path_gradients(inputs, targets, w, b, path)
        return error, hidden, output, np.asarray(w) - lr * np.concatenate([hidden, output])
    return answer


def test_the_o2_path_dropped_earns_e_and_w5_to_w8_and_is_named() -> None:
    wrong = _one_path(0)
    messages = named("05.4", wrong, "your hidden-unit δ uses only one output path")
    assert "0.000668" in messages[0] and "0.000438568" in messages[0]
    assert "right: E, dE/dw5…w8" in judge(BY_ID["05.4"], reference.network_step(*CLASSIC, 0.5),
                                          wrong(*CLASSIC, 0.5), (*CLASSIC, 0.5))[0]
    assert set(credits("05.4", wrong)) == {0.5}


def test_an_assignment_for_plus_equals_is_named() -> None:
    named("05.4", _one_path(1), "an `=` where `+=`")


def test_a_step_up_the_gradient_of_the_network_is_named() -> None:
    def ascent(inputs, targets, w, b, lr):  # type: ignore[no-untyped-def]
        error, hidden, output, _ = reference.network_step(inputs, targets, w, b, lr)
        return error, hidden, output, np.asarray(w) + lr * np.concatenate([hidden, output])
    named("05.4", ascent, "goes up the gradient")
    assert set(credits("05.4", ascent)) == {0.75}


def test_a_broken_function_of_05_1_is_blamed_in_05_5() -> None:
    variant = _linear_variant(_right_forward, lambda x, w, g: (g @ w, g.T @ x, g)).function

    class Layer(Module):
        def __init__(self, in_features, out_features):  # type: ignore[no-untyped-def]
            super().__init__()
            self.weight, self.bias = (Parameter(t) for t in _uniform(in_features, out_features))

        def forward(self, x):  # type: ignore[no-untyped-def]
            return variant.apply(x, self.weight, self.bias)

    x, w, b, g, seed = BY_ID["05.5"].visible()[0]
    with pytest.raises(RuntimeError, match="check that one first"):
        reference.run_linear_module(Layer, variant, x, w, b, g, seed)


# ---------------------------------------------------------------------------- review: messages
def test_the_relu_erratum_is_named() -> None:
    messages = caught("05.2", _relu_ge)
    assert all("y = 0" in m for m in messages), messages


def test_a_derivative_taken_at_the_output_as_if_it_were_the_input_is_named() -> None:
    def tanh_of_output(name, y, g):  # type: ignore[no-untyped-def]
        if name == "tanh":
            return g * (1 - np.tanh(y) ** 2)
        return reference.activation_backward(name, y, g)
    for wrong in (_sigmoid_from_input, tanh_of_output):
        messages = caught("05.2", wrong)
        assert all("as if it were x" in m for m in messages), messages


def test_a_local_derivative_without_the_incoming_gradient_is_named() -> None:
    def slope_only(name, y, g):  # type: ignore[no-untyped-def]
        return reference.activation_backward(name, y, np.ones_like(g))
    named("05.2", slope_only, "gradient arriving from above")  # every case: none has g = 1


def test_an_overflowing_softmax_is_named() -> None:
    messages = [m for m in caught("05.3", _unstable) if "nan" in m or "inf" in m]
    assert messages and all("overflow" in m for m in messages), messages


def test_one_hidden_unit_with_one_path_is_named() -> None:
    """Only h1's δ drops the path through o2 (h2's is right): dE/dw1, dE/dw2 are named."""
    def h1_one_path(inputs, targets, w, b, lr):  # type: ignore[no-untyped-def]
        from minigrad.exercises.lessons.lesson05_checks import one_path_gradients
        error, hidden, output, _ = reference.network_step(inputs, targets, w, b, lr)
        hidden = np.concatenate([one_path_gradients(inputs, targets, w, b, 0)[:2], hidden[2:]])
        return error, hidden, output, np.asarray(w) - lr * np.concatenate([hidden, output])
    named("05.4", h1_one_path, "h1's δ uses only the path through o1")
    assert set(credits("05.4", h1_one_path)) == {0.5}


def test_an_error_without_its_half_is_named() -> None:
    def no_half(inputs, targets, w, b, lr):  # type: ignore[no-untyped-def]
        error, hidden, output, new = reference.network_step(inputs, targets, w, b, lr)
        return 2 * error, hidden, output, new
    named("05.4", no_half, "twice the right one")


def _late_losses(images, labels, weights, lr, steps):  # type: ignore[no-untyped-def]
    """Each step's loss read after its update (a fresh forward), not before."""
    later, _ = reference.train_mlp(images, labels, weights, lr, steps + 1)
    _, accuracy = reference.train_mlp(images, labels, weights, lr, steps)
    return later[1:], accuracy


def test_losses_one_step_late_are_named() -> None:
    named("05.6", _late_losses, "one step late")


def test_an_accuracy_before_the_last_step_is_named() -> None:
    def stale(images, labels, weights, lr, steps):  # type: ignore[no-untyped-def]
        losses, _ = reference.train_mlp(images, labels, weights, lr, steps)
        _, before = reference.train_mlp(images, labels, weights, lr, steps - 1)
        return losses, before
    messages = _cases.failures("05.6", stale)
    assert messages and all("after the last step" in m for m in messages), messages


def test_a_backward_that_raises_keeps_the_forward_credit_and_points_at_shapes() -> None:
    """dX = G Wᵀ cannot even be computed when h ≠ d: the forward still earns its part."""
    wrong = _linear_variant(_right_forward, lambda x, w, g: (g @ w.T, g.T @ x, g.sum(axis=0)))
    rectangular = [[args for args in cases if args[1].shape[0] != args[1].shape[1]]
                   for cases in _cases.case_sets("05.1")]
    messages = _cases.failures("05.1", wrong, rectangular)
    assert messages and all("your backward raised ValueError" in m for m in messages), messages
    assert set(credits("05.1", wrong, rectangular)) == {1 / 5}  # Z


def test_a_function_of_05_1_that_raises_any_error_is_blamed_in_05_5() -> None:
    variant = _linear_variant(_right_forward, lambda x, w, g: (g @ w.T, g.T @ x, g.sum(0)))

    class Layer(Module):
        def __init__(self, in_features, out_features):  # type: ignore[no-untyped-def]
            super().__init__()
            self.weight, self.bias = (Parameter(t) for t in _uniform(in_features, out_features))

        def forward(self, x):  # type: ignore[no-untyped-def]
            return variant.function.apply(x, self.weight, self.bias)

    x, w, b, g, seed = BY_ID["05.5"].visible()[1]  # 5 inputs, 4 outputs: G Wᵀ cannot run
    with pytest.raises(RuntimeError, match="check that one first"):
        reference.run_linear_module(Layer, variant.function, x, w, b, g, seed)


def test_the_transpose_messages_name_the_mistake_not_the_formula() -> None:
    """The formula is the hint's second tier: a first failed check must not print it."""
    wrong_dw = _linear_variant(_right_forward, lambda x, w, g: (g @ w, x.T @ g, g.sum(axis=0)))
    square = [[args for args in cases if args[1].shape[0] == args[1].shape[1]]
              for cases in _cases.case_sets("05.1")]
    wrong_dx = _linear_variant(_right_forward, lambda x, w, g: (g @ w.T, g.T @ x, g.sum(0)))
    messages = caught("05.1", wrong_dw) + _cases.failures("05.1", wrong_dx, square)
    assert messages and not any("Gᵀ X" in m or "G W:" in m for m in messages), messages


def test_a_bias_drawn_from_one_over_root_out_features_is_named() -> None:
    """With out_features ≥ in_features such a bias stays inside ±1/√in_features: it passed."""
    def out_bound(in_features, out_features):  # type: ignore[no-untyped-def]
        bound = 1 / np.sqrt(out_features)
        return _uniform(in_features, out_features)[0], mg.rand(out_features) * 2 * bound - bound
    messages = caught("05.5", _module_variant(out_bound, _own))
    assert all("bias stays within" in m or "bias reaches" in m for m in messages), messages
    assert any("is it drawn from ±1/√out_features?" in m for m in messages)
    for seed in range(20):  # the right draw is never taken for it
        for args in BY_ID["05.5"].hidden(np.random.default_rng(seed)):
            assert reference.linear_module(*args)[1] == "like PyTorch"



def test_the_other_activations_slope_is_named() -> None:
    def swapped(name, y, g):  # type: ignore[no-untyped-def]
        other = {"sigmoid": "tanh", "tanh": "sigmoid"}.get(name, name)
        return reference.activation_backward(other, y, g) if name != "relu" else g * (y > 0)
    messages = caught("05.2", swapped)
    assert any("tanh's slope for sigmoid" in m for m in messages), messages
    assert any("sigmoid's slope for tanh" in m for m in messages), messages


# ---------------------------------------------------------------------------- named mistakes
# A wrong solution as a student writes it (a line of the reference replaced), and the
# sentence that names its mistake.
ACTIVATION_NAMED = [
    (("return grad_output * output * (1 - output)", "return grad_output * output * (output - 1)"),
     "your gradient has the wrong sign"),
    (("return grad_output * (1 - output * output)", "return grad_output * (1 - output)"),
     "your tanh slope does not square the output"),
]


@pytest.mark.parametrize("replaced, sentence", ACTIVATION_NAMED,
                         ids=[sentence[:30] for _, sentence in ACTIVATION_NAMED])
def test_activation_backward_names_each_mistake(replaced: tuple[str, str], sentence: str) -> None:
    assert_named("05.2", replaced, sentence)


CROSS_ENTROPY_NAMED = [
    (("    grad[rows, targets] -= 1.0\n    return float(loss), grad / batch\n",
      "    grad[rows, targets] -= 1.0\n    return float(loss), -grad / batch\n"),
     "your gradient has the wrong sign"),
    (("loss = -log_probs[rows, targets].mean()", "loss = log_probs[rows, targets].mean()"),
     "your loss is negative"),
    (("    grad[rows, targets] -= 1.0\n", ""), "your gradient is the probabilities alone"),
]


@pytest.mark.parametrize("replaced, sentence", CROSS_ENTROPY_NAMED,
                         ids=[sentence[:30] for _, sentence in CROSS_ENTROPY_NAMED])
def test_softmax_cross_entropy_names_each_mistake(replaced: tuple[str, str],
                                                  sentence: str) -> None:
    assert_named("05.3", replaced, sentence)
