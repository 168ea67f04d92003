"""Held-out digits for the capstone: `minigrad held-out-digits`, the files it reads, and the
Gradescope bundle that carries them.

The digits here stand in for an instructor's own: the training split with its pixels moved by
one row (so no image is one that ships with minigrad), which the reference still mostly gets
right."""

from __future__ import annotations

import shutil
import stat
import zipfile
from pathlib import Path

import numpy as np
import pytest
from support.gradescope_bundles import stub_wheel
from support.grading_results import needs_sandbox

from minigrad.cli import main as cli_main
from minigrad.data import load_digits
from minigrad.data.digits import read_digits_file
from minigrad.exercises.authoring.generate import python_file_text
from minigrad.exercises.authoring.source import LESSON_SOURCES, ExerciseBank, lesson_for
from minigrad.exercises.lessons.lesson08_checks import HELD_OUT_FILE


def own_digits(count: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """``count`` training digits moved down one row: block counts 0–16, shape (N, 8, 8)."""
    images, labels = load_digits("train", as_numpy=True)
    counts = np.rint(images[:count, 0] * 16).astype(np.int64)
    return np.roll(counts, 1, axis=1), labels[:count]


def key_folder(tmp_path: Path) -> Path:
    key = tmp_path / "private-key"
    key.mkdir()
    for name in ("lesson08.py", "lesson08_checks.py"):
        shutil.copy(LESSON_SOURCES / name, key / name)
    return key


def test_the_command_writes_the_digits_and_a_measured_pass_mark(tmp_path: Path, capsys) -> None:
    images, labels = own_digits()
    shipped, _ = load_digits("test", as_numpy=True)
    mixed = np.concatenate([images, np.rint(shipped[:5, 0] * 16).astype(np.int64)])
    source = tmp_path / "mine.npz"
    np.savez(source, images=mixed, labels=np.concatenate([labels, np.zeros(5, np.int64)]))
    key = key_folder(tmp_path)
    assert cli_main(["held-out-digits", str(source), "--to", str(key)]) == 0
    out = capsys.readouterr().out
    assert "200 images" in out and "left out 5 that ship with minigrad" in out
    written = key / HELD_OUT_FILE
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    with np.load(written) as archive:
        mark = float(archive["pass_mark"])
        np.testing.assert_array_equal(archive["labels"], labels)
    reached = [float(word.rstrip("%,")) / 100 for word in
               out.split("gets ")[1].split(" of them")[0].split()]
    assert len(reached) == 3 and mark == min(0.97, np.floor((min(reached) - 0.01) * 200) / 200)
    # the key's checks now score 08.5 on these digits, with that mark
    checks = ExerciseBank(key).exercises(lesson_for(8))[-1]
    answer = checks.answer(0)
    assert answer["name"] == "the 200 held-out images" and answer["pass_mark"] == mark
    np.testing.assert_allclose(answer["images"][:, 0], images / 16.0, atol=1e-7)


def test_a_pass_mark_can_be_given(tmp_path: Path, capsys) -> None:
    images, labels = own_digits(50)
    source = tmp_path / "mine.npz"
    np.savez(source, images=images, labels=labels)
    key = key_folder(tmp_path)
    assert cli_main(["held-out-digits", str(source), "--to", str(key), "--pass-mark",
                     "0.9"]) == 0
    assert "08.5 asks for 90.0%" in capsys.readouterr().out
    assert cli_main(["held-out-digits", str(source), "--to", str(key), "--pass-mark",
                     "90"]) == 2


def test_uci_text_layout_is_read(tmp_path: Path) -> None:
    images, labels = own_digits(3)
    text = "Block 1,...\n" + "".join(
        ",".join(map(str, [*image.ravel(), label])) + "\n" for image, label in zip(images, labels))
    path = tmp_path / "optdigits.tra"
    path.write_text(text.replace("Block 1,...", ",".join(f"Block {i}" for i in range(65))))
    got, got_labels = read_digits_file(path)
    assert got.shape == (3, 1, 8, 8) and got.dtype == np.float32
    np.testing.assert_allclose(got[:, 0] * 16, images)
    np.testing.assert_array_equal(got_labels, labels)


def test_digits_that_all_ship_with_minigrad_are_refused(tmp_path: Path, capsys) -> None:
    images, labels = load_digits("test", as_numpy=True)
    source = tmp_path / "public.npz"
    np.savez(source, images=images, labels=labels)
    assert cli_main(["held-out-digits", str(source), "--to", str(tmp_path / "key")]) == 2
    assert "not held out" in capsys.readouterr().err
    assert not (tmp_path / "key").exists()


@pytest.mark.parametrize("arrays, words", [
    ({"images": np.zeros((3, 64))}, "expected 'images' and 'labels'"),
    ({"images": np.zeros((3, 64)), "labels": np.array([1, 2, 10])}, "one digit 0–9"),
    ({"images": np.zeros((3, 7, 7)), "labels": np.array([1, 2, 3])}, "images of 8×8"),
    ({"images": np.full((3, 64), 17), "labels": np.array([1, 2, 3])}, "block counts 0–16"),
    ({"images": np.full((3, 64), np.nan), "labels": np.array([1, 2, 3])}, "NaN"),
    ({"images": np.zeros((2, 64)), "labels": np.array([1, 2, 3])}, "must be 3 images"),
])
def test_a_broken_digits_file_is_named_with_what_is_wrong(tmp_path: Path, arrays, words) -> None:
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match=words) as caught:
        read_digits_file(path)
    assert str(path) in str(caught.value)
    text = tmp_path / "bad.txt"
    text.write_text("1,2,3\n")
    with pytest.raises(ValueError, match="65 comma-separated integers"):
        read_digits_file(text)


