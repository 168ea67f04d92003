"""`x[key] = value`: writing into part of a tensor, in place.

Basic indexing (ints, slices, None, ...) picks a view: the value is copied into it, recorded
as CopySlices on x's base (minigrad.ops.copy_slices). Integer-array or mask indexing writes
the positions x[key] reads, recorded as IndexPutBackward0. Either way the overwritten slots get
no gradient and `value` gets the gradient of its slots. The in-place rules (leaves, version
counters) are those of minigrad.ops.inplace.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.ops.copy_slices import IndexPut, copy_into, write_through_view
from minigrad.ops.index import getitem
from minigrad.ops.inplace import (_check_leaf, check_writeable, _commit, _old_value, _records,
                                  copy_, fill_)
from minigrad.ops.shape import expand, reshape
from minigrad.tensor import dtypes
from minigrad.tensor.tensor import Tensor


def _plain_key(key: Any) -> Any:
    """The key with Tensors replaced by their arrays (numpy indexes with it)."""
    if isinstance(key, Tensor):
        return key._data
    if isinstance(key, tuple):
        return tuple(part._data if isinstance(part, Tensor) else part for part in key)
    return key


def _index_arrays(key: Any) -> list[Any]:
    """The parts of the key that are index arrays (lists or arrays with dims)."""
    parts = key if isinstance(key, tuple) else (key,)
    return [part for part in parts if isinstance(part, (list, np.ndarray)) and np.ndim(part) > 0]


def _is_advanced(key: Any) -> bool:
    return bool(_index_arrays(key))


def _check_index_put_dtype(tensor: Tensor, key: Any, value: Tensor) -> None:
    """PyTorch's rule for x[index arrays] = tensor: the dtypes must match, except that a
    single value written through boolean masks is cast (it fills, like masked_fill)."""
    if value.dtype == tensor.dtype:
        return
    masks_only = all(np.asarray(part).dtype == np.bool_ for part in _index_arrays(key))
    if masks_only and value._data.size == 1:
        return
    raise RuntimeError(
        f"Index put requires the source and destination dtypes match, got "
        f"{dtypes.scalar_type_name(tensor.dtype)} for the destination and "
        f"{dtypes.scalar_type_name(value.dtype)} for the source.")


def setitem(tensor: Tensor, key: Any, value: Any) -> None:
    """tensor[key] = value in place.

    Basic indexing (ints, slices, None, ...) is a view: the value is copied into x[key],
    recorded as CopySlices on x's base. Integer-array or mask indexing is IndexPutBackward0.
    Either way the overwritten slots get no gradient and `value` the gradient of its slots.
    """
    _check_leaf(tensor, prefix="a view of ")  # PyTorch: x[key] is a view of the leaf x
    check_writeable(tensor)
    dtypes.check_fits(value, tensor.dtype)
    key = _plain_key(key)
    if _is_advanced(key) and isinstance(value, Tensor):
        _check_index_put_dtype(tensor, key, value)
    if isinstance(value, np.ndarray):
        value = Tensor(value)
    if _is_advanced(key):
        value = _without_leading_ones(value)
        key = _slots(tensor, key)
        if _records(tensor, value):
            _commit(tensor, IndexPut.apply(_old_value(tensor), value, key=key), "setitem")
            return
        try:
            tensor._data[key] = value._data if isinstance(value, Tensor) else value
        except (IndexError, ValueError) as error:
            raise type(error)(f"cannot assign to a tensor of shape {tensor.shape} at {key!r}: "
                              f"{error}") from None
        tensor._version_counter[0] += 1
        return
    if _is_whole(key):  # x[...] = v, x[:] = v: PyTorch fills or copies into x itself
        if isinstance(value, Tensor) and value.shape != tensor.shape:
            value = _without_leading_ones(value)
        if not isinstance(value, Tensor) or value.ndim == 0:
            fill_(tensor, value if isinstance(value, Tensor) else Tensor(value))
        else:
            if value.shape != tensor.shape:
                with no_grad():  # v is broadcast as expand does, and refused in its words
                    expand(value, tensor.shape)
            copy_(tensor, value)
        return
    with no_grad():
        region = getitem(tensor, key)  # a view of tensor, hence of tensor's base
    if isinstance(value, Tensor) and value.shape != region.shape:
        value = _without_leading_ones(value)  # (`x[0:1] += 1` writes x[0:1] back as it is)
    if _records(tensor, value):
        write_through_view(region._base, value, region._view_steps)
        if tensor._base is not None:
            tensor._refresh_view_node()
            tensor._requires_grad = True
        return
    copy_into(region._data, value._data if isinstance(value, Tensor) else value)
    tensor._version_counter[0] += 1


def _without_leading_ones(value: Any) -> Any:
    """The value with its leading size-1 dims dropped, as PyTorch does before writing: so
    `x[1] = t` works for a t of shape (1,), and t's gradient, through the recorded reshape,
    keeps t's shape."""
    if not isinstance(value, Tensor) or value.ndim == 0 or value.shape[0] != 1:
        return value
    shape = value.shape
    ones = 0
    while ones < len(shape) and shape[ones] == 1:
        ones += 1
    return reshape(value, shape[ones:])


def _slots(tensor: Tensor, key: Any) -> tuple[np.ndarray, ...]:
    """The positions x[key] reads, laid out as PyTorch lays out x[key], as one integer array
    per dim of x. numpy alone would place the indexed dims differently when an int and an
    index array are separated by a slice (x[0, :, [0, 1]]); reading the positions with
    minigrad's own x[key] on an array of flat indices gives PyTorch's layout for any key."""
    positions = Tensor._make(np.arange(tensor._data.size).reshape(tensor.shape), False, None)
    with no_grad():
        flat = getitem(positions, key)._data
    return np.unravel_index(flat, tensor.shape)


def _is_whole(key: Any) -> bool:
    """Does the key take the whole tensor without adding dims (`...`, `:`, `:, ...`)?"""
    parts = key if isinstance(key, tuple) else (key,)
    return all(part is Ellipsis or part == slice(None) for part in parts)
