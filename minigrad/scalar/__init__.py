"""Lessons 01–02: derivatives by differences and the scalar autograd engine.

``value`` holds :class:`Value` and :func:`topological_order`; ``numerical`` central and
forward differences; ``nn`` a neuron, a layer and an MLP of Values; ``training`` their
training loop and the toy classifiers of lesson 02.
"""

from minigrad.scalar.value import Value, topological_order

__all__ = ["Value", "topological_order"]
