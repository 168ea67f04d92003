"""Errors of the same type as PyTorch's, with its words first and a hint after (issue 30, §2).

`DtypeError` (a RuntimeError and a TypeError) is minigrad's error for a tensor of the wrong
dtype; where PyTorch has no kernel for a dtype it raises NotImplementedError, and so do we
(`DtypeNotImplemented` is both). Each case is checked with its words written out (runs
without torch) and against PyTorch (`oracle`).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.tensor.dtypes import DtypeError


def _masks(L):  # noqa: N803 - the library, minigrad or torch
    return L.tensor([True, False]), L.tensor([True, True])


# (case, the kernel PyTorch names in '"<kernel>" not implemented for 'Bool'')
BOOL_OPS = {
    "bool // bool": (lambda L: _masks(L)[0] // _masks(L)[1], "div_floor_cpu"),
    "bool % bool": (lambda L: _masks(L)[0] % _masks(L)[1], "remainder_cpu"),
    "bool % True": (lambda L: _masks(L)[0] % True, "remainder_cpu"),
    "True // bool": (lambda L: True // _masks(L)[1], "div_floor_cpu"),
    "True ** bool": (lambda L: True ** _masks(L)[0], "pow"),
    "bool ** bool": (lambda L: _masks(L)[0] ** _masks(L)[1], "pow"),
}


@pytest.mark.parametrize("name", BOOL_OPS)
def test_bool_floor_divide_remainder_and_power_are_refused(name):
    case, kernel = BOOL_OPS[name]
    with pytest.raises(NotImplementedError) as error:
        case(mg)
    assert isinstance(error.value, DtypeError)
    assert f'"{kernel}" not implemented for \'Bool\'' in str(error.value)


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


# ---- wrong dtypes and empty or negative sizes: (case, exception type, PyTorch's words) ----
def _logits(L):  # noqa: N803
    return L.tensor([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])


ERRORS = {
    "randn int64": (lambda L: L.randn(3, dtype=L.int64), NotImplementedError,
                    '"normal_kernel_cpu" not implemented for \'Long\''),
    "rand int32": (lambda L: L.rand(3, dtype=L.int32), NotImplementedError,
                   '"check_uniform_bounds" not implemented for \'Int\''),
    "int log_softmax": (lambda L: L.tensor([1, 2]).log_softmax(0), NotImplementedError,
                        '"log_softmax_lastdim_kernel_impl" not implemented for \'Long\''),
    "int softmax dim 0 of 2": (lambda L: L.tensor([[1, 2]]).softmax(0), NotImplementedError,
                               '"softmax_kernel_impl" not implemented for \'Long\''),
    "bce int target": (lambda L: L.nn.functional.binary_cross_entropy_with_logits(
        L.tensor([0.5, 0.2]), L.tensor([1, 0])), RuntimeError,
        "result type Float can't be cast to the desired output type Long"),
    "bce bool target": (lambda L: L.nn.functional.binary_cross_entropy_with_logits(
        L.tensor([0.5, 0.2]), L.tensor([True, False])), RuntimeError,
        "Subtraction, the `-` operator, with two bool tensors is not supported."),
    "bce int input": (lambda L: L.nn.functional.binary_cross_entropy_with_logits(
        L.tensor([1, 0]), L.tensor([1, 0])), NotImplementedError,
        '"log_sigmoid_cpu" not implemented for \'Long\''),
    "cross_entropy float class indices": (lambda L: L.nn.functional.cross_entropy(
        _logits(L), L.tensor([1.0, 2.0])), RuntimeError,
        "expected target dtype to be Long or Byte, but got Float"),
    "cross_entropy int probabilities": (lambda L: L.nn.functional.cross_entropy(
        _logits(L), L.zeros(2, 3, dtype=L.int64)), RuntimeError,
        "Expected floating point type for target with class probabilities, got Long"),
    "cross_entropy int logits": (lambda L: L.nn.functional.cross_entropy(
        L.tensor([[1, 2]]), L.tensor([0])), NotImplementedError,
        '"log_softmax_lastdim_kernel_impl" not implemented for \'Long\''),
    "zeros(-1)": (lambda L: L.zeros(-1), RuntimeError,
                  "zeros: Dimension size must be non-negative."),
    "ones(2, -3)": (lambda L: L.ones(2, -3), RuntimeError,
                    "Trying to create tensor with negative dimension -3: [2, -3]"),
    "randn(-1)": (lambda L: L.randn(-1), RuntimeError,
                  "Trying to create tensor with negative dimension -1: [-1]"),
    "ones(2.5)": (lambda L: L.ones(2.5), TypeError,
                  "ones(): argument 'size' (position 1) must be tuple of ints, not float"),
    "stack([])": (lambda L: L.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
    "cat([])": (lambda L: L.cat([]), ValueError,
                "minigrad.cat(): expected a non-empty list of Tensors"),
    "bool - bool": (lambda L: L.tensor([True]) - L.tensor([True]), RuntimeError,
                    "Subtraction, the `-` operator, with two bool tensors is not supported."),
    "bool - True": (lambda L: L.tensor([True]) - True, RuntimeError,
                    "Subtraction, the `-` operator, with two bool tensors is not supported."),
    "bool - 1": (lambda L: L.tensor([True]) - 1, RuntimeError,
                 "Subtraction, the `-` operator, with a bool tensor is not supported."),
}
DTYPE_ERRORS = {"randn int64", "rand int32", "int log_softmax", "int softmax dim 0 of 2",
                "bce int target", "bce bool target", "bce int input",
                "cross_entropy float class indices", "cross_entropy int probabilities",
                "cross_entropy int logits", "bool - bool", "bool - True", "bool - 1"}


@pytest.mark.parametrize("name", ERRORS)
def test_error_type_and_words(name):
    case, kind, words = ERRORS[name]
    with pytest.raises(kind) as error:
        case(mg)
    assert words in str(error.value)
    if name in DTYPE_ERRORS:
        assert isinstance(error.value, DtypeError)  # so also a TypeError


@pytest.mark.oracle
@pytest.mark.parametrize("name", ERRORS)
def test_error_as_in_torch(same_as_torch, name):
    same_as_torch(ERRORS[name][0])


def test_cross_entropy_reads_a_target_of_the_input_shape_as_probabilities():
    loss = mg.nn.functional.cross_entropy(_logits(mg), mg.tensor([[0.0, 1.0, 0.0]] * 2))
    assert loss.item() == pytest.approx((3.2413 + 1.1019) / 2, abs=1e-3)  # −log p of classes 1, 1


# ---- found by a random comparison of programs over dtypes and 0-d tensors -----------------
FOUND = {
    "float | int": (lambda L: L.tensor([1.5]) | 2, NotImplementedError,
                    '"bitwise_or_cpu" not implemented for \'Float\''),
    "bool & 1.5": (lambda L: L.tensor([True]) & 1.5, NotImplementedError,
                   '"bitwise_and_cpu" not implemented for \'Float\''),
    "int64 ^ float64": (lambda L: L.tensor([1]) ^ L.tensor([1.5], dtype=L.float64),
                        NotImplementedError, '"bitwise_xor_cpu" not implemented for \'Double\''),
    "int32.div_(int32)": (lambda L: L.tensor([3], dtype=L.int32).div_(
        L.tensor([2], dtype=L.int32)), RuntimeError,
        "result type Float can't be cast to the desired output type Int"),
    "int32.fill_(2**40)": (lambda L: L.zeros(2, dtype=L.int32).fill_(2**40), RuntimeError,
                           "value cannot be converted to type int without overflow"),
    "int64.fill_(1e20)": (lambda L: L.zeros(2, dtype=L.int64).fill_(1e20), RuntimeError,
                          "value cannot be converted to type int64_t without overflow"),
    "int32[0] = 1e10": (lambda L: L.zeros(2, dtype=L.int32).__setitem__(0, 1e10), RuntimeError,
                        "value cannot be converted to type int without overflow"),
    "int32[mask] = nan": (lambda L: L.zeros(2, dtype=L.int32).__setitem__(
        L.tensor([True, False]), float("nan")), RuntimeError,
        "value cannot be converted to type int without overflow"),
    "full int32 1e10": (lambda L: L.full((2,), 1e10, dtype=L.int32), RuntimeError,
                        "value cannot be converted to type int without overflow"),
    "where int32 2**40": (lambda L: L.where(L.tensor([True, False]), L.zeros(2, dtype=L.int32),
                                            2**40), RuntimeError,
                          "value cannot be converted to type int without overflow"),
    "0-d [0]": (lambda L: L.tensor(1.0)[0], IndexError, "invalid index of a 0-dim tensor. Use "
                "`tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim "
                "tensor to a number"),
    "0-d [0] = 2": (lambda L: L.tensor(1.0).__setitem__(0, 2.0), IndexError,
                    "invalid index of a 0-dim tensor."),
    "0-d [0:1]": (lambda L: L.tensor(1.0)[0:1], IndexError,
                  "slice() cannot be applied to a 0-dim tensor."),
    "cat([t, 2])": (lambda L: L.cat([L.tensor([1.0]), 2]), TypeError,
                    "expected Tensor as element 1 in argument 0, but got int"),
    "stack([t, ndarray])": (lambda L: L.stack([L.tensor([1.0]), np.array([1.0])]), TypeError,
                            "expected Tensor as element 1 in argument 0, but got numpy.ndarray"),
    "cat sizes": (lambda L: L.cat([L.zeros(1, 3), L.zeros(2, 1)]), RuntimeError,
                  "Sizes of tensors must match except in dimension 0. Expected size 3 but got "
                  "size 1 for tensor number 1 in the list."),
    "copy_ from a larger shape": (lambda L: L.zeros(2, 1).copy_(L.zeros(2, 3)), RuntimeError,
                                  "output with shape [2, 1] doesn't match the broadcast shape "
                                  "[2, 3]"),
    "x[...] = a larger shape": (lambda L: L.zeros(2, 1).__setitem__(Ellipsis, L.zeros(2, 3)),
                                RuntimeError, "The expanded size of the tensor (1) must match "
                                "the existing size (3) at non-singleton dimension 1."),
    "permute()": (lambda L: L.tensor(1.0).permute(), TypeError,
                  'permute() missing 1 required positional arguments: "dims"'),
    "where(True, 1.5, False)": (lambda L: L.where(True, 1.5, False), TypeError,
                                "where() received an invalid combination of arguments - got "
                                "(bool, float, bool), but expected one of:"),
    "zeros_like(np.float64)": (lambda L: L.zeros_like(np.float64(2.5)), TypeError,
                               "zeros_like(): argument 'input' (position 1) must be Tensor, "
                               "not numpy.float64"),
}


@pytest.mark.parametrize("name", FOUND)
def test_found_error_type_and_words(name):
    case, kind, words = FOUND[name]
    with pytest.raises(kind) as error:
        case(mg)
    assert words in str(error.value)


@pytest.mark.oracle
@pytest.mark.parametrize("name", FOUND)
def test_found_error_as_in_torch(same_as_torch, name):
    same_as_torch(FOUND[name][0])


def test_numbers_that_fit_are_written_into_integer_tensors():
    ints = mg.zeros(3, dtype=mg.int32)
    ints.fill_(1.5)
    ints[0] = 2**31 - 1
    assert ints.tolist() == [2**31 - 1, 1, 1]
    assert mg.full((1,), -2**31, dtype=mg.int32).tolist() == [-2**31]
    assert mg.zeros(2, dtype=mg.bool).fill_(5).tolist() == [True, True]
