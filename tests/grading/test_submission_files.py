"""Reading a submission as a determined student would attack it: swapped folders and files while it is read.

A student who can write their folder while it is graded (grading in place on a shared
JupyterHub) swaps, thousands of times a second, a folder in the middle of a file's path with
a link to the answer keys (``renameat2(RENAME_EXCHANGE)``), or a file with a FIFO; or hands in
a notebook whose cells are each just small enough to be parsed in the grader's process. Each
test fails on a grader that checks a path and then reopens it by name, or parses cells before
adding up their size.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from minigrad.cli import main as cli_main
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import source_path, student_file_name
from minigrad.grading import files, submission
from minigrad.grading.submission import find_sources
from minigrad.course.catalog import find_lesson

LESSON01 = find_lesson(1)
FILE01 = student_file_name(LESSON01)
#: In the key's file only: a source holding it means the grader read the key.
MARKER = "# THE-PRIVATE-KEY-WAS-READ"
FOLDERS = 30

#: Exchanges random pairs of paths (given as argv pairs) until killed: the student's side.
SWAPPER = textwrap.dedent("""
    import ctypes, os, random, sys
    libc = ctypes.CDLL(None, use_errno=True)
    pairs = [(os.fsencode(a), os.fsencode(b)) for a, b in zip(sys.argv[1::2], sys.argv[2::2])]
    print("swapping", flush=True)
    while True:
        a, b = random.choice(pairs)
        libc.renameat2(-100, a, -100, b, 2)  # AT_FDCWD, RENAME_EXCHANGE
