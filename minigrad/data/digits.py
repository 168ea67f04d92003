"""The 8×8 handwritten digits (UCI "Optical Recognition of Handwritten Digits"), offline.

1 797 images of the digits 0–9, each 8×8 pixels counting, in 4×4 blocks of a 32×32 bitmap,
how many pixels were inked (0–16). They ship inside minigrad (`files/digits.npz`, 46 kB;
licence and attribution in `files/README.md`), so lessons never need the network.

The train/test split is fixed and stratified: 360 test images, each class in proportion to
its size, drawn once with a fixed seed and stored in the file (see tools/build_digits.py).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from minigrad.tensor import Tensor

SPLITS = ("train", "test", "all")


@lru_cache(maxsize=1)
def _arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    with resources.files("minigrad.data").joinpath("files/digits.npz").open("rb") as handle:
        with np.load(handle) as archive:
            return archive["pixels"], archive["labels"], archive["is_test"]


def load_digits(split: str = "train", as_numpy: bool = False) -> tuple[Tensor, Tensor]:
    """The handwritten digits as `(images, labels)`.

    Args:
        split: "train" (1 437 images), "test" (360) or "all" (1 797, in the original order).
        as_numpy: return numpy arrays instead of Tensors.

    Returns:
        images: float32, shape (N, 1, 8, 8), values pixel/16 in [0, 1] (NCHW, one channel).
        labels: int64, shape (N,), the digit 0–9 (use as CrossEntropyLoss targets).

    Each call returns fresh tensors: changing them does not change later calls.

    >>> images, labels = load_digits("test")
    >>> images.shape, labels.shape
    ((360, 1, 8, 8), (360,))
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    pixels, labels, is_test = _arrays()
    if split == "test" and not is_test.any():
        raise ValueError("the digits' test split is not here: the grader keeps it (the "
                         "capstone gets the test images as an argument; their labels stay "
                         "with the grader)")
    rows = {"train": ~is_test, "test": is_test, "all": np.ones_like(is_test)}[split]
    images = (pixels[rows].astype(np.float32) / np.float32(16.0)).reshape(-1, 1, 8, 8)
    targets = labels[rows].astype(np.int64)
    if as_numpy:
        return images, targets
    return Tensor._make(images, False, None), Tensor._make(targets, False, None)


def read_digits_file(path: Path | str) -> tuple[np.ndarray, np.ndarray]:
    """Digits of the same kind from a file of one's own, as ``(images, labels)`` like
    :func:`load_digits`'s numpy arrays: float32 (N, 1, 8, 8) in [0, 1] and int64 (N,).

    Two layouts: an ``.npz`` with ``images`` — (N, 64), (N, 8, 8) or (N, 1, 8, 8); block counts
    0–16, or values in [0, 1] — and ``labels``; or UCI's text layout (``optdigits.tra``): one
    image a line, 64 counts 0–16 and the digit, comma-separated (a header line is skipped).
    Anything else is a :class:`ValueError` that names the file and what is wrong in it.
    """
    path = Path(path)
    try:
        if path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as archive:
                if "images" not in archive or "labels" not in archive:
                    raise ValueError(f"holds {sorted(archive.files)}; expected 'images' and "
                                     f"'labels'")
                pixels, labels = archive["images"], archive["labels"]
        else:
            rows = [line.split(",") for line in path.read_text(encoding="utf-8").splitlines()
                    if line.strip()]
            if rows and not rows[0][0].strip().lstrip("-").isdigit():
                rows = rows[1:]  # a header
            if not rows or any(len(row) != 65 for row in rows):
                raise ValueError("expected lines of 65 comma-separated integers (64 block "
                                 "counts, then the digit)")
            table = np.array(rows, dtype=np.int64)
            pixels, labels = table[:, :64], table[:, 64]
    except (OSError, ValueError, KeyError) as error:  # np.load's errors are ValueErrors too
        raise ValueError(f"{path}: {error}") from None
    return _checked_digits(path, np.asarray(pixels), np.asarray(labels))


def _checked_digits(path: Path, pixels: np.ndarray,
                    labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    count = len(labels)
    if labels.ndim != 1 or labels.dtype.kind not in "iu" or count == 0 \
            or labels.min() < 0 or labels.max() > 9:
        raise ValueError(f"{path}: labels must be one digit 0–9 per image (integers), got "
                         f"{labels.dtype} {labels.shape}")
    if pixels.dtype.kind not in "fiu" or pixels.shape[0] != count \
            or pixels[0].size != 64 or pixels.shape[1:] not in ((64,), (8, 8), (1, 8, 8)):
        raise ValueError(f"{path}: images must be {count} images of 8×8 ((N, 64), (N, 8, 8) or "
                         f"(N, 1, 8, 8)), got {pixels.dtype} {pixels.shape}")
    values = pixels.astype(np.float64).reshape(count, 1, 8, 8)
    if not np.isfinite(values).all() or values.min() < 0:
        raise ValueError(f"{path}: images hold negative, NaN or infinite values")
    if pixels.dtype.kind in "iu" or values.max() > 1.0:  # block counts
        if values.max() > 16 or not (values == np.round(values)).all():
            raise ValueError(f"{path}: images must be block counts 0–16 or values in [0, 1]")
        values = values / 16.0
    return values.astype(np.float32), labels.astype(np.int64)
