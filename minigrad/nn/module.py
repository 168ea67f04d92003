"""`Module`: the base class of every layer, and of every network made of layers.

A module holds parameters (Tensors to learn), buffers (Tensors to keep but not learn) and
sub-modules, each registered simply by assigning it to an attribute:

    class TwoLayer(Module):
        def __init__(self):
            super().__init__()
            self.hidden = Linear(64, 32)     # a sub-module: its parameters are found too
            self.out = Linear(32, 10)

        def forward(self, x):
            return self.out(self.hidden(x).relu())

`named_parameters()` then yields "hidden.weight", "hidden.bias", "out.weight", "out.bias"
(PyTorch's dotted names), `state_dict()` maps those names to the values, and calling the
module, `net(x)`, runs `forward(x)`.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Iterator

from minigrad.autograd.grad_mode import GradMode
from minigrad.autograd.groups import group
from minigrad.nn.parameter import Parameter
from minigrad.nn.state import IncompatibleKeys, load_state
from minigrad.optim.optimizer import zero_grads
from minigrad.tensor import Tensor, dtypes


class Module:
    """Base class for layers and networks (see the module docstring)."""

    training: bool

    def __init__(self) -> None:
        # object.__setattr__: our own __setattr__ needs these dicts to exist already.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())

    # ---- calling -----------------------------------------------------------------------
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} has no forward(); every Module "
                                  "subclass must define forward(self, ...)")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Every layer call that builds a graph is recorded as a group (a small tuple on its
        # output's node), so a drawing with collapse=True can fold the layer's nodes into one box.
        if not GradMode.enabled:
            return self.forward(*args, **kwargs)
        with group(self._group_name, *args) as scope:
            result = self.forward(*args, **kwargs)
            scope.output(result)
        return result

    def _group_name(self) -> str:
        """The layer's name in a collapsed drawing: `Linear(4, 2)`-like when that is short."""
        extra = self.extra_repr()
        name = type(self).__name__
        return f"{name}({extra})" if extra and len(extra) <= 32 else name

    # ---- registration by attribute ------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {name!r} before Module.__init__() call: "
                                 f"call super().__init__() first in {type(self).__name__}")
        # A name keeps its registry slot when reassigned, as in PyTorch: the order of the
        # children is the order forward runs them in (`seq[0] = layer`), and the order of
        # the parameters is the order of state_dict and of the optimizer's list.
        if isinstance(value, Parameter):
            self._forget(name, keep="_parameters")
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._forget(name, keep="_modules")
            self._modules[name] = value
        elif name in self._parameters:
            _check_slot(name, value, "parameter", "nn.Parameter")  # a plain tensor would
            self._parameters[name] = None                         # silently stop training
        elif name in self._modules:
            _check_slot(name, value, "child module", "nn.Module")
            self._modules[name] = None
        elif name in self._buffers:
            _check_slot(name, value, "buffer", "Tensor", Tensor)
            self._buffers[name] = value  # assigning to a buffer updates it
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str) -> None:
        """Remove `name` from the plain attributes and from every registry but `keep`."""
        self.__dict__.pop(name, None)
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry != keep:
                self.__dict__[registry].pop(name, None)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: look in the registries.
        for registry in ("_parameters", "_buffers", "_modules"):
            entries = self.__dict__.get(registry)
            if entries is not None and name in entries:
                return entries[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__[registry]:
                del self.__dict__[registry][name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register `param` under `name` (None records a parameter that is absent, e.g. bias)."""
        _check_name(name, "parameter")
        self._check_free(name, "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter "
                            f"'{name}' (minigrad.nn.Parameter or None required)")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None) -> None:
        """Keep `tensor` in the state_dict without learning it (e.g. running statistics)."""
        _check_name(name, "buffer")
        self._check_free(name, "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                            f"(minigrad Tensor or None required)")
        self._buffers[name] = tensor

    def add_module(self, name: str, module: Module | None) -> None:
        """Register `module` as a sub-module under `name` (what `self.name = module` does)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        _check_name(name, "module")
        self._check_free(name, "_modules")
        self._modules[name] = module

    def _check_free(self, name: str, registry: str) -> None:
        """register_*/add_module may replace an entry of their own registry, nothing else (a
        plain attribute, a method, another kind of entry), as in PyTorch."""
        if name not in self.__dict__[registry] and hasattr(self, name):
            raise KeyError(f"attribute '{name}' already exists")  # (PyTorch's words, exactly)

    # ---- walking the tree ----------------------------------------------------------------
    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """This module and every sub-module, depth first, each once, with dotted names."""
        seen: set[int] = set()
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop()
            if id(module) in seen:
                continue
            seen.add(id(module))
            yield name, module
            children = [(f"{name}.{child_name}" if name else child_name, child)
                        for child_name, child in module._modules.items() if child is not None]
            stack.extend(reversed(children))

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct sub-modules with their names; one held under two names comes once."""
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def named_parameters(self, prefix: str = "",
                         recurse: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs; a parameter shared by two layers comes once."""
        seen: set[int] = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_name, module in modules:
            for name, param in module._parameters.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{module_name}.{name}" if module_name else name), param

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "") -> Iterator[tuple[str, Tensor]]:
        for module_name, module in self.named_modules(prefix):
            for name, buffer in module._buffers.items():
                if buffer is not None:
                    yield (f"{module_name}.{name}" if module_name else name), buffer

    def buffers(self) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers():
            yield buffer

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call fn on every sub-module (children first) and on self; returns self.

        As in PyTorch, a child held twice by one parent is visited once, but a module under
        two different parents is visited under each (`children()` removes repeats only
        among one module's own children).
        """
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ---- training state ------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Switch this module and its sub-modules to training mode (or eval if mode=False)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: same as train(False). Matters for layers like dropout."""
        return self.train(False)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of every parameter (None, or zeros if set_to_none=False)."""
        zero_grads(self.parameters(), set_to_none)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Freeze (False) or unfreeze (True) every parameter; returns self."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def to(self, dtype: Any) -> Module:
        """Convert every floating parameter and buffer to `dtype` (e.g. minigrad.float64).

        As in PyTorch, each parameter stays the same object (its `.data`, and its `.grad`,
        are converted): an optimizer built before keeps working, and a parameter shared by
        two layers stays shared.
        """
        new_dtype = dtypes.as_dtype(dtype)
        for module in self.modules():
            for param in module._parameters.values():
                if param is not None and param.dtype != new_dtype:
                    param.data = param.detach().to(new_dtype)
                    if param.grad is not None:
                        param.grad = param.grad.to(new_dtype)
            for name, buffer in module._buffers.items():
                if buffer is not None and dtypes.is_floating(buffer.dtype):
                    module._buffers[name] = buffer.to(dtype)
        return self

    def double(self) -> Module:
        """Parameters and buffers in float64 (for gradchecks and oracle comparisons)."""
        return self.to(dtypes.float64)

    def float(self) -> Module:
        """Parameters and buffers in float32."""
        return self.to(dtypes.float32)

    # ---- saving and loading ----------------------------------------------------------------
    def state_dict(self) -> OrderedDict[str, Tensor]:
        """Every parameter and buffer by dotted name, as detached tensors sharing storage.

        As in PyTorch, a sub-module used twice (`Sequential(layer, layer)`) is saved under
        each of its names, unlike `named_parameters()`, which gives each parameter once.
        """
        state: OrderedDict[str, Tensor] = OrderedDict()
        self._save_state(state, "")
        return state

    def _save_state(self, state: OrderedDict[str, Tensor], prefix: str) -> None:
        for registry in (self._parameters, self._buffers):
            for name, value in registry.items():
                if value is not None:
                    state[prefix + name] = value.detach()
        for name, child in self._modules.items():
            if child is not None:
                child._save_state(state, f"{prefix}{name}.")

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> IncompatibleKeys:
        """Copy values from `state_dict` into this module's parameters and buffers, in place.

        Raises RuntimeError listing missing keys, unexpected keys and shape mismatches
        (with strict=False, missing/unexpected keys are only returned, not raised).
        """
        return load_state(self, state_dict, strict)

    # ---- printing ------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The settings shown between the parentheses of this module's repr."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        lines = []
        for name, module in self._modules.items():
            child = repr(module).replace("\n", "\n  ")
            lines.append(f"  ({name}): {child}")
        extra = self.extra_repr()
        if not lines:
            return f"{self._get_name()}({extra})"
        head = f"{self._get_name()}({extra}" if extra else f"{self._get_name()}("
        return head + "\n" + "\n".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))


def _check_slot(name: str, value: Any, kind: str, expected: str,
                allowed: type | None = None) -> None:
    """A registered name takes only its own kind of value or None (PyTorch's rule)."""
    if value is None or (allowed is not None and isinstance(value, allowed)):
        return
    what = dtypes.type_name(value.dtype) if isinstance(value, Tensor) else type(value).__name__
    raise TypeError(f"cannot assign '{what}' as {kind} '{name}' ({expected} or None expected)")


def _check_name(name: Any, kind: str) -> None:
    """A registry name is a non-empty string without dots (dots join names in state_dict)."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."' + (f", got: {name}" if kind == "module"
                                                            else ""))
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
