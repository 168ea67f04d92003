"""Shape ops: the same numbers, arranged differently.

None of these ops does arithmetic, so each backward only undoes the rearrangement:
reshape's gradient is reshaped back, transpose's is transposed back, permute's is permuted
by the inverse permutation, expand's is summed over the expanded axes.

As in PyTorch, the results are *views*: numpy views of the input's memory (`is_view = True`),
so `x.T` costs no copy, and writing into `x.T` writes into `x`. `reshape`/`flatten` copy only
when the layout makes a view impossible (a transposed matrix flattened); `view` refuses then.

Also here: `wrap_dim` and `wrap_dims`, which turn a user's (possibly negative) `dim` into an
axis number with PyTorch's error message — every op taking a `dim` uses them.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.ops.arithmetic import BroadcastTo
from minigrad.ops.cast import clone
from minigrad.tensor.tensor import Tensor


# ---- dims ---------------------------------------------------------------------------------
def wrap_dim(dim: int, ndim: int) -> int:
    """`dim` as an axis in [0, ndim); negative dims count from the end (-1 = last).

    A 0-d tensor accepts dim 0 and -1, as in PyTorch.
    """
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}: {dim!r}")
    bound = max(ndim, 1)
    if not -bound <= dim < bound:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-bound}, {bound - 1}], but got {dim})")
    return int(dim) % bound


def wrap_dims(dims: int | Iterable[int], ndim: int) -> tuple[int, ...]:
    """A dim or a sequence of dims as sorted axes; a repeated dim is an error."""
    if isinstance(dims, (int, np.integer)) and not isinstance(dims, bool):
        dims = (dims,)
    elif not isinstance(dims, (tuple, list)):
        raise TypeError(f"dim must be an int or a tuple of ints, got {type(dims).__name__}: {dims!r}")
    wrapped: list[int] = []
    for dim in dims:
        axis = wrap_dim(dim, ndim)
        if axis in wrapped:
            raise RuntimeError(f"dim {axis} appears multiple times in the list of dims")
        wrapped.append(axis)
    return tuple(sorted(wrapped))


def _sizes(sizes: tuple[Any, ...]) -> tuple[int, ...]:
    """Accept both `f(2, 3)` and `f((2, 3))` / `f([2, 3])`."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    for size in sizes:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
            raise TypeError(f"sizes must be ints, got {type(size).__name__}: {size!r}")
    return tuple(int(size) for size in sizes)


