"""``python -m minigrad.i18n.update``: bring the catalogs in step with the English.

For each reading and notebook, its catalog gets one entry per prose block, in the English
order; the catalogs of short texts (:func:`short_texts`: the slides' words, the figures'
labels, the command line's lines) one entry per text the code uses. A block whose English is
unchanged keeps its translation. A block that changed gets the translation of the most
similar old block, marked ``#, fuzzy`` (a test fails until a translator revisits it and
removes the mark); a new block gets an empty translation. Blocks that are gone are dropped.
Run it after editing a reading or a notebook's Markdown, then translate what it reports.
"""

from __future__ import annotations

import argparse
import difflib
import json
from pathlib import Path

from minigrad.course.folder import course_source
from minigrad.i18n import blocks, documents
from minigrad.i18n.catalog import Catalog, Entry
from minigrad.i18n.documents import markdown_cells

SIMILAR = 0.6


def english_blocks(root: Path) -> dict[str, list[str]]:
    """Catalog name → the English msgids, for every reading and notebook under ``root``."""
    found = {}
    for path in sorted((root / "lessons").glob("*.md")):
        found[f"lessons/{path.stem}"] = blocks.messages(path.read_text(encoding="utf-8"))
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        document = json.loads(path.read_text(encoding="utf-8"))
        found[f"notebooks/{path.stem}"] = [
            message for cell in markdown_cells(document) for message in blocks.messages(cell)]
    return found


def refreshed(old: Catalog, msgids: list[str]) -> Catalog:
    """``old``'s entries for ``msgids``: kept, carried over as fuzzy, or new and empty."""
    new = Catalog(path=old.path, header=old.header)
    gone = [entry for msgid, entry in old.entries.items() if msgid not in set(msgids)]
    for msgid in msgids:
        if msgid in new.entries:
            continue
        if msgid in old.entries:
            new.entries[msgid] = old.entries[msgid]
            continue
        closest = max(gone, key=lambda entry: _similarity(entry.msgid, msgid), default=None)
        if closest is not None and closest.msgstr and _similarity(closest.msgid, msgid) >= SIMILAR:
            new.entries[msgid] = Entry(msgid, closest.msgstr, fuzzy=True,
                                       comments=list(closest.comments))
        else:
            new.entries[msgid] = Entry(msgid)
    return new


def short_texts() -> dict[str, list[str]]:
    """Catalog name → the English texts the code uses today, for the catalogs of short texts
    (each read from the code by its own module)."""
    from minigrad.course.slide_words import slide_texts
    from minigrad.figures.words import figure_texts
    from minigrad.i18n.cli_text import cli_texts

    return {"slides": slide_texts(), "figures": figure_texts(), "cli": cli_texts()}


def refresh(name: str, msgids: list[str], language: str = "zh") -> list[Entry]:
    """Bring the catalog ``name`` (``"lessons/01-derivatives"``, ``"slides"`` …) in step with
    ``msgids``, as :func:`refreshed` says, and write it; returns the entries still to
    translate."""
    path = documents.catalog_path(language, name)
    catalog = refreshed(Catalog.read(path), msgids)
    catalog.write(path)
    return catalog.untranslated()


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minigrad.i18n.update",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="zh")
    args = parser.parse_args(argv)
    for name, msgids in {**english_blocks(course_source()), **short_texts()}.items():
        todo = refresh(name, msgids, args.lang)
        if todo:
            fuzzy = sum(entry.fuzzy for entry in todo)
            print(f"{args.lang}/{name}.po: {len(todo)} to translate"
                  f" ({fuzzy} changed in English)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
