"""Indexing: x[...] (cat, stack and where live in minigrad.ops.combine).

Picking entries out of x is linear, and its backward puts the gradient back where the entries
came from, into a zero tensor shaped like x ("scatter"). When one entry is picked several
times (x[[0, 0, 2]]) each pick adds its gradient: the backward uses np.add.at, never plain
assignment, which would keep only the last one.

x[key] follows PyTorch, one step per index, left to right:
  an int selects (SelectBackward0, the dim disappears), a slice slices (SliceBackward0),
  None inserts a dim (UnsqueezeBackward0), ... stands for as many `:` as needed;
  integer arrays/lists/tensors and boolean masks are applied last, together (IndexBackward0),
  with numpy's rules for where the indexed dims go.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Iterable

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.shape import unsqueeze
from minigrad.tensor.tensor import Tensor


# ---- pick (forward) and scatter-add (backward) -------------------------------------------
class Pick(Function):
    """out = x[key] for a numpy index `key`;  grad_x = zeros(x.shape) with grad added at key.

    Index arrays in `key` are saved for backward (as PyTorch saves `indices`), so they are
    freed after backward like any saved tensor; ints and slices are kept as plain settings.
    """

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, key: tuple) -> np.ndarray:
        is_array = [type(part) is np.ndarray for part in key]
        arrays = [part for part, array in zip(key, is_array) if array]
        ctx.save_for_backward(*arrays, names=_index_names(len(arrays)))
        ctx.key_layout = tuple([None if array else part for part, array in zip(key, is_array)])
        ctx.input_shape = x.shape
        if ctx._function.is_view:
            return x[key + (Ellipsis,)]  # basic indexing: a view (`...` keeps x[0] of a vector 0-d)
        # Integer arrays: a copy, as in PyTorch, and row-major as PyTorch lays it out (numpy
        # may order x[:, [0, 1]]'s memory column by column), so that .view() agrees.
        return np.ascontiguousarray(x[key])

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        key = _rebuild_key(ctx)
        scatter = _SCATTER_OF[ctx._function]
        return scatter.apply(grad_output, key=key, shape=ctx.input_shape)


@functools.cache
def _index_names(count: int) -> tuple[str, ...]:
    """Names of the saved index arrays: ("indices",) for one, ("indices0", "indices1") for two…"""
    return ("indices",) if count == 1 else tuple(f"indices{i}" for i in range(count))


def _rebuild_key(ctx: Context) -> tuple:
    """The index key again, with the saved index arrays put back in their places."""
    arrays = iter(saved._data for saved in ctx.saved_tensors)
    return tuple(next(arrays) if part is None else part for part in ctx.key_layout)


class Select(Pick, is_view=True):
    """x[..., i, ...]: one position along one dim (the dim disappears); a view."""


class Slice(Pick, is_view=True):
    """x[..., start:stop:step, ...] along one dim; a view."""


class Index(Pick):
    """x[arrays]: integer-array ("advanced") indexing; positions may repeat."""


class Alias(Pick, is_view=True):
    """x[...] or x[:, :]: all of x, unchanged; a view."""


class ScatterAdd(Function):
    """out = zeros(shape) with g added at `key` (repeats accumulate);  grad_g = grad_out[key]."""

    @staticmethod
    def forward(ctx: Context, g: np.ndarray, key: tuple, shape: tuple[int, ...]) -> np.ndarray:
        ctx.key = key
        out = np.zeros(shape, dtype=g.dtype)
        if any(isinstance(part, np.ndarray) for part in key):
            np.add.at(out, key, g)  # positions may repeat: add every contribution
        else:
            out[key] = g  # ints and slices never pick a position twice
        return out

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return _PICK_OF[ctx._function].apply(grad_output, key=ctx.key)


# The backward of each pick, as an op (recorded when create_graph=True): ScatterAdd under
# PyTorch's node name for it.
class SelectBackward(ScatterAdd, node_name="SelectBackwardBackward0"):
    """The backward of Select."""


class SliceBackward(ScatterAdd, node_name="SliceBackwardBackward0"):
    """The backward of Slice."""


class IndexBackward(ScatterAdd, node_name="IndexPutImplBackward0"):
    """The backward of Index (PyTorch's index_put with accumulate=True)."""


class AliasBackward(ScatterAdd, node_name="AliasBackwardBackward0"):
    """The backward of Alias."""


# Each pick's backward is its scatter-add, and each scatter-add's backward is its pick.
_SCATTER_OF = {Select: SelectBackward, Slice: SliceBackward, Index: IndexBackward,
               Alias: AliasBackward}
_PICK_OF = {scatter: pick for pick, scatter in _SCATTER_OF.items()}


# ---- x[key] --------------------------------------------------------------------------------
_LIST_KEY_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result")


def as_key(key: Any) -> Any:
    """The key as PyTorch 2.13 reads it: a list of fewer than 32 items of which one is a
    sequence, slice, Tensor, None or ... means a tuple of indices, with PyTorch's deprecation
    warning (x[[[0, 1], [1, 2]]] is x[[0, 1], [1, 2]], two entries, not a (2, 2, ...) pick).
    Every other key is returned as it is; a list of ints stays one index array."""
    if type(key) is not list or len(key) >= 32:
        return key
    if any(isinstance(item, (list, tuple, range, np.ndarray, slice, Tensor)) or item is None
           or item is Ellipsis for item in key):
        warnings.warn(_LIST_KEY_WARNING, UserWarning, stacklevel=3)
        return tuple(key)
    return key


def getitem(x: Tensor, key: Any) -> Tensor:
    """x[key] with basic indexing (ints, slices, None, ...) and integer-array/mask indexing."""
    if isinstance(key, slice):  # x[a:b] always records a slice, even x[:]
        if x.ndim == 0:
            _refuse_zero_dim_index((key,))
        return Slice.apply(x, key=(_checked_slice(key),))
    items = _integer_arrays(key, x.ndim)
    if items is not None:
        # Only integer index arrays, one per leading dim (x[rows, labels]): numpy's own
        # advanced indexing, recorded as one IndexBackward0, the same as the general loop below.
        return _index(x, items, ((item, x.shape[dim], dim) for dim, item in enumerate(items)))
    items = tuple(_index_item(item) for item in (key if isinstance(key, tuple) else (key,)))
    items = _expand_ellipsis(items, x.ndim)
    result, dim, source_dim = x, 0, 0  # dim: in the result so far; source_dim: in x
    advanced: dict[int, np.ndarray] = {}
    bounds: list[tuple[np.ndarray, int, int]] = []  # (index array, size, dim of x) to check
    for item in items:
        if item is None:
            result = unsqueeze(result, dim)
            dim += 1
            continue
        if isinstance(item, np.ndarray) and item.ndim == 0:  # a 0-d mask, as in PyTorch:
            result = unsqueeze(result, dim)  # True adds a dim of size 1, False of size 0
            if not item:
                result = Slice.apply(result, key=(slice(None),) * dim + (slice(0, 0),))
            dim += 1
            continue
        size = x.shape[source_dim]
        if isinstance(item, slice):
            item = _checked_slice(item)
            if not _takes_everything(item, size):
                result = Slice.apply(result, key=(slice(None),) * dim + (item,))
            dim += 1
        elif _is_integer(item):
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension {source_dim} "
                                 f"with size {size}")
            result = Select.apply(result, key=(slice(None),) * dim + (int(item),))
        else:
            array = item  # an index array (see _index_item)
            if array.dtype == np.bool_:
                _check_mask(array, x.shape, source_dim)
                for offset, positions in enumerate(np.nonzero(array)):
                    advanced[dim + offset] = positions
                dim += array.ndim
                source_dim += array.ndim
                continue
            bounds.append((array, size, source_dim))
            advanced[dim] = array
            dim += 1
        source_dim += 1
    if advanced:
        key = tuple(advanced.get(d, slice(None)) for d in range(max(advanced) + 1))
        result = _index(result, key, bounds)
    if result is x:
        result = Alias.apply(x, key=())
    return result


