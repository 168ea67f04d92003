"""load_digits (shipped, split), load_mnist/read_idx (tiny IDX files), TensorDataset, DataLoader."""

from __future__ import annotations

import gzip
import struct

import numpy as np
import pytest

import minigrad as mg
from minigrad.data import DataLoader, TensorDataset, load_digits, load_mnist, read_idx


def test_digits_shapes_dtypes_ranges():
    train_x, train_y = load_digits("train")
    test_x, test_y = load_digits("test")
    assert isinstance(train_x, mg.Tensor) and isinstance(train_y, mg.Tensor)
    assert train_x.shape == (1437, 1, 8, 8) and test_x.shape == (360, 1, 8, 8)
    assert train_y.shape == (1437,) and test_y.shape == (360,)
    assert train_x.dtype == np.float32 and train_y.dtype == np.int64
    images = np.concatenate([train_x.numpy(), test_x.numpy()])
    assert images.min() == 0.0 and images.max() == 1.0
    np.testing.assert_array_equal(np.unique(images * 16), np.arange(17))  # pixel / 16
    assert not train_x.requires_grad


def test_digits_split_is_stratified_disjoint_and_fixed():
    all_x, all_y = load_digits("all", as_numpy=True)
    train_x, train_y = load_digits("train", as_numpy=True)
    test_x, test_y = load_digits("test", as_numpy=True)
    assert len(all_y) == 1797
    counts = np.bincount(all_y, minlength=10)
    test_counts = np.bincount(test_y, minlength=10)
    # each class in proportion to its size (360/1797 ≈ 20 %), rounded
    assert np.all(np.abs(test_counts - counts * 360 / 1797) < 1)
    assert np.array_equal(np.bincount(train_y, minlength=10) + test_counts, counts)
    rows = {row.tobytes() for row in train_x.reshape(len(train_x), -1)}
    shared = sum(row.tobytes() in rows for row in test_x.reshape(len(test_x), -1))
    assert shared <= 2  # the UCI set has a couple of duplicate images, nothing more
    again_x, again_y = load_digits("test", as_numpy=True)
    np.testing.assert_array_equal(again_x, test_x)
    np.testing.assert_array_equal(again_y, test_y)


def test_digits_returns_fresh_copies():
    x, _ = load_digits("test")
    with mg.no_grad():
        x.zero_()
    assert load_digits("test")[0].numpy().max() == 1.0


def test_digits_are_the_known_first_image():
    images, labels = load_digits("all", as_numpy=True)
    assert labels[:10].tolist() == list(range(10))  # the UCI file starts 0, 1, …, 9
    assert (images[0, 0, 0] * 16).tolist() == [0, 0, 5, 13, 9, 1, 0, 0]


def test_digits_bad_split():
    with pytest.raises(ValueError, match="split must be one of"):
        load_digits("validation")


def test_digits_attribution_ships_with_the_package():
    from importlib import resources

    note = resources.files("minigrad.data").joinpath("files/README.md").read_text()
    assert "CC BY 4.0" in note or "Attribution 4.0" in note
    assert "Alpaydin" in note


def write_idx(path, array, compress):
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim) + struct.pack(
        f">{array.ndim}i", *array.shape)
    opener = gzip.open if compress else open
    with opener(path, "wb") as handle:
        handle.write(header + array.astype(np.uint8).tobytes())


@pytest.mark.parametrize("compress", [True, False])
def test_load_mnist_reads_tiny_idx_files(tmp_path, compress):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (3, 28, 28))
    labels = np.array([7, 0, 9])
    suffix = ".gz" if compress else ""
    write_idx(tmp_path / f"t10k-images-idx3-ubyte{suffix}", images, compress)
    write_idx(tmp_path / f"t10k-labels-idx1-ubyte{suffix}", labels, compress)
    x, y = load_mnist(tmp_path, split="test")
    assert x.shape == (3, 1, 28, 28) and x.dtype == np.float32
    assert y.numpy().tolist() == [7, 0, 9] and y.dtype == np.int64
    np.testing.assert_allclose(x.numpy()[:, 0] * 255, images, atol=1e-4)


