"""``minigrad grade --container IMAGE``: the container writes only into a fresh folder.

Graded code runs with ``--no-sandbox`` inside the container, so whatever the container may
write, graded code may write. It used to get the parent folder of ``--csv``/``--json``
read-write (in the README's example, a classmate's submission was rewritten there). Here a fake
engine plays the container, and the graded code in it: it writes what it likes into every
folder mounted read-write.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from minigrad.cli import main as cli_main
from minigrad.course.catalog import find_lesson
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import student_file_name
from minigrad.grading.container import container_command

FILE01 = student_file_name(find_lesson(1))

#: The fake engine: records its arguments, then, as hostile graded code would, writes into
#: each read-write mount (and tries the read-only ones), plants a link where the results go,
#: and writes forged results.
ENGINE = """#!{python}
import json, os, sys
args = sys.argv[1:]
open({record!r}, "w").write("\\n".join(args))
mounts = [args[i + 1].split(":") for i, a in enumerate(args) if a == "-v"]
for host, inside, mode in mounts:
    if mode == "rw":
        for name in os.listdir(host):
            pass
        os.symlink({victim!r}, os.path.join(host, "results.json"))
        os.mkfifo(os.path.join(host, "scores.csv"))
        os.makedirs(os.path.join(host, "grades"), exist_ok=True)
        os.symlink({victim!r}, os.path.join(host, "grades", "mallory.json"))
        with open(os.path.join(host, "grades", "alice.json"), "w") as f:
            json.dump({{"score": 15}}, f)
"""


def namespace(tmp_path: Path, **changes) -> argparse.Namespace:
    values = dict(path=tmp_path, json=tmp_path / "out" / "r.json", csv=None, out=None,
                  exercises=None, lesson="1", timeout=5.0, seed=7, memory=2048, jobs=2,
                  container="minigrad:latest", one=False)
    values.update(changes)
    return argparse.Namespace(**values)


def test_only_the_fresh_folder_is_writable(tmp_path: Path) -> None:
    staging = tmp_path / "staging"
    staging.mkdir()
    (tmp_path / FILE01).write_text("x = 1\n")
    command = container_command(namespace(tmp_path, csv=tmp_path / "scores.csv"), "docker",
                                staging)
    text = " ".join(command)
    assert command[:2] == ["docker", "run"] and "--network none" in text
    mounts = [command[i + 1] for i, item in enumerate(command) if item == "-v"]
    assert [mount for mount in mounts if mount.endswith(":rw")] == [
        f"{staging.resolve()}:/grading/out:rw"]
    assert f"{tmp_path.resolve()}:/grading/in/{tmp_path.name}:ro" in mounts
    assert command[-1] == "--no-sandbox" and "--json /grading/out/results.json" in text
    assert "--csv /grading/out/scores.csv" in text and "--one" not in command
    assert "--one" in container_command(namespace(tmp_path, one=True), "docker", staging)
    class_options = namespace(tmp_path, lms="canvas", regrade="alice", verbose=True)
    inner = container_command(class_options, "docker", staging)  # class-run options go in
    assert " --lms canvas" in " ".join(inner) and " --regrade alice" in " ".join(inner)
    assert "--verbose" in inner


def test_a_class_run_writes_its_grades_into_the_fresh_folder(tmp_path: Path) -> None:
    """With --csv and no --out, the per-student results once went beside the read-only
    submissions; now always into the fresh folder."""
    classroom = tmp_path / "class"
    for name in ("alice", "bob"):
        (classroom / name).mkdir(parents=True)
        (classroom / name / FILE01).write_text("x = 1\n")
    command = container_command(namespace(classroom, json=None, csv=tmp_path / "s.csv"),
                                "docker", tmp_path)
    text = " ".join(command)
    assert "--out /grading/out/grades" in text and "--csv /grading/out/scores.csv" in text


def test_hostile_code_in_the_container_reaches_nothing_outside(tmp_path: Path, monkeypatch,
                                                               capsys) -> None:
    victim = tmp_path / "class" / "bob" / FILE01
    victim.parent.mkdir(parents=True)
    victim.write_text("bob's work\n")
    alice = tmp_path / "class" / "alice" / FILE01
    alice.parent.mkdir(parents=True)
    alice.write_text(python_file_text(find_lesson(1)))
    record = tmp_path / "args.txt"
    engine = tmp_path / "bin" / "podman"
    engine.parent.mkdir()
    engine.write_text(ENGINE.format(python=sys.executable, record=str(record),
                                    victim=str(victim)))
    engine.chmod(0o755)
    monkeypatch.setenv("PATH", str(engine.parent))
    out = tmp_path / "grades"
    status = cli_main(["grade", str(tmp_path / "class"), "--container", "grader:1",
                       "--lesson", "1", "--csv", str(tmp_path / "scores.csv"),
                       "--json", str(tmp_path / "all.json"), "--out", str(out)])
    assert status == 1  # the container wrote no usable results.json nor scores.csv
    assert "wrote no results" in capsys.readouterr().err
    assert victim.read_text() == "bob's work\n"
    assert not (tmp_path / "all.json").exists() and not (tmp_path / "scores.csv").exists()
    assert sorted(os.listdir(out)) == ["alice.json"]  # the regular file; not the link
    assert json.loads((out / "alice.json").read_text()) == {"score": 15}
    args = record.read_text().splitlines()
    assert args[:2] == ["run", "--rm"] and "grader:1" in args and args[-1] == "--no-sandbox"
    assert not any(item.startswith("/tmp/minigrad-container-") and Path(item).exists()
                   for mount in args for item in mount.split(":"))  # the fresh folder: gone


def test_container_mode_copies_the_results_out(tmp_path: Path, monkeypatch) -> None:
    engine = tmp_path / "bin" / "docker"
    engine.parent.mkdir()
    engine.write_text(f"#!{sys.executable}\nimport sys\na = sys.argv[1:]\n"
                      "out = [m.split(':')[0] for i, x in enumerate(a[:-1]) if x == '-v'\n"
                      "       for m in [a[i + 1]] if m.endswith(':rw')][0]\n"
                      "open(out + '/results.json', 'w').write('{\"score\": 3}')\n")
    engine.chmod(0o755)
    monkeypatch.setenv("PATH", str(engine.parent))
    submission = tmp_path / FILE01
    submission.write_text(python_file_text(find_lesson(1)))
    target = tmp_path / "out" / "results.json"
    assert cli_main(["grade", str(submission), "--container", "grader:1", "--lesson", "1",
                     "--json", str(target)]) == 0
    assert json.loads(target.read_text()) == {"score": 3}
