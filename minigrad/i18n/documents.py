"""The course's texts in a language: readings, notebooks, and short texts by catalog name.

Catalogs sit in ``minigrad/i18n/<language>/``: ``lessons/01-derivatives.po`` for the reading
``lessons/01-derivatives.md``, ``notebooks/01-derivatives.po`` for the Markdown cells of
``notebooks/01-derivatives.ipynb``, and ``<name>.po`` for short texts (``messages``, …).
English is the source: asking for it returns the text unchanged.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path

from minigrad.i18n import blocks
from minigrad.i18n.catalog import Catalog
from minigrad.i18n.language import current

CATALOGS = Path(__file__).resolve().parent


def catalog_path(language: str, name: str) -> Path:
    """Where the catalog ``name`` (``"messages"``, ``"lessons/01-derivatives"``) is kept."""
    return CATALOGS / language / f"{name}.po"


@lru_cache(maxsize=None)
def catalog(language: str, name: str) -> Catalog:
    """The catalog ``name`` for ``language`` (empty when it does not exist)."""
    return Catalog.read(catalog_path(language, name))


def text(message: str, name: str = "messages", language: str | None = None) -> str:
    """One short text (a message, a label) in ``language`` (default: ``current()``)."""
    language = language or current()
    if language == "en" or not message:
        return message
    return catalog(language, name).translate(message)


def reading(markdown: str, stem: str, language: str) -> str:
    """The reading ``lessons/<stem>.md`` in ``language``, block by block (a line break
    between two Chinese characters taken out: a rendered paragraph shows it as a space)."""
    if language == "en":
        return markdown
    return blocks.join_chinese_lines(
        blocks.translate(markdown, _lookup(catalog(language, f"lessons/{stem}"))))


def notebook(document: dict, stem: str, language: str) -> dict:
    """A copy of the notebook ``notebooks/<stem>.ipynb`` with its Markdown in ``language``
    (a line break between two Chinese characters taken out: JupyterLab shows it as a space).

    Code cells, their outputs and the notebook's metadata stay exactly as they are.
    """
    if language == "en":
        return document
    found = _lookup(catalog(language, f"notebooks/{stem}"))
    translated = copy.deepcopy(document)
    for cell in translated["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = blocks.join_chinese_lines(
                blocks.translate(source, found)).splitlines(keepends=True)
    translated.setdefault("metadata", {})["language"] = language
    return translated


def markdown_cells(document: dict) -> list[str]:
    """A notebook's Markdown cells' text."""
    return ["".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            for cell in document["cells"] if cell["cell_type"] == "markdown"]


def _lookup(found: Catalog):
    def translated(block: str) -> str | None:
        entry = found.entries.get(block)
        return entry.msgstr if entry is not None and entry.translated else None
    return translated
