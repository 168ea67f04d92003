"""PyTorch's type promotion, in one place (`minigrad.tensor.dtypes.result_type`).

The result's category (bool < integer < floating point) is the highest of the operands';
inside it, tensors with dims decide, then 0-d tensors, then Python and numpy scalars (which
count only by category: int64 or the default float). Issue 30, §2: each case with its
answer written out (runs without torch) and against PyTorch (`oracle`).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg


def _ints32(L):  # noqa: N803 - the library, minigrad or torch
    return L.tensor([1, 2, 6], dtype=L.int32)


# (case, the dtype PyTorch 2.13 gives)
CASES = {
    "int32 & 0-d int64": (lambda L: _ints32(L) & L.tensor(3), "int32"),
    "int32 | 0-d int64": (lambda L: _ints32(L) | L.tensor(3), "int32"),
    "0-d int64 ^ int32": (lambda L: L.tensor(3) ^ _ints32(L), "int32"),
    "bool | np.int32": (lambda L: L.tensor([True, False]) | np.int32(-3), "int64"),
    "bool & np.int64": (lambda L: L.tensor([True, False]) & np.int64(1), "int64"),
    "2 ** int32": (lambda L: 2 ** _ints32(L), "int32"),
    "np.int64(2) ** int32": (lambda L: np.int64(2) ** _ints32(L), "int32"),
    "np.int64(2) - int32": (lambda L: np.int64(2) - _ints32(L), "int32"),
    "int32 - np.int64(2)": (lambda L: _ints32(L) - np.int64(2), "int32"),
    "int32 * 0-d int64": (lambda L: _ints32(L) * L.tensor(2), "int32"),
    "int32 + 0-d float64": (lambda L: _ints32(L) + L.tensor(0.5, dtype=L.float64), "float64"),
    "int32 ** 2": (lambda L: _ints32(L) ** 2, "int32"),
    "int32 / np.int64(2)": (lambda L: _ints32(L) / np.int64(2), "float32"),
    "full np.int64": (lambda L: L.full((2,), np.int64(3)), "int64"),
    "full np.float64": (lambda L: L.full((2,), np.float64(3)), "float32"),
}


@pytest.mark.parametrize("name", CASES)
def test_result_dtype(name):
    case, dtype = CASES[name]
    assert str(case(mg).dtype) == dtype


@pytest.mark.oracle
@pytest.mark.parametrize("name", CASES)
def test_result_dtype_as_in_torch(same_as_torch, name):
    same_as_torch(CASES[name][0])


def test_values_kept_by_promotion():
    assert (_ints32(mg) & mg.tensor(3)).tolist() == [1, 2, 2]
    assert (mg.tensor([True, False]) | np.int32(-3)).tolist() == [-3, -3]
    assert (2 ** _ints32(mg)).tolist() == [2, 4, 64]


def test_full_of_an_integer_cannot_require_grad():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        mg.full((2,), np.int64(3), requires_grad=True)


@pytest.mark.oracle
def test_full_of_an_integer_cannot_require_grad_in_torch(same_as_torch):
    same_as_torch(lambda L: L.full((2,), np.int64(3), requires_grad=True))


@pytest.mark.parametrize("data", [[2**40, -3], [float("nan")], [1e10], [-2**31 - 1], 2.0**31])
def test_python_numbers_that_overflow_int32(data):
    with pytest.raises(RuntimeError, match="value cannot be converted to type int32 without "
                                           "overflow"):
        mg.tensor(data, dtype=mg.int32)


def test_python_numbers_that_fit_int32():
    assert mg.tensor([2**31 - 1, -2**31, 3.7], dtype=mg.int32).tolist() == [2**31 - 1, -2**31, 3]


@pytest.mark.oracle
@pytest.mark.parametrize("data", [[2**40, -3], [float("nan")], [1e10], [2**31 - 1, -2**31, 3.7],
                                  [1e19]])
def test_python_numbers_into_integers_as_in_torch(same_as_torch, data):
    same_as_torch(lambda L: L.tensor(data, dtype=L.int32))
    same_as_torch(lambda L: L.tensor(data, dtype=L.int64))


# ---- found by a random comparison: add_'s alpha, and numpy scalars ------------------------
def test_bool_add_with_alpha_stays_bool():
    mask = mg.tensor([False, True])
    assert mask.add_(True, alpha=2).tolist() == [True, True] and mask.dtype == mg.bool


@pytest.mark.oracle
def test_bool_add_with_alpha_as_in_torch(same_as_torch):
    same_as_torch(lambda L: L.tensor([False, True]).add_(True, alpha=2))
    same_as_torch(lambda L: L.tensor([False]).add_(L.tensor([True]), alpha=2))
    same_as_torch(lambda L: L.tensor([False]).add_(1))


def test_numpy_scalars_act_as_the_numbers_they_hold():
    """A documented difference: PyTorch reads np.bool_ as a float in operators."""
    assert (mg.tensor([True]) & np.bool_(True)).dtype == mg.bool
    assert (mg.zeros(2, dtype=mg.int64) + np.bool_(True)).dtype == mg.int64
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        mg.tensor([1.5]) - np.bool_(True)  # as `- True` (PyTorch: 0.5, np.bool_ as 1.0)
