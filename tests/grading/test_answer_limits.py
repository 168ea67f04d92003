"""The grader's own resources are bounded whatever a submission returns: each exercise's
answers are counted in their JSON text (bytes, lists and dicts, values, nesting, the length
of a number) before the grader parses them, and an answer over a limit fails its case with a
message naming the limit, at a small cost to the grader.

The route: 08.5's report replaced by 11 MB of ``[[],[],…]`` (the capstone allowed 12 MB of
answers) cost the grader 450 MB, decoded in its own process, for each submission graded at
once."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.capstone_routes import REFERENCE, with_capstone_body
from support.grading_results import needs_sandbox

from minigrad.course.catalog import find_lesson
from minigrad.exercises.answer_limits import AnswerLimits, Census, census
from minigrad.exercises.authoring.source import BUILTIN
from minigrad.exercises.codec import to_json
from minigrad.grading.grader import answer_key

CAPSTONE = next(exercise for exercise in BUILTIN.exercises(find_lesson(8))
                if exercise.id == "08.5")


def line(value) -> bytes:  # type: ignore[no-untyped-def]
    """An answer as the child sends it."""
    return json.dumps({"case": 0, "ok": True, "value": to_json(value)}).encode()


def refusal(value, limits: AnswerLimits = AnswerLimits()) -> str:  # type: ignore[no-untyped-def]
    return census(line(value), limits, Census()) or ""


# ---------------------------------------------------------------------------- the census
def test_each_limit_is_named_when_an_answer_breaks_it() -> None:
    assert "10,000 lists and dicts" in refusal([[]] * 20_000)
    assert "100,000 values" in refusal([0] * 150_000)
    assert "nests lists and dicts more than 32 deep" in refusal(
        json.loads("[" * 40 + "]" * 40))
    assert "number written with more than 40 characters" in refusal(int("9" * 60))
    small = AnswerLimits(containers=3, values=10, depth=2, number_chars=5)
    assert refusal([1, 2], small) == ""
    assert "3 lists and dicts" in refusal([[], [], []], small)
    assert "more than 10 values" in refusal(list(range(20)), small)
    assert "more than 5 characters" in refusal(123456, small)


def test_strings_do_not_count_as_brackets_commas_or_digits() -> None:
    text = "[[[[,,,,1234567890123456789012345678901234567890123,\"\\\"[[["
    assert refusal([text] * 10) == ""
    assert refusal({"k[{,": "x"}) == ""


def test_the_budget_of_values_and_containers_is_shared_by_the_answers_of_one_call() -> None:
    limits, seen = AnswerLimits(values=1000), Census()
    assert census(line(list(range(600))), limits, seen) is None
    assert "1,000 values" in (census(line(list(range(600))), limits, seen) or "")


def test_the_honest_answers_of_every_exercise_fit_well_within_their_limits() -> None:
    """The reference answers of every exercise but the capstone (whose report the grader
    does not compute: see the limits' note in lesson08_checks) pass a tenth of each limit."""
    for lesson in BUILTIN.lessons():
        key = answer_key(BUILTIN, lesson, 3)
        for exercise in BUILTIN.exercises(lesson):
            if exercise.id == "08.5":
                continue
            limits = exercise.limits
            tenth = AnswerLimits(limits.bytes // 10, limits.values // 10,
                                 limits.containers // 10, limits.depth // 3, 30)
            for visible in (True, False):
                lines = [line(case.expected) for case in key[exercise.id]
                         if case.visible == visible]
                seen = Census()
                assert sum(map(len, lines)) < tenth.bytes, exercise.id
                assert all(census(text, tenth, seen) is None for text in lines), exercise.id


def test_the_census_of_the_routes_answer_costs_little_memory() -> None:
    import tracemalloc

    text = b"[" + b"[]," * 3_600_000 + b"[]]"  # 10.8 MB
    tracemalloc.start()
    message = census(text, CAPSTONE.limits, Census())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert "lists and dicts" in (message or "")
    assert peak < 3 * len(text), f"the census took {peak / 1e6:.0f} MB"


# ---------------------------------------------------------------------------- the route
FORGED = '''
import sys
try:
    raise ValueError
except ValueError:
    namespace = sys.exc_info()[2].tb_frame.f_globals
namespace["capstone_report"] = lambda *rest: [[] for _ in range({count})]
model = layers = optimizer = None
losses = [1.0]
'''


@needs_sandbox
@pytest.mark.parametrize("count, limit", [(2_750_000, "9 MB"),  # 11 MB: the route
                                          (1_400_000, "10,000 lists and dicts")])  # 5.6 MB
def test_a_flood_of_empty_lists_costs_the_grader_little_memory(tmp_path: Path, count: int,
                                                               limit: str) -> None:
    text = with_capstone_body(REFERENCE, FORGED.format(count=count))
    script = textwrap.dedent(f'''
        import json, resource, sys
        from pathlib import Path
        sys.path.insert(0, {str(Path(__file__).parents[1])!r})
        from support.capstone_routes import capstone_score
        from minigrad.grading.grader import answer_key
        from minigrad.exercises.authoring.source import BUILTIN
        from minigrad.course.catalog import find_lesson
        answer_key(BUILTIN, find_lesson(8), 11)  # the grader's own work, before measuring
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        score, feedback = capstone_score(Path({str(tmp_path)!r}), "lists", {text!r})
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps([score, feedback, (after - before) // 1024]))
    ''')
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    score, feedback, grown_mb = json.loads(run.stdout.strip().splitlines()[-1])
    assert score == 0.0 and limit in feedback and "the most the grader reads" in feedback, \
        feedback
    print(f"the grader's peak memory grew by {grown_mb} MB")
    assert grown_mb < 60, f"the grader's peak memory grew by {grown_mb} MB"
