"""A student's wrong solution, judged as the grader judges it: the lesson's reference
solutions with one line changed, run on an exercise's visible cases and on hidden cases."""

from __future__ import annotations

import copy
import importlib
from types import ModuleType

import numpy as np

from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.source import all_exercises, remove_markers, source_text
from minigrad.exercises.codec import decode, encode
from minigrad.exercises.mistakes import name_raised
from minigrad.exercises.spec import judge


def student(number: int, *replaced: tuple[str, str]) -> ModuleType:
    """The lesson's reference solutions as a student's file, with each ``old`` replaced by
    ``new`` (each ``old`` must occur in the file)."""
    text = remove_markers(source_text(find_lesson(number)))
    for old, new in replaced:
        assert old in text, old
        text = text.replace(old, new)
    module = ModuleType(f"student{number:02d}")
    exec(compile(text, f"student{number:02d}.py", "exec"), module.__dict__)
    return module


def failed_messages(exercise_id: str, *replaced: tuple[str, str],
                    seed: int = 0) -> tuple[list[str], list[str]]:
    """The messages of the visible cases and of the hidden cases (drawn with ``seed``) that
    the wrong solution fails: ``replaced`` applied to the reference solutions of the
    exercise's lesson."""
    number = int(exercise_id.split(".")[0])
    exercise = all_exercises()[exercise_id][1]
    module = importlib.import_module(f"minigrad.exercises.lessons.lesson{number:02d}")
    wrong = student(number, *replaced)
    return tuple(  # type: ignore[return-value]
        _failed(exercise, module, wrong, cases)
        for cases in (exercise.visible(), exercise.hidden(np.random.default_rng(seed))))


def _failed(exercise, module: ModuleType, wrong: ModuleType,  # type: ignore[no-untyped-def]
            cases) -> list[str]:
    messages = []
    for args in cases:
        args = decode(encode(args))
        expected = decode(encode(getattr(module, exercise.function)(*copy.deepcopy(args))))
        try:
            got = decode(encode(getattr(wrong, exercise.function)(*copy.deepcopy(args))))
        except Exception as error:  # noqa: BLE001 — raised: named as check() names it
            messages.append(name_raised(exercise.compare, expected,
                                        f"{type(error).__name__}: {error}", args))
            continue
        message, credit = judge(exercise, expected, got, args)
        if credit < 1:
            messages.append(message or "")
    return messages


def assert_named(exercise_id: str, replaced: tuple[str, str], sentence: str,
                 seeds: range = range(1), alike: tuple[str, ...] = ()) -> None:
    """The wrong solution fails, its mistake is named on a visible case (or, with several
    ``seeds``, on a hidden case: for a mistake no visible case tells from another), and on
    every hidden case it fails (random inputs, where no two mistakes give the same answer,
    except the ``alike`` ones, named instead where the two agree)."""
    named = False
    for seed in seeds:
        visible, hidden = failed_messages(exercise_id, replaced, seed=seed)
        named = named or any(sentence in message for message in visible + hidden)
        for message in hidden:
            assert any(words in message for words in (sentence, *alike)), message
    if len(seeds) == 1:
        assert visible, "the wrong solution passes every visible case"
        assert any(sentence in message for message in visible), visible
    assert named, "no case names the mistake"
