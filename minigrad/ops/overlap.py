"""May an in-place op write into memory that it also reads? PyTorch's rule, on numpy arrays.

`b += b` is fine: each element is read once, then overwritten by its own result. But in
`b += b.T`, or `b[1:] += b[:-1]`, some elements are overwritten before they are read as
another element's input, so the answer would depend on the order of the loop. PyTorch
refuses those, with the rule of its `get_overlap_status`, which looks only at where the
two arrays start and end in memory (it cannot afford more):

- the same array, or either one empty: fine;
- either one not *dense* (it skips memory: a slice with a step, a column, a broadcast):
  too hard to tell, so PyTorch lets it run (and so does minigrad);
- both dense: if they cover exactly the same bytes with the same strides it is a *full*
  overlap (element i reads element i: fine); any other shared byte is a *partial* overlap,
  refused with the message below.
"""

from __future__ import annotations

from typing import Any

import numpy as np

PARTIAL_OVERLAP_MESSAGE = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation.")


def _is_dense(array: np.ndarray) -> bool:
    """True if the array's elements fill one block of memory without gaps or repeats
    (in some order of its dims: a transpose of a contiguous array is dense too)."""
    dims = sorted((stride, size) for size, stride in zip(array.shape, array.strides) if size != 1)
    expected = array.itemsize
    for stride, size in dims:
        if stride != expected:
            return False
        expected *= size
    return True


def _same_layout(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape, and the same strides along every dim longer than 1 (numpy, unlike PyTorch,
    gives size-1 dims arbitrary strides; they never matter)."""
    return a.shape == b.shape and all(
        size == 1 or stride_a == stride_b
        for size, stride_a, stride_b in zip(a.shape, a.strides, b.strides))


def partially_overlaps(written: np.ndarray, read: np.ndarray) -> bool:
    """Does `read` share memory with `written` other than element for element?"""
    if written is read or written.size == 0 or read.size == 0:
        return False
    if not np.may_share_memory(written, read):  # the usual case (p += lr * g): numpy's bounds
        return False                            # check, in C, far quicker than the rest
    if not (_is_dense(written) and _is_dense(read)):
        return False  # PyTorch's "too hard": not checked
    written_start = written.__array_interface__["data"][0]
    read_start = read.__array_interface__["data"][0]
    if written_start == read_start and written.nbytes == read.nbytes:
        return not _same_layout(written, read)
    return written_start < read_start + read.nbytes and read_start < written_start + written.nbytes


def refuse_partial_overlap(written: np.ndarray, read: Any) -> None:
    """Raise PyTorch's error if writing `written` would overwrite `read` before it is read."""
    if isinstance(read, np.ndarray) and partially_overlaps(written, read):
        raise RuntimeError(PARTIAL_OVERLAP_MESSAGE)
