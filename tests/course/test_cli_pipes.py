"""Every `minigrad` command ends quietly when its reader stops reading (`... | head`)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

COMMANDS = [["lessons"], ["figures", "--list"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: " ".join(command))
def test_a_closed_pipe_ends_the_command_without_a_traceback(command: list[str]) -> None:
    reader, writer = os.pipe()
    os.close(reader)  # the reader is gone before the first line: every write meets EPIPE
    process = subprocess.Popen([sys.executable, "-m", "minigrad", *command], stdout=writer,
                               stderr=subprocess.PIPE)
    os.close(writer)
    _, stderr = process.communicate(timeout=120)
    assert b"Traceback" not in stderr and b"BrokenPipeError" not in stderr, stderr.decode()
    assert process.returncode == 0
