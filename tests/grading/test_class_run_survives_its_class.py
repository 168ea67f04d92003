"""A class run survives its class: each student's entry is graded, or reported on its own
line, whatever happens to it while the run lasts (it vanishes, becomes a link, cannot be read,
holds 10 000 files), and a failure of the grader on one student stops no one else."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.class_folders import make_class
from support.grading_results import needs_sandbox

from minigrad.cli import main as cli_main

#: Exchanges two paths with renameat2(RENAME_EXCHANGE) as fast as it can, until killed.
SWAPPER = textwrap.dedent("""
    import ctypes, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
    print("swapping", flush=True)
    while True:
        libc.renameat2(-100, a, -100, b, 2)  # AT_FDCWD, RENAME_EXCHANGE
""")



def csv_rows(path: Path) -> dict[str, dict[str, str]]:
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert len(rows) == len({row["student_id"] for row in rows}), "two rows for one student"
    return {row["student_id"]: row for row in rows}


@needs_sandbox
def test_a_member_swapped_for_a_dangling_link_while_the_class_is_listed(tmp_path: Path,
                                                                       capsys) -> None:
    """The issue's route: mallory exchanges her folder with a dangling link, over and over,
    while the grader lists a class folder holding 4 000 hidden files. It was `exit 1` and no
    results for anyone (FileNotFoundError from is_class_folder)."""
    klass = make_class(tmp_path, ["alice", "bob", "mallory"])
    for number in range(4000):
        (klass / f".hidden{number:04d}").write_bytes(b"")
    (klass / ".mallory").symlink_to(tmp_path / "nowhere")
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(klass / "mallory"),
                                str(klass / ".mallory")], stdout=subprocess.PIPE)
    try:
        assert swapper.stdout.readline() == b"swapping\n"
        for round_ in range(4):
            out, scores = tmp_path / f"out{round_}", tmp_path / f"scores{round_}.csv"
            status = cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out),
                               "--csv", str(scores)])
            printed = capsys.readouterr()
            assert status in (0, 1), printed.err[-2000:]  # 1: mallory said "not graded"
            rows = csv_rows(scores)
            assert sorted(rows) == ["alice", "bob", "mallory"]
            assert rows["alice"]["total"] == rows["bob"]["total"] == "15"
            mallory = rows["mallory"]
            assert mallory["total"] in ("15", "0") or "not graded" in mallory["error"], mallory
            assert [line.split()[0] for line in printed.out.splitlines()[1:4]] == [
                "alice", "bob", "mallory"]
    finally:
        swapper.kill()
        swapper.wait()


def test_whatever_happens_to_an_entry_it_has_its_own_line(tmp_path: Path, monkeypatch,
                                                         capsys) -> None:
    """After the class is listed: erin's folder vanishes, frank's becomes a link to alice's,
    gina's becomes a FIFO; dave's holds 10 000 files beside his work. Each has one row that says
    what happened, and no score unless graded (erin's and frank's were a 0 that looked real)."""
    from minigrad.grading import classroom

    klass = make_class(tmp_path, ["alice", "dave", "erin", "frank", "gina"])
    for number in range(10_000):
        (klass / "dave" / f"note{number:05d}.txt").write_bytes(b"")
    listed = classroom.class_members

    def listed_then_changed(path):  # type: ignore[no-untyped-def]
        members = listed(path)
        shutil.rmtree(klass / "erin")
        shutil.rmtree(klass / "frank")
        (klass / "frank").symlink_to(klass / "alice")
        shutil.rmtree(klass / "gina")
        os.mkfifo(klass / "gina")
        return members

    monkeypatch.setattr(classroom, "class_members", listed_then_changed)
    out, scores = tmp_path / "out", tmp_path / "scores.csv"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out), "--csv",
                     str(scores), "--no-sandbox", "--jobs", "2"]) == 1
    printed = capsys.readouterr()
    rows = csv_rows(scores)
    assert sorted(rows) == ["alice", "dave", "erin", "frank", "gina"]
    assert rows["alice"]["total"] == rows["dave"]["total"] == "15"
    for student, why in (("erin", "no longer in the class folder"),
                         ("frank", "is a symbolic link"),
                         ("gina", "neither a folder nor a regular file")):
        assert rows[student]["total"] == "" and why in rows[student]["error"], rows[student]
        assert float(rows[student]["seconds"]) >= 0  # a time, even for a student not graded
        results = json.loads((out / f"{student}.json").read_text())
        assert results["score"] is None and why in results["output"]
    assert "3 student(s) not graded" in printed.err
    assert "--regrade erin" in printed.err + rows["erin"]["error"]


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="drops root's file-reading capabilities with setpriv")
def test_an_unreadable_member_has_its_own_line(tmp_path: Path) -> None:
    """gina's folder has mode 000 and the grader cannot read it (root without
    CAP_DAC_OVERRIDE here, any other user elsewhere): it stopped the whole run."""
    klass = make_class(tmp_path, ["alice", "gina"])
    (klass / "gina").chmod(0)
    scores = tmp_path / "scores.csv"
    try:
        done = subprocess.run(
            ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", sys.executable,
             "-m", "minigrad.cli", "grade", str(klass), "--lesson", "1", "--out",
             str(tmp_path / "out"), "--csv", str(scores), "--no-sandbox"],
            capture_output=True, text=True, timeout=300)
    finally:
        (klass / "gina").chmod(0o755)
    assert done.returncode == 1, done.stderr[-2000:]
    rows = csv_rows(scores)
    assert rows["alice"]["total"] == "15"
    assert rows["gina"]["total"] == "" and "cannot be opened: Permission denied" in rows[
        "gina"]["error"]


def test_a_grader_failure_on_one_student_stops_no_one(tmp_path: Path, monkeypatch,
                                                     capsys) -> None:
    """Building one student's results raised (not an OSError): the whole run stopped with a
    traceback, and the students after her were never graded."""
    from minigrad.grading import classroom

    klass = make_class(tmp_path, ["alice", "bob", "carol", "mallory", "zoe"])
    real = classroom.gradescope_results

    def broken_for_mallory(result, student=None):  # type: ignore[no-untyped-def]
        if student == "mallory":
            raise TypeError("a grader bug")
        return real(result, student)

    monkeypatch.setattr(classroom, "gradescope_results", broken_for_mallory)
    out, scores = tmp_path / "out", tmp_path / "scores.csv"
    assert cli_main(["grade", str(klass), "--lesson", "1", "--out", str(out), "--csv",
                     str(scores), "--json", str(tmp_path / "all.json"), "--no-sandbox",
                     "--jobs", "2"]) == 1
    rows = csv_rows(scores)
    assert sorted(rows) == ["alice", "bob", "carol", "mallory", "zoe"]
    assert all(rows[name]["total"] == "15" for name in ("alice", "bob", "carol", "zoe"))
    assert rows["mallory"]["total"] == "" and "TypeError" in rows["mallory"]["error"]
    mallory = json.loads((out / "mallory.json").read_text())
    assert mallory["score"] is None and "NOT GRADED" in mallory["output"]
    assert json.loads((tmp_path / "all.json").read_text())["zoe"]["score"] == 15
    assert "mallory" in capsys.readouterr().err