def _integer_arrays(key: Any, ndim: int) -> tuple[np.ndarray, ...] | None:
    """The key as int64 arrays if it is a tuple of 1 to ndim integer Tensors or arrays (with
    dims) and nothing else (`x[rows, labels]`); otherwise None."""
    if type(key) is not tuple or not 0 < len(key) <= ndim:
        return None
    for item in key:
        array = item._data if isinstance(item, Tensor) else item
        if type(array) is not np.ndarray or array.dtype.kind not in "iu" or array.ndim == 0:
            return None
    return tuple(_index_array(item) for item in key)  # int64 copies, as the general path makes


def _index(x: Tensor, key: tuple, bounds: Iterable[tuple[np.ndarray, int, int]]) -> Tensor:
    """x[key] for a key with index arrays; `bounds` gives (array, size, dim) to blame."""
    try:
        return Index.apply(x, key=key)
    except IndexError:  # numpy checks the bounds; we say which index and dim were wrong
        for array, size, dim in bounds:
            _check_bounds(array, size, dim)
        raise


def _refuse_zero_dim_index(items: tuple) -> None:
    """PyTorch's words for an int or a slice indexing a 0-d tensor (it has no dim to index)."""
    first = next(item for item in items if item is not None and item is not Ellipsis)
    if isinstance(first, (int, np.integer)):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    if isinstance(first, slice):
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")


