"""Every lesson's deck in a real browser (Debian's chromium through playwright, opt-in as in
tests/viz/test_stepper_browser.py): it loads from file:// with no console error and no request
outside the file, advances with the arrow keys, sets its body text at ≥ 24 pt at 1280 × 720,
and its backward stepper steps. A screenshot of each deck's stepper slide is kept in
``tests/artefacts/slides/`` (git-ignored); the path is printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from minigrad.course.catalog import LESSONS
from minigrad.course.slides import write_deck

pytestmark = pytest.mark.browser

ARTEFACTS = Path(__file__).resolve().parents[1] / "artefacts" / "slides"
BODY_PX = 24 * 96 / 72  # 24 pt in CSS pixels




@pytest.fixture(scope="module")
def decks(tmp_path_factory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("decks")
    return {lesson.number: write_deck(lesson.number, folder / f"deck{lesson.number:02d}.html")
            for lesson in LESSONS}


def _open(browser, path: Path):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.errors, page.requests = [], []
    page.on("console", lambda message: page.errors.append(message.text)
            if message.type == "error" else None)
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("requestfailed", lambda request: page.errors.append(f"failed: {request.url}"))
    page.on("request", lambda request: page.requests.append(request.url))
    page.goto(path.as_uri())
    return context, page


def _slide(page) -> int:
    return int(page.evaluate("document.getElementById('deck').dataset.slide"))


@pytest.mark.parametrize("number", [lesson.number for lesson in LESSONS])
def test_a_deck_loads_offline_advances_and_reads_from_the_back(browser, decks, number) -> None:
    context, page = _open(browser, decks[number])
    try:
        count = page.locator(".slide").count()
        assert _slide(page) == 1
        smallest = []
        for expected in range(1, count + 1):
            assert _slide(page) == expected
            sizes = page.evaluate("""() => Array.from(document.querySelectorAll(
                '.slide.current p, .slide.current li')).filter(e => e.offsetParent !== null
                && e.closest('.notes') === null).map(e => parseFloat(getComputedStyle(e).fontSize))""")
            smallest.extend(sizes)
            # a stepper slide takes → for each backward step first, then moves on
            stepper = page.locator(".slide.current .mg-stepper")
            if stepper.count():
                frames = int(stepper.get_attribute("data-frames"))
                page.keyboard.press("ArrowRight")
                if frames > 1:
                    assert stepper.get_attribute("data-step") == "2"
                    page.keyboard.press("ArrowLeft")
                    assert stepper.get_attribute("data-step") == "1"
                    for _ in range(frames):  # frames − 1 steps, then the next slide
                        page.keyboard.press("ArrowRight")
                    continue
            else:
                page.keyboard.press("ArrowRight")
        assert _slide(page) == count
        page.keyboard.press("ArrowLeft")
        assert _slide(page) == count - 1
        page.keyboard.press("Home")
        assert _slide(page) == 1
        page.keyboard.press("End")
        assert _slide(page) == count
        assert smallest and min(smallest) >= BODY_PX, f"body text {min(smallest)} px"
        assert page.errors == []
        outside = [url for url in page.requests if not url.startswith(("file:", "data:"))]
        assert outside == []
    finally:
        context.close()


@pytest.mark.parametrize("number", [lesson.number for lesson in LESSONS])
def test_the_stepper_slide_steps_and_is_kept_as_a_screenshot(browser, decks, number) -> None:
    context, page = _open(browser, decks[number])
    try:
        index = page.evaluate("""() => Array.from(document.querySelectorAll('.slide'))
            .findIndex(s => s.querySelector('.mg-stepper'))""")
        page.keyboard.press("Home")
        for _ in range(index):
            page.keyboard.press("ArrowRight")
        assert _slide(page) == index + 1
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        stepper = page.locator(".slide.current .mg-stepper")
        assert stepper.get_attribute("data-step") == "3"
        visible = page.locator(".slide.current .mg-frame:visible")
        assert visible.count() == 1 and visible.get_attribute("data-frame") == "3"
        box = page.locator(".slide.current .mg-frame:visible svg").bounding_box()
        assert box and box["width"] > 300 and box["y"] + box["height"] <= 720
        # The graph is fitted to the slide: its text as drawn, in CSS pixels. Big arrays show
        # by their shape in the boxes (the arithmetic panel has the numbers), which keeps the
        # conv nets' text at 11-15 px here (17-22 px at 1920 × 1080; it was 7-10 px).
        drawn = page.evaluate("""() => Array.from(document.querySelectorAll(
            '.slide.current .mg-frame svg text')).map(t => [t.getBoundingClientRect(), t])
            .filter(([box, t]) => box.height > 0 && t.getBBox().height > 0)
            .map(([box, t]) => parseFloat(getComputedStyle(t).fontSize) * box.height
                               / t.getBBox().height)""")
        assert drawn and min(drawn) >= 9.0, f"graph text {min(drawn):.1f} px"
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        shot = ARTEFACTS / f"lesson{number:02d}_stepper_1280x720.png"
        page.screenshot(path=str(shot))
        print(f"screenshot: {shot}")
        page.keyboard.press("s")
        assert page.locator("#notes-panel.open p").count() >= 1
        assert page.errors == []
    finally:
        context.close()