""")


@pytest.fixture(params=["openat2", "walk"])
def route(request, monkeypatch) -> str:
    """Each test runs with openat2 (where the kernel has it) and with the O_NOFOLLOW walk."""
    if request.param == "openat2" and files.OPENAT2 is None:
        pytest.skip("no openat2 number known for this processor")
    monkeypatch.setattr(files, "use_openat2", request.param == "openat2")
    return request.param


class Swapper:
    """A process exchanging the given pairs of paths at random while it lives."""

    def __init__(self, pairs: list[tuple[Path, Path]]) -> None:
        argv = [str(path) for pair in pairs for path in pair]
        self.process = subprocess.Popen([sys.executable, "-c", SWAPPER, *argv],
                                        stdout=subprocess.PIPE)
        assert self.process.stdout.readline() == b"swapping\n"

    def __enter__(self) -> "Swapper":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.process.kill()
        self.process.wait()


def key_and_racing_folder(tmp_path: Path) -> tuple[Path, Path, list[tuple[Path, Path]]]:
    """The instructor's private key folder (lesson01.py holds the solutions) and alice's
    folder: 30 sub-folders each with a stub lesson01.py, and 30 hidden links to the key
    folder, to be exchanged with them."""
    key = tmp_path / "private-key"
    key.mkdir()
    for name in ("lesson01.py", "lesson01_checks.py"):
        shutil.copy(source_path(LESSON01).parent / name, key / name)
    with open(key / "lesson01.py", "a", encoding="utf-8") as handle:
        handle.write(f"\n{MARKER}\n")
    alice = tmp_path / "alice"
    pairs = []
    for number in range(FOLDERS):
        folder = alice / f"part{number:02d}"
        folder.mkdir(parents=True)
        (folder / "lesson01.py").write_text(python_file_text(LESSON01))  # the stubs
        link = alice / f".link{number:02d}"
        link.symlink_to(key.resolve(), target_is_directory=True)
        pairs.append((folder, link))
    return key, alice, pairs


# ---------------------------------------------------------------------------- links
def test_a_link_swapped_into_the_middle_of_a_path_never_reads_the_key(tmp_path: Path,
                                                                       route: str) -> None:
    _, alice, pairs = key_and_racing_folder(tmp_path)
    refused = 0
    with Swapper(pairs):
        for _ in range(150):
            sources, notes = find_sources(alice, LESSON01)
            leaked = [source.path for source in sources if MARKER in source.code]
            assert not leaked, f"the grader read the private key as {leaked}"
            refused += sum("a symbolic link" in note for note in notes)
    assert refused > 0, "the race never ran: the test proves nothing"


def test_the_grader_never_grades_the_key_through_a_swapped_link(tmp_path: Path) -> None:
    """The issue's attack end to end: `minigrad grade alice --one --exercises private-key`
    gave 2/2 "usually at the first try"; here it must give 0 every time."""
    key, alice, pairs = key_and_racing_folder(tmp_path)
    results = tmp_path / "results.json"
    with Swapper(pairs):
        for _ in range(4):
            # --no-sandbox: the attack is on the grader's reading, before any child starts
            # (the stubs it grades are the test's own code).
            assert cli_main(["grade", str(alice), "--one", "--exercises", str(key), "--lesson",
                             "1", "--json", str(results), "--no-sandbox"]) == 0
            score = json.loads(results.read_text())["score"]
            assert score == 0, f"alice got {score} points by swapping in the key"


def test_a_classmate_s_file_behind_a_swapped_link_is_not_graded(tmp_path: Path,
                                                                route: str) -> None:
    bob = tmp_path / "class" / "bob"
    bob.mkdir(parents=True)
    (bob / FILE01).write_text(python_file_text(LESSON01, solutions=True) + f"\n{MARKER}\n")
    alice = tmp_path / "class" / "alice"
    pairs = []
    for number in range(FOLDERS):
        (alice / f"v{number:02d}").mkdir(parents=True)
        (alice / f"v{number:02d}" / FILE01).write_text(python_file_text(LESSON01))
        (alice / f".v{number:02d}").symlink_to(bob.resolve(), target_is_directory=True)
        pairs.append((alice / f"v{number:02d}", alice / f".v{number:02d}"))
    with Swapper(pairs):
        for _ in range(80):
            sources, _ = find_sources(alice, LESSON01)
            assert not any(MARKER in source.code for source in sources)


def test_links_anywhere_in_a_path_are_refused_with_a_note(tmp_path: Path, route: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / FILE01).write_text(python_file_text(LESSON01, solutions=True))
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "lesson01_link.py").symlink_to(elsewhere / FILE01)
    with files.SubmissionFolder(folder) as opened:
        (opened_path := folder / "inner").symlink_to(elsewhere, target_is_directory=True)
        with pytest.raises(files.Refused, match="a symbolic link"):
            opened.read(("inner", FILE01), 10**6)
        with pytest.raises(files.Refused, match="a symbolic link"):
            opened.read(("lesson01_link.py",), 10**6)
        with pytest.raises(OSError):
            opened.read(("..", "elsewhere", FILE01), 10**6)
    assert opened_path.is_symlink()
    sources, notes = find_sources(folder, LESSON01)
    assert sources == [] and "skipped lesson01_link.py: a symbolic link (submit the file " \
                              "itself)" in notes, notes


def test_a_hard_link_to_someone_else_s_file_is_refused(tmp_path: Path, route: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file another owner")
    key = tmp_path / "key.py"
    key.write_text(python_file_text(LESSON01, solutions=True))
    os.chown(key, 12345, 12345)
    folder = tmp_path / "work"
    folder.mkdir()
    os.link(key, folder / FILE01)
    sources, notes = find_sources(folder, LESSON01)
    assert sources == [] and any("a hard link" in note for note in notes), notes
    os.chown(key, 0, 0)  # the folder's owner's own file, with two names: an honest copy
    sources, _ = find_sources(folder, LESSON01)
    assert [source.path.name for source in sources] == [FILE01]


# ---------------------------------------------------------------------------- FIFOs
FIFO_RUN = textwrap.dedent("""
    import sys
    from minigrad.grading import files
    from minigrad.grading.submission import find_sources
    from minigrad.course.catalog import find_lesson
    files.use_openat2 = sys.argv[2] == "openat2"
    for _ in range(300):
        find_sources(sys.argv[1], find_lesson(1))
    print("done")
