"""Every lesson's deck in a real browser (Debian's chromium through playwright, opt-in as in
tests/viz/test_stepper_browser.py), at 1280 × 720:

- it loads from file:// with no console error and no request outside the file;
- at every state of every slide (each step of a stepper, each revealed line) every piece of
  text on screen, SVG drawings included, is at least 20 pt (26.7 CSS px), and nothing spills
  off the slide;
- every figure a slide shows is inline SVG whose labels are text the measure reaches: no
  raster picture (``<img>``, ``<canvas>``, an SVG ``<image>``, an ``<object>``), whose text no
  browser can measure, and no figure without text;
- each deck in Chinese passes the same measures, its Chinese (the figures' labels included)
  drawn by the CJK font inside the deck;
- → steps through a stepper before it moves on, ← steps back;
- ``s`` opens reveal's presenter view in a window of its own, with the current slide's notes.

A screenshot of each deck's stepper slide is kept in ``tests/artefacts/slides/`` (git-ignored).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from minigrad.course.catalog import LESSONS
from minigrad.course.slides import write_deck

pytestmark = pytest.mark.browser

ARTEFACTS = Path(__file__).resolve().parents[1] / "artefacts" / "slides"
MIN_PX = 20 * 4 / 3  # 20 pt in CSS pixels

# Every text node on screen in the current slide: its element's rendered font size in CSS px
# (an SVG text's size times its drawing's scale on screen) and its box.
MEASURE = r"""() => {
  const section = Reveal.getCurrentSlide();
  const scale = Reveal.getScale();
  const walker = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
  const found = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.textContent.trim() || element.closest('aside.notes')) continue;
    if (!element.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    let px = parseFloat(getComputedStyle(element).fontSize);
    if (element instanceof SVGElement) {
      const m = element.getScreenCTM();
      px *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
    } else {
      px *= scale;
    }
    found.push({text: node.textContent.trim().slice(0, 40), px: px,
                box: [box.left, box.top, box.right, box.bottom]});
  }
  // a word broken over two lines (a long node name squeezed into a narrow caption)
  const broken = [];
  section.querySelectorAll('.mg-step .caption span').forEach(span => {
    if (!span.checkVisibility({opacityProperty: true, visibilityProperty: true})) return;
    const node = span.firstChild;
    if (!node) return;
    // lines may break after "/", and between Chinese characters (a word is a Latin one)
    const word = /[^\s\/\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+\/?/g;
    for (const match of node.textContent.matchAll(word)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const lines = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
      if (lines.size > 1) broken.push(match[0]);
    }
  });
  // pictures whose text the walk above cannot reach (a PNG, or an SVG in an <img>), and
  // inline figures with no text on screen at all
  const opaque = Array.from(section.querySelectorAll(
      'img, canvas, object, embed, iframe, svg image')).map(e => e.tagName + ' ' +
      (e.getAttribute('alt') || e.getAttribute('aria-label') || ''));
  const textless = Array.from(section.querySelectorAll('.picture svg')).filter(svg =>
    !Array.from(svg.querySelectorAll('text')).some(t => t.textContent.trim()
      && t.checkVisibility({opacityProperty: true, visibilityProperty: true})))
    .map(svg => 'no text: ' + svg.getAttribute('aria-label'));
  const inner = section.querySelector('.mg-slide');
  return {found: found, broken: broken, opaque: opaque, textless: textless,
          overflow: inner.scrollHeight > inner.clientHeight + 1
                    || inner.scrollWidth > inner.clientWidth + 1};
}"""


@pytest.fixture(scope="module")
def decks(tmp_path_factory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("decks")
    return {lesson.number: write_deck(lesson.number, folder / f"deck{lesson.number:02d}.html")
            for lesson in LESSONS}


def _open(browser, path: Path, suffix: str = ""):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.errors, page.requests = [], []
    page.on("console", lambda message: page.errors.append(message.text)
            if message.type == "error" else None)
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.on("requestfailed", lambda request: page.errors.append(f"failed: {request.url}"))
    page.on("request", lambda request: page.requests.append(request.url))
    page.goto(path.as_uri() + suffix)
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    return context, page


def _state(page) -> tuple[int, int]:
    """(slide, fragment) with slides from 1 and fragments from -1 (none shown yet)."""
    indices = page.evaluate("Reveal.getIndices()")
    return indices["h"] + 1, -1 if indices["f"] is None else indices["f"]


def _step(page) -> int:
    """The step of the current slide's stepper on screen (exactly one is)."""
    shown = page.evaluate("""() => Array.from(Reveal.getCurrentSlide().querySelectorAll(
        '.mg-step')).filter(e => e.checkVisibility({opacityProperty: true,
        visibilityProperty: true})).map(e => Number(e.dataset.step))""")
    assert len(shown) == 1, shown
    return shown[0]


