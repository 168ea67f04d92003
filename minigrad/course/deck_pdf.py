"""``minigrad slides NN --out deck.pdf``: a deck printed by headless Chromium.

reveal.js lays a deck out for print when its address ends in ``?print-pdf``: a page per slide
and, with ``pdfSeparateFragments`` (set in ``deck.html``), a page per revealed line and per
stepper step, each page the slide's own 1280 × 720. Playwright drives the system's Chromium
(``MINIGRAD_CHROMIUM`` names another); nothing is downloaded. Without either, the error says
how to install them, or how to print from a browser by hand.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
HOW = ("install playwright (pip install 'minigrad-course[browser]') and a Chromium "
       "(Debian/Ubuntu: apt-get install chromium), or write the .html deck, open it in "
       "Chrome or Chromium with ?print-pdf after its address, and print it to PDF")


def find_chromium() -> str | None:
    """The Chromium to print with: ``$MINIGRAD_CHROMIUM``, else the first on ``PATH``."""
    named = os.environ.get("MINIGRAD_CHROMIUM")
    if named:
        return shutil.which(named)
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def html_to_pdf(page: Path, out: Path, timeout_s: float = 120.0) -> Path:
    """Print the deck ``page`` (an .html file) to ``out`` with a page per slide and step."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise RuntimeError(f"writing a PDF needs playwright, which is not installed: {HOW}") \
            from None
    executable = find_chromium()
    if executable is None:
        raise RuntimeError(f"writing a PDF needs Chromium, and none was found: {HOW}")
    args = ["--headless", "--disable-gpu"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses to start as root otherwise
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=args)
        try:
            view = browser.new_page(viewport={"width": 1280, "height": 720})
            view.goto(Path(page).resolve().as_uri() + "?print-pdf")
            view.wait_for_function("window.Reveal && Reveal.isReady() && "
                                   "document.querySelector('.pdf-page') !== null",
                                   timeout=timeout_s * 1000)
            view.pdf(path=str(out), width="1280px", height="720px", print_background=True,
                     prefer_css_page_size=True)
        finally:
            browser.close()
    return out
