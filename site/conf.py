"""Sphinx configuration of the course website (``make site``; see site/build.py).

The source folder is assembled by site/build.py; this file only configures Sphinx. Nothing
here points outside the site's folder: MathJax is served from ``_static/mathjax/`` and the
theme's own files are local, so the built pages load nothing from the network.

The build's language is ``MINIGRAD_SITE_LANGUAGE`` (``en``, ``zh``; site/build.py sets it):
Sphinx's and the theme's own words come in that language, the site's own texts from the
catalog ``minigrad/i18n/<language>/site.po``, and every page links to itself in the other
language (``_templates/language-switch.html``).
"""

from __future__ import annotations

import hashlib
import html
import importlib.util
import json
import os
import re
import shutil
import sys
from pathlib import Path

from docutils import nodes

sys.path.insert(0, str(Path(__file__).resolve().parent))  # site/'s own modules
import chinese_search  # noqa: E402
import offline_search  # noqa: E402
from minigrad.i18n.language import LANGUAGES  # noqa: E402


def _site_build():
    """site/build.py as a module (by its path: PyPA's ``build`` has the same name)."""
    spec = importlib.util.spec_from_file_location("minigrad_site_build",
                                                  Path(__file__).resolve().parent / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


site_build = _site_build()

SITE_LANGUAGE = os.environ.get("MINIGRAD_SITE_LANGUAGE", "en")
if SITE_LANGUAGE not in site_build.LANGUAGES:
    raise ValueError(f"MINIGRAD_SITE_LANGUAGE={SITE_LANGUAGE!r}: the site is built in "
                     + ", ".join(sorted(site_build.LANGUAGES)))
language = site_build.SPHINX_LANGUAGE[SITE_LANGUAGE]


def _(message: str) -> str:
    """One of the site's own texts in the build's language (site.po)."""
    return site_build._(message, SITE_LANGUAGE)


project = "minigrad"
author = "the minigrad authors"
copyright = "the minigrad authors, MIT licence"
html_title = _(site_build.TITLE)

extensions = ["myst_nb"]
exclude_patterns = ["**.ipynb_checkpoints", "downloads/**"]  # files to download, not pages
suppress_warnings = ["mystnb.unknown_mime_type"]

# --- Markdown and notebooks (myst-nb) -------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
nb_execution_mode = "cache"  # jupyter-cache: a cell runs again only if a code cell changed
nb_execution_cache_path = os.environ.get("MINIGRAD_SITE_CACHE", "../cache")
nb_execution_timeout = 900
nb_execution_raise_on_error = True  # a notebook that fails fails the build
nb_execution_show_tb = True
nb_output_stderr = "warn"  # text on stderr (a warning in a lesson) fails the build too
nb_merge_streams = True
# tqdm's training bar is a live Jupyter widget; a static page cannot run it without the widget
# library from a CDN, so the site loads no widget script and drops the empty widget outputs
# (the training curves plotted after each run stay).
nb_ipywidgets_js: dict = {}

# --- Math, offline: the MathJax 3 that `make site` installed (SVG output: no web fonts) -----
_mathjax = Path(os.environ.get("MINIGRAD_MATHJAX", "mathjax/tex-svg-full.js"))
mathjax_path = f"mathjax/{_mathjax.name}"
mathjax3_config = {
    "tex": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]]},
    "options": {"processHtmlClass": "tex2jax_process|mathjax_process|math|output_area"},
    "svg": {"fontCache": "global"},
}

# --- Pages ------------------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
templates_path = ["_templates"]
html_css_files = ["minigrad.css", "minigrad-texts.css"]  # the second: _write_texts_css
html_js_files = ["minigrad-math.js"]  # the floor under a wide equation's scaling
html_context = {
    "default_mode": "light",  # the drawings are drawn on white
    # This file's hash: Sphinx rewrites every page when it changes (hooks below included).
    "minigrad_conf": hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16],
}
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "navigation_with_keys": True,
    "article_header_end": ["language-switch", "toggle-secondary-sidebar"],
    "footer_content_items": ["copyright"],
}


