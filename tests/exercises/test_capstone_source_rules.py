"""The capstone's source rules refuse getattr on minigrad, not on the student's own objects."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from minigrad.exercises.lessons import lesson08 as reference
from minigrad.exercises.lessons.lesson08_checks import _check_capstone_source

SOURCE = Path(inspect.getfile(reference)).read_text(encoding="utf-8")
FINAL = "    return capstone_report(model, layers, optimizer, losses, recorder)\n"


def _before_final(line: str) -> str:
    assert SOURCE.count(FINAL) == 1
    return SOURCE.replace(FINAL, f"    {line}\n{FINAL}")


@pytest.mark.parametrize("line", [
    'first = getattr(model, "weight", None)',
    'names = [getattr(model, "bias")]',
])
def test_getattr_on_the_students_own_objects_is_allowed(line: str) -> None:
    assert _check_capstone_source(_before_final(line)) is None


@pytest.mark.parametrize("line", [
    'conv = getattr(F, "conv2d")',              # a module, and a refused name
    'relu = getattr(F, "relu")',                # a module: minigrad, not the student's own
    'node = getattr(loss, "next_functions")',   # a refused attribute, by another route
    'kind = getattr(model, "__class__")',       # a dunder
    'conv = getattr(model, "conv" + "1")',      # a name that cannot be read
])
def test_getattr_that_reaches_minigrad_or_hides_its_name_is_refused(line: str) -> None:
    message = _check_capstone_source(_before_final(line))
    assert message is not None and "getattr" in message, message
