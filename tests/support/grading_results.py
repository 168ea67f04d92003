"""Reading the Gradescope results JSON that `minigrad grade` writes."""

from __future__ import annotations

import pytest

from minigrad.grading.sandbox.probe import sandbox_problem

#: Why graded code cannot be confined here ("" when it can): grading tests skip, saying so.
SANDBOX_PROBLEM = sandbox_problem()
needs_sandbox = pytest.mark.skipif(
    bool(SANDBOX_PROBLEM), reason=f"graded code cannot be confined here: {SANDBOX_PROBLEM}")


def by_exercise(results: dict) -> dict[str, tuple[float, float, str]]:
    """Exercise id -> (score, max score, all output) summed over its visible/hidden tests."""
    table: dict[str, tuple[float, float, str]] = {}
    for test in results["tests"]:
        exercise_id = test["name"].split()[0]
        score, max_score, output = table.get(exercise_id, (0.0, 0.0, ""))
        table[exercise_id] = (score + test["score"], max_score + test["max_score"],
                              output + test["output"] + "\n")
    return table
