"""The stepper and the drawings in a real browser: Debian's chromium, driven by playwright.

Opt-in: these tests run where playwright (``pip install -e ".[browser]"``) and a chromium
(``apt-get install chromium``; ``MINIGRAD_CHROMIUM`` names another one) are present, and skip,
saying which is missing, elsewhere. ``.ci/run`` installs both (``MINIGRAD_BROWSER=0`` opts
out). Playwright never downloads a browser of its own here: it is always given the system's
executable.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from support.browser import find_chromium, free_port

from minigrad import Value
from minigrad.course.folder import course_server_options
from minigrad.viz import backward_steps, draw_graph
from minigrad.figures.lecture import readme_graph

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]




@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("console", lambda message: errors.append(message.text)
              if message.type == "error" else None)
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.errors = errors
    yield opened
    context.close()


def _step(page) -> int:
    return int(page.locator(".mg-stepper").get_attribute("data-step"))


def _visible_frames(page) -> list[str]:
    return page.eval_on_selector_all(
        ".mg-frame", "frames => frames.filter(f => f.offsetParent !== null)"
                     ".map(f => f.dataset.frame)")


def test_the_html_stepper_steps_with_keys_and_buttons(page, tmp_path):
    steps = backward_steps(readme_graph(backward=False))
    page.goto(steps.save(tmp_path / "steps.html").as_uri())
    assert _step(page) == 1 and _visible_frames(page) == ["1"]
    page.locator(".mg-stepper").click()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert _step(page) == 3 and _visible_frames(page) == ["3"]
    page.keyboard.press("ArrowLeft")
    assert _step(page) == 2
    page.click("button[data-action=next]")
    assert _step(page) == 3
    page.click("button[data-action=prev]")
    page.click("button[data-action=prev]")
    assert _step(page) == 1
    page.click("button[data-action=last]")
    assert _step(page) == len(steps) and _visible_frames(page) == [str(len(steps))]
    page.keyboard.press("Home")
    assert _step(page) == 1
    page.keyboard.press(" ")  # play: it runs on by itself
    page.wait_for_function("document.querySelector('.mg-stepper').dataset.step === '3'",
                           timeout=10_000)
    assert page.locator(".mg-text").evaluate_all(
        "texts => texts.filter(t => t.offsetParent !== null).length") == 1
    assert page.errors == []


def test_text_fits_its_box_even_in_a_wider_fallback_font(page, tmp_path):
    """Where no Helvetica-like face exists the viewer falls back (here forced to DejaVu Sans,
    about 15 % wider); textLength keeps every line inside its box."""
    steps = backward_steps(readme_graph(backward=False), font_size=18)
    page.goto(steps.save(tmp_path / "steps.html").as_uri())
    page.add_style_tag(content="svg text { font-family: 'DejaVu Sans' !important; }")
    overflow = page.evaluate("""() => {
        const bad = [];
        const frame = document.querySelector('.mg-frame');
        for (const node of frame.querySelectorAll('g.node')) {
            const box = node.querySelector('path, polygon').getBBox();
            for (const text of node.querySelectorAll('text')) {
                const t = text.getBBox();
                if (t.x < box.x - 0.5 || t.x + t.width > box.x + box.width + 0.5) {
                    bad.push(text.textContent);
                }
            }
        }
        return bad;
    }""")
    assert overflow == []


def test_a_wide_drawing_fits_the_page_and_a_click_shows_it_full_size(page, tmp_path):
    chain = Value(1.0, "x0")
    for index in range(1, 9):
        chain = (chain * 1.1).tanh()
        chain.label = f"x{index}"
    html = draw_graph(chain)._repr_mimebundle_()["text/html"]
    (tmp_path / "wide.html").write_text(f"<!DOCTYPE html><html><body style='width:600px'>"
                                        f"{html}</body></html>", encoding="utf-8")
    page.goto((tmp_path / "wide.html").as_uri())
    svg = page.locator("svg")
    fitted = svg.bounding_box()["width"]
    assert fitted <= 600
    svg.click()
    assert svg.bounding_box()["width"] > 1.5 * fitted
    assert page.errors == []


# ---------------------------------------------------------------------- JupyterLab
@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")
    if find_chromium() is None:
        pytest.skip("no chromium found (apt-get install chromium, or set MINIGRAD_CHROMIUM)")
    home = tmp_path_factory.mktemp("jupyter")
    settings = home / "settings" / "@jupyterlab" / "docmanager-extension"
    settings.mkdir(parents=True)
    # Never write the lesson notebooks: no autosave; the test closes without saving.
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
    tracker = home / "settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    port, token = free_port(), hashlib.sha256(os.urandom(16)).hexdigest()[:32]
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTER_DATA_DIR": str(home / "data"),
           "IPYTHONDIR": str(home / "ipython"), "MPLBACKEND": "Agg"}
    server_log = open(home / "server.log", "w")  # noqa: SIM115 — the server writes it
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
         "--ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={REPO}",
         "--allow-root", "--LabApp.expose_app_in_browser=True",
         f"--LabApp.user_settings_dir={home / 'settings'}",
         f"--LabApp.workspaces_dir={home / 'workspaces'}", *course_server_options()],
        env=env, stdout=subprocess.DEVNULL, stderr=server_log)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("JupyterLab did not start")
                time.sleep(0.5)
        yield base, token, home / "server.log"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        server_log.close()


_NOTEBOOK_STATE = """() => {
    const widget = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const kernel = widget && widget.sessionContext && widget.sessionContext.session
        && widget.sessionContext.session.kernel;
    if (!widget || !widget.content || !kernel) { return null; }
    const code = widget.content.widgets.filter(cell => cell.model.type === 'code');
    const outputs = code.flatMap(cell => cell.model.outputs.toJSON());
    return {
        idle: kernel.status === 'idle',
        executed: code.filter(cell => cell.model.executionCount !== null).length,
        total: code.length,
        errors: outputs.filter(o => o.output_type === 'error')
                       .map(o => o.ename + ': ' + o.evalue),
    };
}"""


def _wait_until_run(page, timeout: float = 300.0, ran: bool = True) -> dict:
    """Poll the notebook model until the kernel idles and (``ran``) every code cell ran or one
    failed."""
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        state = page.evaluate(_NOTEBOOK_STATE)
        finished = state and (state["errors"] or state["executed"] == state["total"])
        if state and state["idle"] and (finished or not ran):
            return state
        time.sleep(0.5)
    pytest.fail(f"the notebook did not finish running within {timeout:g} s: {state}")


def _error_outputs(page) -> list[str]:
    """Text written to stderr that reports an error (warnings are allowed)."""
    return page.eval_on_selector_all(
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
        "outputs => outputs.map(o => o.textContent).filter(t => /Error|Traceback/.test(t))")


def _run_cell(page, source: str) -> None:
    """Add a cell at the end of the open notebook and run it."""
    page.evaluate("""source => {
        const app = window.jupyterapp;
        const notebook = app.shell.currentWidget.content;
        notebook.activeCellIndex = notebook.widgets.length - 1;
        return app.commands.execute('notebook:insert-cell-below').then(() => {
            notebook.activeCell.model.sharedModel.setSource(source);
            return app.commands.execute('notebook:run-cell');
        });
    }""", source)


def test_notebook_01_runs_in_jupyterlab_and_the_stepper_works_inline(browser, jupyterlab):
    base, token, server_log = jupyterlab
    notebook = REPO / "notebooks" / "01-derivatives.ipynb"
    before = notebook.read_bytes()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{base}/lab/tree/notebooks/01-derivatives.ipynb?token={token}")
        _wait_until_run(page, timeout=120, ran=False)  # the kernel has started
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        state = _wait_until_run(page)
        assert state["errors"] == [] and state["executed"] == state["total"] > 0
        assert _error_outputs(page) == []
        # Every drawing fits its output area (the lesson 01 graph is wider than some).
        too_wide = page.evaluate("""() => [
            ...document.querySelectorAll('.jp-OutputArea-output svg')]
            .filter(svg => svg.getBoundingClientRect().width >
                           svg.closest('.jp-OutputArea-output').clientWidth + 1).length""")
        assert too_wide == 0

        # A new cell with the stepper: its script runs and the buttons and keys move it.
        _run_cell(page, "from minigrad.viz import backward_steps\nbackward_steps(node_L)")
        stepper = page.locator(".jp-OutputArea-output .mg-stepper").last
        stepper.wait_for(timeout=60_000)
        page.wait_for_function("document.querySelector('.mg-stepper[data-step]') !== null",
                               timeout=30_000)
        frames = int(stepper.get_attribute("data-frames"))
        assert int(stepper.get_attribute("data-step")) == 1
        stepper.locator("button[data-action=next]").click()
        assert int(stepper.get_attribute("data-step")) == 2
        stepper.locator("button[data-action=last]").click()
        assert int(stepper.get_attribute("data-step")) == frames
        stepper.press("ArrowLeft")
        assert int(stepper.get_attribute("data-step")) == frames - 1
        assert _error_outputs(page) == [] and errors == []
        # The course's server settings: no news question over the lesson, kernels over ipc.
        assert "Jupyter news" not in page.inner_text("body")
        log = server_log.read_text(errors="replace")
        assert "without encryption" not in log and "Kernel started" in log
    finally:
        context.close()
        assert notebook.read_bytes() == before, "the browser test changed notebook 01"