def _reads_from_the_back(page) -> None:
    """Every state of every slide: all text at least 20 pt (figures' labels included, each
    figure inline SVG with text), nothing off the slide, no word broken, no error, nothing
    fetched."""
    count = page.evaluate("Reveal.getTotalSlides()")
    smallest, offenders, overflowing, states, unmeasured = [], [], [], [], []
    while True:
        state = _state(page)
        states.append(state)
        measured = page.evaluate(MEASURE)
        for item in measured["found"]:
            smallest.append(item["px"])
            left, top, right, bottom = item["box"]
            if item["px"] < MIN_PX - 1e-6:
                offenders.append((state, item["text"], round(item["px"], 2)))
            if left < -1 or top < -1 or right > 1281 or bottom > 721:
                overflowing.append((state, item["text"], item["box"]))
        if measured["broken"]:
            overflowing.append((state, "words broken", measured["broken"]))
        if measured["overflow"]:
            overflowing.append((state, "the slide scrolls", None))
        unmeasured += [(state, what) for what in measured["opaque"] + measured["textless"]]
        if page.evaluate("Reveal.isLastSlide() && !Reveal.availableFragments().next"):
            break
        page.keyboard.press("ArrowRight")
        assert _state(page) != state, f"→ did not move on from {state}"
    assert states[-1][0] == count and len({s[0] for s in states}) == count
    assert unmeasured == [], f"figures whose text is not measured: {unmeasured}"
    assert smallest and min(smallest) >= MIN_PX - 1e-6, offenders[:10]
    assert offenders == [] and overflowing == [], (offenders[:5], overflowing[:5])
    assert page.errors == []
    outside = [url for url in page.requests if not url.startswith(("file:", "data:"))]
    assert outside == []


@pytest.mark.parametrize("number", [lesson.number for lesson in LESSONS])
def test_every_text_on_every_slide_and_step_reads_from_the_back(browser, decks, number) -> None:
    context, page = _open(browser, decks[number])
    try:
        _reads_from_the_back(page)
    finally:
        context.close()


# Every label of the deck's figures (inline SVG), with the font family the browser gives it.
FIGURE_LABELS = r"""() => Array.from(document.querySelectorAll('svg.mg-figure text'))
  .map(t => ({text: t.textContent, font: getComputedStyle(t).fontFamily}))"""
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("number", [lesson.number for lesson in LESSONS])
def test_a_chinese_deck_reads_from_the_back_in_its_own_cjk_font(browser, tmp_path,
                                                                 number) -> None:
    """Each lesson in Chinese (pictures, steppers, notes): the same measures, the figures'
    wider Chinese labels included, and its Chinese, the figures' too, is drawn by the font
    inside the deck, offline."""
    deck = write_deck(number, tmp_path / f"deck{number:02d}-zh.html", language="zh")
    context, page = _open(browser, deck)
    try:
        assert page.evaluate("document.documentElement.lang") == "zh-CN"
        page.evaluate("document.fonts.ready")
        assert page.evaluate("""() => Array.from(document.fonts).some(face =>
            face.family.replace(/"/g, '') === 'minigrad CJK' && face.status === 'loaded')""")
        assert page.evaluate("document.fonts.check('28px \"minigrad CJK\"', '反向传播')")
        title = page.evaluate("document.querySelector('.title-slide h2').textContent")
        assert CJK.search(title) and (number != 7 or "池化" in title)
        labels = page.evaluate(FIGURE_LABELS)
        chinese = [label for label in labels if CJK.search(label["text"])]
        assert chinese, f"no Chinese label in the figures of deck {number:02d}: {labels[:5]}"
        assert all("minigrad CJK" in label["font"] for label in chinese), chinese[:3]
        _reads_from_the_back(page)
    finally:
        context.close()


@pytest.mark.parametrize("number", [lesson.number for lesson in LESSONS])
def test_the_arrow_keys_step_through_backward_then_move_on(browser, decks, number) -> None:
    context, page = _open(browser, decks[number])
    try:
        index = page.evaluate("""() => Reveal.getSlides()
            .findIndex(s => s.querySelector('.mg-steps[data-steps]'))""")
        page.evaluate(f"Reveal.slide({index})")
        steps = int(page.locator("section.present .mg-steps[data-steps]").get_attribute("data-steps"))
        assert steps >= 3 and _step(page) == 1
        for expected in range(2, steps + 1):
            page.keyboard.press("ArrowRight")
            assert _state(page)[0] == index + 1 and _step(page) == expected
        page.keyboard.press("ArrowLeft")
        assert _step(page) == steps - 1
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert _state(page) == (index + 2, -1)
        page.keyboard.press("ArrowLeft")  # back onto the stepper, at its last step
        assert _state(page)[0] == index + 1 and _step(page) == steps
        page.evaluate(f"Reveal.slide({index}, 0, 1)")
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        shot = ARTEFACTS / f"lesson{number:02d}_stepper_1280x720.png"
        page.screenshot(path=str(shot))
        print(f"screenshot: {shot}")
        assert page.errors == []
    finally:
        context.close()