def infer_shape(shape: Sequence[int], numel: int) -> tuple[int, ...]:
    """Replace a single -1 in `shape` by the size that makes the element count `numel`."""
    described = "[" + ", ".join(str(s) for s in shape) + "]"
    for index, size in enumerate(shape):
        if size < -1:
            raise RuntimeError(f"invalid shape dimension {size} at index {index} of shape {described}")
    if list(shape).count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
    if -1 in shape:
        if known == 0 or numel % known != 0:
            raise RuntimeError(f"shape '{described}' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in shape)
    if known != numel:
        raise RuntimeError(f"shape '{described}' is invalid for input of size {numel}")
    return tuple(shape)


# ---- reshape / view -----------------------------------------------------------------------
class View(Function):
    """out = x with a new shape, same elements in the same (row-major) order (a view).

    x: (*in_shape) -> out: (*shape);  d(out)/dx: the gradient reshaped back to in_shape.
    """

    is_view = True

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        ctx.input_shape = x.shape
        return x.reshape(shape)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return reshape(grad_output, ctx.input_shape)


class UnsafeView(View, is_view=False):
    """reshape of a fresh copy (the input's layout allowed no view): not a view of anything."""


def _viewable(x: Tensor, shape: tuple[int, ...]) -> bool:
    """Can `shape` be a view of x's memory? PyTorch's rule (computeStride), on x's strides.

    Walk x's dims from the last, grouping them into *chunks*: runs of dims each of which
    steps over exactly the dims after it in its chunk (stride[d-1] == numel of the chunk so
    far * the chunk's innermost stride; size-1 dims join any chunk). The new shape must
    split into consecutive groups of dims with exactly the element counts of the chunks:
    elements may be regrouped within a chunk, never across a gap in memory between chunks.
    """
    sizes, strides = x._data.shape, x._data.strides
    if x._data.size == 0 or not sizes:
        return True
    view_dim = len(shape) - 1
    chunk_stride, chunk_numel = strides[-1], 1
    for dim in range(len(sizes) - 1, -1, -1):
        chunk_numel *= sizes[dim]
        if dim > 0 and (sizes[dim - 1] == 1 or strides[dim - 1] == chunk_numel * chunk_stride):
            continue  # the chunk goes on
        view_numel = 1
        while view_dim >= 0 and (view_numel < chunk_numel or shape[view_dim] == 1):
            view_numel *= shape[view_dim]
            view_dim -= 1
        if view_numel != chunk_numel:
            return False
        if dim > 0:
            chunk_stride, chunk_numel = strides[dim - 1], 1
    return view_dim == -1


def _element_strides(x: Tensor) -> tuple[int, ...]:
    """x's strides counted in elements, as PyTorch's x.stride() shows them."""
    return tuple(stride // x._data.itemsize for stride in x._data.strides)


def reshape(x: Tensor, *shape: int | Sequence[int]) -> Tensor:
    """x with shape `shape` (one entry may be -1: inferred from the element count).

    A view when the memory layout allows (always for a contiguous x), otherwise a copy.
    """
    target = infer_shape(_sizes(shape), x._data.size)
    if _viewable(x, target):
        return View.apply(x, shape=target)
    return UnsafeView.apply(clone(x), shape=target)


def view(x: Tensor, *shape: int | Sequence[int]) -> Tensor:
    """x with shape `shape`, always sharing x's memory; an error where no view exists."""
    target = infer_shape(_sizes(shape), x._data.size)
    if not _viewable(x, target):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead. "
            f"(shape {tuple(x.shape)} with strides {_element_strides(x)} cannot be read as "
            f"shape {target} without a copy: its memory has gaps or its dims were reordered, "
            "e.g. by .T, transpose or slicing)")
    return View.apply(x, shape=target)


def flatten(x: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims start_dim..end_dim (inclusive) into one: (2, 3, 4) -> (2, 12) for start_dim=1."""
    start, end = wrap_dim(start_dim, x.ndim), wrap_dim(end_dim, x.ndim)
    if x.ndim == 0:
        return reshape(x, 1)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return x  # nothing to merge: PyTorch returns the tensor itself
    merged = int(np.prod(x.shape[start:end + 1], dtype=np.int64))
    return reshape(x, x.shape[:start] + (merged,) + x.shape[end + 1:])


# ---- transpose / permute ------------------------------------------------------------------
class Transpose(Function):
    """out = x with axes dim0 and dim1 swapped (a view);  d(out)/dx: the gradient swapped back."""

    is_view = True

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
        ctx.dims = (dim0, dim1)
        if x.ndim == 0:
            return x.view()
        return np.swapaxes(x, dim0, dim1)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return transpose(grad_output, *ctx.dims)


def transpose(x: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dims: (2, 3, 4) -> (4, 3, 2) for transpose(x, 0, 2)."""
    return Transpose.apply(x, dim0=wrap_dim(dim0, x.ndim), dim1=wrap_dim(dim1, x.ndim))


class Permute(Function):
    """out.shape[i] = x.shape[dims[i]] (a view);  d(out)/dx: the gradient permuted back."""

    is_view = True

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
        ctx.dims = dims
        return x.transpose(dims)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        inverse = [0] * len(ctx.dims)
        for position, dim in enumerate(ctx.dims):
            inverse[dim] = position  # out axis `position` came from x axis `dim`
        return Permute.apply(grad_output, dims=tuple(inverse))


def permute(x: Tensor, *dims: int | Sequence[int]) -> Tensor:
    """Reorder all dims: out.shape[i] = x.shape[dims[i]]; (2, 3, 4) -> (4, 2, 3) for (2, 0, 1)."""
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims" (the new '
                        'order of the dims, e.g. x.permute(1, 0))')
    order = _sizes(dims)
    if len(order) != x.ndim:
        raise RuntimeError(
            f"permute(): number of dims don't match in permute: the tensor has {x.ndim} dims "
            f"(shape {tuple(x.shape)}) but {len(order)} were given: {list(order)}")
    wrapped = tuple(wrap_dim(d, x.ndim) for d in order)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"permute(): duplicate dims are not allowed. Got dims {list(order)} "
                           f"for a tensor of shape {tuple(x.shape)}.")
    return Permute.apply(x, dims=wrapped)


