"""Automatic differentiation: the Function base class, the backward engine, grad mode."""

from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from minigrad.autograd.function import AccumulateGrad, Function, Node
from minigrad.autograd.gradients import grad
# The function is imported after its module, so `minigrad.autograd.gradcheck` is the function.
from minigrad.autograd.gradcheck import gradcheck, gradgradcheck

__all__ = ["AccumulateGrad", "Function", "Node", "enable_grad", "grad", "gradcheck", "gradgradcheck",
           "is_grad_enabled", "no_grad", "set_grad_enabled"]