def _expand_ellipsis(items: tuple, ndim: int) -> tuple:
    """Replace `...` by enough `:` that every dim of x is indexed, and check the count."""
    consumed = 0
    for item in items:
        if item is None or item is Ellipsis:
            continue
        is_mask = isinstance(item, np.ndarray) and item.dtype == np.bool_
        consumed += item.ndim if is_mask else 1  # a mask indexes as many dims as it has
    if consumed > ndim and ndim == 0:
        _refuse_zero_dim_index(items)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim} "
                         f"(got {consumed} indices for shape of {ndim} dims)")
    ellipses = [i for i, item in enumerate(items) if item is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if not ellipses:
        return items
    at = ellipses[0]
    return items[:at] + (slice(None),) * (ndim - consumed) + items[at + 1:]


def _index_item(item: Any) -> Any:
    """One part of a key, normalised: None, Ellipsis, a slice, an int, or an index array."""
    item = _scalar_index(item)
    if item is None or item is Ellipsis or isinstance(item, slice) or _is_integer(item):
        return item
    return _index_array(item)


def _scalar_index(item: Any) -> Any:
    """A 0-d integer tensor or array indexes like a plain int (it selects), as in PyTorch."""
    array = item._data if isinstance(item, Tensor) else item
    if isinstance(array, np.ndarray) and array.ndim == 0 and array.dtype.kind in "iu":
        return int(array)
    return item


def _takes_everything(item: slice, size: int) -> bool:
    """PyTorch skips a slice that is written to take a whole dim (`:`, `0:`, `:n`, `0:big`)."""
    return (item.start in (None, 0) and (item.stop is None or item.stop >= size)
            and item.step in (None, 1))


def _is_integer(item: Any) -> bool:
    return isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


def _checked_slice(item: slice) -> slice:
    for part in (item.start, item.stop, item.step):
        if part is not None and not _is_integer(part):
            raise TypeError(f"slice indices must be integers or None, got {part!r}")
    if item.step is not None and item.step <= 0:
        raise ValueError(f"step must be greater than zero (got {item.step}); "
                         "negative steps are not supported, use flip-free indexing instead")
    return item


def _index_array(item: Any) -> np.ndarray:
    """An integer or boolean index array from a list (or a tuple or range inside a key),
    ndarray or Tensor."""
    if isinstance(item, Tensor):
        array = item._data
    elif isinstance(item, (list, tuple, range, np.ndarray)):
        array = np.asarray(item)
        if array.size == 0 and array.dtype.kind == "f":
            array = array.astype(np.int64)  # [] is an empty list of positions
    elif isinstance(item, (bool, np.bool_)):
        raise IndexError("indexing with a Python bool (x[True]) is not supported; "
                         "use a boolean tensor or array as a mask")
    else:
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or bool tensors, "
            f"arrays or lists are valid indices (got {type(item).__name__})")
    if array.dtype.kind not in "iub":
        raise IndexError(f"tensors used as indices must be long, int or bool tensors "
                         f"(got {array.dtype.name})")
    return array.astype(np.int64) if array.dtype.kind in "iu" else array


def _check_bounds(array: np.ndarray, size: int, dim: int) -> None:
    bad = array[(array >= size) | (array < -size)]
    if bad.size:
        raise IndexError(f"index {int(bad.flat[0])} is out of bounds for dimension {dim} "
                         f"with size {size}")


def _check_mask(mask: np.ndarray, shape: tuple[int, ...], dim: int) -> None:
    for offset, size in enumerate(mask.shape):
        if dim + offset >= len(shape) or shape[dim + offset] != size:
            raise IndexError(
                f"The shape of the mask {list(mask.shape)} at index {offset} does not match "
                f"the shape of the indexed tensor {list(shape)} at index {dim + offset}")


__all__ = ["getitem"]
