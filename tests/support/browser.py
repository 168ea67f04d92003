"""Chromium for the browser tests: Debian's, found on PATH (``MINIGRAD_CHROMIUM`` names another).

Playwright never downloads a browser of its own here: it is always given this executable.
"""

from __future__ import annotations

import os
import shutil
import socket
from typing import Any, Iterator

import pytest

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


def launched_chromium() -> Iterator[Any]:
    """Playwright's Chromium, launched on :func:`find_chromium`; skips the test, saying why,
    when playwright or chromium is missing or ``MINIGRAD_BROWSER=0``."""
    if os.environ.get("MINIGRAD_BROWSER") == "0":
        pytest.skip("MINIGRAD_BROWSER=0: browser tests opted out")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[browser]')")
    executable = find_chromium()
    if executable is None:
        pytest.skip("no chromium found (apt-get install chromium, or set MINIGRAD_CHROMIUM)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def free_port() -> int:
    """A TCP port on the loopback that nothing listens on now (for a JupyterLab under test)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