def test_the_bundle_carries_the_held_out_digits_and_warns_without(tmp_path: Path,
                                                                   capsys) -> None:
    wheel = stub_wheel(tmp_path)
    key = key_folder(tmp_path)
    out = tmp_path / "autograder.zip"
    arguments = ["gradescope", "8", "--out", str(out), "--exercises", str(key), "--wheel",
                 str(wheel)]
    assert cli_main(arguments) == 0
    assert f"no {HELD_OUT_FILE} in {key}" in capsys.readouterr().err
    with zipfile.ZipFile(out) as bundle:
        assert f"exercises/{HELD_OUT_FILE}" not in bundle.namelist()
    images, labels = own_digits(50)
    np.savez(key / HELD_OUT_FILE, images=images, labels=labels, pass_mark=np.float64(0.9))
    assert cli_main(arguments) == 0
    assert HELD_OUT_FILE not in capsys.readouterr().err
    with zipfile.ZipFile(out) as bundle:
        assert bundle.read(f"exercises/{HELD_OUT_FILE}") == (key / HELD_OUT_FILE).read_bytes()


@needs_sandbox
def test_a_class_run_of_lesson_08_without_held_out_digits_says_so(tmp_path: Path,
                                                                  capsys) -> None:
    key = key_folder(tmp_path)
    students = tmp_path / "class"
    for name in ("ada", "bob"):
        (students / name).mkdir(parents=True)
        (students / name / "lesson08.py").write_text(python_file_text(lesson_for(8)),
                                                     encoding="utf-8")
    arguments = ["grade", str(students), "--exercises", str(key), "--lesson", "8", "--out",
                 str(tmp_path / "grades")]
    cli_main(arguments)
    assert "scored on the digits' test split" in capsys.readouterr().err
    images, labels = own_digits(50)
    np.savez(key / HELD_OUT_FILE, images=images, labels=labels, pass_mark=np.float64(0.9))
    shutil.rmtree(tmp_path / "grades")
    cli_main(arguments)
    assert "scored on the digits' test split" not in capsys.readouterr().err
