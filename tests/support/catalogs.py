"""The check every short-text catalog gets: in step with the texts the code uses today."""

from __future__ import annotations

from minigrad.i18n.catalog import Catalog, placeholders
from minigrad.i18n.documents import catalog_path


def assert_in_step(name: str, texts: list[str], command: str) -> None:
    """Every text has a revisited Chinese translation with its ``{placeholders}``, and the
    catalog ``name`` holds no entry for a text that is gone; ``command`` refreshes it."""
    catalog = Catalog.read(catalog_path("zh", name))
    missing = [text for text in texts if text not in catalog.entries
               or not catalog.entries[text].translated]
    assert missing == [], (f"texts without Chinese in {name}.po: {missing}; "
                           f"{command} adds them")
    for text in texts:
        assert placeholders(catalog.entries[text].msgstr) == placeholders(text), text
    assert sorted(set(catalog.entries) - set(texts)) == []  # no entry for a text now gone
