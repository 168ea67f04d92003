"""Whether a folder is one student's submission or a class, and who the class's students are.

That is the instructor's word: ``--class`` (every entry at the top of the folder is one
student) or ``--one`` (all of it is one student's work). Without either, the folder's top
level decides only where no student's file can tip it:

* a folder whose top holds sub-folders and no ``.py``/``.ipynb`` file (two or more of them; one
  alone is a student who uploaded their folder) is a class: the README's
  ``minigrad grade class/``;
* a folder with no sub-folder holding code (files at its top, as ``minigrad exercises``
  writes them) is one submission, and so is a course folder (``notebooks/`` with ``lessons/``,
  ``assets/`` or ``examples/`` beside it, and no other folder holding code);
* anything else (files at the top *and* sub-folders holding code; a course's folders beside
  other folders holding code) is ambiguous, and :func:`run_kind` raises :class:`Ambiguous`,
  naming what it found. A file a student drops at the top of a class folder
  (``lesson01_mallory.py``), or students named ``notebooks`` and ``assets``, then stop the run
  with that message instead of turning the class into one submission.

Which lesson a file's name suggests plays no part: a student chooses their file's name.

The top level is read once, through a descriptor (:class:`.files.SubmissionFolder`), and
nothing below it is followed; an entry that changes while it is read (removed, swapped for a
link, made unreadable) never raises out of here.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Optional

from minigrad.grading.files import SubmissionFolder
from minigrad.grading.names import student_id
from minigrad.grading.submission import SKIPPED_DIRECTORIES

#: The folders ``minigrad course`` makes (minigrad.course.folder.PARTS).
COURSE_PARTS = ("lessons", "notebooks", "assets", "examples")
CODE = (".py", ".ipynb")
#: How many entries :func:`holds_code` looks at before it answers "maybe" (True).
HOLDS_CODE_ENTRIES = 2000


class Ambiguous(ValueError):
    """A folder that could be one submission or a class: the message says why, and how to
    say which (``--class`` or ``--one``)."""


def top_entries(path: Path) -> list[tuple[str, str]]:
    """(name, kind) of the visible entries at the top of ``path`` that may be a student, in
    name order: kind is ``folder``, ``file`` (a ``.py``/``.ipynb`` that is not a folder nor a
    link), ``link`` (a symbolic link, never followed) or ``gone`` (removed while it was
    listed). Hidden names, :data:`SKIPPED_DIRECTORIES` and files of other kinds are left out."""
    entries = []
    with SubmissionFolder(path) as folder, os.scandir(folder.fd) as found:
        for entry in found:
            name = entry.name
            if name.startswith(".") or name in SKIPPED_DIRECTORIES:
                continue
            try:
                if entry.is_symlink():
                    kind = "link"
                elif entry.is_dir(follow_symlinks=False):
                    kind = "folder"
                elif name.endswith(CODE):
                    kind = "file"
                else:
                    continue
            except OSError:  # lstat failed: removed (or swapped) while it was listed
                kind = "gone"
            entries.append((name, kind))
    return sorted(entries)


def class_members(path: Path) -> list[tuple[str, Path]]:
    """(student, their submission) for each entry at the top of the class folder ``path``,
    sorted by name: every folder, ``.py`` or ``.ipynb`` file, and link (a link is not
    followed: it is reported as not graded, on its own line).

    A student is named after the folder, or the file without its suffix; when two entries
    would get the same name (``alice/`` and ``alice.py``), files keep their suffix.
    """
    entries = [(Path(path) / name, kind) for name, kind in top_entries(Path(path))]
    names = [item.stem if kind in ("file", "link") else item.name for item, kind in entries]
    while True:  # a file given its full name may now clash with another stem (x.py.ipynb)
        clashing = [k for k, name in enumerate(names)
                    if names.count(name) > 1 and names[k] != entries[k][0].name]
        if not clashing:  # (full names are unique within a folder, so this ends)
            return [(name, item) for name, (item, _) in zip(names, entries)]
        for k in clashing:
            names[k] = entries[k][0].name


def holds_code(path: Path) -> bool:
    """True when the folder ``path`` may hold a ``.py`` or ``.ipynb`` file (at any depth, no
    link followed): it does, or it could not be read to the end (gone, a link now,
    unreadable, too many entries). Only False when it was read and holds none."""
    try:
        with SubmissionFolder(path, follow=False) as folder:
            listing = folder.listing(CODE, SKIPPED_DIRECTORIES, 6, HOLDS_CODE_ENTRIES)
    except (OSError, ValueError):
        return True
    return bool(listing.files or listing.notes)


def is_course_folder(path: Path) -> bool:
    """True for a folder shaped like one ``minigrad course`` made: ``notebooks/`` and one
    of its other folders at the top (a student may have removed one)."""
    path = Path(path)
    if not path.is_dir():
        return False
    return _course_shaped([name for name, kind in top_entries(path) if kind == "folder"])


def _course_shaped(folders: list[str]) -> bool:
    return "notebooks" in folders and bool(set(folders) & {"lessons", "assets", "examples"})


def run_kind(path: Path, asked: Optional[str] = None) -> str:
    """``"class"`` or ``"one"``: what ``minigrad grade`` does with ``path``. ``asked`` is the
    instructor's word (``"class"``, ``"one"`` or None); without it, see the module docstring.
    Raises :class:`Ambiguous` when the folder does not say, ValueError for ``--class`` on
    a file."""
    path = Path(path)
    if asked == "one":
        return "one"
    if asked == "class":
        if not path.is_dir():
            raise ValueError(f"--class needs a folder of students; {path} is not a folder")
        return "class"
    try:
        if not stat.S_ISDIR(os.stat(path).st_mode):
            return "one"
    except OSError:
        return "one"  # (gone: grading says so)
    entries = top_entries(path)
    folders = [name for name, kind in entries if kind == "folder"]
    files = [name for name, kind in entries if kind == "file"]
    course = _course_shaped(folders)
    if folders and not files and not course:
        return "class" if len(folders) > 1 else "one"
    others = [name for name in folders if not (course and name in COURSE_PARTS)]
    with_code = [name for name in others if holds_code(path / name)]
    if not with_code:
        return "one"
    parts = [f"{name}/" for name in folders if name in COURSE_PARTS]
    found = (f"a course's folders ({', '.join(parts)})" if course
             else f".py/.ipynb files at its top ({_some(files)})")
    raise Ambiguous(
        f"{path} could be one submission or a class: it holds {found} and other folders "
        f"with code in them ({_some([name + '/' for name in with_code])}). Say which: "
        f"--class (each folder, .py and .ipynb at its top is one student) or --one (all of "
        f"it is one student's work)")


def _some(names: list[str], shown: int = 3) -> str:
    """The first ``shown`` of ``names``, each as a student id (what the class table shows)."""
    more = len(names) - shown
    return ", ".join(student_id(name) for name in names[:shown]) + (
        f" and {more} more" if more > 0 else "")
