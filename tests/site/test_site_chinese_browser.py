"""The Chinese course website (``build/site/html/zh``) and the switch between the languages,
built and opened in a real browser.

Opt-in like test_site_browser.py (the site's tools, playwright and a chromium; ``.ci/run``
installs them, and the Noto CJK fonts that chromium draws Chinese with). The site is the one
the ``site`` fixture builds once per session; the search and warning tests build a Chinese site
apart, into a temporary folder, with a few test translations (about 20 s each: the notebooks'
outputs come from the Chinese cache).

Glyphs: a character that no font on the machine has is drawn as the same empty box ("tofu")
as any other such character. So each distinct Chinese character of a page is drawn on a canvas
in the page's own font stack, at 32 px: every one must leave ink, and differ from every other
and from the box of a private-use character (which no font has). The method is checked to see
tofu in a chromium whose fontconfig offers no CJK font.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from functools import partial
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from minigrad.course.catalog import LESSONS
from minigrad.i18n import blocks
from support.site_pages import open_page, pages, search_results

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]


class _Switch(HTMLParser):
    """The page's language switch links (``a.mg-language-switch``) and its ``<html lang>``."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []  # (hreflang, href)
        self.lang = ""

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "html":
            self.lang = attributes.get("lang", "")
        if tag == "a" and "mg-language-switch" in (attributes.get("class") or "").split():
            self.links.append((attributes.get("hreflang", ""), attributes.get("href", "")))


def _switch(path: Path) -> _Switch:
    parser = _Switch()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_the_chinese_site_has_every_lesson_page_in_chinese(site):
    english = sorted(path.relative_to(site) for path in pages(site) if "zh" not in
                     path.relative_to(site).parts)
    chinese = sorted(path.relative_to(site / "zh") for path in pages(site / "zh"))
    assert chinese == english
    assert [Path("lessons") / f"{lesson.name}.html" for lesson in LESSONS] == [
        path for path in chinese if path.parent.name == "lessons"]
    for path in pages(site / "zh"):
        assert _switch(path).lang == "zh-CN", path
    home = (site / "zh" / "index.html").read_text(encoding="utf-8")
    assert "<title>minigrad：亲手构建自动微分" in home and "导数与链式法则" in home
    assert "搜索" in (site / "zh" / "search.html").read_text(encoding="utf-8")  # Sphinx's own
    lesson = (site / "zh" / "lessons" / "02-scalar-autograd.html").read_text(encoding="utf-8")
    assert "笔记本（notebook）" in lesson and "下载：" in lesson


def test_the_chinese_pages_notebook_outputs_are_in_chinese(site):
    """The notebooks run again for the Chinese pages, with minigrad speaking Chinese: what
    check() prints under an unsolved exercise is the Chinese of the English page's line."""
    english = (site / "lessons" / "01-derivatives.html").read_text(encoding="utf-8")
    chinese = (site / "zh" / "lessons" / "01-derivatives.html").read_text(encoding="utf-8")
    assert "not attempted yet" in english
    assert "not attempted yet" not in chinese and "尚未作答" in chinese


def test_every_page_links_to_itself_in_the_other_language_and_back(site):
    checked = 0
    for path in pages(site):
        chinese = "zh" in path.relative_to(site).parts
        links = _switch(path).links
        assert len(links) == 1, (path, links)
        hreflang, href = links[0]
        assert hreflang == ("en" if chinese else "zh")
        target = (path.parent / href).resolve()
        expected = (site / path.relative_to(site / "zh")) if chinese else \
            (site / "zh" / path.relative_to(site))
        assert target == expected.resolve(), (path, href)
        back = _switch(target).links[0][1]
        assert (target.parent / back).resolve() == path.resolve()
        checked += 1
    assert checked == 2 * len(pages(site / "zh"))


