"""Chromium for the browser tests: Debian's, found on PATH (``MINIGRAD_CHROMIUM`` names another).

Playwright never downloads a browser of its own here: it is always given this executable.
"""

from __future__ import annotations

import os
import shutil

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def find_chromium() -> str | None:
    named = os.environ.get("MINIGRAD_CHROMIUM")
    if named:
        return shutil.which(named)
    for candidate in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = shutil.which(candidate)
        if found:
            return found
    return None
