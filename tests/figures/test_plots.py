"""minigrad.figures.plots draws what it is given: the V-curve and its guides, a boundary, a loss."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from minigrad.scalar.numerical import difference_errors  # noqa: E402
from minigrad.figures.plots import (fit_error_guides, plot_decision_boundary,  # noqa: E402
                               plot_difference_errors, plot_loss_curve, plot_matrix)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def synthetic_curve() -> tuple[np.ndarray, np.ndarray]:
    eps = np.logspace(0, -12, 25)
    return eps, 32.0 * eps**2 + 1e-15 / eps


# ------------------------------------------------------------------ fit_error_guides
def test_fit_recovers_both_constants_of_a_synthetic_curve() -> None:
    c_trunc, c_round = fit_error_guides(*synthetic_curve())
    assert c_trunc == pytest.approx(32.0, rel=1e-2)
    assert c_round == pytest.approx(1e-15, rel=1e-2)


def test_fit_on_a_real_central_difference_finds_f_third_over_six() -> None:
    # f = (x²+1)³ at x = 1: f'(1) = 24, f'''(1) = 192, truncation error 192/6 ε² = 32 ε².
    eps, errors = difference_errors(lambda x: (x * x + 1.0) ** 3, 1.0, 24.0)
    c_trunc, c_round = fit_error_guides(eps, errors)
    assert c_trunc == pytest.approx(32.0, rel=1e-2)
    # round-off ~ eps_machine·|f| = 2.2e-16 · 8, within an order of magnitude
    assert 1e-16 < c_round < 1e-14


def test_fit_of_a_forward_difference_uses_order_one() -> None:
    eps, errors = difference_errors(lambda x: (x * x + 1.0) ** 3, 1.0, 24.0, method="forward")
    c_trunc, _ = fit_error_guides(eps, errors, order=1)
    assert c_trunc == pytest.approx(36.0, rel=5e-2)  # f''(1)/2 = 72/2


def test_fit_without_a_left_side_gives_nan() -> None:
    eps = np.array([1e-1, 1e-2, 1e-3])
    c_trunc, c_round = fit_error_guides(eps, 5.0 * eps**2)
    assert c_trunc == pytest.approx(5.0)
    assert np.isnan(c_round)


# ------------------------------------------------------------------ plot_difference_errors
def test_v_curve_is_log_log_with_data_and_two_guides() -> None:
    eps, errors = synthetic_curve()
    ax = plot_difference_errors(eps, errors)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels[0] == "central difference"
    assert any(label.startswith("truncation") for label in labels)
    assert any(label.startswith("round-off") for label in labels)
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), eps)
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), errors)


def test_given_guide_constants_are_drawn_exactly() -> None:
    eps, errors = synthetic_curve()
    ax = plot_difference_errors(eps, errors, guides=(10.0, 1e-14))
    truncation = next(line for line in ax.get_lines() if line.get_label().startswith("trunc"))
    x, y = truncation.get_xdata(), truncation.get_ydata()
    np.testing.assert_allclose(y, 10.0 * x**2)
    roundoff = next(line for line in ax.get_lines() if line.get_label().startswith("round"))
    np.testing.assert_allclose(roundoff.get_ydata(), 1e-14 / roundoff.get_xdata())


def test_no_guides_and_a_second_curve_on_the_same_axes() -> None:
    eps, errors = synthetic_curve()
    ax = plot_difference_errors(eps, errors, guides=False)
    assert len(ax.get_lines()) == 1
    same = plot_difference_errors(eps, 2 * errors, ax=ax, label="forward", guides=False)
    assert same is ax and [line.get_label() for line in ax.get_lines()] == [
        "central difference", "forward"]


def test_zero_errors_are_left_out_of_the_log_plot() -> None:
    eps = np.array([1e-1, 1e-2, 1e-3])
    ax = plot_difference_errors(eps, np.array([1e-2, 0.0, 1e-6]), guides=False)
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), [1e-1, 1e-3])


@pytest.mark.parametrize("eps, errors, message", [
    ([1e-1, 1e-2], [1.0], "same length"),
    ([], [], "empty"),
    ([1e-1, -1e-2], [1.0, 1.0], "positive"),
    ([1e-1, 1e-2], [1.0, -1.0], "absolute errors"),
])
def test_bad_curves_are_refused_with_a_reason(eps, errors, message) -> None:
    with pytest.raises(ValueError, match=message):
        plot_difference_errors(eps, errors)


# ------------------------------------------------------------------ plot_decision_boundary
def test_decision_boundary_calls_the_score_once_on_the_whole_grid() -> None:
    points = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0], [0.0, 2.0]])
    labels = np.array([0, 0, 1, 1])
    calls = []

    def score(grid: np.ndarray) -> np.ndarray:
        calls.append(grid.copy())
        return grid[:, 0] - grid[:, 1]

    ax = plot_decision_boundary(score, points, labels, resolution=30, margin=0.5)
    assert len(calls) == 1 and calls[0].shape == (900, 2)
    for column in (0, 1):  # the data span [0, 2] plus the margin on each side
        assert calls[0][:, column].min() == pytest.approx(-0.5)
        assert calls[0][:, column].max() == pytest.approx(2.5)
    scattered = {c.get_label(): c.get_offsets() for c in ax.collections
                 if c.get_label().startswith("class")}
    np.testing.assert_allclose(scattered["class 0"], points[:2])
    np.testing.assert_allclose(scattered["class 1"], points[2:])
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert legend == ["class 0", "class 1"]


def test_the_boundary_line_is_where_the_score_equals_the_threshold() -> None:
    points = np.array([[0.0, 0.0], [2.0, 2.0]])
    ax = plot_decision_boundary(lambda g: g[:, 0] + g[:, 1], points, np.array([0, 1]),
                                threshold=2.0, resolution=41)
    from matplotlib.contour import ContourSet

    (boundary,) = [c for c in ax.collections
                   if isinstance(c, ContourSet) and list(c.levels) == [2.0]]
    vertices = np.concatenate([path.vertices for path in boundary.get_paths()])
    assert len(vertices) > 10
    np.testing.assert_allclose(vertices.sum(axis=1), 2.0, atol=1e-9)


def test_decision_boundary_refuses_bad_shapes() -> None:
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        plot_decision_boundary(lambda g: g[:, 0], np.zeros((4, 3)), np.zeros(4))
    with pytest.raises(ValueError, match="4 points but 3 labels"):
        plot_decision_boundary(lambda g: g[:, 0], np.zeros((4, 2)), np.zeros(3))
    with pytest.raises(ValueError, match="one number per point"):
        plot_decision_boundary(lambda g: np.zeros(7), np.eye(2), np.array([0, 1]))


# ------------------------------------------------------------------ plot_loss_curve
def test_loss_curve_plots_one_point_per_step() -> None:
    losses = [1.0, 0.5, 0.25, 0.2]
    ax = plot_loss_curve(losses, log_scale=True)
    (line,) = ax.get_lines()
    np.testing.assert_allclose(line.get_xdata(), [0, 1, 2, 3])
    np.testing.assert_allclose(line.get_ydata(), losses)
    assert ax.get_yscale() == "log"


def test_an_empty_loss_history_is_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        plot_loss_curve([])


# ------------------------------------------------------------------ plot_matrix
def test_matrix_colours_are_symmetric_around_zero() -> None:
    ax = plot_matrix([[0.0, -2.0], [1.0, 0.5]], title="J")
    (image,) = ax.get_images()
    assert image.get_clim() == (-2.0, 2.0)  # 0 sits in the middle of the scale: white
    np.testing.assert_array_equal(image.get_array(), [[0.0, -2.0], [1.0, 0.5]])
    assert ax.get_title() == "J" and ax.get_xlabel() == "input j"
    assert len(ax.figure.axes) == 2  # the heat map and its colour bar


def test_an_all_zero_matrix_still_has_a_scale() -> None:
    (image,) = plot_matrix(np.zeros((2, 3)), colorbar=False).get_images()
    assert image.get_clim() == (-1.0, 1.0)


@pytest.mark.parametrize("bad", [[1.0, 2.0], np.zeros((0, 3)), np.zeros((2, 2, 2))])
def test_a_matrix_must_be_non_empty_and_2d(bad) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="non-empty 2-D array, got shape"):
        plot_matrix(bad)
