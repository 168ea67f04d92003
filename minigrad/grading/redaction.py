"""What a student is told about a hidden case: that it failed, and what kind of failure.

A hidden case is worth something only while its inputs and its expected answer are unknown:
a student who reads them from her results can hand in a table of answers. So the message of a
failed hidden case is built here from the failure's kind alone, in fixed words, never from
the comparator's message (which quotes the expected answer, and through a mistake's sentence
numbers of the case), nor from anything the submission sent (an exception's text, its
output, an answer that quotes the inputs: its child can write anything on the answer pipe).
Only a raised exception is named, and only when it is one of Python's own.

What is left is a few bits per case (which kind of failure), chosen by the submission; the
grader draws new hidden cases for every run and regrade, so what a student learns about one
run's cases is worth nothing in the next (unless the instructor asks for the same cases).
"""

from __future__ import annotations

import builtins
import re

#: The message of a hidden case that failed this way, by kind (see ``grader.STATUS_BY_KIND``).
HIDDEN_MESSAGES = {
    "not_implemented": "not attempted yet (raises NotImplementedError)",
    "missing": "the function is missing",
    "timeout": "took too long (stopped at the time limit)",
    "exit": "the process exited (sys.exit or os._exit?)",
    "crash": "the process was killed by a signal",
    "memory": "ran out of memory",
    "flood": "printed too much output",
    "disk": "wrote too many files",
    "garbage": "returned something that cannot be graded",
    "mutated": "changed an argument in place; leave the values you are given as they are",
    "oversize": "returned an answer larger than the grader reads (see the visible cases, or "
                "the exercise's limits in the instructions)",
    "exception": "raised an exception",
}

#: How a wrong answer differs (:func:`.spec.difference`), in words.
WRONG_MESSAGES = {
    "kind": "the wrong kind of value (a number, a list, an array…)",
    "shape": "the wrong shape (an array's shape, a list's length or a dict's keys)",
    "values": "wrong values",
}

_EXCEPTION_NAME = re.compile(r"([A-Za-z]{1,40}):")


def builtin_exception(message: str) -> str:
    """The name of the exception a child's message starts with (``"ValueError: …"``) when it
    is one of Python's built-in exceptions, else "": any other name is the submission's own
    text (a class can be named after the inputs)."""
    match = _EXCEPTION_NAME.match(message)
    if not match:
        return ""
    found = getattr(builtins, match.group(1), None)
    return match.group(1) if isinstance(found, type) and issubclass(found, BaseException) else ""


def hidden_message(kind: str, message: str = "", difference: str = "values",
                   right: tuple[str, ...] = (), parts: tuple[str, ...] = ()) -> str:
    """What a student sees of a failed hidden case (see the module docstring).

    ``kind``: why it failed (a key of ``grader.STATUS_BY_KIND``); ``message``: the full
    message, read only for a raised exception's name; for a wrong answer, ``difference``
    (``"kind"``, ``"shape"`` or ``"values"``) and, for an answer of several ``parts``, the
    names of those that are ``right``."""
    if kind == "wrong":
        text = WRONG_MESSAGES.get(difference, WRONG_MESSAGES["values"])
        if right:
            wrong = [name for name in parts if name not in right]
            text += f" (right: {', '.join(right)}; wrong: {', '.join(wrong)})"
        return text
    if kind == "exception":
        name = builtin_exception(message)
        return f"raised {name}" if name else HIDDEN_MESSAGES["exception"]
    return HIDDEN_MESSAGES.get(kind, "failed")
