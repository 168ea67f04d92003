"""`minigrad.load` refuses a checkpoint whose bytes were damaged or edited (issue 30, §2).

Each member is read whole, so zipfile checks its CRC-32, and its npy header must account for
exactly the member's bytes. Before, reading stopped at the size the header declared: an
edited header "(60, 40)" → "(50, 40)" loaded a 50×40 tensor without a word, and the CRC of
a member above ~4 KB was never checked.
"""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

import minigrad as mg

REFUSED = "is not a file written by minigrad.save"


def _saved(tmp_path, rows: int = 60) -> tuple:
    path = tmp_path / "weights.npz"
    values = np.arange(rows * 40, dtype=np.float32).reshape(rows, 40) / 7
    mg.save({"w": mg.tensor(values), "b": mg.zeros(3)}, path)
    return path, values


def _rewritten(path, member: str, edit) -> None:
    """Rewrite the archive with `edit(bytes)` applied to one member (fresh, valid CRCs)."""
    with zipfile.ZipFile(path) as archive:
        members = [(info.filename, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in members:
            archive.writestr(name, edit(data) if name == member else data)


def test_a_good_checkpoint_loads_unchanged(tmp_path):
    path, values = _saved(tmp_path)
    loaded = mg.load(path)
    assert list(loaded) == ["w", "b"] and np.array_equal(loaded["w"].numpy(), values)


def test_an_edited_header_fails_the_crc_check(tmp_path):
    path, _ = _saved(tmp_path)
    path.write_bytes(path.read_bytes().replace(b"(60, 40)", b"(50, 40)"))
    with pytest.raises(ValueError, match=REFUSED + r".*damaged or was edited .*Bad CRC-32"):
        mg.load(path)


def test_a_flipped_data_byte_fails_the_crc_check(tmp_path):
    path, _ = _saved(tmp_path)
    raw = bytearray(path.read_bytes())
    raw[5000] ^= 0xFF  # inside w's data, beyond the first 4 KB
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=REFUSED + r".*Bad CRC-32 for file 'w.npy'"):
        mg.load(path)


def test_a_header_declaring_fewer_elements_than_the_member_holds(tmp_path):
    path, _ = _saved(tmp_path)
    _rewritten(path, "w.npy", lambda data: data.replace(b"(60, 40)", b"(50, 40)"))
    with pytest.raises(ValueError, match=REFUSED + r".*declares shape \(50, 40\).*holds 9728 "
                                                  r"bytes"):
        mg.load(path)


def test_a_header_declaring_more_elements_than_the_member_holds(tmp_path):
    path, _ = _saved(tmp_path)
    _rewritten(path, "w.npy", lambda data: data.replace(b"(60, 40)", b"(70, 40)"))
    with pytest.raises(ValueError, match=REFUSED):
        mg.load(path)


@pytest.mark.oracle
def test_torch_load_reads_a_flipped_data_byte_silently_we_refuse(tmp_path):
    """The deliberate difference: torch.load does not check its data records' CRC-32."""
    torch = pytest.importorskip("torch")
    torch_path = tmp_path / "weights.pt"
    torch.save({"w": torch.arange(2400.0).reshape(60, 40)}, torch_path)
    with zipfile.ZipFile(torch_path) as archive:
        info = next(i for i in archive.infolist() if i.filename.endswith("data/0"))
    raw = bytearray(torch_path.read_bytes())
    local = info.header_offset  # the local header: 30 bytes, then its name and extra field
    name_length, extra_length = np.frombuffer(bytes(raw[local + 26:local + 30]), "<u2")
    raw[local + 30 + int(name_length) + int(extra_length) + 5000] ^= 0xFF  # in element 1250
    torch_path.write_bytes(bytes(raw))
    assert torch.load(torch_path)["w"].flatten()[1250].item() != 1250.0  # loaded, changed

    path, _ = _saved(tmp_path)
    raw = bytearray(path.read_bytes())
    raw[5000] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=REFUSED):
        mg.load(path)
