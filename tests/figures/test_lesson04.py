"""Lesson 04's pictures show what minigrad does: leaves, a view's shared version, detach."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from minigrad.figures import lesson04  # noqa: E402


def test_the_leaves_graph_shows_a_constant_leaf_and_non_leaves() -> None:
    source = lesson04.leaves_graph().source
    assert 'label="w (3,)"' in source and 'label="scaled (3,)", shape="record", style="dashed"' \
        in source and "mixed (3,)" in source


def test_a_write_through_the_view_changes_the_base_and_the_shared_version() -> None:
    example = lesson04.view_example()
    assert example["row_base_is_b"]
    assert example["before"].tolist() == [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]
    assert example["after"].tolist() == [[4.0, 8.0, 12.0], [8.0, 10.0, 12.0]]
    assert example["versions_before"] == (0, 0) and example["versions_after"] == (1, 1)
    assert "is at version 1; expected version 0" in example["error"]


def test_the_detach_graph_has_one_path_to_x_and_a_none() -> None:
    source = lesson04.detach_graph().source
    assert source.count("AccumulateGrad") == 1 and '"None"' in source
