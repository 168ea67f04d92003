"""The course in two languages: English, the source, and Simplified Chinese (中文).

English text lives where it always did (readings, notebooks, slide data, check messages).
Each Chinese text is a translation of one English text, kept in gettext catalogs (``.po``
files, editable with any PO editor) under ``minigrad/i18n/zh/``:

- ``lessons/NN-name.po`` and ``notebooks/NN-name.po``: one entry per prose block of a reading or
  of a notebook's Markdown cells (``blocks.py`` says what a block is; code, display maths and
  code cells are shared, never translated);
- ``messages.po``: what ``check()`` and ``minigrad grade`` say, with ``{name}`` placeholders for
  the parts computed at run time (``catalog.Catalog.translate``);
- further catalogs for slides, figures and the site, one per kind of text.

An entry is keyed by its English text (gettext's msgid). When an English text changes, its
old translation no longer matches: ``python -m minigrad.i18n.update`` carries it over marked
*fuzzy* and a test fails until a translator has revisited it and removed the mark.

Which language a student gets: ``language.current()``.
"""

from minigrad.i18n.language import LANGUAGES, current, resolve, use

__all__ = ["LANGUAGES", "current", "resolve", "use"]