""")


def test_a_fifo_swapped_in_does_not_hang_the_grader(tmp_path: Path, route: str) -> None:
    """A FIFO opened for reading waits for a writer that never comes: the grader checked
    the name (a regular file), then opened whatever was there by then."""
    folder = tmp_path / "work"
    pairs = []
    for number in range(4):
        (folder / f"part{number}").mkdir(parents=True)
        (folder / f"part{number}" / FILE01).write_text(python_file_text(LESSON01))
        os.mkfifo(folder / f"part{number}" / f".{FILE01}")
        pairs.append((folder / f"part{number}" / FILE01, folder / f"part{number}" / f".{FILE01}"))
    with Swapper(pairs):
        # In a process of its own: a grader stuck in open() cannot be stopped from a thread.
        # The timeout only stops a hung grader (300 honest readings take about a second).
        run = subprocess.Popen([sys.executable, "-c", FIFO_RUN, str(folder), route],
                               stdout=subprocess.PIPE, env={**os.environ,
                                                            "PYTHONPATH": os.pathsep.join(sys.path)})
        try:
            out, _ = run.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            run.kill()
            run.wait()
            pytest.fail("the grader hung opening a FIFO")
    assert out == b"done\n"


def test_a_fifo_or_a_folder_with_a_lesson_s_name_is_refused_at_once(tmp_path: Path,
                                                                    route: str) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    os.mkfifo(folder / FILE01)
    sources, notes = find_sources(folder, LESSON01)
    assert sources == [] and notes == [f"skipped {FILE01}: not a regular file (a FIFO, "
                                       f"device, socket or folder)"], notes
    with files.SubmissionFolder(folder / FILE01) as fifo:  # given as the submission itself
        with pytest.raises(files.Refused, match="not a regular file"):
            fifo.read((), 10**6)


# ---------------------------------------------------------------------------- sizes
def test_a_file_that_grows_after_its_size_was_checked_is_cut_off(tmp_path: Path) -> None:
    path = tmp_path / "grows.py"
    path.write_text("x = 1\n" * 100)
    descriptor = os.open(path, os.O_RDONLY)
    try:
        assert files.read_regular(descriptor, 1000, ".py") == b"x = 1\n" * 100
        with open(path, "a") as handle:
            handle.write("y = 2\n" * 1000)
        with pytest.raises(files.Refused, match="more than the 0.001 MB"):
            files.read_regular(descriptor, 1000, ".py")
    finally:
        os.close(descriptor)


def test_a_notebook_of_many_just_small_enough_cells_is_refused_before_any_is_parsed(
        tmp_path: Path, monkeypatch) -> None:
    """The issue's notebook: 49 code cells of ~199 kB (each under the 200 kB parsed in the
    grader's process, 9.8 MB in all, under the 10 MB cap) cost 17 s of the grader's CPU before
    it was refused as more than 2 MB of code. Its size is now added up before any cell is
    parsed: no cell reaches the parser."""
    cell = "x = [" + "1, " * 66_000 + "]\n"  # ~198 kB of a list that is costly to parse
    assert 190_000 < len(cell) < 200_000
    notebook = {"cells": [{"cell_type": "code", "source": cell, "metadata": {}}
                          for _ in range(49)], "metadata": {}, "nbformat": 4,
                "nbformat_minor": 5}
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "01-big.ipynb").write_text(json.dumps(notebook))
    assert 9_000_000 < (folder / "01-big.ipynb").stat().st_size < submission.MAX_NOTEBOOK_BYTES
    (folder / FILE01).write_text(python_file_text(LESSON01, solutions=True))
    parsed: list[int] = []

    def counting(original):
        def wrapper(texts):
            sizes = [len(text) for text in (texts if isinstance(texts, list) else [texts])]
            parsed.extend(size for size in sizes if size > 100_000)
            return original(texts)
        return wrapper

    from minigrad.grading import parsing
    monkeypatch.setattr(submission, "analyse", counting(parsing.analyse))
    monkeypatch.setattr(submission, "analyse_all", counting(parsing.analyse_all),
                        raising=False)
    sources, notes = find_sources(folder, LESSON01)
    assert [source.path.name for source in sources] == [FILE01]
    assert "skipped 01-big.ipynb: more than 2 MB of code" in notes, notes
    assert parsed == [], f"{len(parsed)} large cells were parsed before the refusal"


def test_long_notebook_cells_are_parsed_in_the_helper_not_in_the_grader(monkeypatch) -> None:
    """Cells under 2 MB in all, each under the in-process limit, but long together: parsed
    in one limited helper process, not one by one in the grader's."""
    from minigrad.grading import parsing

    here: list[int] = []
    original = parsing.analyse_here
    monkeypatch.setattr(parsing, "analyse_here",
                        lambda text: here.append(len(text)) or original(text))
    cell = "x = [" + "1, " * 50_000 + "]\ncheck('01.1', f)\n"
    notebook = json.dumps({"cells": [{"cell_type": "code", "source": cell, "metadata": {}}
                                     for _ in range(3)]})
    code = submission.notebook_code_from_text(notebook)
    assert here == [] and "check(" not in code and code.count("x = [") == 3


