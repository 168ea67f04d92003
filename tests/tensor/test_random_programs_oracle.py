"""Random programs, run with minigrad and with PyTorch: values, gradients, second order.

A seeded generator writes a small program: leaves, then a few steps, each an op drawn at
random (elementwise maths, broadcasting arithmetic, powers, matmul, reductions, views) or
an in-place change through a view of a fresh intermediate (`v = y[1:]; v.mul_(z)`,
`y.T[0] = z`, `y[idx] += z` ...). The same program runs in both libraries on the same float64
numbers; the loss (a weighted sum of the last results), the first derivatives of every
leaf (with create_graph=True) and the second derivatives (of Σ grad·w) must agree.
A failing seed prints its program, so it can be replayed by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

UNARY = [
    ("exp", lambda L, x: (x.tanh()).exp()),
    ("tanh", lambda L, x: x.tanh()),
    ("sigmoid", lambda L, x: x.sigmoid()),
    ("relu", lambda L, x: L.relu(x)),
    ("abs", lambda L, x: x.abs()),
    ("sqrt", lambda L, x: (x * x + 1).sqrt()),
    ("log", lambda L, x: (x * x + 1).log()),
    ("neg", lambda L, x: -x),
    ("reciprocal", lambda L, x: (x * x + 1).reciprocal()),
    ("square", lambda L, x: x ** 2),
    ("cube", lambda L, x: x ** 3),
    ("rpow", lambda L, x: 2 ** x.tanh()),
    ("softmax", lambda L, x: x.softmax(-1)),
    ("log_softmax", lambda L, x: x.log_softmax(0)),
]
BINARY = [
    ("add", lambda L, a, b: a + b),
    ("sub", lambda L, a, b: a - b),
    ("mul", lambda L, a, b: a * b),
    ("div", lambda L, a, b: a / (b * b + 1)),
    ("pow", lambda L, a, b: (a * a + 1) ** b.tanh()),
]
VIEWS = [
    ("T", lambda x: x.T if x.ndim == 2 else x.permute(*reversed(range(x.ndim)))),
    ("row", lambda x: x[0] if x.ndim else x),
    ("tail", lambda x: x[1:] if x.ndim else x),
    ("every_other", lambda x: x[..., ::2] if x.ndim else x),
    ("unsqueeze", lambda x: x.unsqueeze(0)),
    ("flat", lambda x: x.reshape(-1)),  # a view of a fresh (contiguous) y
    ("squeeze_front", lambda x: x.unsqueeze(0).squeeze(0)),
]


def _make_program(seed: int) -> list[tuple]:
    """A list of steps; each names its op and the pool positions it reads."""
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (4,), (3, 4), (3, 1)]
    steps: list[tuple] = [("leaf", rng.uniform(-1.5, 1.5, size=s)) for s in shapes]
    pool_shapes = list(shapes)
    for _ in range(int(rng.integers(4, 9))):
        kind = rng.choice(["unary", "binary", "binary", "matmul", "reduce", "view", "inplace",
                           "inplace", "setitem"])
        first = int(rng.integers(len(pool_shapes)))
        shape = pool_shapes[first]
        if kind == "unary":
            name = UNARY[int(rng.integers(len(UNARY)))][0]
            if name in ("softmax", "log_softmax") and len(shape) == 0:
                name = "tanh"
            steps.append(("unary", name, first))
        elif kind in ("binary", "inplace"):
            partners = [i for i, s in enumerate(pool_shapes) if _broadcasts(s, shape)]
            second = int(rng.choice(partners))
            if kind == "binary":
                name = BINARY[int(rng.integers(len(BINARY)))][0]
                steps.append(("binary", name, first, second))
                pool_shapes.append(np.broadcast_shapes(shape, pool_shapes[second]))
                continue
            view = VIEWS[int(rng.integers(len(VIEWS)))][0]
            op = str(rng.choice(["add_", "mul_", "sub_", "div_"]))
            view_shape = _view_shape(view, shape)
            partners = [i for i, s in enumerate(pool_shapes) if _broadcasts(s, view_shape)]
            steps.append(("inplace", view, op, first, _pick(rng, partners)))
        elif kind == "setitem":
            key = [0, slice(1, None), (slice(None), 0), Ellipsis, [0, 0]][int(rng.integers(5))]
            if len(shape) < 2:
                key = [0, slice(1, None), [1, 0]][int(rng.integers(3))]
            if len(shape) == 0:
                key = Ellipsis
            region = np.empty(shape)[key].shape
            partners = [i for i, s in enumerate(pool_shapes) if _broadcasts(s, region)]
            steps.append(("setitem", key, first, _pick(rng, partners)))
        elif kind == "matmul":
            partners = [i for i, s in enumerate(pool_shapes)
                        if len(shape) == 2 and len(s) in (1, 2) and s[0] == shape[1]]
            if not partners:
                steps.append(("unary", "tanh", first))
            else:
                second = int(rng.choice(partners))
                steps.append(("matmul", first, second))
                pool_shapes.append((shape[0],) + pool_shapes[second][1:])
                continue
        elif kind == "reduce":
            op = str(rng.choice(["sum", "mean", "max"]))
            dim = int(rng.integers(len(shape))) if shape else None
            steps.append(("reduce", op, dim, bool(rng.integers(2)), first))
            if dim is None:
                pool_shapes.append(())
            else:
                kept = list(shape)
                if steps[-1][3]:
                    kept[dim] = 1
                else:
                    del kept[dim]
                pool_shapes.append(tuple(kept))
            continue
        else:
            view = VIEWS[int(rng.integers(len(VIEWS)))][0]
            steps.append(("view", view, first))
            pool_shapes.append(_view_shape(view, shape))
            continue
        pool_shapes.append(shape)
    steps.append(("weights", [rng.uniform(-1, 1, size=s) for s in pool_shapes]))
    return steps


def _pick(rng: np.random.Generator, partners: list[int]) -> int | None:
    """A pool position to use as the other operand (None: the number 0.5 instead)."""
    return int(rng.choice(partners)) if partners and rng.random() < 0.85 else None


def _broadcasts(shape: tuple, target: tuple) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def _view_shape(view: str, shape: tuple) -> tuple:
    return tuple(dict(VIEWS)[view](mg.zeros(shape)).shape)


def _run(steps: list[tuple], L) -> tuple:
    """Run the program with library L; return loss, first and second derivatives."""
    def tensor(array, grad=False):
        return L.tensor(np.array(array), dtype=L.float64, requires_grad=grad)

    leaves = [tensor(step[1], True) for step in steps if step[0] == "leaf"]
    pool = list(leaves)
    for step in steps[len(leaves):-1]:
        kind = step[0]
        if kind == "unary":
            pool.append(dict(UNARY)[step[1]](L, pool[step[2]]))
        elif kind == "binary":
            pool.append(dict(BINARY)[step[1]](L, pool[step[2]], pool[step[3]]))
        elif kind == "matmul":
            pool.append(pool[step[1]] @ pool[step[2]])
        elif kind == "reduce":
            _, op, dim, keepdim, source = step
            x = pool[source]
            if dim is None:
                pool.append(getattr(x, op)())
            else:
                result = getattr(x, op)(dim=dim, keepdim=keepdim)
                pool.append(result[0] if op == "max" else result)
        elif kind == "view":
            pool.append(dict(VIEWS)[step[1]](pool[step[2]]))
        elif kind == "inplace":
            _, view, op, source, other = step
            y = pool[source] * 1.0  # a fresh intermediate: nothing else saved it
            region = dict(VIEWS)[view](y)
            operand = 0.5 if other is None else pool[other]
            operand = operand if op != "div_" else operand * operand + 1
            getattr(region, op)(operand)
            pool.append(y)
        else:  # setitem
            _, key, source, other = step
            y = pool[source] * 1.0
            y[key] = 0.5 if other is None else pool[other]
            pool.append(y)
    weights = steps[-1][1]
    loss = sum((t * tensor(w)).sum() for t, w in zip(pool, weights))
    firsts = L.autograd.grad(loss, leaves, create_graph=True, allow_unused=True)
    firsts = [g if g is not None else L.zeros_like(x) for g, x in zip(firsts, leaves)]
    mixed = sum((g * tensor(w)).sum() for g, w in zip(firsts, weights) if g.requires_grad)
    if isinstance(mixed, int):  # no first derivative depends on a leaf
        seconds = [np.zeros(x.shape) for x in leaves]
    else:
        seconds = L.autograd.grad(mixed, leaves, allow_unused=True)
        seconds = [np.zeros(x.shape) if g is None else g.detach().numpy() for g, x
                   in zip(seconds, leaves)]
    return (loss.item(), [g.detach().numpy() for g in firsts], seconds,
            [x.detach().numpy() for x in pool], [g.requires_grad for g in firsts])


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(120))
def test_random_program_matches_pytorch(seed):
    steps = _make_program(seed)
    program = "\n".join(repr(step) for step in steps[4:-1])
    mine, theirs = _run(steps, mg), _run(steps, torch)
    assert np.isclose(mine[0], theirs[0], rtol=1e-9, atol=1e-9), program
    assert mine[4] == theirs[4], f"first derivatives that require grad differ in\n{program}"
    for what, index in (("value", 3), ("first derivative", 1), ("second derivative", 2)):
        for position, (a, b) in enumerate(zip(mine[index], theirs[index])):
            np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9,
                                       err_msg=f"{what} {position} differs in\n{program}")