@pytest.fixture(scope="module")
def served(site):  # type: ignore[no-untyped-def]
    """The built site over http on the loopback (a static host), for the length of the module."""
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 partial(_QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.mark.parametrize("over", ["file", "http"])
def test_the_switch_leads_to_the_same_lesson_in_the_browser(site, served, browser, over):
    root = site.as_uri() + "/" if over == "file" else served
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(root + "lessons/05-mlp.html", wait_until="load")
        page.locator("a.mg-language-switch").click()
        page.wait_for_url(root + "zh/lessons/05-mlp.html")
        assert page.evaluate("document.documentElement.lang") == "zh-CN"
        assert page.locator("a.mg-language-switch").inner_text() == "English"
        page.locator("a.mg-language-switch").click()
        page.wait_for_url(root + "lessons/05-mlp.html")
        assert page.locator("a.mg-language-switch").inner_text() == "中文"
    finally:
        context.close()




TERM = "反向传播"  # backpropagation
TEST_SENTENCE = f"{TERM}（backpropagation）"


@pytest.fixture(scope="module")
def translated_site(build_chinese, tmp_path_factory):  # type: ignore[no-untyped-def]
    """A Chinese site where one paragraph of lesson 02's reading is translated (a test entry,
    as a translator's would be) and mentions backpropagation: the only lesson page that does."""
    reading = (REPO / "lessons" / "02-scalar-autograd.md").read_text(encoding="utf-8")
    english = next(block for block in blocks.messages(reading) if not block.startswith("#")
                   and "backprop" not in block.lower() and blocks.shared_parts(block))
    chinese = (f"第 01 课是按节点手算梯度的。本课把{TEST_SENTENCE}交给计算机："
               + " ".join(blocks.shared_parts(english)) + "。")
    status, html = build_chinese(tmp_path_factory.mktemp("site-zh"),
                                 {"lessons/02-scalar-autograd": {english: chinese}})
    assert status == 0
    return html


def test_search_in_chinese_finds_the_lesson_with_an_excerpt_from_file(translated_site, browser):
    links, excerpts, problems = search_results(
        browser, (translated_site / "search.html").as_uri() + f"?q={TERM}")
    assert problems == []
    found = [link for link in links if link.startswith("lessons/02-scalar-autograd.html")]
    assert found, links
    excerpt = excerpts[links.index(found[0])]
    assert TERM in excerpt and "¶" not in excerpt and "English" not in excerpt


def test_search_in_chinese_on_the_built_site(site, served, browser):
    """链式法则 (the chain rule) is in the lesson table's first title (site.po): the home page is
    found, from file:// and over http, and the English site's search is not the Chinese one."""
    for root in (site.as_uri() + "/", served):
        links, excerpts, problems = search_results(browser, root + "zh/search.html?q=链式法则")
        assert problems == [] and "index.html" in links, (root, links)
        assert "链式法则" in excerpts[links.index("index.html")]
    index = (site / "searchindex.js").read_text(encoding="utf-8")
    assert "链式" not in index  # the English site indexes the English pages only
    for root in (site, site / "zh"):  # and the excerpts from file:// are each site's own
        script = (root / "_static" / "minigrad-search-pages.js").read_text(encoding="utf-8")
        keys = json.loads(script.partition(" = ")[2].rstrip().rstrip(";")).keys()
        own = [path.relative_to(root) for path in pages(root) if "zh" not in
               path.relative_to(root).parts]
        assert sorted(keys) == sorted(path.as_posix() for path in own
                                      if path.parent.name == "lessons" or path.name == "index.html")


def test_the_exercise_label_is_in_the_pages_language(site, browser, build):
    """The label over an unsolved exercise (minigrad.css) comes from site.po on Chinese pages."""
    from minigrad.i18n import documents

    labels = {}
    for root in (site, site / "zh"):
        problems: list[str] = []
        context, page = open_page(browser, root / "lessons" / "02-scalar-autograd.html", problems)
        try:
            labels[root.name] = page.evaluate(
                "getComputedStyle(document.querySelector('.mg-exercise-stub > .cell_input'),"
                " '::before').content")
        finally:
            context.close()
        assert problems == []
    assert labels == {site.name: json.dumps(build.STUB_LABEL),
                      "zh": json.dumps(documents.text(build.STUB_LABEL, "site", "zh"),
                                       ensure_ascii=False)}
    assert "练习" in labels["zh"]


def test_a_warning_fails_the_chinese_build(build_chinese, tmp_path, capfd):
    """A translation that Sphinx warns about (here a role that does not exist) fails the build,
    as a warning in English does."""
    home = blocks.messages((REPO / "site" / "index.md").read_text(encoding="utf-8"))[1]
    broken = "{nosuchrole}`x` " + " ".join(blocks.shared_parts(home))
    status, _ = build_chinese(tmp_path, {"site": {home: broken}})
    said = capfd.readouterr().err
    assert status != 0
    assert "nosuchrole" in said and "WARNING" in said.upper()


_GLYPHS = """(selector) => {
    const element = document.querySelector(selector);
    const family = getComputedStyle(element).fontFamily;
    const han = [...new Set([...element.innerText].filter(c => /[\\u4e00-\\u9fff]/.test(c)))];
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 48;
    const context = canvas.getContext('2d', {willReadFrequently: true});
    const draw = (character) => {
        context.clearRect(0, 0, 48, 48);
        context.font = `32px ${family}`;
        context.textBaseline = 'top';
        context.fillText(character, 4, 4);
        const alpha = context.getImageData(0, 0, 48, 48).data.filter((_, i) => i % 4 === 3);
        return {ink: alpha.some(a => a > 0), picture: alpha.join(',')};
    };
    const box = draw('\\ue000').picture;  // a private-use character: no font has one
    const boxes = new Set(['\\ue000', '\\ue001', '\\ue002'].map(c => draw(c).picture));
    const drawn = han.map(c => ({character: c, ...draw(c)}));
    return {
        family, characters: han.length, boxesAlike: boxes.size === 1,
        distinct: new Set(drawn.map(d => d.picture)).size,
        blank: drawn.filter(d => !d.ink).map(d => d.character),
        tofu: drawn.filter(d => d.picture === box).map(d => d.character),
    };
}"""


def _glyphs(browser, path: Path, selector: str = "article") -> dict:
    problems: list[str] = []
    context, page = open_page(browser, path, problems)
    try:
        return page.evaluate(_GLYPHS, selector)
    finally:
        context.close()


@pytest.mark.parametrize("name", ["index.html", "lessons/02-scalar-autograd.html"])
def test_chinese_text_is_drawn_with_real_glyphs(site, browser, name):
    found = _glyphs(browser, site / "zh" / name)
    assert found["characters"] > 20 and found["boxesAlike"], found
    hint = f"{found} (no CJK font for chromium? apt-get install fonts-noto-cjk)"
    assert found["blank"] == [] and found["tofu"] == [], hint
    assert found["distinct"] == found["characters"], hint  # no two drawn alike


def test_the_glyph_check_sees_tofu_where_chromium_has_no_cjk_font(site, browser, tmp_path):
    """The same check in a chromium whose fontconfig lists only a Latin font: it finds boxes."""
    from support.browser import CHROMIUM_ARGS, find_chromium

    chromium = find_chromium()
    fc_list = shutil.which("fc-list")
    if chromium is None or fc_list is None:
        pytest.skip("needs chromium and fontconfig's fc-list")
    latin = [line.split(":")[0] for line in subprocess.run(
        [fc_list, ":lang=en", "file"], capture_output=True, text=True).stdout.splitlines()
        if re.search(r"DejaVuSans\.ttf|LiberationSans-Regular\.ttf", line)]
    if not latin:
        pytest.skip("no DejaVu Sans or Liberation Sans to keep")
    (tmp_path / "fonts").mkdir()
    shutil.copy(latin[0], tmp_path / "fonts")
    (tmp_path / "fonts.conf").write_text(
        f'<?xml version="1.0"?>\n<fontconfig><dir>{tmp_path / "fonts"}</dir>'
        f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>\n", encoding="utf-8")
    latin_only = browser.browser_type.launch(  # a second chromium, from the same playwright
        executable_path=chromium, args=CHROMIUM_ARGS,
        env={**os.environ, "FONTCONFIG_FILE": str(tmp_path / "fonts.conf")})
    try:
        found = _glyphs(latin_only, site / "zh" / "index.html")
    finally:
        latin_only.close()
    assert found["characters"] > 20
    assert found["tofu"] or found["blank"] or found["distinct"] < found["characters"], \
        json.dumps(found, ensure_ascii=False)
