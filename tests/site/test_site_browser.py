"""The course website (``make site``) in a real browser: every page, opened from ``file://``.

Opt-in, like the stepper's browser tests: these run where the site's tools
(``pip install -e ".[site]"`` and the MathJax that ``make site`` installs), playwright and a
chromium are present, and skip, saying which is missing, elsewhere. ``.ci/run`` installs them
all (``MINIGRAD_SITE=0`` opts out). The site is built once per session, in both
languages, through ``site/build.py`` (the ``site`` fixture, tests/site/conftest.py), which
reuses the notebook cache in ``build/site/cache``: after the first build this takes seconds.
A screenshot of a lesson page at 1280×720 is kept in ``build/site/screenshots/`` (the path is
printed). The Chinese site's own checks are in test_site_chinese_browser.py.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from support.site_pages import open_page, pages, search_results

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "build" / "site" / "screenshots"
RAW_MATH = re.compile(r"\\\(|\\\)|\$\$|\\\[|\\begin\{")


def test_every_page_loads_offline_with_no_error_and_its_maths_rendered(site, browser):
    found = pages(site)
    lessons = [path for path in found if path.parent.name == "lessons"]
    for root in (site, site / "zh"):  # English, and Chinese
        assert len([path for path in lessons if path.parent.parent == root]) == 8
        assert (root / "index.html") in found and (root / "search.html") in found
    report = {}
    for path in found:
        problems: list[str] = []
        context, page = open_page(browser, path, problems)
        try:
            text = page.evaluate("document.body.innerText")
            raw = sorted(set(RAW_MATH.findall(text)))
            if raw:
                problems.append(f"raw maths left in the text: {raw}")
            if path in lessons:
                typeset = page.locator("mjx-container").count()
                if typeset < 20:
                    problems.append(f"only {typeset} formulas typeset")
        finally:
            context.close()
        if problems:
            report[str(path.relative_to(site))] = problems
    assert report == {}


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets: list[tuple[str, str]] = []  # (tag, url)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.add(attributes["id"])
        for name in ("href", "src"):
            if attributes.get(name) and tag in ("a", "img", "link", "script"):
                self.targets.append((tag, attributes[name]))


def test_every_internal_link_and_image_resolves(site):
    parsed = {}
    for path in pages(site):
        parser = _Links()
        parser.feed(path.read_text(encoding="utf-8"))
        parsed[path] = parser
    broken = []
    for path, parser in parsed.items():
        for tag, url in parser.targets:
            parts = urlsplit(url)
            if parts.scheme or url.startswith(("//", "mailto:")):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if not target.exists():
                broken.append(f"{path.relative_to(site)}: {tag} {url}")
            elif parts.fragment and target in parsed and parts.fragment not in parsed[target].ids:
                broken.append(f"{path.relative_to(site)}: {url} (no such anchor)")
    assert broken == []


def test_each_lesson_offers_its_notebook_and_exercise_file(site):
    for page in sorted([*(site / "lessons").glob("*.html"),
                        *(site / "zh" / "lessons").glob("*.html")]):  # both languages
        html = page.read_text(encoding="utf-8")
        downloads = re.findall(r'href="(\.\./_downloads/[^"]+)"', html)
        names = sorted(Path(link).name for link in downloads)
        assert names == sorted([f"{page.stem}.ipynb",
                                next(name for name in names if name.endswith(".py"))]), page
        for link in downloads:
            text = (page.parent / link).read_text(encoding="utf-8")
            assert "NotImplementedError" in text and "BEGIN SOLUTION" not in text


def test_every_picture_has_alt_text(site, browser):
    missing = {}
    for path in pages(site):
        problems: list[str] = []
        context, page = open_page(browser, path, problems)
        try:
            bad = page.evaluate("""() => [
                ...[...document.querySelectorAll('img')]
                    .filter(img => !(img.getAttribute('alt') || '').trim()
                                   || img.getAttribute('alt') === img.getAttribute('src'))
                    .map(img => 'img ' + img.getAttribute('src')),
                ...[...document.querySelectorAll('article svg')]
                    .filter(svg => !svg.parentElement.closest('svg, mjx-container, button, a')
                                   && svg.getAttribute('aria-hidden') !== 'true'
                                   && !(svg.getAttribute('aria-label') || '').trim())
                    .map(svg => 'svg ' + (svg.id || svg.outerHTML.slice(0, 60))),
                ...[...document.querySelectorAll('img')]
                    .filter(img => !img.complete || img.naturalWidth === 0)
                    .map(img => 'not loaded ' + img.getAttribute('src'))]""")
        finally:
            context.close()
        if bad:
            missing[str(path.relative_to(site))] = bad
    assert missing == {}


def test_a_stepper_on_a_lesson_page_steps_and_a_screenshot_is_kept(site, browser):
    problems: list[str] = []
    context, page = open_page(browser, site / "lessons" / "02-scalar-autograd.html", problems)
    try:
        stepper = page.locator(".mg-stepper").first
        stepper.scroll_into_view_if_needed()
        frames = int(stepper.get_attribute("data-frames"))
        assert frames > 2 and stepper.get_attribute("data-step") == "1"
        stepper.locator("button[data-action=next]").click()
        assert stepper.get_attribute("data-step") == "2"
        stepper.press("ArrowRight")
        assert stepper.get_attribute("data-step") == "3"
        stepper.press("ArrowLeft")
        assert stepper.get_attribute("data-step") == "2"
        stepper.locator("button[data-action=last]").click()
        assert stepper.get_attribute("data-step") == str(frames)
        visible = stepper.locator(".mg-frame").evaluate_all(
            "frames => frames.filter(f => f.offsetParent !== null).map(f => f.dataset.frame)")
        assert visible == [str(frames)]
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "stepper-1280x720.png"))
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(SCREENSHOTS / "lesson02-1280x720.png"))
    finally:
        context.close()
    assert problems == []
    print(f"\nscreenshots: {SCREENSHOTS}")


_DISPLAY_EQUATIONS = """() => {
    const article = document.querySelector('article.bd-article');
    if (!article) { return []; }
    const column = article.getBoundingClientRect();
    return [...document.querySelectorAll('div.math mjx-container[display="true"]')].map(box => {
        const svg = box.querySelector(':scope > svg');
        const drawn = svg.getBoundingClientRect(), own = box.getBoundingClientRect();
        const probe = document.createElement('span');  // the equation's own ex, in px
        probe.style.cssText = 'display:inline-block;width:100ex;position:absolute';
        box.appendChild(probe);
        const ex = probe.getBoundingClientRect().width / 100;
        probe.remove();
        return {
            tex: (box.closest('div.math').textContent || '').trim().slice(0, 60),
            scale: drawn.width / (parseFloat(svg.getAttribute('width')) * ex),
            drawnRight: drawn.right, boxLeft: own.left, boxRight: own.right,
            columnLeft: column.left, columnRight: column.right,
            scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX),
        };
    });
}"""


def test_every_display_equation_fits_the_text_column_at_1280(site, browser):
    """At 1280×720 every display equation fits the column (scaled to no less than 70 % of its
    size); on a 390 px phone one too wide for that scrolls inside its own box, which stays in
    the column."""
    wide, checked = [], 0
    for path in pages(site):
        for width in (1280, 390):
            problems: list[str] = []
            context, page = open_page(browser, path, problems, width=width)
            try:
                equations = page.evaluate(_DISPLAY_EQUATIONS)
            finally:
                context.close()
            for equation in equations:
                checked += 1
                name = f"{path.name} at {width} px: {equation['tex']}"
                inside = (equation["boxLeft"] >= equation["columnLeft"] - 1
                          and equation["boxRight"] <= equation["columnRight"] + 1)
                if not inside:
                    wide.append(f"{name}: its box leaves the column")
                if equation["scale"] < 0.7 - 0.01:
                    wide.append(f"{name}: shrunk to {equation['scale']:.2f}")
                if width == 1280 and equation["drawnRight"] > equation["boxRight"] + 1:
                    wide.append(f"{name}: wider than the column by "
                                f"{equation['drawnRight'] - equation['boxRight']:.0f} px")
                if width == 390 and equation["drawnRight"] > equation["boxRight"] + 1 \
                        and not equation["scrolls"]:
                    wide.append(f"{name}: cut off, and its box does not scroll")
    assert checked > 100
    assert wide == []


def test_search_from_file_lists_results_with_excerpts(site, browser):
    """Opened from file://, the search page's results carry their excerpts (a browser refuses
    Sphinx's fetch of each page there; site/offline_search.py gives the page the text)."""
    links, excerpts, problems = search_results(browser, (site / "search.html").as_uri()
                                               + "?q=im2col")
    assert any("06-convolution" in link for link in links), links
    assert len(excerpts) == len(links) and all("im2col" in text.lower() for text in excerpts)
    assert "¶" not in "".join(excerpts)
    assert problems == []
