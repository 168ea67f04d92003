"""The operators and op methods of a Tensor: `x + y`, `x @ w`, `x.exp()`, `x.sum(dim)`…

Each calls the op in `minigrad.ops` (where forward and backward live), so `x * y` and
`minigrad.mul(x, y)` are the same thing; an operator first refuses an operand that is not a
tensor, an array or a number, as Python does. `Tensor` inherits these methods.
The op modules import `Tensor`, so this module cannot import them by name; it imports the
package `minigrad.ops` and looks `ops.arithmetic.mul` up when the operator runs (by then
`minigrad/__init__.py` has imported every op module).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from minigrad import ops  # its modules are looked up at call time, when they all exist
from minigrad.tensor import dtypes

if TYPE_CHECKING:
    from minigrad.tensor.tensor import Tensor

# What an operator accepts next to a Tensor: Tensors, arrays and real numbers. Anything else
# raises "unsupported operand type(s) for *: 'Tensor' and 'str'" (TensorOperators is added
# once the class exists).
_OPERANDS: tuple[type, ...] = (float, int, np.ndarray, np.floating, np.integer, np.bool_)
_T_DEPRECATED = (  # PyTorch 2.x's warning, with minigrad's names
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
    "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
    "batches of matrices or `x.permute(*minigrad.arange(x.ndim - 1, -1, -1))` to reverse the "
    "dimensions of a tensor.")


def _unsupported(symbol: str, other: Any, reflected: bool = False) -> TypeError:
    """Python's error for an operand that is not a tensor, an array or a number
    ("unsupported operand type(s) for *: 'Tensor' and 'str'"; reflected: the other way round)."""
    left, right = "Tensor", type(other).__name__
    if reflected:
        left, right = right, left
    return TypeError(f"unsupported operand type(s) for {symbol}: '{left}' and '{right}'")


class TensorOperators:
    """Mixin with every operator of `Tensor` (kept apart so each file reads in one sitting)."""

    __slots__ = ()
    data: np.ndarray

    # ---- arithmetic operators (the ops live in minigrad.ops.arithmetic) --------------
    def __add__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("+", other)
        return ops.arithmetic.add(self, other)

    def __radd__(self, other: Any) -> Tensor:  # other + self
        if not isinstance(other, _OPERANDS):
            raise _unsupported("+", other, reflected=True)
        return ops.arithmetic.add(self, other)

    def __sub__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("-", other)
        return ops.arithmetic.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:  # other - self
        if not isinstance(other, _OPERANDS):
            raise _unsupported("-", other, reflected=True)
        return ops.arithmetic.sub(other, self)

    def __mul__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("*", other)
        return ops.arithmetic.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:  # other * self
        if not isinstance(other, _OPERANDS):
            raise _unsupported("*", other, reflected=True)
        return ops.arithmetic.mul(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("/", other)
        return ops.arithmetic.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:  # other / self
        if not isinstance(other, _OPERANDS):
            raise _unsupported("/", other, reflected=True)
        return ops.arithmetic.div(other, self)

    def __pow__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("**", other)
        return ops.arithmetic.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:  # other ** self
        if not isinstance(other, _OPERANDS):
            raise _unsupported("**", other, reflected=True)
        return ops.arithmetic.pow(other, self)

    def __matmul__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("@", other)
        return ops.arithmetic.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:  # other @ self
        if not isinstance(other, _OPERANDS):
            raise _unsupported("@", other, reflected=True)
        return ops.arithmetic.matmul(other, self)

    def __floordiv__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("//", other)
        return ops.rounding.floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Tensor:  # other // self
        if not isinstance(other, _OPERANDS):
            raise _unsupported("//", other, reflected=True)
        return ops.rounding.floor_divide(other, self)

    def __mod__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("%", other)
        return ops.rounding.remainder(self, other)

    def __rmod__(self, other: Any) -> Tensor:  # other % self
        if not isinstance(other, _OPERANDS):
            raise _unsupported("%", other, reflected=True)
        return ops.rounding.remainder(other, self)

    def __neg__(self) -> Tensor:
        return ops.arithmetic.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def add(self, other: Any) -> Tensor:
        return ops.arithmetic.add(self, other)

    def sub(self, other: Any) -> Tensor:
        return ops.arithmetic.sub(self, other)

    def mul(self, other: Any) -> Tensor:
        return ops.arithmetic.mul(self, other)

    def div(self, other: Any) -> Tensor:
        return ops.arithmetic.div(self, other)

    def pow(self, exponent: Any) -> Tensor:
        return ops.arithmetic.pow(self, exponent)

    def matmul(self, other: Any) -> Tensor:
        return ops.arithmetic.matmul(self, other)

    def neg(self) -> Tensor:
        return ops.arithmetic.neg(self)

    def reciprocal(self) -> Tensor:
        return ops.arithmetic.reciprocal(self)

    # ---- comparisons: boolean tensors, never part of the graph ------------------------
    def _compare(self, other: Any, ufunc: np.ufunc, symbol: str) -> Tensor:
        other_data = other._data if isinstance(other, TensorOperators) else other
        try:
            result = ufunc(self._data, other_data)
        except ValueError:  # shapes that do not broadcast: the same ShapeError as arithmetic
            raise ops.arithmetic.broadcast_error(self._data, other_data, symbol) from None
        return self._make(result, False, None)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # `tensor == "a"` is simply False, as for any object
        return self._compare(other, np.equal, "==")

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return self._compare(other, np.not_equal, "!=")

    def __lt__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("<", other)
        return self._compare(other, np.less, "<")

    def __le__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("<=", other)
        return self._compare(other, np.less_equal, "<=")

    def __gt__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported(">", other)
        return self._compare(other, np.greater, ">")

    def __ge__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported(">=", other)
        return self._compare(other, np.greater_equal, ">=")

    # ---- masks: ~ & | ^ on bool (and integer) tensors, all/any --------------------------
    def _bitwise(self, other: Any, ufunc: np.ufunc, symbol: str) -> Tensor:
        other_data = other._data if isinstance(other, TensorOperators) else other
        result_dtype = dtypes.result_type(self._data, other_data)
        if result_dtype.kind == "f":  # PyTorch has no bitwise kernel for floats
            raise dtypes.not_implemented_for(
                f"bitwise_{ufunc.__name__.removeprefix('bitwise_')}_cpu", result_dtype,
                f"{symbol} works on bool and integer tensors only (masks such as x > 0)")
        return self._make(dtypes.promote(ufunc(self._data, other_data), self._data, other_data),
                          False, None)

    def __invert__(self) -> Tensor:
        """~mask: logical not of a bool tensor (bitwise not of an integer one)."""
        if self._data.dtype.kind not in "biu":
            raise TypeError("~ (operator.invert) is only implemented on integer and "
                            f"Boolean-type tensors (this one is {dtypes.dtype_name(self.dtype)}; "
                            "for a mask write e.g. ~(x > 0))")
        return self._make(np.invert(self._data), False, None)

    def __and__(self, other: Any) -> Tensor:
        return self._bitwise(other, np.bitwise_and, "&")

    def __or__(self, other: Any) -> Tensor:
        return self._bitwise(other, np.bitwise_or, "|")

    def __xor__(self, other: Any) -> Tensor:
        return self._bitwise(other, np.bitwise_xor, "^")

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def logical_not(self) -> Tensor:
        return self._make(np.logical_not(self._data), False, None)

    def all(self) -> Tensor:
        """True (a 0-d bool tensor) if every element is nonzero."""
        return self._make(np.array(self._data.all()), False, None)

    def any(self) -> Tensor:
        """True (a 0-d bool tensor) if some element is nonzero."""
        return self._make(np.array(self._data.any()), False, None)

    # ---- dtype conversions (differentiable for float -> float) ------------------------
    def to(self, dtype: Any) -> Tensor:
        """This tensor converted to `dtype` (itself if it already has it)."""
        return ops.cast.to(self, dtype)

    def float(self) -> Tensor:
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        return self.to(dtypes.float64)

    def long(self) -> Tensor:
        return self.to(dtypes.int64)

    def clone(self) -> Tensor:
        """A copy of this tensor that stays in the graph (gradient flows through unchanged)."""
        return ops.cast.clone(self)

    # ---- in place (see minigrad.ops.inplace) ---------------------------------------
    def add_(self, other: Any, alpha: float = 1) -> Tensor:
        return ops.inplace.apply_inplace(self, other, ops.arithmetic.add, np.add, "add_",
                                         alpha=alpha)

    def sub_(self, other: Any, alpha: float = 1) -> Tensor:
        return ops.inplace.apply_inplace(self, other, ops.arithmetic.sub, np.subtract, "sub_",
                                         alpha=alpha)

    def mul_(self, other: Any) -> Tensor:
        return ops.inplace.apply_inplace(self, other, ops.arithmetic.mul, np.multiply, "mul_")

    def div_(self, other: Any) -> Tensor:
        return ops.inplace.apply_inplace(self, other, ops.arithmetic.div, np.true_divide, "div_")

    def zero_(self) -> Tensor:
        return ops.inplace.zero_(self)

    def fill_(self, value: Any) -> Tensor:
        return ops.inplace.fill_(self, value)

    def copy_(self, src: Any) -> Tensor:
        return ops.inplace.copy_(self, src)

    def __iadd__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("+=", other)
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("-=", other)
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("*=", other)
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            raise _unsupported("/=", other)
        return self.div_(other)

    def __hash__(self) -> int:
        return id(self)  # `==` is elementwise, so hash by identity (as PyTorch does)

    # ---- unary maths (minigrad.ops.unary) ----------------------------------------------
    def exp(self) -> Tensor:
        return ops.unary.exp(self)

    def log(self) -> Tensor:
        return ops.unary.log(self)

    def sqrt(self) -> Tensor:
        return ops.unary.sqrt(self)

    def abs(self) -> Tensor:
        return ops.unary.abs(self)

    def __abs__(self) -> Tensor:
        return ops.unary.abs(self)

    def tanh(self) -> Tensor:
        return ops.unary.tanh(self)

    def sigmoid(self) -> Tensor:
        return ops.unary.sigmoid(self)

    def relu(self) -> Tensor:
        return ops.unary.relu(self)

    # ---- reductions (minigrad.ops.reduce) -----------------------------------------------
    def sum(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        return ops.reduce.sum(self, dim, keepdim)

    def mean(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        return ops.reduce.mean(self, dim, keepdim)

    def max(self, dim: int | None = None, keepdim: bool = False) -> Any:
        return ops.reduce.max(self, dim, keepdim)

    def min(self, dim: int | None = None, keepdim: bool = False) -> Any:
        return ops.reduce.min(self, dim, keepdim)

    # ---- shapes (minigrad.ops.shape) ----------------------------------------------------
    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        return ops.shape.reshape(self, *shape)

    def view(self, *shape: int | Sequence[int]) -> Tensor:
        return ops.shape.view(self, *shape)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return ops.shape.transpose(self, dim0, dim1)

    def permute(self, *dims: int | Sequence[int]) -> Tensor:
        return ops.shape.permute(self, *dims)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return ops.shape.flatten(self, start_dim, end_dim)

    def unsqueeze(self, dim: int) -> Tensor:
        return ops.shape.unsqueeze(self, dim)

    def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
        return ops.shape.squeeze(self, dim)

    def expand(self, *sizes: int | Sequence[int]) -> Tensor:
        return ops.shape.expand(self, *sizes)

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's name
        """The tensor with its dims reversed (the transpose, for a matrix). On other than 2-D
        tensors PyTorch 2.x warns that this is deprecated; so do we."""
        ndim = self._data.ndim
        if ndim != 2:
            warnings.warn(_T_DEPRECATED, UserWarning, stacklevel=2)
        return ops.shape.Permute.apply(self, dims=(1, 0) if ndim == 2 else tuple(range(ndim))[::-1])

    @property
    def mT(self) -> Tensor:  # noqa: N802 - PyTorch's name
        """The last two dims swapped: each matrix of a batch transposed (a view)."""
        if self._data.ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of "
                               f"matrices. Got {self._data.ndim}-D tensor.")
        return ops.matmul.MatrixTranspose.apply(self)

    # ---- indexing (minigrad.ops.index) and softmax (minigrad.ops.softmax) ----------------
    def __getitem__(self, key: Any) -> Tensor:
        return ops.index.getitem(self, ops.index.as_key(key))

    def __iter__(self) -> Any:
        """Iterate over the first dim: `for row in matrix` (each row stays in the graph)."""
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (ops.index.getitem(self, i) for i in range(self._data.shape[0]))

    def __setitem__(self, key: Any, value: Any) -> None:
        """x[key] = value, written in place; recorded in the graph like PyTorch (CopySlices)."""
        ops.setitem.setitem(self, ops.index.as_key(key), value)

    def softmax(self, dim: int) -> Tensor:
        return ops.softmax.softmax(self, dim)

    def log_softmax(self, dim: int) -> Tensor:
        return ops.softmax.log_softmax(self, dim)


_OPERANDS = (TensorOperators, *_OPERANDS)
