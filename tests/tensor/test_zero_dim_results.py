"""0-d results hold a 0-d ndarray, never a numpy scalar (issue 30, §2).

numpy answers a ufunc of 0-d arrays with a scalar (`np.bool_`, `np.float32`); a tensor that
held one behaved unlike PyTorch's 0-d tensors: `.numpy()` was no array, a 0-d mask could not
index, and a stack of masks was int64. Each case is checked twice: with the answer written
out (runs without torch) and against PyTorch (`oracle`).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg


def _zero_dim_ops(L):  # noqa: N803 - the library, minigrad or torch
    """One 0-d result of each kind of op: comparison, mask logic, bitwise, arithmetic."""
    x, n = L.tensor(1.5), L.tensor(6)
    return [x > 0, x == 1.5, ~(x > 0), (x > 0) & (x < 2), (x > 0) | (x > 9), (x > 0) ^ (x > 9),
            n & 3, n | 1, n ^ 5, x * 2, x + x, x.exp(), -x, n // 4, n % 4, (x > 0).logical_not(),
            x.sum(), (x > 0).all(), (x > 0).any()]


def test_every_zero_dim_result_holds_an_ndarray():
    for result in _zero_dim_ops(mg):
        assert type(result.numpy()) is np.ndarray and result.numpy().shape == ()


def test_zero_dim_mask_numpy_is_a_zero_dim_bool_array():
    mask = mg.tensor(1.5) > 0
    assert type(mask.numpy()) is np.ndarray
    assert mask.numpy().dtype == np.bool_ and mask.numpy().shape == ()


def test_zero_dim_mask_selects_from_a_zero_dim_tensor():
    x = mg.tensor(2.0)
    picked = x[x > 0]
    assert picked.shape == (1,) and picked.tolist() == [2.0]
    assert x[x < 0].shape == (0,)


def test_zero_dim_mask_assignment():
    x = mg.tensor(1.5)
    x[x > 0] = 2.0
    assert x.item() == 2.0
    y = mg.tensor(-1.0)
    y[y > 0] = 2.0
    assert y.item() == -1.0


def test_stack_of_zero_dim_masks_is_bool():
    mask = mg.tensor(1.5) > 0
    stacked = mg.stack([mask, mask])
    assert stacked.dtype == mg.bool and stacked.tolist() == [True, True]


@pytest.mark.oracle
def test_zero_dim_results_as_in_torch(same_as_torch):
    same_as_torch(lambda L: [result.numpy() for result in _zero_dim_ops(L)])


@pytest.mark.oracle
@pytest.mark.parametrize("case", [
    lambda L: (L.tensor(1.5) > 0).numpy(),
    lambda L: L.tensor(2.0)[L.tensor(2.0) > 0],
    lambda L: L.stack([L.tensor(1.5) > 0, L.tensor(-1.5) > 0]),
    lambda L: L.cat([(L.tensor(1.5) > 0).unsqueeze(0), L.tensor([True])]),
    lambda L: L.where(L.tensor(1.5) > 0, L.tensor(1.0), L.tensor(2.0)),
], ids=["numpy", "getitem", "stack", "cat", "where"])
def test_zero_dim_masks_as_in_torch(same_as_torch, case):
    same_as_torch(case)


@pytest.mark.oracle
def test_zero_dim_mask_assignment_as_in_torch(same_as_torch):
    def case(L):  # noqa: N803
        x = L.tensor(1.5)
        x[x > 0] = 2.0
        return x
    same_as_torch(case)
