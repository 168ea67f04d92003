"""Automatic differentiation: the Function base class, the backward engine, grad mode."""

from typing import Any

from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from minigrad.autograd.function import AccumulateGrad, Function, Node
from minigrad.autograd.engine import grad

__all__ = ["AccumulateGrad", "Function", "Node", "enable_grad", "grad", "gradcheck",
           "is_grad_enabled", "no_grad", "set_grad_enabled"]


def __getattr__(name: str) -> Any:
    # gradcheck lives in its own module (written separately); import it on first use.
    if name == "gradcheck":
        from minigrad.autograd.gradcheck import gradcheck

        return gradcheck
    raise AttributeError(f"module 'minigrad.autograd' has no attribute {name!r}")
