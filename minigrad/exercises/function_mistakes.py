"""The mistakes any Function exercise can make, whatever the op: rows for the checks of the
exercises that hand a student's ``Function`` to the given ``run_function`` (lesson 03).

``run_function`` answers ``(y, [dL/dx, ...], verdict)``: what the student's forward returns,
each input's gradient as their backward computes it, and gradcheck's verdict ("passed", or
what it found). A mistake shows in one of the three:

* in y: a forward that computes another op (the exercise's own rows say which), or float32;
* in the gradients: minus the right ones, float32 rounding, a None for an input;
* in the verdict alone: a backward right for this grad_output only (one of ones, say).

:func:`compare_function` judges y and the gradients at the shared tolerance, and the verdict
only when they are right; :func:`verdict_said` is the last word when no row names the mistake.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np

from minigrad.exercises.mistakes import ATOL, RTOL, Case, Mistake, Raised, near, plain_words
from minigrad.exercises.spec import close

_CLOSE = close(rtol=RTOL, atol=ATOL)

#: How close float32 arithmetic comes to the float64 answer (float32 keeps about 7 digits).
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 1e-6


def _answer(value: Any) -> Optional[tuple]:
    """(y, gradients, verdict) when ``value`` has run_function's form, else None."""
    if isinstance(value, (list, tuple)) and len(value) == 3 \
            and isinstance(value[1], (list, tuple)):
        return tuple(value)
    return None


def compare_function(expected: Any, got: Any, args: tuple = ()) -> Optional[str]:
    """y and the gradients at the shared tolerance; when both are right, the verdict."""
    want, have = _answer(expected), _answer(got)
    if want is None or have is None:
        return _CLOSE(expected, got, args)
    message = _CLOSE(list(want[:2]), list(have[:2]), args)
    if message is not None or have[2] == want[2]:
        return message
    return ("your output and gradients are right for this case, but gradcheck, which tries "
            "every direction, finds that your backward and forward disagree")


def gradients(case: Case) -> list:
    """The student's gradients (empty when the answer has another form)."""
    answer = _answer(case.got)
    return list(answer[1]) if answer is not None else []


def output(case: Case) -> Any:
    answer = _answer(case.got)
    return answer[0] if answer is not None else None


def _output_right(case: Case) -> bool:
    return near(output(case), case.expected[0])


def _gradients_right(case: Case) -> bool:
    return near(gradients(case), list(case.expected[1]))


def _float32_near(got: Any, want: Any) -> bool:
    return near(got, want, rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL) and not near(got, want)


def _is_float32(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.dtype == np.float32


def raised_saying(*words: str) -> Callable[[Case], bool]:
    """A ``when`` for a mistake that raises an error whose text holds all of ``words``."""
    return lambda case: isinstance(case.got, Raised) and all(word in case.got for word in words)


def function_mistakes(names: Sequence[str]) -> list[Mistake]:
    """The rows every Function exercise shares, after its own; ``names`` are its gradients'
    names, in the order of forward's inputs ("dL/da", "dL/db")."""
    return [
        Mistake("your forward returns float32 numbers, which keep about 7 digits: the leaves "
                "are float64, and so must be what forward computes from them",
                when=lambda case: _is_float32(output(case)), group="forward"),
        Mistake("your forward's output is wrong, and your gradients are right: look again at "
                "what forward computes",
                when=lambda case: not _output_right(case) and _gradients_right(case),
                group="forward"),
        Mistake("your gradients are right to about 7 digits only: somewhere your backward "
                "computes in float32; keep float64 throughout",
                when=lambda case: not _is_float32(output(case))
                and _float32_near(gradients(case), list(case.expected[1]))),
        Mistake("your gradients have the wrong sign: each is minus the right one",
                part=1, gives=lambda case: [-np.asarray(g) for g in case.expected[1]]),
        *(Mistake(f"your backward returned None for {name}: return one gradient per input, "
                  "in the order of forward's arguments",
                  when=lambda case, index=index: _output_right(case)
                  and len(gradients(case)) > index and gradients(case)[index] is None)
          for index, name in enumerate(names)),
        Mistake("grad_output and the tensors of ctx.saved_tensors are minigrad Tensors, not "
                "numpy arrays: their .numpy() gives the array numpy's functions expect",
                raises=True, when=raised_saying("unexpected keyword argument 'axis'")),
    ]


def verdict_said(case: Case) -> bool:
    answer = _answer(case.got)
    return answer is not None and isinstance(answer[2], str) and answer[2] != "passed"


#: The last word, when no row names the mistake: what gradcheck found.
GRADCHECK_SAYS = Mistake(lambda case: f"gradcheck says: {plain_words(_answer(case.got)[2])}",
                         when=verdict_said)
