"""Search excerpts that work from ``file://``.

Sphinx's search page lists the pages whose words match from ``searchindex.js`` (a script, so
it loads from ``file://``), then fetches each page to cut an excerpt around the match. A
browser refuses ``fetch`` on ``file://`` ("Failed to fetch"), which leaves the titles without
excerpts. So the build also writes ``_static/minigrad-search-pages.js``, each
page's main text keyed by its path (``lessons/02-scalar-autograd.html``), and the search page
loads it with ``minigrad-search-offline.js``, which answers Sphinx's fetch of a page from it
when the site is opened from a file. Served over http, Sphinx's own fetch runs untouched.

A page's entry keeps only what the excerpt is cut from: the elements of its ``role="main"``
block, as bare ``div``s with their ``id`` (an excerpt for ``page.html#section`` is the text of
that section), and their text; pictures, drawings, scripts, styles, the headings' ``¶``
links and the link to the page in the other language are dropped. Each language's site has its
own: the English one lists the English pages only, not those in its ``zh/`` folder.
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

PAGES_SCRIPT = "minigrad-search-pages.js"
OFFLINE_SCRIPT = "minigrad-search-offline.js"

#: Elements whose content is no excerpt's text.
_DROPPED = {"script", "style", "svg", "img", "button", "template", "noscript", "math"}
#: Classes of elements whose content is no excerpt's text either.
_DROPPED_CLASSES = {"headerlink", "mg-language-switch"}
_SPACES = re.compile(r"\s+")
_EMPTY = re.compile(r"<div>\s*</div>")
#: Elements with no end tag.
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
         "track", "wbr"}


class _MainText(HTMLParser):
    """The ``role="main"`` element of a page as nested ``div``s (ids kept) and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self._depth = 0      # open elements inside the main block (0: outside it)
        self._dropped = 0    # open elements inside a dropped one

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            if tag == "br" and self._depth and not self._dropped:
                self.out.append(" ")
            return
        attributes = dict(attrs)
        if self._depth == 0:
            if attributes.get("role") == "main":
                self._depth = 1
                self.out.append('<div role="main">')
            return
        self._depth += 1
        classes = set((attributes.get("class") or "").split())
        if self._dropped or tag in _DROPPED or classes & _DROPPED_CLASSES:
            self._dropped += 1
            return
        identifier = attributes.get("id")
        self.out.append(f'<div id="{html.escape(identifier)}">' if identifier else "<div>")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # <br/>, <img/>, <path/>: no text

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or self._depth == 0:
            return
        self._depth -= 1
        if self._dropped:
            self._dropped -= 1
            return
        self.out.append("</div>")

    def handle_data(self, data: str) -> None:
        if self._depth and not self._dropped:
            self.out.append(html.escape(_SPACES.sub(" ", data), quote=False))


def main_text(page: str) -> str:
    """The part of a built page that Sphinx's search cuts an excerpt from, as small HTML."""
    parser = _MainText()
    parser.feed(page)
    parser.close()
    text, pruned = "".join(parser.out), ""
    while pruned != text:  # an element with neither id nor text says nothing
        pruned, text = text, _EMPTY.sub("", text)
    return text


def pages_script(outdir: Path, paths: list[str]) -> str:
    """``_static/minigrad-search-pages.js``: the main text of each of the pages ``paths``
    (relative to ``outdir``), keyed by its path."""
    pages = {}
    for relative in sorted(paths):
        text = main_text((outdir / relative).read_text(encoding="utf-8"))
        if text:
            pages[relative] = text
    return ("// Each page's text for the search page's excerpts from file:// (site/offline_search.py).\n"
            f"window.MINIGRAD_SEARCH_PAGES = {json.dumps(pages, ensure_ascii=False)};\n")


def add_scripts(app, pagename, templatename, context, doctree) -> None:
    """On the search page only: the pages' text and the fetch that reads it from file://."""
    if pagename == "search":
        app.add_js_file(PAGES_SCRIPT)
        app.add_js_file(OFFLINE_SCRIPT)


def write_pages(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    paths = [app.builder.get_target_uri(docname) for docname in app.env.found_docs]
    (outdir / "_static" / PAGES_SCRIPT).write_text(pages_script(outdir, paths),
                                                   encoding="utf-8")


def setup(app) -> None:
    app.connect("html-page-context", add_scripts)
    app.connect("build-finished", write_pages)
