"""`Optimizer`: what every optimizer shares — parameter groups, state, zero_grad, saving.

An optimizer holds `param_groups`: a list of dicts, each with "params" (a list of leaf
Tensors) and that group's settings ("lr", "weight_decay", …). `state[p]` keeps what the
update rule remembers per parameter (a momentum buffer, Adam's moving averages); as in
PyTorch, `state` is a `defaultdict(dict)`, so `state[p]` is `{}` before p's first step.

Only leaves can be optimized: a non-leaf tensor is recomputed from the leaves at every
forward pass, so changing it in place would be overwritten (and its .grad is never kept).
"""

from __future__ import annotations

import copy
import sys
from collections import defaultdict
import warnings
from typing import Any, Callable, Iterable

import numpy as np

from minigrad.autograd import enable_grad, no_grad
from minigrad.ops.inplace import check_writeable
from minigrad.tensor import Tensor, dtypes

ParamsT = Iterable[Tensor] | Iterable[dict[str, Any]]


class Optimizer:
    """Base class: subclasses set `defaults` through __init__ and implement `_update(param,
    group)`, the update of one parameter that has a gradient."""

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got Tensor (wrap it: [tensor])")
        if callable(getattr(params, "parameters", None)):  # a model (a Sequential iterates)
            raise TypeError(f"params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {type(params).__name__} (did you mean "
                            f"model.parameters()?)")
        self.defaults = defaults
        # As in PyTorch: self.state[p] is an empty dict the first time p is looked up.
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own settings (the others from defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, got {type(param_group).__name__}")
        if "params" not in param_group:
            raise KeyError("params (a parameter group is a dict whose 'params' holds its "
                           "tensors)")
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        if len({id(param) for param in params}) < len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          UserWarning, stacklevel=_caller_level())
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{type(param).__name__}")
            if not (param.is_leaf or param.retains_grad):  # PyTorch's test
                raise ValueError("can't optimize a non-leaf Tensor (it is computed from other "
                                 "tensors, so an update would be lost at the next forward; "
                                 "optimize the leaves it comes from, or use "
                                 "x.detach().clone().requires_grad_(True) to make a new leaf)")
        group = {**self.defaults, **param_group, "params": params}
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if existing & {id(p) for p in params}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient: None (default), or zeros if set_to_none=False."""
        zero_grads((param for group in self.param_groups for param in group["params"]),
                   set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient, in place.

        `closure`, as in PyTorch: a function that clears the gradients, recomputes the loss,
        calls backward and returns the loss. It is called once, before the update, and its
        loss is returned (None without a closure).
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        self._update(param, group)
        return loss

    def _update(self, param: Tensor, group: dict[str, Any]) -> None:
        raise NotImplementedError

    # ---- saving and loading -------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """{"state": {index: per-parameter state}, "param_groups": [settings + param indices]},
        parameters numbered in order across groups, as in PyTorch."""
        index_of: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            indices = []
            for param in group["params"]:
                index_of.setdefault(id(param), len(index_of))
                indices.append(index_of[id(param)])
            groups.append({**{k: v for k, v in group.items() if k != "params"},
                           "params": indices})
        state = {index_of[id(p)]: {k: (v.detach().clone() if isinstance(v, Tensor) else v)
                                   for k, v in s.items()}
                 for p, s in self.state.items() if id(p) in index_of}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore settings and per-parameter state saved by state_dict(); the state's
        floating tensors take their parameter's dtype, as in PyTorch."""
        if not isinstance(state_dict, dict) or not {"state", "param_groups"} <= state_dict.keys():
            raise ValueError("an optimizer state_dict is a dict with 'state' and 'param_groups' "
                             "(from optimizer.state_dict()), got "
                             + (f"the keys {sorted(map(str, state_dict))}"
                                if isinstance(state_dict, dict) else type(state_dict).__name__))
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for saved, own in zip(groups, self.param_groups):
            if len(saved["params"]) != len(own["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 "match the size of optimizer's group")
        self.state = defaultdict(dict)
        for saved, own in zip(groups, self.param_groups):
            for index, param in zip(saved["params"], own["params"]):
                if index in state_dict["state"]:
                    self.state[param] = {k: _state_value(v, param)
                                         for k, v in state_dict["state"][index].items()}
            own.update({k: v for k, v in saved.items() if k != "params"})

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for index, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {index}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        return "\n".join(lines) + "\n)"


def _caller_level() -> int:
    """The stacklevel that makes a warning point at the user's line: the first frame outside
    minigrad.optim (an optimizer may be built through several __init__s)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("minigrad.optim"):
        frame, level = frame.f_back, level + 1
    return level


def _state_value(value: Any, param: Tensor) -> Any:
    """A loaded state entry: a copy, floating tensors in the parameter's dtype."""
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    value = value.detach().clone()
    return value.to(param.dtype) if dtypes.is_floating(value.dtype) else value


def written_in_place(*tensors: Tensor) -> list[np.ndarray]:
    """The arrays of tensors an update is about to change in place, each change counted in
    the tensor's version as an in-place Tensor op would count it (so a graph that saved the
    old value refuses to use it). A tensor whose elements share memory (an expand() result)
    is refused, as in-place ops refuse it."""
    arrays = []
    for tensor in tensors:
        check_writeable(tensor)
        tensor._version_counter[0] += 1
        arrays.append(tensor._data)
    return arrays


def check_hyperparameters(lr: float, weight_decay: float) -> None:
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def zero_grads(params: Iterable[Tensor], set_to_none: bool = True) -> None:
    """``zero_grad`` of optimizers and modules: each ``.grad`` becomes None, or, with
    ``set_to_none=False``, zeros in place. A gradient that is part of a graph (from a
    ``create_graph=True`` backward) is cut from it first, as PyTorch does."""
    for param in params:
        grad = param.grad
        if grad is None:
            continue
        if set_to_none:
            param.grad = None
            continue
        if grad.grad_fn is not None or grad.requires_grad:
            if grad._base is not None:  # a view of a graph's tensor: never write into that
                param.grad = Tensor._make(np.zeros_like(grad._data), False, None)
                continue
            grad.detach_()
        with no_grad():
            grad.zero_()
