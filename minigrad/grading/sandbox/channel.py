"""The grader's end of the two pipes to a sandboxed child: requests out, answers back.

Every message is one line of JSON. Neither direction ever blocks past a deadline, so a child
that stops reading its requests, never answers, or floods the answer pipe costs the grader
at most its time limit; and nothing the child writes is trusted: an answer that is not a
line of JSON, or is too long, reads as ``"garbage"`` or ``"too-long"``. "Too long" counts
everything the child sent since the last request (:meth:`Channel.new_call`): all the answers
of one call share the exercise's :class:`.AnswerLimits` (``bytes``, 1 MB unless the exercise
says otherwise), since decoding them is the grader's own work (eight answers just under 1 MB
each, every one ``[[[]], [[]], ...]``, cost the grader 16 s of its CPU per student). Before a
line is parsed, its lists, values, nesting and numbers are counted in its text
(:func:`.answer_limits.census`): a line over a limit is not parsed, and reads as an
:class:`Oversize` that names the limit.
"""

from __future__ import annotations

import json
import os
import select
import time
from typing import Any, Optional

from minigrad.exercises.answer_limits import AnswerLimits, Census, census


class Oversize(str):
    """An answer line over one of the call's :class:`.AnswerLimits`, not parsed: the text
    says which limit (for the student)."""


class Channel:
    """Request pipe (written by us) and answer pipe (read by us) of one child."""

    def __init__(self, requests: int, responses: int) -> None:
        self.limits = AnswerLimits()  # the budget of the current call's answers
        self.seen = Census()  # what the current call's answers held so far
        self.requests = requests  # our write end of the child's request pipe
        self.responses = responses  # our read end of the child's answer pipe
        self.buffer = bytearray()  # answer bytes read but not yet returned as a message
        self.received = 0  # answer bytes read since the last request

    def new_call(self, limits: Optional[AnswerLimits] = None) -> None:
        """A request is about to go out: its answers start a fresh budget, ``limits`` (the
        exercise's; by default :class:`.AnswerLimits`'s)."""
        self.limits = limits or AnswerLimits()
        self.seen = Census()
        self.received = len(self.buffer)

    def has_stale_answers(self) -> bool:
        """True if an answer is waiting before any request was sent (the child, or something
        it left running, wrote on its own): its next answers cannot be trusted."""
        if self.buffer:
            return True
        try:
            ready, _, _ = select.select([self.responses], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(ready)

    def send(self, data: bytes, deadline: float) -> bool:
        """Write ``data`` to the child without ever blocking past ``deadline``."""
        os.set_blocking(self.requests, False)
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            _, writable, _ = select.select([], [self.requests], [], remaining)
            if not writable:
                return False
            try:
                written = os.write(self.requests, view)
            except BlockingIOError:
                continue
            except OSError:
                return True  # the child is gone; reading its answer says how
            view = view[written:]
        return True

    def read_message(self, deadline: float) -> Any:
        """The next line of JSON from the child; ``"timeout"``, ``"eof"``, ``"too-long"`` or
        ``"garbage"`` when there is none."""
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            ready, _, _ = select.select([self.responses], [], [], remaining)
            if not ready:
                return "timeout"
            try:
                chunk = os.read(self.responses, 1 << 20)
            except OSError:
                return "eof"
            if not chunk:
                return "eof"
            self.buffer += chunk
            self.received += len(chunk)
            if self.received > self.limits.bytes + 1000:
                return "too-long"
        end = self.buffer.index(b"\n")
        line = bytes(self.buffer[:end])
        del self.buffer[:end + 1]
        refused = census(line, self.limits, self.seen)
        if refused:
            return Oversize(refused)
        try:
            return json.loads(line)
        except (ValueError, RecursionError, UnicodeDecodeError):
            return "garbage"

    def close(self) -> None:
        for fd in (self.requests, self.responses):
            try:
                os.close(fd)
            except OSError:
                pass
