"""Exercise.timeout: an exercise whose cases need more time than the run's --timeout (the
lesson 08 capstone trains a network) gets its own limit for its call in the sandbox."""

from __future__ import annotations

import pytest
from support.grading_results import needs_sandbox

from minigrad.exercises.spec import Exercise


@pytest.mark.parametrize("timeout", [0, -1.0, float("inf"), "60"])
def test_an_exercise_timeout_must_be_a_positive_number(timeout) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        Exercise(id="09.1", function="f", points=2, title="t", hint="h", visible=lambda: [],
                 timeout=timeout)


@needs_sandbox
def test_the_sandbox_gives_a_call_its_own_time_limit() -> None:
    from minigrad.grading.sandbox.host import Sandbox

    code = "import time\ndef nap(seconds):\n    time.sleep(seconds)\n    return seconds\n"
    with Sandbox(code, timeout=1) as box:
        assert box.run("nap", [(1.5,)], timeout=5)[0].ok
        late = box.run("nap", [(1.5,)])[0]
        assert not late.ok and late.kind == "timeout" and "longer than 1 s" in late.message