# ---- unsqueeze / squeeze ------------------------------------------------------------------
class Unsqueeze(Function):
    """out = x with a new axis of size 1 at `dim` (a view);  d(out)/dx: the gradient squeezed."""

    is_view = True

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, dim: int) -> np.ndarray:
        ctx.dim = dim
        return np.expand_dims(x, dim)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return squeeze(grad_output, ctx.dim)


def unsqueeze(x: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dim: (2, 3) -> (2, 1, 3) for dim=1; dim ranges over [-ndim-1, ndim]."""
    return Unsqueeze.apply(x, dim=wrap_dim(dim, x.ndim + 1))


class Squeeze(Function):
    """out = x without its size-1 axes (a view);  d(out)/dx: the gradient reshaped back."""

    is_view = True

    @staticmethod
    def forward(ctx: Context, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        ctx.input_shape = x.shape
        return np.squeeze(x, axis=axes)

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> Tensor:
        return reshape(grad_output, ctx.input_shape)


class SqueezeDim(Squeeze, node_name="SqueezeBackward1"):
    """squeeze(x, dim) for one dim (a no-op when that dim's size is not 1)."""


class SqueezeDims(Squeeze, node_name="SqueezeBackward2"):
    """squeeze(x, (d0, d1, ...)) for several dims (those of size 1 are removed)."""


def squeeze(x: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """Remove size-1 dims: all of them, or only those listed in `dim` that have size 1."""
    if dim is None:
        axes = tuple(i for i, size in enumerate(x.shape) if size == 1)
        return Squeeze.apply(x, axes=axes)
    kind = SqueezeDim if isinstance(dim, (int, np.integer)) else SqueezeDims
    axes = tuple(axis for axis in wrap_dims(dim, x.ndim) if x.ndim and x.shape[axis] == 1)
    return kind.apply(x, axes=axes)


# ---- expand -------------------------------------------------------------------------------
def expand(x: Tensor, *sizes: int | Sequence[int]) -> Tensor:
    """Repeat x along size-1 dims (and new leading dims) without new data; -1 keeps a size.

    (3, 1) -> (2, 3, 4) for expand(2, 3, 4) or expand(2, -1, 4). Backward: sum over the
    expanded dims (`sum_to`). The result is read-only, like numpy's `broadcast_to`.
    """
    target = _sizes(sizes)
    described = f"Target sizes: {list(target)}.  Tensor sizes: {list(x.shape)}"
    if len(target) < x.ndim:
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(target)}) must be greater or equal to "
            f"the number of dimensions in the tensor ({x.ndim}). {described}")
    leading = len(target) - x.ndim
    shape = []
    for i, size in enumerate(target):
        if i < leading:
            if size < 0:
                raise RuntimeError(f"The expanded size of the tensor ({size}) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            shape.append(size)
            continue
        existing = x.shape[i - leading]
        if size == -1:
            size = existing
        if existing != 1 and size != existing:
            raise RuntimeError(
                f"The expanded size of the tensor ({size}) must match the existing size "
                f"({existing}) at non-singleton dimension {i}.  {described}")
        shape.append(size)
    return BroadcastTo.apply(x, shape=tuple(shape))


__all__ = ["expand", "flatten", "infer_shape", "permute", "reshape", "squeeze", "transpose",
           "unsqueeze", "view", "wrap_dim", "wrap_dims"]
