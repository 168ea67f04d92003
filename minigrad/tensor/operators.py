"""The operators and op methods of a Tensor: `x + y`, `x @ w`, `x.exp()`, `x.sum(dim)`…

Each is one line that calls the op in `minigrad.ops` (where forward and backward live), so
`x * y` and `minigrad.mul(x, y)` are the same thing. `Tensor` inherits these methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from minigrad.tensor import dtypes

if TYPE_CHECKING:
    from minigrad.tensor.tensor import Tensor


class TensorOperators:
    """Mixin with every operator of `Tensor` (kept apart so each file reads in one sitting)."""

    __slots__ = ()
    data: np.ndarray

    # ---- arithmetic operators (the ops live in minigrad.ops.arithmetic) --------------
    def __add__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("+", self, other)
        return arithmetic.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("+", self, other, reflected=True)
        return arithmetic.add(self, other)

    def __sub__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("-", self, other)
        return arithmetic.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("-", self, other, reflected=True)
        return arithmetic.sub(other, self)

    def __mul__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("*", self, other)
        return arithmetic.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("*", self, other, reflected=True)
        return arithmetic.mul(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("/", self, other)
        return arithmetic.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("/", self, other, reflected=True)
        return arithmetic.div(other, self)

    def __pow__(self, exponent: Any) -> Tensor:
        if not isinstance(exponent, _OPERANDS):
            return _unsupported("**", self, exponent)
        return arithmetic.pow(self, exponent)

    def __rpow__(self, base: Any) -> Tensor:
        if not isinstance(base, _OPERANDS):
            return _unsupported("**", self, base, reflected=True)
        return arithmetic.pow(base, self)

    def __matmul__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("@", self, other)
        return arithmetic.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("@", self, other, reflected=True)
        return arithmetic.matmul(other, self)

    def __floordiv__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("//", self, other)
        return rounding.floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("//", self, other, reflected=True)
        return rounding.floor_divide(other, self)

    def __mod__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("%", self, other)
        return rounding.remainder(self, other)

    def __rmod__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("%", self, other, reflected=True)
        return rounding.remainder(other, self)

    def __neg__(self) -> Tensor:
        return arithmetic.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def add(self, other: Any) -> Tensor:
        return arithmetic.add(self, other)

    def sub(self, other: Any) -> Tensor:
        return arithmetic.sub(self, other)

    def mul(self, other: Any) -> Tensor:
        return arithmetic.mul(self, other)

    def div(self, other: Any) -> Tensor:
        return arithmetic.div(self, other)

    def pow(self, exponent: Any) -> Tensor:
        return arithmetic.pow(self, exponent)

    def matmul(self, other: Any) -> Tensor:
        return arithmetic.matmul(self, other)

    def neg(self) -> Tensor:
        return arithmetic.neg(self)

    def reciprocal(self) -> Tensor:
        return arithmetic.reciprocal(self)

    # ---- comparisons: boolean tensors, never part of the graph ------------------------
    def _compare(self, other: Any, ufunc: np.ufunc) -> Tensor:
        other_data = other._data if isinstance(other, TensorOperators) else other
        return self._make(ufunc(self._data, other_data), False, None)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # `tensor == "a"` is simply False, as for any object
        return self._compare(other, np.equal)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return self._compare(other, np.not_equal)

    def __lt__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("<", self, other)
        return self._compare(other, np.less)

    def __le__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("<=", self, other)
        return self._compare(other, np.less_equal)

    def __gt__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported(">", self, other)
        return self._compare(other, np.greater)

    def __ge__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported(">=", self, other)
        return self._compare(other, np.greater_equal)

    # ---- masks: ~ & | ^ on bool (and integer) tensors, all/any --------------------------
    def _bitwise(self, other: Any, ufunc: np.ufunc, symbol: str) -> Tensor:
        other_data = other._data if isinstance(other, TensorOperators) else other
        for array in (self._data, np.asarray(other_data)):
            if array.dtype.kind not in "biu":
                raise dtypes.DtypeError(
                    f"{symbol} works on bool and integer tensors only (masks such as x > 0), "
                    f"got {dtypes.dtype_name(array.dtype)}")
        return self._make(ufunc(self._data, other_data), False, None)

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
        from minigrad.ops.cast import to

        return to(self, dtype)

    def float(self) -> Tensor:
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        return self.to(dtypes.float64)

    def long(self) -> Tensor:
        return self.to(dtypes.int64)

    def clone(self) -> Tensor:
        """A copy of this tensor that stays in the graph (gradient flows through unchanged)."""
        return cast.clone(self)

    # ---- in place (see minigrad.tensor.inplace) ---------------------------------------
    def add_(self, other: Any, alpha: float = 1) -> Tensor:
        if alpha != 1:
            other = other * alpha
        return inplace.apply_inplace(self, other, arithmetic.add, np.add, "add_")

    def sub_(self, other: Any, alpha: float = 1) -> Tensor:
        if alpha != 1:
            other = other * alpha
        return inplace.apply_inplace(self, other, arithmetic.sub, np.subtract, "sub_")

    def mul_(self, other: Any) -> Tensor:
        return inplace.apply_inplace(self, other, arithmetic.mul, np.multiply, "mul_")

    def div_(self, other: Any) -> Tensor:
        return inplace.apply_inplace(self, other, arithmetic.div, np.true_divide, "div_")

    def zero_(self) -> Tensor:
        return inplace.zero_(self)

    def fill_(self, value: Any) -> Tensor:
        return inplace.fill_(self, value)

    def copy_(self, src: Any) -> Tensor:
        return inplace.copy_(self, src)

    def __iadd__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("+=", self, other)
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("-=", self, other)
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("*=", self, other)
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        if not isinstance(other, _OPERANDS):
            return _unsupported("/=", self, other)
        return self.div_(other)

    def __hash__(self) -> int:
        return id(self)  # `==` is elementwise, so hash by identity (as PyTorch does)

    # ---- unary maths (minigrad.ops.unary) ----------------------------------------------
    def exp(self) -> Tensor:
        return unary.exp(self)

    def log(self) -> Tensor:
        return unary.log(self)

    def sqrt(self) -> Tensor:
        return unary.sqrt(self)

    def abs(self) -> Tensor:
        return unary.abs(self)

    def __abs__(self) -> Tensor:
        return unary.abs(self)

    def tanh(self) -> Tensor:
        return unary.tanh(self)

    def sigmoid(self) -> Tensor:
        return unary.sigmoid(self)

    def relu(self) -> Tensor:
        return unary.relu(self)

    # ---- reductions (minigrad.ops.reduce) -----------------------------------------------
    def sum(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        return reduce.sum(self, dim, keepdim)

    def mean(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
        return reduce.mean(self, dim, keepdim)

    def max(self, dim: int | None = None, keepdim: bool = False) -> Any:
        return reduce.max(self, dim, keepdim)

    def min(self, dim: int | None = None, keepdim: bool = False) -> Any:
        return reduce.min(self, dim, keepdim)

    # ---- shapes (minigrad.ops.shape) ----------------------------------------------------
    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        return shape_ops.reshape(self, *shape)

    def view(self, *shape: int | Sequence[int]) -> Tensor:
        return shape_ops.view(self, *shape)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return shape_ops.transpose(self, dim0, dim1)

    def permute(self, *dims: int | Sequence[int]) -> Tensor:
        return shape_ops.permute(self, *dims)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return shape_ops.flatten(self, start_dim, end_dim)

    def unsqueeze(self, dim: int) -> Tensor:
        return shape_ops.unsqueeze(self, dim)

    def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
        return shape_ops.squeeze(self, dim)

    def expand(self, *sizes: int | Sequence[int]) -> Tensor:
        return shape_ops.expand(self, *sizes)

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's name
        """The tensor with its dims reversed (the transpose, for a matrix)."""
        return shape_ops.permute(self, *reversed(range(self._data.ndim)))

    # ---- indexing (minigrad.ops.index) and softmax (minigrad.ops.softmax) ----------------
    def __getitem__(self, key: Any) -> Tensor:
        return index.getitem(self, key)

    def __iter__(self) -> Any:
        """Iterate over the first dim: `for row in matrix` (each row stays in the graph)."""
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (index.getitem(self, i) for i in range(self._data.shape[0]))

    def __setitem__(self, key: Any, value: Any) -> None:
        """x[key] = value, written in place; recorded in the graph like PyTorch (CopySlices)."""
        inplace.setitem(self, key, value)

    def softmax(self, dim: int) -> Tensor:
        return softmax_ops.softmax(self, dim)

    def log_softmax(self, dim: int) -> Tensor:
        return softmax_ops.log_softmax(self, dim)


def _unsupported(symbol: str, tensor: Any, other: Any, reflected: bool = False) -> Any:
    """Raise Python's usual TypeError naming both operand types (as PyTorch does)."""
    left, right = "Tensor", type(other).__name__
    if reflected:
        left, right = right, left
    raise TypeError(f"unsupported operand type(s) for {symbol}: '{left}' and '{right}'")


# What an operator accepts next to a Tensor: Tensors, arrays and real numbers. Anything else
# raises "unsupported operand type(s) for *: 'Tensor' and 'str'".
_OPERANDS = (TensorOperators, float, int, np.ndarray, np.floating, np.integer, np.bool_)


def load_ops() -> None:
    """Import the op modules these methods call. `minigrad.tensor.tensor` calls this once
    `Tensor` exists, because every op module builds on `Tensor`."""
    global arithmetic, cast, index, inplace, reduce, rounding, shape_ops, softmax_ops, unary
    from minigrad.ops import arithmetic, cast, index, reduce, rounding, unary
    from minigrad.ops import shape as shape_ops
    from minigrad.ops import softmax as softmax_ops
    from minigrad.tensor import inplace
