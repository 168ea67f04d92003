"""`Function`: one subclass per operation, and the graph nodes its calls leave behind.

An op is written as a pair of static methods side by side::

    class Mul(Function):
        '''out = a * b;  d(out)/da = b,  d(out)/db = a.'''

        @staticmethod
        def forward(ctx, a, b):               # numpy arrays (or Python numbers) in ...
            ctx.save_for_backward(a, b)
            return a * b                      # ... a numpy array out

        @staticmethod
        def backward(ctx, grad_output):       # Tensors in, Tensors out
            a, b = ctx.saved_tensors
            return grad_output * b, grad_output * a

`Mul.apply(x, y)` runs `forward` on the arrays inside `x` and `y`. When grad mode is on and
an input requires grad, the result Tensor gets a `grad_fn`: a node (an instance of
`MulBackward0`) that is also the `ctx` both methods receive. The node remembers the inputs,
the tensors saved for backward, and `next_functions` — the nodes of the inputs — which is
how the engine walks the graph backwards.

Positional arguments of `apply` are the op's inputs (Tensors, or Python numbers that act as
constants); keyword arguments are settings such as `dim=` and are passed to `forward` as is.
"""

from __future__ import annotations

import itertools
import operator
import weakref
from typing import Any, Callable

import numpy as np

from minigrad.autograd.grad_mode import GradMode
from minigrad.autograd.saved import DETACHED_MESSAGE, FREED_MESSAGE, keep_saved, modified_message
from minigrad.tensor.dtypes import NUMBER_TYPES
from minigrad.tensor.tensor import Tensor

_hook_keys = itertools.count()  # each registered hook gets its own key, in registration order


class RemovableHandle:
    """Returned by `register_hook`; `handle.remove()` unregisters the hook."""

    __slots__ = ("_hooks", "_key")

    def __init__(self, hooks: dict[int, Callable], key: int) -> None:
        self._hooks = hooks
        self._key = key

    def remove(self) -> None:
        self._hooks.pop(self._key, None)


class Node:
    """A node of the backward graph: what `tensor.grad_fn` points to.

    `name()` is PyTorch's name for the node; `next_functions` has one `(node_or_None, 0)`
    per input, in argument order (None: that input needs no gradient).
    """

    _next: tuple[Node | None, ...] = ()
    _pre_hooks: dict[int, Callable] | None = None
    _retained: weakref.ReferenceType | None = None
    _groups: tuple = ()  # the layer calls that returned this node's output (autograd.groups)

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        return tuple((node, 0) for node in self._next)

    def saved_arrays(self) -> dict[str, np.ndarray]:
        return {}

    def _add_pre_hook(self, hook: Callable) -> RemovableHandle:
        if self._pre_hooks is None:
            self._pre_hooks = {}
        key = next(_hook_keys)
        self._pre_hooks[key] = hook
        return RemovableHandle(self._pre_hooks, key)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


class InputInfo(tuple):
    """What a node remembers of an input tensor unless asked to keep the tensor itself:
    its shape and dtype (enough for backward: sum_to, shape and dtype checks).

    A tuple `(shape, dtype)` with names, made without a Python-level constructor call (one is
    made for every input of every recorded op): `tuple.__new__(InputInfo, (shape, dtype))`.
    """

    __slots__ = ()
    shape = property(operator.itemgetter(0))
    dtype = property(operator.itemgetter(1))

    def __repr__(self) -> str:
        return f"InputInfo(shape={self.shape}, dtype={self.dtype})"


_shape_and_dtype = operator.attrgetter("shape", "dtype")


class AccumulateGrad(Node):
    """The node where a leaf's gradient arrives; it adds the gradient into `variable.grad`."""

    def __init__(self, variable: Tensor) -> None:
        self.variable = variable
        self.inputs: tuple = ()

    def name(self) -> str:
        return "AccumulateGrad"


class BackwardNode(Node):
    """The node of one call of a Function; it is also the `ctx` passed to forward/backward.

    Subclasses are made automatically, one per Function, named like PyTorch's
    (`MulBackward0` for `Mul`); they add nothing but the name.
    """

    _function: type[Function]
    _saved: tuple | None = ()
    _to_save: tuple = ()
    inputs: tuple = ()
    needs_input_grad: tuple[bool, ...] = ()

    def save_for_backward(self, *values: Any, names: tuple[str, ...] | None = None) -> None:
        """Keep arrays (or numbers) for backward. Inputs and the output are version-checked."""
        self._to_save = values
        if names is not None:
            self._saved_names = names

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The saved values as Tensors (numbers stay numbers), checked for in-place changes."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        unpacked = []
        for kind, value, counter, expected, _index in saved:
            if kind == "intermediate" and value._grad_fn is None:
                raise RuntimeError(DETACHED_MESSAGE)
            if counter is not None and counter[0] != expected:
                raise RuntimeError(modified_message(value, counter[0], expected, self, kind))
            if kind == "result":
                # Rebuilt on each access: a node holding its own output would be a cycle.
                value = Tensor._make(value, True, self)
                value._version_counter = counter
            unpacked.append(value)
        return tuple(unpacked)

    def saved_arrays(self) -> dict[str, np.ndarray]:
        if not self._saved:
            return {}
        names = getattr(self, "_saved_names", None)
        arrays = {}
        for position, (kind, value, _counter, _expected, index) in enumerate(self._saved):
            if value is None:
                continue
            if names is not None and position < len(names):
                key = names[position]
            elif index is not None:
                key = ("self", "other")[index] if index < 2 else f"input{index}"
            elif kind == "result":
                key = "result"
            else:
                key = f"saved{position}"
            arrays[key] = value._data if isinstance(value, Tensor) else np.asarray(value)
        return arrays

    def _release(self) -> None:
        """Free the saved values (called by the engine after this node's backward)."""
        if self._saved:
            self._saved = None


