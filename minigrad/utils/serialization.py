"""Saving and loading a model's weights: `minigrad.save(model.state_dict(), path)` and
`model.load_state_dict(minigrad.load(path))`, as with torch.save / torch.load.

The file is a numpy `.npz` archive (one array per name), so loading it runs no code (unlike
a pickle) and numpy alone can read it. Only flat mappings of names to tensors or arrays are
supported — a module's state_dict; an optimizer's nested state_dict can be pickled instead.

The archive is written by hand (one `<name>.npy` member per name, exactly what `np.savez`
writes) so that every string works as a name, even "file" or "allow_pickle", which
`np.savez(file, **arrays)` would take for its own arguments. It is written to a temporary file
beside `path` and moved into place only once complete: a save that fails half-way (a bad
value, a full disk) leaves the checkpoint that was there untouched.
"""

from __future__ import annotations

import io
import os
import secrets
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any, Mapping

import numpy as np
from numpy.lib import format as npy_format

from minigrad.tensor import Tensor


def save(state_dict: Mapping[str, Any], path: str | Path) -> None:
    """Write name → tensor (or array) pairs to `path` (an .npz file; the suffix is kept)."""
    arrays = _arrays_to_save(state_dict)
    target = os.path.realpath(path)  # through a symlink, as open(path, "wb") would write
    handle, temporary = _temporary_file_beside(target, path)
    try:
        with handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED) as archive:
            for name, array in arrays.items():
                with archive.open(name + ".npy", "w", force_zip64=True) as member:
                    npy_format.write_array(member, array, allow_pickle=False)
            archive.close()
            handle.flush()
            os.fsync(handle.fileno())  # the bytes are on disk before the old file goes
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def _arrays_to_save(state_dict: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Check every pair before a byte is written, so a bad one costs nothing."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"save() expects a state_dict (a mapping of names to tensors), got "
                        f"{type(state_dict).__name__}; for other objects use pickle")
    arrays = {}
    for name, value in state_dict.items():
        if not isinstance(name, str):
            raise TypeError(f"save() stores names mapped to tensors, and names must be strings; "
                            f"got {type(name).__name__} {name!r}")
        if "\x00" in name or not _encodes_as_utf8(name):
            raise ValueError(f"save(): the name {name!r} cannot be stored in an .npz archive "
                             f"(it holds a NUL character or a lone surrogate)")
        if not isinstance(value, (Tensor, np.ndarray)):
            raise TypeError(f"save() stores names mapped to tensors; {name!r} maps to a value "
                            f"of type {type(value).__name__}")
        array = np.asarray(value)
        if array.dtype.hasobject:
            raise TypeError(f"save(): {name!r} is an array of Python objects, which would need "
                            f"pickle; convert it to numbers first")
        arrays[name] = array
    return arrays


def _encodes_as_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _temporary_file_beside(target: str, path: str | Path):
    """A new file in the folder of `target`, so that os.replace is a rename on one disk.

    Created with mode 0o666 (less the umask), as open(path, "wb") would create `path`.
    """
    folder, name = os.path.split(target)
    temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:  # name the file asked for, not the temporary one
        raise type(error)(error.errno, f"cannot write {path}: {error.strerror}") from None
    return os.fdopen(descriptor, "wb"), temporary


def load(path: str | Path) -> OrderedDict[str, Tensor]:
    """The name → tensor pairs saved by `save`, in their saved order.

    Each `<name>.npy` member is read by its own name (np.load would give "a.npy" the array of
    "a" when both are saved), and never unpickled: a file that is not such an archive of
    arrays is refused with one message, not numpy's or zipfile's view of what went wrong.
    A member is read whole, so zipfile checks its CRC-32, and its header's shape must account
    for exactly its bytes: a damaged or edited file is refused, never loaded as other numbers.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            return OrderedDict(_read_member(archive, member) for member in archive.namelist())
    except (zipfile.BadZipFile, EOFError, ValueError) as error:
        raise ValueError(f"{path} is not a file written by minigrad.save (an .npz archive of "
                         f"arrays): {_why_not(error)}") from None


def _read_member(archive: zipfile.ZipFile, member: str) -> tuple[str, Tensor]:
    if not member.endswith(".npy"):
        hint = "; is it a torch.save file? Open it with torch.load" \
            if member.endswith("data.pkl") else ""
        raise ValueError(f"it holds {member!r}, which is not an array (.npy){hint}")
    data = archive.read(member)  # whole: zipfile compares its CRC-32 (raises BadZipFile)
    stream = io.BytesIO(data)
    array = npy_format.read_array(stream, allow_pickle=False)  # too few bytes: ValueError
    if stream.tell() != len(data):
        raise ValueError(f"the header of {member!r} declares shape {array.shape} "
                         f"({stream.tell()} bytes with the header), but the member holds "
                         f"{len(data)} bytes")
    return member.removesuffix(".npy"), Tensor(array)


def _why_not(error: Exception) -> str:
    if isinstance(error, zipfile.BadZipFile):
        if "CRC" in str(error):  # "Bad CRC-32 for file 'w.npy'"
            return f"it is damaged or was edited ({error})"
        return "it is not a zip archive"
    if "allow_pickle" in str(error):
        return "it holds pickled Python objects, which minigrad.load does not run"
    return str(error)
