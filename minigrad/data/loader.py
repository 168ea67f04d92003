"""Mini-batches as in PyTorch: `TensorDataset` pairs tensors row by row, `DataLoader` batches.

    dataset = TensorDataset(images, labels)          # dataset[i] == (images[i], labels[i])
    loader = DataLoader(dataset, batch_size=64, shuffle=True, seed=0)
    for x, y in loader:                               # x: (64, 1, 8, 8), y: (64,)
        ...

Shuffling draws a new order at the start of every pass (epoch). Its random numbers come from
`generator` (a numpy Generator), else from a Generator seeded with `seed`, else from
minigrad's global generator — so `minigrad.manual_seed(n)` makes the order reproducible.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Iterator, Sequence

import numpy as np

from minigrad.tensor import Tensor
from minigrad.tensor import factories


class Dataset:
    """Anything with `__len__` and `__getitem__(i)`; subclass it for your own data."""

    def __len__(self) -> int:
        raise NotImplementedError

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError


class TensorDataset(Dataset):
    """Row i of every tensor, as a tuple: `dataset[i] == (t[i] for t in tensors)`.

    All tensors must have the same first dimension (the number of samples).
    """

    def __init__(self, *tensors: Tensor | np.ndarray) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        converted = tuple(t if isinstance(t, Tensor) else Tensor(t) for t in tensors)
        sizes = [t.shape[0] if t.ndim else None for t in converted]
        if None in sizes or len(set(sizes)) != 1:
            shapes = ", ".join(str(tuple(t.shape)) for t in converted)
            raise ValueError(f"Size mismatch between tensors: every tensor needs the same first "
                             f"dimension (one row per sample), got shapes {shapes}")
        self.tensors = converted

    def __len__(self) -> int:
        return self.tensors[0].shape[0]

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)


def default_collate(samples: Sequence[Any]) -> Any:
    """Stack a list of samples into one batch, as PyTorch's default_collate does: Tensors and
    arrays along a new first dim; numbers into a 1-D tensor (Python floats as float64, ints
    as int64); tuples and lists element by element, into a list."""
    first = samples[0]
    if isinstance(first, (Tensor, np.ndarray)):
        arrays = [np.asarray(s) for s in samples]
        _check_equal_shapes(arrays)
        return Tensor._make(np.stack(arrays), False, None)
    if isinstance(first, numbers.Number):
        return Tensor._make(np.asarray(samples), False, None)
    if isinstance(first, (tuple, list)):
        return [default_collate(list(column)) for column in zip(*samples)]
    if isinstance(first, dict):
        return {key: default_collate([s[key] for s in samples]) for key in first}
    raise TypeError(f"default_collate: cannot batch samples of type {type(first).__name__}; "
                    "return Tensors, numpy arrays, numbers or tuples of them from __getitem__, "
                    "or pass collate_fn=")


def _check_equal_shapes(arrays: Sequence[np.ndarray]) -> None:
    """Samples of different shapes cannot form one batch; say which two differ, in PyTorch's
    words, rather than numpy's "all input arrays must have the same shape"."""
    for entry, array in enumerate(arrays):
        if array.shape != arrays[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(arrays[0].shape)} at entry 0 and {list(array.shape)} at "
                               f"entry {entry}")


class DataLoader:
    """Iterate over `dataset` in batches of `batch_size` samples.

    Args:
        dataset: a Dataset (e.g. TensorDataset) or any sequence of samples.
        batch_size: samples per batch; the last batch is smaller unless `drop_last`.
        shuffle: visit the samples in a new random order on every pass.
        drop_last: drop the last, incomplete batch.
        generator: numpy Generator for the shuffle (PyTorch: a torch.Generator).
        seed: seed for a Generator of the loader's own, used if `generator` is None.
        collate_fn: turns a list of samples into a batch (default: `default_collate`).
    """

    def __init__(self, dataset: Any, batch_size: int = 1, shuffle: bool = False,
                 drop_last: bool = False, generator: np.random.Generator | None = None,
                 seed: int | None = None, collate_fn: Any = None) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) \
                or batch_size < 1:
            raise ValueError(f"batch_size should be a positive integer value, "
                             f"but got batch_size={batch_size!r}")
        if generator is not None and not isinstance(generator, np.random.Generator):
            raise TypeError(f"generator must be a numpy Generator (np.random.default_rng(seed)), "
                            f"got {type(generator).__name__}; or pass seed=")
        self.dataset = dataset
        self.batch_size = int(batch_size)
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.generator = generator if generator is not None else (
            np.random.default_rng(seed) if seed is not None else None)
        self.collate_fn = collate_fn or default_collate

    def __len__(self) -> int:
        """The number of batches per pass."""
        count = len(self.dataset) / self.batch_size
        return math.floor(count) if self.drop_last else math.ceil(count)

    def _order(self) -> np.ndarray:
        if not self.shuffle:
            return np.arange(len(self.dataset))
        rng = self.generator if self.generator is not None else factories.generator()
        return rng.permutation(len(self.dataset))

    def __iter__(self) -> Iterator[Any]:
        order = self._order()
        stop = len(self) * self.batch_size
        # A TensorDataset's rows can be picked with one index per tensor; not a subclass that
        # changes what dataset[i] is (an augmentation), whose __getitem__ must run.
        fast = (isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate
                and type(self.dataset).__getitem__ is TensorDataset.__getitem__)
        for start in range(0, min(stop, len(order)), self.batch_size):
            rows = order[start:start + self.batch_size]
            if fast:  # one fancy-index per tensor instead of stacking rows one by one
                yield [t[rows] if t.requires_grad else Tensor._make(np.asarray(t)[rows], False, None)
                       for t in self.dataset.tensors]
            else:
                yield self.collate_fn([self.dataset[int(i)] for i in rows])
