"""Errors of the same type as PyTorch's, with its words first and a hint after (issue 30, §2).

`DtypeError` (a RuntimeError and a TypeError) is minigrad's error for a tensor of the wrong
dtype; where PyTorch has no kernel for a dtype it raises NotImplementedError, and so do we
(`DtypeNotImplemented` is both). Each case is checked with its words written out (runs
without torch) and against PyTorch (`oracle`).
"""

from __future__ import annotations

import pytest

import minigrad as mg
from minigrad.tensor.dtypes import DtypeError


def _masks(L):  # noqa: N803 - the library, minigrad or torch
    return L.tensor([True, False]), L.tensor([True, True])


# (case, exception type, PyTorch's words)
BOOL_OPS = {
    "bool // bool": (lambda L: _masks(L)[0] // _masks(L)[1], '"div_floor_cpu" not implemented for \'Bool\''),
    "bool % bool": (lambda L: _masks(L)[0] % _masks(L)[1], '"remainder_cpu" not implemented for \'Bool\''),
    "bool % True": (lambda L: _masks(L)[0] % True, '"remainder_cpu" not implemented for \'Bool\''),
    "True // bool": (lambda L: True // _masks(L)[1], '"div_floor_cpu" not implemented for \'Bool\''),
    "True ** bool": (lambda L: True ** _masks(L)[0], '"pow" not implemented for \'Bool\''),
    "bool ** bool": (lambda L: _masks(L)[0] ** _masks(L)[1], '"pow" not implemented for \'Bool\''),
}


@pytest.mark.parametrize("name", BOOL_OPS)
def test_bool_floor_divide_remainder_and_power_are_refused(name):
    case, words = BOOL_OPS[name]
    with pytest.raises(NotImplementedError) as error:
        case(mg)
    assert isinstance(error.value, DtypeError) and words in str(error.value)


@pytest.mark.oracle
@pytest.mark.parametrize("name", BOOL_OPS)
def test_bool_ops_refused_as_in_torch(same_as_torch, name):
    same_as_torch(BOOL_OPS[name][0])


def test_bool_ops_torch_allows_still_work():
    mask = mg.tensor([True, False])
    assert (mask // 1).tolist() == [1, 0] and (mask // 1).dtype == mg.int64
    assert (mask ** True).dtype == mg.bool and (mask ** 2).dtype == mg.int64
    assert (2 ** mask).tolist() == [2, 1]


@pytest.mark.oracle
@pytest.mark.parametrize("case", [
    lambda L: L.tensor([True, False]) // 1,
    lambda L: L.tensor([True, False]) ** True,
    lambda L: L.tensor([True, False]) ** 2,
    lambda L: 2 ** L.tensor([True, False]),
], ids=["bool // 1", "bool ** True", "bool ** 2", "2 ** bool"])
def test_bool_ops_torch_allows_as_in_torch(same_as_torch, case):
    same_as_torch(case)
