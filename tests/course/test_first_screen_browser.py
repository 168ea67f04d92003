"""A student's first screen: ``minigrad course DIR`` in a real browser (Debian's chromium,
driven by playwright), as a student who installed the course runs it.

The URL that ``minigrad course`` prints opens notebook 01 (not JupyterLab's Launcher), and a
reading (``lessons/*.md``) opens rendered — headings, bold and typeset maths — not as raw
Markdown in the text editor. Opt-in like the other browser tests: skipped, saying why, where
playwright or chromium is missing (``MINIGRAD_BROWSER=0`` opts out).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from support.browser import find_chromium, free_port

from minigrad.course.folder import FIRST_NOTEBOOK

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """``minigrad course DIR --no-browser`` running; yields (DIR, the URL it printed)."""
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")
    if find_chromium() is None:
        pytest.skip("no chromium found (apt-get install chromium, or set MINIGRAD_CHROMIUM)")
    home = tmp_path_factory.mktemp("first-screen")
    folder = home / "my-course"
    settings = home / "settings" / "@jupyterlab" / "docmanager-extension"
    settings.mkdir(parents=True)
    # The student's files stay as written: no autosave (the course's own settings are the
    # environment's overrides, which these user settings do not touch).
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
    port = free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTER_DATA_DIR": str(home / "data"),
           "IPYTHONDIR": str(home / "ipython"), "MPLBACKEND": "Agg"}
    log_path = home / "server.log"
    log = open(log_path, "w")  # noqa: SIM115 — the server writes it
    server = subprocess.Popen(
        [sys.executable, "-m", "minigrad", "course", str(folder), "--no-browser",
         "--port", str(port), "--ip", "127.0.0.1", "--LabApp.expose_app_in_browser=True",
         f"--LabApp.user_settings_dir={home / 'settings'}",
         f"--LabApp.workspaces_dir={home / 'workspaces'}"],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    printed = re.compile(rf"http://127\.0\.0\.1:{port}/\S*token=\w+")
    try:
        deadline = time.monotonic() + 120
        while not (found := printed.search(log_path.read_text(encoding="utf-8"))):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not start:\n{log_path.read_text(encoding='utf-8')}")
            time.sleep(0.5)
        yield folder, found.group(0)
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # minigrad and the JupyterLab it started
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()


_OPEN = """path => {
    const app = window.jupyterapp;
    if (!app) { return null; }
    const current = app.shell.currentWidget;
    return {current: current && current.context ? current.context.path : null,
            classes: current ? current.node.className : null};
}"""


def _wait_for_document(page, path: str, timeout: float = 90.0) -> dict:
    """Wait until JupyterLab shows ``path`` in front; its widget's classes."""
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        state = page.evaluate(_OPEN, path)
        if state and state["current"] == path:
            return state
        time.sleep(0.5)
    pytest.fail(f"JupyterLab did not show {path} within {timeout:g} s: {state}")


def test_the_printed_url_opens_notebook_01(browser, course):
    folder, url = course
    assert f"/lab/tree/{FIRST_NOTEBOOK}?token=" in url
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(url)
        current = _wait_for_document(page, FIRST_NOTEBOOK)
        assert "jp-NotebookPanel" in current["classes"]
        assert page.locator(".jp-Launcher").count() == 0  # no Launcher over the lesson
        title = page.locator(".jp-NotebookPanel .jp-MarkdownCell h1").first
        title.wait_for(timeout=30_000)
        assert "Derivatives" in title.inner_text()
    finally:
        context.close()


def test_a_reading_opens_rendered_not_as_raw_markdown(browser, course):
    folder, url = course
    reading = "lessons/02-scalar-autograd.md"
    raw = (folder / reading).read_text(encoding="utf-8")
    assert "$$" in raw and "**" in raw and "\\cdot" in raw  # what must not show
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(url)
        _wait_for_document(page, FIRST_NOTEBOOK)
        # What a double click in the file browser does: open with the default viewer.
        opened = page.evaluate("""async path => {
            const widget = await window.jupyterapp.commands.execute('docmanager:open', {path});
            return widget.content.node.className;
        }""", reading)
        assert "jp-MarkdownViewer" in opened, opened  # not "jp-FileEditor"
        _wait_for_document(page, reading)
        viewer = page.locator(".jp-MarkdownViewer .jp-RenderedMarkdown").last
        viewer.locator("h1").first.wait_for(timeout=30_000)
        page.wait_for_function(
            "document.querySelectorAll('.jp-MarkdownViewer mjx-container').length > 5",
            timeout=60_000)
        text = viewer.inner_text()
        assert "A scalar autograd engine" in viewer.locator("h1").first.inner_text()
        assert viewer.locator("strong").count() > 0
        for residue in ("$$", "\\cdot", "**"):
            assert residue not in text, residue
    finally:
        context.close()
