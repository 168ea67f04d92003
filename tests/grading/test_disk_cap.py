"""The user mode's 64 MB cap on a child's files counts what the child holds, named or not.

No tmpfs caps the user mode's folder: its supervisor adds up the files below it. A file
unlinked (or replaced by a rename, or made with ``O_TMPFILE``) while the child keeps it open
has no name there: 40 files of 3.9 MB held that way took 156 MB and were never stopped (200
took 744 MB). In the user mode seccomp now refuses to take a file's last name away (``unlink``,
a ``rename`` that replaces, ``O_TMPFILE``), so whatever the child holds stays in its folder and
is counted. Each route failed on the grader before (checked).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.grader_attacks import attack, only_01_1_lost
from support.student_user import grade_in_user_mode, needs_user_mode

#: Each route writes 40 files of 3.9 MB (156 MB), keeping every one open without a name.
ROUTES = {
    "unlinked": """
        handle = open(f"f{index}", "wb")
        handle.write(block)
        os.unlink(f"f{index}")
    """,
    "replaced by a rename": """
        handle = open(f"f{index}", "wb")
        handle.write(block)
        open("next", "wb").close()
        os.rename("next", f"f{index}")
    """,
    "O_TMPFILE": """
        handle = os.fdopen(os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600), "wb")
        handle.write(block)
    """,
}


@needs_user_mode
@pytest.mark.parametrize("route", ROUTES)
def test_files_without_a_name_count_against_the_cap(tmp_path: Path, route: str) -> None:
    body = ("\nblock = b'x' * 3_900_000\nheld = []\nfor index in range(40):\n"
            + "\n".join("    " + line.strip() for line in ROUTES[route].strip().splitlines())
            + "\n    held.append(handle)\nfound.append('held everything')\n")
    results = tmp_path / "results.json"
    done = grade_in_user_mode(tmp_path, "grade", str(attack(tmp_path / "submission", body)),
                              "--json", str(results), "--timeout", "20", "--lesson", "1")
    assert done.returncode == 0, done.stderr
    output = only_01_1_lost(json.loads(results.read_text()))
    assert "held everything" not in output, output
    # Refused outright (the name cannot be taken away: EPERM), or, had it been kept, stopped.
    assert "PermissionError" in output or "wrote more than 64 MB of files" in output, output


@needs_user_mode
def test_named_files_held_open_are_still_stopped(tmp_path: Path) -> None:
    """The same 156 MB with names: the supervisor stops the child past 64 MB."""
    body = """
    block = b"x" * 3_900_000
    held = []
    for index in range(40):
        handle = open(f"f{index}", "wb")
        handle.write(block)
        handle.flush()
        held.append(handle)
    found.append("held everything")
    """
    results = tmp_path / "results.json"
    done = grade_in_user_mode(tmp_path, "grade", str(attack(tmp_path / "submission", body)),
                              "--json", str(results), "--timeout", "20", "--lesson", "1")
    assert done.returncode == 0, done.stderr
    output = only_01_1_lost(json.loads(results.read_text()))
    assert "wrote more than 64 MB of files" in output, output


@needs_user_mode
def test_what_keeps_names_still_works(tmp_path: Path) -> None:
    """Removing a folder and a rename that replaces nothing (RENAME_NOREPLACE, as
    ``renameat2`` makes it) still work; removing or replacing a file does not."""
    body = """
    libc = ctypes.CDLL(None, use_errno=True)
    os.mkdir("empty")
    found.append(_try(lambda: os.rmdir("empty")))
    open("a", "w").close()
    found.append(_try(lambda: (libc.syscall(316, -100, b"a", -100, b"b", 1), ctypes.get_errno())))
    found.append(_try(lambda: sorted(os.listdir("."))))
    open("c", "w").close()
    found.append(_try(lambda: os.rename("c", "b")))
    found.append(_try(lambda: os.unlink("b")))
    """
    results = tmp_path / "results.json"
    done = grade_in_user_mode(tmp_path, "grade", str(attack(tmp_path / "submission", body)),
                              "--json", str(results), "--timeout", "20", "--lesson", "1")
    assert done.returncode == 0, done.stderr
    output = only_01_1_lost(json.loads(results.read_text()))
    attempts = output.splitlines()[0].split("ValueError: ", 1)[1].split(" | ")
    assert attempts == ["None", "(0, 0)", "['b']", "PermissionError[1]",
                        "PermissionError[1]"], output
