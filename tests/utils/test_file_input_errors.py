"""Bad input to the file-facing parts of minigrad (save/load, the data loaders, the command
line) gets a clear error naming what was wrong, and never destroys a file that was there."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg


# --- minigrad.save / minigrad.load ----------------------------------------------------------

def test_save_stores_any_string_key_and_both_readers_agree(tmp_path):
    state = {"file": mg.ones(2), "allow_pickle": mg.zeros(3), "": mg.tensor([1.0]),
             "a/b": mg.tensor([2.0]), "a": mg.tensor([3.0]), "a.npy": mg.tensor([4.0]),
             "é": mg.tensor([5], dtype=mg.int64)}
    path = tmp_path / "weights.pt"
    mg.save(state, path)
    loaded = mg.load(path)
    assert list(loaded) == list(state)
    for name, value in state.items():
        np.testing.assert_array_equal(loaded[name].numpy(), value.numpy())
    with np.load(path, allow_pickle=False) as archive:  # plain numpy reads it too
        assert archive.files == list(state)
        np.testing.assert_array_equal(archive["allow_pickle"], np.zeros(3))


def test_a_failing_save_leaves_the_existing_checkpoint_untouched(tmp_path):
    path = tmp_path / "weights.npz"
    mg.save({"w": mg.ones(2)}, path)
    before = path.read_bytes()
    with pytest.raises(TypeError, match=r"names must be strings.*got int 3"):
        mg.save({3: mg.ones(2)}, path)
    with pytest.raises(TypeError, match="maps to a value of type int"):
        mg.save({"w": 3}, path)
    with pytest.raises(ValueError, match="cannot be stored"):
        mg.save({"a\x00b": mg.ones(2)}, path)
    with pytest.raises(TypeError, match="Python objects"):
        mg.save({"w": np.array([object()])}, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["weights.npz"]  # no temporary file left


def test_a_save_that_fails_while_writing_keeps_the_old_file(tmp_path, monkeypatch):
    from numpy.lib import format as npy_format

    path = tmp_path / "weights.npz"
    mg.save({"w": mg.ones(2)}, path)
    before = path.read_bytes()

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(npy_format, "write_array", disk_full)
    with pytest.raises(OSError, match="No space left"):
        mg.save({"w": mg.zeros(2)}, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["weights.npz"]


def test_load_reads_files_written_by_numpy_savez(tmp_path):
    path = tmp_path / "old.npz"
    np.savez(path, w=np.arange(3.0), b=np.ones(1, dtype=np.float32))
    loaded = mg.load(path)
    assert list(loaded) == ["w", "b"] and loaded["b"].dtype == np.float32


def _torch_file(handle):
    torch = pytest.importorskip("torch")
    torch.save({"w": torch.ones(2)}, handle)


@pytest.mark.parametrize("write", [
    _torch_file,
    lambda handle: np.save(handle, np.ones(3)),
    lambda handle: handle.write(b"certainly not an archive"),
    lambda handle: np.savez(handle, w=np.array([object()], dtype=object)),
], ids=["torch.save", "npy", "garbage", "pickled-object"])
def test_load_of_a_file_not_written_by_save_says_so(tmp_path, write):
    path = tmp_path / "weights.bin"
    with open(path, "wb") as handle:  # a handle: numpy would add a suffix to a bare name
        write(handle)
    with pytest.raises(ValueError, match=r"is not a file written by minigrad.save "
                                         r"\(an .npz archive of arrays\)") as error:
        mg.load(path)
    assert str(path) in str(error.value)


# --- load_mnist -----------------------------------------------------------------------------

def _write_gzipped_idx(path, labels):
    import gzip
    import struct

    with gzip.open(path, "wb") as handle:
        handle.write(struct.pack(">BBBBi", 0, 0, 0x08, 1, len(labels)) + bytes(labels))


@pytest.mark.parametrize("damage", [
    lambda data: b"<html>404 Not Found</html>",  # an error page saved under the file's name
    lambda data: data[:len(data) // 2],           # a download that stopped half-way
], ids=["not-gzip", "truncated"])
def test_load_mnist_names_a_gzip_file_that_is_not_valid(tmp_path, damage):
    from minigrad.data import load_mnist

    _write_gzipped_idx(tmp_path / "t10k-images-idx3-ubyte.gz", [0] * 50)
    labels = tmp_path / "t10k-labels-idx1-ubyte.gz"
    _write_gzipped_idx(labels, list(range(10)) * 5)
    labels.write_bytes(damage(labels.read_bytes()))
    with pytest.raises(ValueError, match="is not a valid gzip file \\(a truncated or failed "
                                         "download\\?\\)") as error:
        load_mnist(tmp_path, split="test")
    assert str(labels) in str(error.value)


def test_load_mnist_on_a_file_says_it_wants_the_folder(tmp_path):
    from minigrad.data import load_mnist

    archive = tmp_path / "train-images-idx3-ubyte.gz"
    archive.write_bytes(b"")
    with pytest.raises(NotADirectoryError, match="is a file, not a folder"):
        load_mnist(archive)


# --- DataLoader -----------------------------------------------------------------------------

@pytest.mark.parametrize("samples, message", [
    ([mg.ones(2), mg.ones(3)], r"but got \[2\] at entry 0 and \[3\] at entry 1"),
    ([np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 2))],
     r"but got \[2, 3\] at entry 0 and \[3, 2\] at entry 2"),
    ([(mg.ones(2), 0), (mg.ones(()), 1)], r"but got \[2\] at entry 0 and \[\] at entry 1"),
])
def test_a_batch_of_samples_of_different_shapes_is_refused_as_in_pytorch(samples, message):
    from minigrad.data import DataLoader

    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size, "
                                           + message):
        list(DataLoader(samples, batch_size=3))


# --- python -m minigrad ---------------------------------------------------------------------

def test_python_dash_m_minigrad_is_the_minigrad_command(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}

    def minigrad(*argv):
        return subprocess.run([sys.executable, "-m", "minigrad", *argv], capture_output=True,
                              text=True, cwd=tmp_path, env=env, timeout=120)

    shown = minigrad("--help")
    assert shown.returncode == 0 and shown.stdout.startswith("usage: minigrad ")
    assert "graph" in shown.stdout and "grade" in shown.stdout
    refused = minigrad("graph", "-e", "1 + 1")  # the exit code comes through
    assert refused.returncode == 1 and refused.stderr.startswith("minigrad graph: ")