def _constant(value: Any, op: type) -> Any:
    """A non-Tensor positional argument: a Python number or an ndarray acting as a constant."""
    if type(value) is float or type(value) is int:
        return value
    if isinstance(value, NUMBER_TYPES):
        return value.item() if isinstance(value, np.generic) else value
    if isinstance(value, np.ndarray):
        return Tensor(value)._data
    raise TypeError(
        f"{op.__name__} expects Tensors or numbers as inputs, got {type(value).__name__}"
    )


class Function:
    """Base class of every differentiable operation (see the module docstring)."""

    node_name: str | None = None
    # True for ops whose forward returns a numpy view of its first input (x.T, x[0], ...):
    # the result then shares memory and version counter with that input, as in PyTorch.
    is_view: bool = False
    node_base: type[BackwardNode] = BackwardNode  # the class its nodes extend (adds a name)
    _node_class: type[BackwardNode] = BackwardNode

    def __init_subclass__(cls, node_name: str | None = None, is_view: bool | None = None,
                          **kwargs: Any) -> None:
        """Make the node class of `cls`, named `node_name` or `<cls>Backward0`. The name is
        given in the class statement, `class Mm(Matmul, node_name="MmBackward0")`; a variant
        that keeps its parent's rule and changes only the node's name (or whether it is a
        view) is just that statement: `class Dot(Matmul, node_name="DotBackward0")`."""
        super().__init_subclass__(**kwargs)
        if node_name is not None:
            cls.node_name = node_name
        if is_view is not None:
            cls.is_view = is_view
        name = cls.__dict__.get("node_name") or f"{cls.__name__}Backward0"
        attributes = {"_function": cls, "__module__": cls.__module__}
        cls._node_class = type(name, (cls.node_base,), attributes)

    @staticmethod
    def forward(ctx: BackwardNode, *args: Any, **kwargs: Any) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: BackwardNode, grad_output: Tensor) -> Any:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Tensor:
        """Run `forward` on the inputs' arrays; in grad mode, when an input requires grad,
        record the call as a node of the backward graph (the `ctx` forward received)."""
        ctx = cls._node_class()
        grad_mode = GradMode.enabled
        arrays, needs_grad = [], []
        for arg in args:
            if isinstance(arg, Tensor):
                if grad_mode and arg._base is not None:
                    arg._sync_view()  # a view whose base was changed in place since
                arrays.append(arg._data)
                needs_grad.append(grad_mode and arg._requires_grad)
            else:
                arrays.append(_constant(arg, cls))
                needs_grad.append(False)
        ctx.needs_input_grad = tuple(needs_grad)
        record = True in needs_grad
        output = cls.forward(ctx, *arrays, **kwargs)
        result = Tensor._make(output, record, ctx if record else None)
        if cls.is_view:
            result._become_view(args[0], cls, kwargs)
        if record:
            _record(ctx, args, arrays, result, output)
        return result


def _record(ctx: BackwardNode, args: tuple, arrays: list, result: Tensor,
            output: np.ndarray) -> None:
    """Fill in the node: its inputs' shapes and dtypes (all backward needs; the tensors
    themselves only under minigrad.viz.record(), for drawing forward graphs), the nodes their
    gradients go on to (`next_functions`), and what forward saved for backward."""
    inputs, next_nodes = [], []
    for arg, needs_grad in zip(args, ctx.needs_input_grad):
        if isinstance(arg, Tensor):
            inputs.append(tuple.__new__(InputInfo, _shape_and_dtype(arg._data)))
            next_nodes.append((arg._grad_fn or arg._get_accumulator()) if needs_grad else None)
        else:
            inputs.append(arg)
            next_nodes.append(None)
    ctx.inputs = args if GradMode.keep_inputs else tuple(inputs)
    ctx._next = tuple(next_nodes)
    if ctx._to_save:
        keep_saved(ctx, args, arrays, result, output)
