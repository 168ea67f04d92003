"""The seeded 2-D datasets: shapes, dtypes, labels, reproducibility, geometry, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.data import make_moons, make_spirals


def test_moons_shapes_dtypes_and_balance():
    X, y = make_moons(101, noise=0.1, seed=0)
    assert X.shape == (101, 2) and X.dtype == np.float64
    assert y.shape == (101,) and y.dtype == np.int64
    assert set(y.tolist()) == {0, 1}
    assert abs(int((y == 0).sum()) - int((y == 1).sum())) == 1


def test_moons_without_noise_lie_on_their_half_circles():
    X, y = make_moons(50, noise=0.0, seed=0)
    upper, lower = X[y == 0], X[y == 1]
    np.testing.assert_allclose(np.hypot(upper[:, 0], upper[:, 1]), 1.0, atol=1e-12)
    np.testing.assert_allclose(np.hypot(lower[:, 0] - 1, lower[:, 1] - 0.5), 1.0, atol=1e-12)
    assert (upper[:, 1] >= -1e-12).all() and (lower[:, 1] <= 0.5 + 1e-12).all()


def test_same_seed_same_points_other_seed_other_points():
    X1, y1 = make_moons(40, 0.2, seed=7)
    X2, y2 = make_moons(40, 0.2, seed=7)
    X3, _ = make_moons(40, 0.2, seed=8)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.allclose(X1, X3)
    Xg, _ = make_moons(40, 0.2, seed=np.random.default_rng(7))
    np.testing.assert_array_equal(Xg, X1)


def test_rows_are_shuffled():
    _, y = make_moons(100, 0.1, seed=0)
    assert 0 < int(y[:50].sum()) < 50


def test_spirals_shapes_labels_and_geometry():
    X, y = make_spirals(100, classes=3, turns=1.5, noise=0.0, seed=0)
    assert X.shape == (100, 2) and X.dtype == np.float64 and y.dtype == np.int64
    assert [int((y == k).sum()) for k in range(3)] == [34, 33, 33]
    radius = np.hypot(X[:, 0], X[:, 1])
    assert radius.min() == pytest.approx(0.05) and radius.max() == pytest.approx(1.0)
    # Without noise, each arm is the first arm rotated by 2πk/3.
    for k in range(3):
        arm = X[y == k]
        r = np.hypot(arm[:, 0], arm[:, 1])
        angle = np.arctan2(arm[:, 1], arm[:, 0])
        expected = 2 * np.pi * (1.5 * r + k / 3)
        np.testing.assert_allclose(np.cos(angle - expected), 1.0, atol=1e-9)


def test_spirals_reproducible():
    a = make_spirals(60, 2, 1.0, 0.1, seed=3)
    b = make_spirals(60, 2, 1.0, 0.1, seed=3)
    np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize("call,error,message", [
    (lambda: make_moons(1), ValueError, "n must be at least 2"),
    (lambda: make_moons(10.5), TypeError, "n must be an int"),
    (lambda: make_moons(10, noise=-0.1), ValueError, "noise is a standard deviation"),
    (lambda: make_moons(10, noise=float("nan")), ValueError, "noise"),
    (lambda: make_moons(10, seed="a"), TypeError, "seed must be an int"),
    (lambda: make_spirals(10, classes=1), ValueError, "classes must be at least 2"),
    (lambda: make_spirals(2, classes=3), ValueError, "n must be at least 3"),
    (lambda: make_spirals(10, turns=0), ValueError, "turns must be a positive"),
])
def test_bad_arguments_are_refused(call, error, message):
    with pytest.raises(error, match=message):
        call()
