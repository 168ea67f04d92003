"""`Tensor`: a numpy array plus what autograd needs to differentiate through it.

A tensor holds its values in `_data` (a numpy array; `.numpy()` gives a copy, `.data` a
detached Tensor over the same memory) and three pieces of autograd state:

- `requires_grad` — should gradients flow to this tensor?
- `grad_fn`       — the backward-graph node of the op that produced it (None for a leaf);
- `grad`          — after `backward()`, d(output)/d(this tensor), for leaves.

A *view* (`x.T`, `x[0]`, `x.view(...)`) shares its base's memory and version counter:
`_base` is the tensor it views, `_view_steps` the view ops that made it from `_base`.

Operators and op methods (`+ - * / ** @`, `x.exp()`, `x.sum(dim)` …) are one-line calls into
`minigrad.ops`, gathered in `minigrad.tensor.operators`; the ways out to numpy and Python
numbers (`.numpy()`, `.item()`, `float(t)` …) are in `minigrad.tensor.scalars`; this module
holds the container and its autograd state.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Iterable

import numpy as np

import minigrad  # for minigrad.autograd.engine, looked up when backward() runs
from minigrad.tensor import dtypes
from minigrad.tensor.convert import to_array
from minigrad.tensor.operators import TensorOperators
from minigrad.tensor.scalars import TensorScalars
from minigrad.tensor.views import TensorViews

_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead."
)
_LEAF_INPLACE_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."


class Tensor(TensorOperators, TensorViews, TensorScalars):
    """An n-dimensional array that records the operations applied to it.

    >>> x = Tensor([[1.0, 2.0]], requires_grad=True)
    >>> y = (x * x).sum()
    >>> y.backward()
    >>> x.grad        # dy/dx = 2x
    tensor([[2., 4.]])

    `Tensor(data)` chooses the dtype as `tensor(data)` does (ints stay int64); PyTorch's
    legacy constructor `torch.Tensor(data)` always makes float32, and `torch.Tensor(2, 3)`
    an uninitialised 2×3 tensor, which minigrad does not offer (use `zeros(2, 3)`).
    """

    __slots__ = ("_data", "_requires_grad", "_grad", "_grad_fn", "_version_counter",
                 "_base", "_view_steps", "_view_of_node", "_no_grad_view", "_retains_grad",
                 "_accumulator",
                 "__weakref__")
    __array_priority__ = 1000
    __array_ufunc__ = None  # numpy defers to our reflected operators: ndarray * Tensor works

    def __init__(self, data: Any, requires_grad: bool = False, dtype: Any = None) -> None:
        if not isinstance(requires_grad, (bool, np.bool_)):
            hint = (f" (Tensor({data!r}, {requires_grad!r}) is not a tensor of that shape "
                    f"here: use minigrad.zeros({data!r}, {requires_grad!r}))"
                    if isinstance(data, int) and isinstance(requires_grad, int) else "")
            raise TypeError(f"tensor(): argument 'requires_grad' must be bool, not "
                            f"{type(requires_grad).__name__}{hint}")
        self._data = to_array(data, dtype)
        self._grad = None
        self._grad_fn = None
        self._version_counter = [0]
        self._base = None
        self._accumulator = None  # a leaf's AccumulateGrad node, made on first use
        self._requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def _make(cls, array: np.ndarray, requires_grad: bool, grad_fn: Any) -> Tensor:
        """Wrap an existing array without copying (for ops and the engine).

        numpy gives a scalar (`np.bool_`, `np.float32`), not an array, for a ufunc of 0-d
        arrays: it becomes a 0-d array here, so every tensor holds an ndarray (a mask from
        `x > 0` on a 0-d x indexes, stacks and converts like any other).
        """
        if type(array) is not np.ndarray:
            array = np.asarray(array)
        tensor = object.__new__(cls)
        tensor._data = array
        tensor._requires_grad = requires_grad
        tensor._grad = None
        tensor._grad_fn = grad_fn
        tensor._version_counter = [0]
        tensor._base = None
        return tensor  # _retains_grad and _accumulator are set only when needed

    # ---- storage: .data (views: minigrad.tensor.views) -----------------------------------------------------------
    @property
    def data(self) -> Tensor:
        """This tensor's values as a new Tensor cut from the graph, sharing the same memory.

        As in PyTorch: `p.data -= lr * p.grad` changes `p` without being recorded (and
        without bumping `p`'s version, so autograd cannot notice; `detach()` is the safe
        form). Assigning `p.data = new` makes `p` use `new`'s memory (any shape).
        """
        return Tensor._make(self._data, False, None)

    @data.setter
    def data(self, new: Tensor) -> None:
        if not isinstance(new, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(new).__name__} "
                            "(wrap arrays with minigrad.tensor(...))")
        if self._requires_grad and not dtypes.is_floating(new.dtype):
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               f"point or complex dtype (got {dtypes.dtype_name(new.dtype)})")
        self._data = new._data

    # ---- basic attributes -------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def dtype(self) -> np.dtype:
        return self._data.dtype

    @property
    def _version(self) -> int:
        """How many times this tensor's data was changed in place."""
        return self._version_counter[0]

    def size(self, dim: int | None = None) -> tuple[int, ...] | int:
        return self._data.shape if dim is None else self._data.shape[dim]

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def is_leaf(self) -> bool:
        """True for tensors made by the user (not by an op); only leaves keep `.grad`."""
        return self.grad_fn is None

    # ---- requires_grad and .grad ------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        if self._base is not None:
            self._sync_view()  # its base may have joined a graph through another view
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True, *, flag: bool | None = None) -> Tensor:
        """Start (or stop) recording operations on this leaf. Returns self.

        `requires_grad=` is PyTorch's name of the argument; `flag=`, the course's API contract's.
        """
        if flag is not None:
            requires_grad = flag
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return self
        if requires_grad and not dtypes.is_floating(self._data.dtype):
            # PyTorch 2.x's sentence (minigrad has no complex dtype), then what to do.
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients "
                f"(this tensor is {dtypes.dtype_name(self._data.dtype)}; create it from floats "
                "or pass dtype=minigrad.float32)")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self) -> Tensor | None:
        """d(output)/d(self) after backward: kept for leaves, for retain_grad() tensors and for
        the `inputs=` of backward. Reading a non-leaf's missing grad warns, as in PyTorch."""
        if self._grad is None and self.grad_fn is not None and not self.retains_grad:
            warnings.warn(_NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad must be a Tensor or None, got "
                                f"{type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(f"attempting to assign a gradient of size "
                                   f"'{list(value.shape)}' to a tensor of size "
                                   f"'{list(self.shape)}'. Please ensure that the gradient and "
                                   f"the tensor are the same size (gradient shape {value.shape}, "
                                   f"tensor shape {self.shape})")
            if value.dtype != self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{dtypes.c_type_name(value.dtype)}' to a tensor with grad_dtype "
                    f"'{dtypes.scalar_type_name(self.dtype)}'. The gradient must match the "
                    f"tensor's grad_dtype (defaults to the tensor's dtype).")
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        """True after retain_grad() on a non-leaf."""
        return getattr(self, "_retains_grad", False)

    def retain_grad(self) -> None:
        """Keep `.grad` for this intermediate (non-leaf) tensor at the next backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None:
            return  # leaves keep their grad anyway
        import weakref

        self._retains_grad = True
        self.grad_fn._retained = weakref.ref(self)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any:
        """Call `hook(grad)` when the gradient w.r.t. this tensor is computed.

        The hook may return a replacement gradient. Returns a handle with `.remove()`.
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if not callable(hook):
            raise TypeError(f"a hook must be a function of the gradient, got "
                            f"{type(hook).__name__}")
        node = self.grad_fn if self.grad_fn is not None else self._get_accumulator()
        return node._add_pre_hook(hook)

    def _get_accumulator(self) -> Any:
        """The AccumulateGrad node of this leaf (always the same object)."""
        accumulator = getattr(self, "_accumulator", None)
        if accumulator is None:
            from minigrad.autograd.function import AccumulateGrad

            accumulator = self._accumulator = AccumulateGrad(self)
        return accumulator

    # ---- leaving the graph ------------------------------------------------------------
    def detach(self) -> Tensor:
        """A tensor sharing this data, cut from the graph (requires_grad=False)."""
        detached = Tensor._make(self._data, False, None)
        detached._version_counter = self._version_counter
        return detached

    def detach_(self) -> Tensor:
        """Cut this tensor itself from the graph: it becomes a leaf that needs no grad."""
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn, self._requires_grad = None, False
        return self

    # ---- backward ---------------------------------------------------------------------
    def backward(self, gradient: Any = None, retain_graph: bool | None = None,
                 create_graph: bool = False, inputs: Iterable[Tensor] | None = None) -> None:
        """Compute d(self)/d(leaf) for every leaf and add it into `leaf.grad`.

        `gradient` is the vector v of the vector-Jacobian product (required when self is
        not a scalar); `retain_graph` keeps saved values for another backward;
        `create_graph` records the backward pass so it can be differentiated again.
        """
        minigrad.autograd.engine.backward(self, gradient, retain_graph, create_graph, inputs)

    # ---- printing ---------------------------------------------------------------------
    def __repr__(self) -> str:
        from minigrad.tensor.printing import tensor_repr

        return tensor_repr(self)

    def __str__(self) -> str:
        return self.__repr__()


def tensor(data: Any, requires_grad: bool = False, dtype: Any = None) -> Tensor:
    """Make a leaf tensor from a number, a (nested) list or a numpy array (always a copy).

    Python floats give float32; numpy arrays keep float32/float64; ints give int64.
    """
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)

