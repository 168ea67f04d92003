"""The command line's lines for a student, in the course's language.

``line("wrote {count} files", language, count=54)`` gives the line from the catalog
``minigrad/i18n/<language>/cli.po`` (its msgid the English template), ``{name}`` parts filled in
after the lookup. :func:`cli_texts` lists every template the commands pass to :func:`line`
(read from their syntax tree), and a test fails while one of them has no translation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from minigrad.i18n.documents import text
from minigrad.i18n.source_texts import texts_given_to

CATALOG = "cli"
PACKAGE = Path(__file__).resolve().parents[1]
#: The modules whose printed lines go through :func:`line` (relative to the package).
MODULES = ("cli.py", "course/folder.py", "course/slides.py", "grading/commands.py")


def line(template: str, language: Optional[str] = None, **values: object) -> str:
    """``template`` in ``language`` (default: the current one), its ``{name}`` parts filled."""
    return text(template, CATALOG, language).format(**values)


def cli_texts() -> list[str]:
    """Every template given to :func:`line` in :data:`MODULES`, in source order, each once."""
    return list(dict.fromkeys(text for name in MODULES
                              for text in texts_given_to(PACKAGE / name, {"line"})))
