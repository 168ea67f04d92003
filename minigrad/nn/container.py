"""Containers: `Sequential` (modules applied one after another) and `ModuleList`."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterable, Iterator

from minigrad.nn.module import Module


class Sequential(Module):
    """y = layer_n(… layer_2(layer_1(x))). Children are named "0", "1", … (or by an
    OrderedDict), so parameters are "0.weight", "0.bias", "2.weight", … as in PyTorch.

    Backward runs the layers in reverse, each turning dL/d(its output) into dL/d(its input).
    """

    def __init__(self, *modules: Module | OrderedDict) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, _checked(module, name))
        else:
            for index, module in enumerate(modules):
                self.add_module(str(index), _checked(module, str(index)))

    def forward(self, input: Any) -> Any:  # noqa: A002
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, index: int | slice) -> Module | Sequential:
        items = list(self._modules.items())
        if isinstance(index, slice):
            return Sequential(OrderedDict(items[index]))
        if not -len(items) <= index < len(items):
            raise IndexError(f"index {index} is out of range for a Sequential of {len(items)}")
        return items[index][1]

    def __setitem__(self, index: int, module: Module) -> None:
        """`seq[i] = layer` replaces the i-th layer in its place (setattr keeps the slot)."""
        setattr(self, _name_at(self, index), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), _checked(module, str(len(self))))
        return self


class ModuleList(Module):
    """A list of modules whose parameters are registered ("0.weight", "1.weight", …)."""

    def __init__(self, modules: Iterable[Module] = ()) -> None:
        super().__init__()
        for module in modules:
            self.append(module)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), _checked(module, str(len(self))))
        return self

    def __getitem__(self, index: int) -> Module:
        return list(self._modules.values())[index]

    def __setitem__(self, index: int, module: Module) -> None:
        setattr(self, _name_at(self, index), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())


def _name_at(container: Module, index: int) -> str:
    """The registered name of the module at position `index` (negative counts from the end)."""
    names = list(container._modules)
    if not -len(names) <= index < len(names):
        raise IndexError(f"index {index} is out of range")
    return names[index]


def _checked(module: Any, name: str) -> Module:
    if not isinstance(module, Module):
        raise TypeError(f"{type(module).__name__} is not a Module subclass (at position "
                        f"{name}); wrap functions in a Module or call them in forward()")
    return module