def test_load_mnist_missing_files_say_where_to_get_them(tmp_path):
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte.*Download"):
        load_mnist(tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_mnist(tmp_path / "nowhere")


def test_read_idx_rejects_other_and_truncated_files(tmp_path):
    (tmp_path / "junk").write_bytes(b"PK\x03\x04 not idx")
    with pytest.raises(ValueError, match="not an IDX file"):
        read_idx(tmp_path / "junk")
    write_idx(tmp_path / "short", np.zeros((2, 3)), compress=False)
    (tmp_path / "short").write_bytes((tmp_path / "short").read_bytes()[:-1])
    with pytest.raises(ValueError, match="truncated"):
        read_idx(tmp_path / "short")
    (tmp_path / "header").write_bytes(bytes([0, 0, 8, 200]) + b"\x00" * 12)
    with pytest.raises(ValueError, match="announces 200 dimensions"):
        read_idx(tmp_path / "header")
    huge = bytes([0, 0, 8, 3]) + struct.pack(">3i", 2**31 - 1, 2**31 - 1, 2**31 - 1)
    (tmp_path / "huge").write_bytes(huge + b"\x00" * 8)
    with pytest.raises(ValueError, match="truncated"):  # no giant allocation, no overflow
        read_idx(tmp_path / "huge")
    (tmp_path / "negative").write_bytes(bytes([0, 0, 8, 1]) + struct.pack(">i", -5))
    with pytest.raises(ValueError, match="negative size"):
        read_idx(tmp_path / "negative")


def test_tensor_dataset_indexing_and_size_check():
    x, y = mg.arange(10.0).reshape(5, 2), mg.arange(5)
    dataset = TensorDataset(x, y)
    assert len(dataset) == 5
    row, label = dataset[3]
    assert row.numpy().tolist() == [6.0, 7.0] and label.item() == 3
    with pytest.raises(ValueError, match=r"Size mismatch.*\(5, 2\), \(4,\)"):
        TensorDataset(x, mg.arange(4))


@pytest.mark.parametrize("drop_last, sizes", [(False, [4, 4, 2]), (True, [4, 4])])
def test_dataloader_batches_in_order(drop_last, sizes):
    x, y = mg.arange(20.0).reshape(10, 2), mg.arange(10)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, drop_last=drop_last)
    batches = list(loader)
    assert len(loader) == len(sizes) and [len(b[1]) for b in batches] == sizes
    assert np.concatenate([b[1].numpy() for b in batches]).tolist() == list(range(sum(sizes)))
    assert batches[0][0].shape == (4, 2)


def test_dataloader_shuffle_is_a_new_permutation_each_epoch_and_reproducible():
    y = mg.arange(50)
    loader = DataLoader(TensorDataset(y), batch_size=7, shuffle=True, seed=0)
    first = np.concatenate([b[0].numpy() for b in loader])
    second = np.concatenate([b[0].numpy() for b in loader])
    assert sorted(first.tolist()) == list(range(50)) and first.tolist() != second.tolist()
    again = DataLoader(TensorDataset(y), batch_size=7, shuffle=True, seed=0)
    assert np.concatenate([b[0].numpy() for b in again]).tolist() == first.tolist()
    mg.manual_seed(5)
    a = [b[0].numpy().tolist() for b in DataLoader(TensorDataset(y), 50, shuffle=True)]
    mg.manual_seed(5)
    b = [b[0].numpy().tolist() for b in DataLoader(TensorDataset(y), 50, shuffle=True)]
    assert a == b


def test_dataloader_generic_dataset_collates_like_torch():
    samples = [(np.full(2, i, dtype=np.float32), i) for i in range(5)]
    x, y = next(iter(DataLoader(samples, batch_size=3)))
    assert x.shape == (3, 2) and x.dtype == np.float32
    assert y.numpy().tolist() == [0, 1, 2] and y.dtype == np.int64
    # PyTorch's default_collate: a list per batch, Python floats as float64
    batch = next(iter(DataLoader([(0.5, True), (1.5, False)], batch_size=2)))
    assert type(batch) is list and batch[0].dtype == np.float64 and batch[1].dtype == np.bool_
    assert type(next(iter(DataLoader(TensorDataset(mg.ones(3)), batch_size=2)))) is list


def test_dataloader_bad_arguments():
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        DataLoader([1, 2], batch_size=0)
    with pytest.raises(TypeError, match="numpy Generator"):
        DataLoader([1, 2], generator=42)


def test_dataloader_calls_the_getitem_of_a_tensor_dataset_subclass():
    """An augmentation written as a TensorDataset subclass must run (the fast path that picks
    rows straight from .tensors skipped it)."""
    class Negated(TensorDataset):
        def __getitem__(self, index):
            image, label = super().__getitem__(index)
            return -image, label

    images, labels = mg.arange(12.0).reshape(3, 1, 2, 2), mg.tensor([0, 1, 2])
    batch_images, batch_labels = next(iter(DataLoader(Negated(images, labels), batch_size=3)))
    np.testing.assert_array_equal(batch_images.numpy(), -images.numpy())
    assert batch_labels.tolist() == [0, 1, 2]
