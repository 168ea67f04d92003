"""Small, seeded 2-D classification datasets for training a first network.

Both generators return ``(X, y)``: ``X`` a float64 array of shape ``(n, 2)`` (one point per row)
and ``y`` an int64 array of shape ``(n,)`` with class labels ``0 … classes−1``. The same ``seed``
always gives the same points, so a lesson's numbers and figures are reproducible.
"""

from __future__ import annotations

import math

import numpy as np



def make_moons(n: int = 100, noise: float = 0.1,
               seed: int | np.random.Generator | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaving half circles: not separable by a line, easy for a small MLP.

    Class 0 lies on (cos t, sin t), class 1 on (1 − cos t, 0.5 − sin t), t ∈ [0, π]; Gaussian
    noise of standard deviation ``noise`` is added to both coordinates, then the rows are shuffled.
    Class sizes differ by at most one when ``n`` is odd.

    Returns:
        X: float64, shape (n, 2).  y: int64, shape (n,), values in {0, 1}.
    """
    n = _check_count(n, minimum=2, name="n")
    noise = _check_noise(noise)
    rng = _make_rng(seed)
    n_upper = (n + 1) // 2
    n_lower = n - n_upper
    t_upper = np.linspace(0.0, math.pi, n_upper)
    t_lower = np.linspace(0.0, math.pi, n_lower)
    upper = np.column_stack([np.cos(t_upper), np.sin(t_upper)])
    lower = np.column_stack([1.0 - np.cos(t_lower), 0.5 - np.sin(t_lower)])
    X = np.concatenate([upper, lower]) + noise * rng.standard_normal((n, 2))
    y = np.concatenate([np.zeros(n_upper, np.int64), np.ones(n_lower, np.int64)])
    return _shuffle(X, y, rng)


def make_spirals(n: int = 100, classes: int = 2, turns: float = 1.0, noise: float = 0.1,
                 seed: int | np.random.Generator | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """``classes`` interleaved spiral arms around the origin, one class per arm.

    A point of class k at radius r ∈ [0.05, 1] sits at angle θ = 2π·turns·r + 2πk/classes,
    i.e. at r·(cos θ, sin θ), plus Gaussian noise of standard deviation ``noise`` (the arms are
    rotated copies of one another). More turns make the problem harder. Rows are shuffled.

    Returns:
        X: float64, shape (n, 2).  y: int64, shape (n,), values in {0, …, classes−1}.
    """
    classes = _check_count(classes, minimum=2, name="classes")
    n = _check_count(n, minimum=classes, name="n")
    noise = _check_noise(noise)
    if isinstance(turns, bool) or not isinstance(turns, (int, float)) or not (
            math.isfinite(turns) and turns > 0):
        raise ValueError(f"turns must be a positive number of revolutions, got {turns!r}")
    rng = _make_rng(seed)
    points, labels = [], []
    for k in range(classes):
        count = n // classes + (1 if k < n % classes else 0)
        radius = np.linspace(0.05, 1.0, count)
        angle = 2.0 * math.pi * (turns * radius + k / classes)
        points.append(np.column_stack([radius * np.cos(angle), radius * np.sin(angle)]))
        labels.append(np.full(count, k, dtype=np.int64))
    X = np.concatenate(points) + noise * rng.standard_normal((n, 2))
    return _shuffle(X, np.concatenate(labels), rng)


def _shuffle(X: np.ndarray, y: np.ndarray,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    # Shuffled rows, so that taking the first k points gives a mix of every class.
    order = rng.permutation(len(y))
    return np.ascontiguousarray(X[order], dtype=np.float64), y[order]


def _check_count(value: object, minimum: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}: {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def _check_noise(noise: object) -> float:
    if isinstance(noise, bool) or not isinstance(noise, (int, float, np.floating)):
        raise TypeError(f"noise must be a float, got {type(noise).__name__}: {noise!r}")
    if not (math.isfinite(noise) and noise >= 0):
        raise ValueError(
            f"noise is a standard deviation and must be >= 0 and finite, got {noise!r}"
        )
    return float(noise)


def _make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    raise TypeError(
        f"seed must be an int, a numpy Generator or None, got {type(seed).__name__}: {seed!r}"
    )
