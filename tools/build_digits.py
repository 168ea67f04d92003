"""Build minigrad/data/files/digits.npz from scikit-learn's copy of the UCI digits.

Run once by a maintainer (scikit-learn is not a dependency of minigrad):

    pip download scikit-learn --no-deps -d /tmp/sk
    unzip -o /tmp/sk/scikit_learn-*.whl 'sklearn/datasets/data/digits.csv.gz' -d /tmp/sk
    python tools/build_digits.py /tmp/sk/sklearn/datasets/data/digits.csv.gz

The file holds `pixels` (1797, 64) uint8 in 0..16, `labels` (1797,) uint8 and `is_test`
(1797,) bool: a stratified split with 360 test images, drawn once with a fixed seed and
stored, so it never depends on the numpy version that loads it.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import numpy as np

TEST_SIZE = 360
SEED = 2026


def stratified_test_mask(labels: np.ndarray, test_size: int, seed: int) -> np.ndarray:
    """A boolean mask choosing `test_size` rows, each class in proportion to its size.

    Per-class quotas are rounded by the largest-remainder method so they sum to test_size.
    """
    rng = np.random.default_rng(seed)
    classes, counts = np.unique(labels, return_counts=True)
    exact = counts * test_size / counts.sum()
    quota = np.floor(exact).astype(int)
    for k in np.argsort(-(exact - quota), kind="stable")[: test_size - quota.sum()]:
        quota[k] += 1
    mask = np.zeros(len(labels), dtype=bool)
    for cls, n_test in zip(classes, quota):
        rows = np.flatnonzero(labels == cls)
        mask[rng.choice(rows, size=n_test, replace=False)] = True
    return mask


def main(csv_gz: str) -> None:
    with gzip.open(csv_gz, "rt") as handle:
        table = np.loadtxt(handle, delimiter=",", dtype=np.int64)
    pixels, labels = table[:, :64].astype(np.uint8), table[:, 64].astype(np.uint8)
    assert pixels.shape == (1797, 64) and pixels.max() == 16 and set(labels) == set(range(10))
    out = Path(__file__).resolve().parents[1] / "minigrad" / "data" / "files" / "digits.npz"
    np.savez_compressed(out, pixels=pixels, labels=labels,
                        is_test=stratified_test_mask(labels, TEST_SIZE, SEED))
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1])
