"""What the grader says about a child that did not answer properly, and the failure kinds it
believes from one that did.

Nothing the child sends is trusted: a ``kind`` it reports is kept only if the worker can send
it; how it died is read from its exit status, the tail of its output file and, when it has
one, its cgroup's out-of-memory count.
"""

from __future__ import annotations

import os
import signal
from typing import Optional

from minigrad.grading.sandbox.worker import KINDS


def kind(message: dict) -> str:
    """The failure kind the child reported, if it is one the worker can send (the child is
    not trusted: any other text, which could forge a status line, reads as "exception")."""
    reported = message.get("kind")
    return reported if isinstance(reported, str) and reported in KINDS else "exception"


def output_tail(descriptor: int, limit: int = 300) -> str:
    """The end of the child's output file, for the message ("" if it printed nothing)."""
    try:
        size = os.fstat(descriptor).st_size
        data = os.pread(descriptor, limit, max(0, size - limit))
    except OSError:
        return ""
    text = data.decode(errors="replace").strip()
    return f"; last output: …{text}" if text else ""


def death(code: Optional[int], during: str, tail: str, memory_mb: int, output_limit: int,
          out_of_memory: bool) -> tuple[str, str]:
    """(kind, message) for a child that exited with ``code`` (minus a signal's number)."""
    if out_of_memory:
        return "memory", (f"ran out of memory {during} (killed: its processes together used "
                          f"more than --memory, {memory_mb} MB){tail}")
    if code is not None and code < 0:
        number = -code
        if number == signal.SIGXFSZ:
            return "flood", (f"printed more than {output_limit // 1_000_000} MB of "
                             f"output {during} (stopped)")
        name = signal.Signals(number).name if number in signal.valid_signals() else number
        return "crash", f"the process was killed by signal {name} {during}{tail}"
    hint = ""
    if tail.endswith("MemoryError"):  # (printed by the worker, or by the student's code)
        hint = (f" If that MemoryError is real, honest code may need more than --memory "
                f"({memory_mb} MB).")
    return "exit", (f"the process exited with code {code} (sys.exit/os._exit?) "
                    f"{during}{tail}{hint}")
