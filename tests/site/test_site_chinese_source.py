"""The Chinese site's source, as site/build.py assembles it (no Sphinx needed, so these run in
every `make test`): the same pages as the English site, translated where a catalog has the
translation, English where it has none yet, code cells identical; the site's own texts all
translated in minigrad/i18n/zh/site.po; Chinese cut into pairs of characters for search."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from minigrad.course.catalog import LESSONS
from minigrad.i18n import blocks, documents
from minigrad.i18n.catalog import Catalog, Entry

REPO = Path(__file__).resolve().parents[2]
LESSON = "02-scalar-autograd"
LAST_READING_BLOCK = blocks.messages(
    (REPO / "lessons" / f"{LESSON}.md").read_text(encoding="utf-8"))[-1]


def _first_prose(markdown: str) -> str:
    return next(message for message in blocks.messages(markdown) if not message.startswith("#"))


@pytest.fixture(scope="module")
def translated():  # type: ignore[no-untyped-def]
    """A reading paragraph and a notebook paragraph of lesson 02 with a (test) translation."""
    reading = (REPO / "lessons" / f"{LESSON}.md").read_text(encoding="utf-8")
    notebook = json.loads((REPO / "notebooks" / f"{LESSON}.ipynb").read_text(encoding="utf-8"))
    cell = next(cell for cell in documents.markdown_cells(notebook)[1:]
                if any(not m.startswith("#") for m in blocks.messages(cell)))
    english = {"reading": _first_prose(reading), "notebook": _first_prose(cell)}
    chinese = {
        "reading": "第 01 课按节点手算梯度。" + " ".join(blocks.shared_parts(english["reading"]))
                   + "\n本课把反向传播交给计算机。",
        "notebook": "笔记本里的一段话，" + " ".join(blocks.shared_parts(english["notebook"]))
                    + "\n换行之后接着写。"}
    return english, chinese


@pytest.fixture(scope="module")
def source(build, translated, tmp_path_factory):  # type: ignore[no-untyped-def]
    """The Chinese site's source, lesson 02's two paragraphs translated by a test catalog."""
    english, chinese = translated
    real = documents.catalog

    def catalog(language: str, name: str) -> Catalog:
        found = Catalog(entries=dict(real(language, name).entries))
        for kind in ("reading", "notebook"):
            if name == f"{'lessons' if kind == 'reading' else 'notebooks'}/{LESSON}":
                found.entries[english[kind]] = Entry(english[kind], chinese[kind])
        if name == f"lessons/{LESSON}":  # the reading's last block not translated (yet)
            found.entries.pop(LAST_READING_BLOCK, None)
        return found

    folder = tmp_path_factory.mktemp("site-src-zh")
    patch = pytest.MonkeyPatch()
    patch.setattr(documents, "catalog", catalog)
    try:
        build.assemble(folder, "zh")
    finally:
        patch.undo()
    return folder


def _page(folder: Path, name: str) -> dict:
    return json.loads((folder / "lessons" / f"{name}.ipynb").read_text(encoding="utf-8"))


def test_every_lesson_has_a_chinese_page_with_the_english_code_cells(
        build, source, tmp_path) -> None:  # type: ignore[no-untyped-def]
    build.assemble(tmp_path, "en")
    for lesson in LESSONS:
        chinese, english = _page(source, lesson.name), _page(tmp_path, lesson.name)
        code = [[cell["source"] for cell in page["cells"] if cell["cell_type"] == "code"]
                for page in (chinese, english)]
        assert code[0] == code[1] and code[0], lesson.name
        assert len(chinese["cells"]) == len(english["cells"])
    downloads = sorted(path.name for path in (source / "downloads").iterdir())
    assert downloads == sorted(path.name for path in (tmp_path / "downloads").iterdir())


def test_a_translated_block_is_chinese_and_the_others_stay_english(source, translated) -> None:
    english, chinese = translated
    page = _page(source, LESSON)
    reading = page["cells"][0]["source"]
    # the break between two Chinese sentences is gone (a browser would show it as a space)
    assert chinese["reading"].replace("。\n本课", "。本课") in reading
    assert english["reading"] not in reading
    assert LAST_READING_BLOCK in reading  # no translation in the catalog: English
    notebook = "\n".join(cell["source"] for cell in page["cells"][1:]
                         if cell["cell_type"] == "markdown")
    assert "笔记本里的一段话，" in notebook and "换行之后接着写。" in notebook
    assert english["notebook"] not in notebook
    assert page["cells"][1]["source"].startswith("## 笔记本（notebook）\n")


def test_the_downloaded_notebook_is_the_chinese_one(source, translated) -> None:
    english, chinese = translated
    notebook = json.loads((source / "downloads" / f"{LESSON}.ipynb").read_text("utf-8"))
    text = "".join("".join(cell["source"]) for cell in notebook["cells"])
    assert "笔记本里的一段话，" in text and english["notebook"] not in text
    assert "BEGIN SOLUTION" not in text and "raise NotImplementedError" in text


def test_the_chinese_home_page_and_lesson_table(source) -> None:
    home = (source / "index.md").read_text(encoding="utf-8")
    assert home.startswith("# minigrad：亲手构建自动微分\n")
    assert "| # | 课 | 你来实现（计入评分） | 用时 | 内容 |" in home
    assert "[导数与链式法则](lessons/01-derivatives)" in home
    assert "| 2½ 小时 |" in home and ":caption: 课程" in home
    assert "pip install ." in home  # the code block is the English one
    lesson = _page(source, "06-convolution")["cells"][0]["source"]
    assert "**下载：** {download}`笔记本 <../downloads/06-convolution.ipynb>`" in lesson


def test_every_site_text_has_its_chinese_translation(build) -> None:
    """Fails when an English text of the site changes (home page, lesson table, labels) until
    its entry in minigrad/i18n/zh/site.po is revisited: `python site/build.py --update-catalog`
    lists what to translate."""
    found = Catalog.read(documents.catalog_path("zh", "site"))
    texts = build.site_texts()
    assert [text for text in texts if text not in found.entries
            or not found.entries[text].translated] == []
    assert [msgid for msgid in found.entries if msgid not in texts] == []  # none stale
    for text in texts:  # the same inline code, maths and links in both languages
        assert blocks.shared_parts(found.entries[text].msgstr) == blocks.shared_parts(text), text


def test_a_changed_english_text_is_marked_for_revision(build, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(documents, "CATALOGS", tmp_path)
    target = documents.catalog_path("zh", "site")
    target.parent.mkdir(parents=True)
    old = Catalog(path=target)
    old.entries["The notebooks"] = Entry("The notebooks", "笔记本们")
    old.write()
    try:
        todo = build.update_catalogs()
        updated = Catalog.read(target)
        assert updated.entries["The notebook"].fuzzy and "The notebooks" not in updated.entries
        assert any("'The notebook'" in line for line in todo)
        assert documents.text("The notebook", "site", "zh") == "The notebook"  # fuzzy: English
    finally:
        documents.catalog.cache_clear()  # forget the test's catalog


def test_line_breaks_between_chinese_characters_are_dropped(build) -> None:
    text = ("# 标题\n正文第一行\n第二行，`x`\n还有\n\n- 列表一\n  接着\n- 二\n\n"
            "```python\n# 代码\n一 = 1\n```\n\n$$\n一\n二\n$$\nEnglish\nstays\n")
    assert blocks.join_chinese_lines(text) == (
        "# 标题\n正文第一行第二行，`x`\n还有\n\n- 列表一接着\n- 二\n\n"
        "```python\n# 代码\n一 = 1\n```\n\n$$\n一\n二\n$$\nEnglish\nstays\n")


@pytest.fixture(scope="module")
def chinese_search():  # type: ignore[no-untyped-def]
    pytest.importorskip("sphinx", reason="the site's tools are not installed (make site)")
    sys.path.insert(0, str(REPO / "site"))
    try:
        import chinese_search
    finally:
        sys.path.remove(str(REPO / "site"))
    return chinese_search


def test_chinese_is_searched_by_pairs_of_characters(chinese_search) -> None:
    assert chinese_search.terms("反向传播（backpropagation）按链式法则") == [
        "反向", "向传", "传播", "backpropagation", "按链", "链式", "式法", "法则"]
    assert chinese_search.terms("用 im2col 的梯度") == ["用", "im2col", "的梯", "梯度"]
    language = chinese_search.SearchChinesePairs({})
    assert [word for word in language.split("计算图 graph")
            if language.word_filter(language.stem(word))] == ["计算", "算图", "graph"]


def test_sphinx_alone_indexes_no_chinese_word_without_jieba(chinese_search) -> None:
    """Why the site has its own Chinese search: Sphinx's cuts Chinese with jieba only."""
    from sphinx.search.zh import SearchChinese

    if importlib.util.find_spec("jieba") is not None:
        pytest.skip("jieba is installed here")
    assert SearchChinese({}).split("反向传播（backpropagation）按链式法则") == ["backpropagation"]


def test_the_chinese_site_shows_the_figures_drawn_with_chinese_labels(source) -> None:
    """assets/ holds assets/zh/ (the figures with Chinese labels) besides the English files: the
    Chinese site takes each figure from assets/zh/ where one is drawn there, the others as
    they are, and the folder zh/ itself is no figure."""
    drawn = sorted(path.name for path in (REPO / "assets" / "zh").iterdir())
    assert "lesson05_linear_shapes.png" in drawn
    for name in drawn:
        assert (source / "assets" / name).read_bytes() \
            == (REPO / "assets" / "zh" / name).read_bytes(), name
        assert (source / "assets" / name).read_bytes() != (REPO / "assets" / name).read_bytes()
    english_only = sorted(path.name for path in (REPO / "assets").iterdir()
                          if path.is_file() and path.name not in drawn)
    assert english_only
    for name in english_only:
        assert (source / "assets" / name).read_bytes() == (REPO / "assets" / name).read_bytes()
    assert not (source / "assets" / "zh").exists()
