"""Reading the Gradescope results JSON that `minigrad grade` writes."""

from __future__ import annotations


def by_exercise(results: dict) -> dict[str, tuple[float, float, str]]:
    """Exercise id -> (score, max score, all output) summed over its visible/hidden tests."""
    table: dict[str, tuple[float, float, str]] = {}
    for test in results["tests"]:
        exercise_id = test["name"].split()[0]
        score, max_score, output = table.get(exercise_id, (0.0, 0.0, ""))
        table[exercise_id] = (score + test["score"], max_score + test["max_score"],
                              output + test["output"] + "\n")
    return table