# ---------------------------------------------------------------------------- a class
def test_a_class_member_swapped_for_a_link_after_the_listing_is_not_followed(
        tmp_path: Path) -> None:
    """In a drop folder students can rename their own entries in (mode 1733, say), mallory
    swaps her folder for a link to the key between the listing of the class and the grading
    of her folder."""
    key, _, _ = key_and_racing_folder(tmp_path)
    klass = tmp_path / "class"
    for student in ("alice", "bob", "mallory"):  # a class even while mallory is a link
        (klass / student).mkdir(parents=True)
        (klass / student / "lesson01.py").write_text(python_file_text(LESSON01))
    (klass / ".mallory").symlink_to(key.resolve(), target_is_directory=True)
    out = tmp_path / "out"
    with Swapper([(klass / "mallory", klass / ".mallory")]):
        for _ in range(6):
            shutil.rmtree(out, ignore_errors=True)
            # 1 when mallory was a link at her turn: not graded, and said so
            assert cli_main(["grade", str(klass), "--exercises", str(key), "--lesson", "1",
                             "--out", str(out), "--no-sandbox", "--jobs", "1"]) in (0, 1)
            scores = {path.stem: json.loads(path.read_text())["score"]
                      for path in out.glob("*.json")}
            assert scores.get("alice") == scores.get("bob") == 0, scores
            assert scores["mallory"] in (0, None), f"mallory got the key graded: {scores}"


def test_without_openat2_the_walk_takes_over(tmp_path: Path, monkeypatch) -> None:
    """A kernel before 5.6, or a container's seccomp profile refusing unknown calls (ENOSYS;
    EPERM in older Docker profiles), must not make every file unreadable."""
    import ctypes
    import errno

    folder = tmp_path / "work"
    (folder / "a").mkdir(parents=True)
    (folder / "a" / FILE01).write_text("x = 1\n")
    for number in (errno.ENOSYS, errno.EPERM):
        class Refusing:
            def syscall(self, *args: object) -> int:
                ctypes.set_errno(number)
                return -1

        monkeypatch.setattr(files, "_libc", Refusing())
        monkeypatch.setattr(files, "use_openat2", True)
        with files.SubmissionFolder(folder) as opened:
            assert opened.read(("a", FILE01), 100) == b"x = 1\n"
        assert files.use_openat2 is False


def test_a_notebook_of_many_tiny_cells_is_refused_before_any_is_parsed(monkeypatch) -> None:
    """Each cell becomes a cell header plus its code: 80 000 one-line cells are 2.7 MB of
    code to join and 80 000 parses, though their text adds up to well under 2 MB."""
    parsed: list[int] = []
    monkeypatch.setattr(submission, "analyse_all", lambda texts: parsed.append(len(texts)))
    notebook = json.dumps({"cells": [{"cell_type": "code", "source": "x", "metadata": {}}]
                           * 80_000})
    with pytest.raises(files.Refused, match="more than 2 MB of code"):
        submission.notebook_code_from_text(notebook)
    assert parsed == []
