"""MNIST from the IDX files you have (minigrad never downloads anything).

The four files are, gzipped or not:

    train-images-idx3-ubyte[.gz]   train-labels-idx1-ubyte[.gz]     (60 000 images)
    t10k-images-idx3-ubyte[.gz]    t10k-labels-idx1-ubyte[.gz]      (10 000 images)

IDX format: two zero bytes, a type code (0x08 = unsigned byte), the number of dimensions d,
then d big-endian int32 sizes, then the values in C order.
"""

from __future__ import annotations

import gzip
import math
import zlib
from pathlib import Path

import numpy as np

from minigrad.tensor import Tensor

WHERE_TO_GET = ("Download the four files from one of the MNIST mirrors, e.g. "
                "https://ossci-datasets.s3.amazonaws.com/mnist/ (train-images-idx3-ubyte.gz, "
                "train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz, "
                "t10k-labels-idx1-ubyte.gz), into one folder, and pass that folder as path.")
_IDX_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
_PREFIX = {"train": "train", "test": "t10k"}


def read_idx(path: str | Path) -> np.ndarray:
    """Read one IDX file (gzipped if its name ends in .gz) into a numpy array."""
    path = Path(path)
    raw = _read_bytes(path)
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        raise ValueError(f"{path} is not an IDX file: it should start with two zero bytes and "
                         f"a type code, got {raw[:4]!r}")
    ndim = raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"{path}: the IDX header announces {ndim} dimensions but the file ends "
                         f"after {len(raw)} bytes; is it truncated?")
    shape = tuple(int(n) for n in np.frombuffer(raw[4:header], dtype=">i4"))
    if any(n < 0 for n in shape):
        raise ValueError(f"{path}: the IDX header has a negative size {shape}")
    dtype = np.dtype(_IDX_TYPES[raw[2]])
    expected = math.prod(shape) * dtype.itemsize  # Python ints: no overflow
    if len(raw) - header != expected:
        raise ValueError(f"{path}: the header announces shape {shape} ({expected} bytes of "
                         f"data) but the file holds {len(raw) - header}; is it truncated?")
    return np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="))


def _read_bytes(path: Path) -> bytes:
    """The file's bytes, unzipped if its name ends in .gz.

    A half-finished download or an HTML error page saved as `...gz` fails inside gzip with
    EOFError or BadGzipFile, which name neither the file nor the usual cause.
    """
    if path.suffix != ".gz":
        return path.read_bytes()
    try:
        with gzip.open(path, "rb") as handle:
            return handle.read()
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise ValueError(f"{path} is not a valid gzip file (a truncated or failed download?): "
                         f"{str(error) or type(error).__name__}. {WHERE_TO_GET}") from None


def _find(folder: Path, name: str) -> Path:
    for candidate in (folder / name, folder / (name + ".gz")):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"MNIST file {name}[.gz] not found in {folder}. {WHERE_TO_GET}")


def load_mnist(path: str | Path, split: str = "train",
               as_numpy: bool = False) -> tuple[Tensor, Tensor]:
    """MNIST images and labels from the IDX files in folder `path`.

    Returns:
        images: float32, shape (N, 1, 28, 28), values pixel/255 in [0, 1].
        labels: int64, shape (N,).
    """
    if split not in _PREFIX:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"MNIST path {folder} is a file, not a folder: pass the folder "
                                 f"that holds the four IDX files (here {folder.parent}?)")
    if not folder.is_dir():
        raise FileNotFoundError(f"MNIST folder {folder} does not exist. {WHERE_TO_GET}")
    prefix = _PREFIX[split]
    pixels = read_idx(_find(folder, f"{prefix}-images-idx3-ubyte"))
    labels = read_idx(_find(folder, f"{prefix}-labels-idx1-ubyte"))
    if pixels.ndim != 3 or labels.ndim != 1 or len(pixels) != len(labels):
        raise ValueError(f"MNIST files in {folder} disagree: images {pixels.shape}, labels "
                         f"{labels.shape} (expected (N, rows, cols) and (N,))")
    images = (pixels.astype(np.float32) / np.float32(255.0))[:, None]
    targets = labels.astype(np.int64)
    if as_numpy:
        return images, targets
    return Tensor._make(images, False, None), Tensor._make(targets, False, None)