def _copy_mathjax(app, exception) -> None:
    """Serve the installed MathJax file, with its licence, as ``_static/mathjax/``."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "mathjax"
    target.mkdir(parents=True, exist_ok=True)
    for path in (_mathjax, _mathjax.parent / "LICENSE"):
        shutil.copyfile(path, target / path.name)


# --- Exercise stubs marked; alt text for the notebooks' pictures -----------------------------------------------------
# A figure or drawing that a cell outputs has no caption of its own. It is named after the call
# that drew it (``plot_tangent(at=0.5)``), which the reader also sees just above it; the
# readings' own images keep the alt text written for them.
_DRAWING_CALL = re.compile(r"\b(plot_\w*|draw_\w*|backward_steps|Image|imshow|show_\w*)\(")
_BARE_SVG = re.compile(r"<svg(?![^>]*\brole=)")


def _drawing_call(code: str) -> str:
    lines = [line.split("  #")[0].strip().rstrip(";") for line in code.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    calls = [line for line in lines if _DRAWING_CALL.search(line)]
    return (calls or lines or ["the cell above"])[-1]


def _label_outputs(app, doctree, docname) -> None:
    for cell in doctree.findall(lambda node: isinstance(node, nodes.container)
                                and "cell" in node.get("classes", [])):
        code = "".join(block.astext() for block in cell.findall(nodes.literal_block)
                       if any("cell_input" in parent.get("classes", [])
                              for parent in _ancestors(block)))
        if "raise NotImplementedError" in code:  # an exercise stub: the student's to write
            cell["classes"].append("mg-exercise-stub")
        label = _(site_build.OUTPUT_LABEL.format(call=_drawing_call(code)))
        for image in cell.findall(nodes.image):
            if not image.get("alt") or image["alt"] == image["uri"]:
                image["alt"] = label
        for raw in list(cell.findall(nodes.raw)):
            if "application/vnd.jupyter.widget-view+json" in raw.astext():
                raw.parent.remove(raw)
            elif "<svg" in raw.astext():
                text = _BARE_SVG.sub(f'<svg role="img" aria-label="{html.escape(label)}"',
                                     raw.astext())
                raw.replace_self(nodes.raw("", text, format=raw.get("format", "html")))


def _ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


def _write_texts_css(app, exception) -> None:
    """``_static/minigrad-texts.css``: the words that minigrad.css shows (``var(--mg-…)``),
    in the build's language."""
    if exception is not None or app.builder.format != "html":
        return
    label = json.dumps(_(site_build.STUB_LABEL), ensure_ascii=False)  # a CSS string too
    (Path(app.outdir) / "_static" / "minigrad-texts.css").write_text(
        "/* The site's words in its style sheet, from site.po (site/conf.py). */\n"
        f":root {{ --mg-stub-label: {label}; }}\n", encoding="utf-8")


def _language_switch(app, pagename, templatename, context, doctree) -> None:
    """The link to this page in each other language, relative (it works from ``file://``):
    up to the site's root, down into the other language's folder, the same page."""
    root = "../" * (pagename.count("/") + site_build.LANGUAGES[SITE_LANGUAGE].count("/")
                    + bool(site_build.LANGUAGES[SITE_LANGUAGE]))
    context["minigrad_languages"] = [
        {"code": code, "name": LANGUAGES[code],
         "title": site_build._(site_build.SWITCH_TITLES[code], code),
         "url": f"{root}{folder}{'/' if folder else ''}{pagename}.html"}
        for code, folder in site_build.LANGUAGES.items() if code != SITE_LANGUAGE]


def setup(app):
    app.connect("build-finished", _copy_mathjax)
    app.connect("build-finished", _write_texts_css)
    app.connect("html-page-context", _language_switch)
    chinese_search.setup(app)  # Chinese words found without a word segmenter
    offline_search.setup(app)  # search excerpts from file:// too
    app.connect("doctree-resolved", _label_outputs)
