"""Activation checkpointing: trade recomputation for memory.

Backward needs what each op saved in the forward pass (a Linear its input, a ReLU its
output, …), so a deep network keeps every intermediate activation alive until backward
reaches it. `checkpoint(segment, x)` runs `segment` *without* recording, keeping only its
input x; when backward reaches the segment it runs the segment again, this time recording,
and backpropagates through that fresh graph. Memory: one input per segment instead of every
activation inside it. Cost: one extra forward pass of the segment.

    h = checkpoint(block1, x)      # block1's insides are not kept
    h = checkpoint(block2, h)
    loss = loss_fn(head(h), y)
    loss.backward()                # block2, then block1, are recomputed here

Parameters: if `function` is an `nn.Module`, its parameters get their gradients. For a plain
function that uses parameters, pass them as `parameters=` (otherwise they would get none,
since the segment's graph is not recorded in the forward pass).

Randomness: the recomputation starts from the random generator's state of the first run
(and leaves the generator as it found it), so a segment with dropout draws the same mask
twice, as PyTorch's `preserve_rng_state=True` does. Double backward works: under
`create_graph=True` the segment is recomputed on its real inputs, so second derivatives
reach them.
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from minigrad.autograd.gradients import grad as autograd_grad
from minigrad.autograd.function import BackwardNode as Context
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from minigrad.tensor import Tensor
from minigrad.tensor.factories import generator


class Checkpoint(Function):
    """out = function(*inputs), recorded as one node that recomputes function in backward.

    Inputs are the segment's tensor inputs followed by the parameters it uses; backward
    returns d(out)/d(each) · grad_output, computed on the recomputed graph.
    """

    @staticmethod
    def forward(ctx: Context, *arrays: np.ndarray, function: Callable, count: int,
                parameters: tuple[Tensor, ...], output: np.ndarray,
                rng_state: dict) -> np.ndarray:
        ctx.function = function
        ctx.count = count
        ctx.rng_state = rng_state
        # The node keeps only its inputs' shapes (ctx.inputs), so the parameters, which the
        # recomputation differentiates with respect to, are kept by name here.
        ctx.parameters = parameters
        ctx.save_for_backward(*arrays[:count])
        return output

    @staticmethod
    def backward(ctx: Context, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        saved = ctx.saved_tensors
        needs = ctx.needs_input_grad
        parameters = ctx.parameters
        create_graph = is_grad_enabled()  # backward(create_graph=True) records its own steps
        random = generator().bit_generator
        state_now, random.state = random.state, ctx.rng_state
        try:
            with enable_grad():
                # First order: fresh leaves, so the recomputed graph stops at the segment.
                # Second order: the real inputs, so the gradient's graph reaches them.
                inputs = list(saved) if create_graph else [
                    t.detach().requires_grad_(needed) for t, needed in zip(saved, needs)]
                output = ctx.function(*inputs)
        finally:
            random.state = state_now
        wanted = [t for t, needed in zip(inputs, needs) if needed]
        wanted += [p for p, needed in zip(parameters, needs[ctx.count:]) if needed]
        grads = iter(autograd_grad(output, wanted, grad_output, allow_unused=True,
                                   create_graph=create_graph) if wanted else ())
        return tuple(next(grads) if needed else None for needed in needs)


def checkpoint(function: Callable[..., Tensor], *inputs: Tensor,
               parameters: Iterable[Tensor] | None = None) -> Tensor:
    """`function(*inputs)`, saving only the inputs; recomputed when backward reaches it.

    `function` must return one Tensor and, apart from minigrad's random generator (whose
    state is replayed), be deterministic: it runs twice. If it is an `nn.Module`, its
    parameters are found automatically.
    """
    for position, value in enumerate(inputs):
        if not isinstance(value, Tensor):
            raise TypeError(f"checkpoint(): input {position} must be a Tensor, "
                            f"not {type(value).__name__}")
    if parameters is None:
        from minigrad.nn.module import Module

        parameters = function.parameters() if isinstance(function, Module) else ()
    parameters = [p for p in parameters if p.requires_grad]
    rng_state = generator().bit_generator.state
    with no_grad():
        output = function(*(t.detach() for t in inputs))
    if not isinstance(output, Tensor):
        raise TypeError(f"checkpoint(): the function must return a Tensor, "
                        f"got {type(output).__name__}")
    return Checkpoint.apply(*inputs, *parameters, function=function, count=len(inputs),
                            parameters=tuple(parameters), output=np.asarray(output),
                            rng_state=rng_state)
