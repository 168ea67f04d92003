"""The differentiable operations, one module per family (each op: forward + backward)."""

from minigrad.ops.arithmetic import add, broadcast_to, div, matmul, mul, neg, pow, reciprocal, sub, sum_to

__all__ = ["add", "broadcast_to", "div", "matmul", "mul", "neg", "pow", "reciprocal", "sub", "sum_to"]
