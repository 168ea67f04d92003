"""Saving and loading a model's weights: `minigrad.save(model.state_dict(), path)` and
`model.load_state_dict(minigrad.load(path))`, as with torch.save / torch.load.

The file is a numpy `.npz` archive (one array per name), so loading it runs no code (unlike
a pickle) and numpy alone can read it. Only flat mappings of names to tensors or arrays are
supported — a module's state_dict; an optimizer's nested state_dict can be pickled instead.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from minigrad.tensor import Tensor


def save(state_dict: Mapping[str, Any], path: str | Path) -> None:
    """Write name → tensor (or array) pairs to `path` (an .npz file; the suffix is kept)."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"save() expects a state_dict (a mapping of names to tensors), got "
                        f"{type(state_dict).__name__}; for other objects use pickle")
    arrays = {}
    for name, value in state_dict.items():
        if not isinstance(name, str) or not isinstance(value, (Tensor, np.ndarray)):
            raise TypeError(f"save() stores names mapped to tensors; {name!r} maps to a value "
                            f"of type {type(value).__name__}")
        arrays[name] = np.asarray(value)
    with open(path, "wb") as handle:  # a file handle: numpy would otherwise append ".npz"
        np.savez(handle, **arrays)


def load(path: str | Path) -> OrderedDict[str, Tensor]:
    """The name → tensor pairs saved by `save`, in their saved order."""
    with np.load(path, allow_pickle=False) as archive:
        return OrderedDict((name, Tensor(archive[name])) for name in archive.files)
