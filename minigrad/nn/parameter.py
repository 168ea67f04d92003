"""`Parameter`: a leaf Tensor that a Module registers as one of its weights."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.tensor import Tensor


class Parameter(Tensor):
    """A Tensor that is a module's parameter: a leaf that requires grad by default.

    Assigning a Parameter to a Module attribute (`self.weight = Parameter(...)`) registers it,
    so `module.parameters()` finds it and an optimizer can update it. `Parameter(t)` shares
    t's storage (no copy), as in PyTorch; ops on a Parameter give plain Tensors.
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = np.empty(0, dtype=np.float32)
        # A detached view of `data` is a leaf sharing its storage and version counter; copying
        # its slots makes this Parameter that same view, whatever the slots hold.
        source = data.detach() if isinstance(data, Tensor) else Tensor(data)
        for slot in Tensor.__slots__:
            if slot != "__weakref__" and hasattr(source, slot):
                object.__setattr__(self, slot, getattr(source, slot))
        self.requires_grad_(requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (Parameter, (Tensor(np.array(self)), self.requires_grad))