def test_s_opens_the_presenter_view_in_its_own_window(browser, decks) -> None:
    context, page = _open(browser, decks[2])
    try:
        page.evaluate("Reveal.slide(2)")
        notes = page.evaluate("Reveal.getCurrentSlide().querySelector('aside.notes').innerText")
        with context.expect_page() as opened:
            page.keyboard.press("s")
        speaker = opened.value
        value = speaker.locator(".speaker-controls-notes .value")
        speaker.wait_for_function("""() => document.querySelector(
            '.speaker-controls-notes .value').innerText.trim().length > 0""", timeout=15000)
        assert " ".join(value.text_content().split())[:60] == " ".join(notes.split())[:60]
        # the current and the next slide, and a timer
        assert speaker.locator("#current-slide iframe").count() == 1
        assert speaker.locator("#upcoming-slide iframe").count() == 1
        assert speaker.locator(".speaker-controls-time").count() == 1
        status = speaker.locator("#connection-status")
        assert not status.is_visible() or "error" not in status.inner_text().lower()
        # moving in the deck moves the notes
        page.keyboard.press("ArrowRight")
        while _state(page)[1] != -1:
            page.keyboard.press("ArrowRight")
        following = page.evaluate(
            "Reveal.getCurrentSlide().querySelector('aside.notes').innerText")
        start = " ".join(following.split())[:30]
        speaker.wait_for_function(f"""() => document.querySelector(
            '.speaker-controls-notes .value').textContent.replace(/\\s+/g, ' ').trim()
            .startsWith({start!r})""", timeout=15000)
        assert page.errors == []
    finally:
        context.close()


def _states_per_slide(page) -> list[int]:
    """How many pages each slide prints as: itself plus one per fragment step."""
    return page.evaluate("""() => Reveal.getSlides().map(s => 1 + new Set(Array.from(
        s.querySelectorAll('.fragment')).map(f => f.dataset.fragmentIndex)).size)""")


def test_the_pdf_has_a_page_per_slide_step_and_line(browser, decks, tmp_path) -> None:
    import re
    import subprocess
    import sys

    context, page = _open(browser, decks[2])
    try:
        states = _states_per_slide(page)
    finally:
        context.close()
    assert len(states) == 10 and sum(states) > len(states) + 5  # a stepper, revealed lines
    out = tmp_path / "deck02.pdf"
    # (its own process: playwright's sync API does not nest inside this test's browser)
    done = subprocess.run([sys.executable, "-m", "minigrad", "slides", "02", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    assert len(re.findall(rb"/Type\s*/Page[^s]", data)) == sum(states)
    assert set(re.findall(rb"/MediaBox\s*\[([^\]]*)\]", data)) == {b"0 0 960 540"}  # 1280 × 720 px
    # What reveal.js lays out for print: each stepper page shows exactly one step, in order.
    context, page = _open(browser, decks[2], "?print-pdf")
    try:
        page.wait_for_function("document.querySelector('.pdf-page') !== null")
        assert page.locator(".pdf-page").count() == sum(states)
        shown = page.evaluate("""() => Array.from(document.querySelectorAll('.pdf-page'))
            .filter(p => p.querySelector('.mg-steps[data-steps]'))
            .map(p => Array.from(p.querySelectorAll('.mg-step')).filter(e => e.checkVisibility(
                {opacityProperty: true, visibilityProperty: true})).map(e => e.dataset.step))""")
        steps = int(page.locator(".mg-steps[data-steps]").first.get_attribute("data-steps"))
        assert shown == [[str(step)] for step in range(1, steps + 1)]
    finally:
        context.close()


def _brightness(png: bytes) -> tuple[float, float]:
    """(mean brightness 0–1, share of light pixels) of a screenshot."""
    import io

    import matplotlib.image

    pixels = matplotlib.image.imread(io.BytesIO(png), format="png")[..., :3].mean(axis=-1)
    return float(pixels.mean()), float((pixels > 0.6).mean())


def test_a_dark_deck_reads_from_the_back_too(browser, tmp_path) -> None:
    deck = write_deck(6, tmp_path / "dark06.html", theme="dark")
    context, page = _open(browser, deck)
    try:
        background = page.evaluate(
            "getComputedStyle(document.querySelector('.reveal-viewport') || document.body)"
            ".backgroundColor")
        assert sum(int(c) for c in background[background.index("(") + 1:-1].split(",")[:3]) < 150
        smallest, figures = [], []
        while True:
            smallest += [item["px"] for item in page.evaluate(MEASURE)["found"]]
            shown = page.locator("section.present .picture svg.mg-figure")
            if shown.count():
                figures.append(_brightness(shown.first.screenshot()))
            if page.evaluate("Reveal.isLastSlide() && !Reveal.availableFragments().next"):
                break
            page.keyboard.press("ArrowRight")
        assert min(smallest) >= MIN_PX - 1e-6
        # the figures, as the screen shows them: dark like the slide, with light labels and
        # lines on it (not white cards)
        assert len(figures) == 4
        for mean, light in figures:
            assert mean < 0.3 and 0.002 < light < 0.3, (mean, light)
        # the stepper's drawings are drawn dark, not white boxes on the dark slide
        fills = page.evaluate("""() => Array.from(document.querySelectorAll(
            '.mg-steps[data-steps] svg > g > polygon:first-of-type')).map(p => p.getAttribute('fill'))""")
        assert fills and set(fills) == {"#1e1e1e"}
        assert page.errors == []
    finally:
        context.close()
