"""`minigrad slides NN --lang zh`: every text of every deck (titles, worked numbers, legends,
the deck's own words, the steppers' captions) has its Chinese in minigrad/i18n/zh/slides.po —
a changed English text fails here until it is translated again; a Chinese deck is still one
offline file, with the CJK font inside it, its figures drawn for the slide with Chinese labels
in that font, and the reading's translated prose as its notes. (In a browser: tests/course/test_slides_browser.py.)"""

from __future__ import annotations

import base64
import re
import warnings
from pathlib import Path

import pytest

from minigrad.cli import main
from minigrad.course.catalog import find_lesson
from minigrad.course.slide_content import SLIDES, Arithmetic, Steps
from minigrad.course.slide_words import (CAPTIONS, DECK_CJK_FAMILY, has_words, slide_texts,
                                         speaking)
from minigrad.course.slides import deck_html
from minigrad.i18n import current, documents, fonts
from minigrad.i18n.catalog import Catalog, Entry
from minigrad.i18n.documents import catalog_path
from support.catalogs import assert_in_step

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def chinese() -> str:
    return deck_html(find_lesson(7), language="zh")


def _visible_text(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
    page = re.sub(r"<aside class=\"notes\">.*?</aside>", "", page, flags=re.S)
    return re.sub(r"<[^>]+>", " ", re.sub(r"<svg\b.*?</svg>", "", page, flags=re.S))


def test_every_slide_text_has_a_chinese_translation() -> None:
    texts = slide_texts()
    assert len(texts) > 100
    assert_in_step("slides", texts, "python -m minigrad.i18n.update")


def test_a_changed_slide_title_is_found_untranslated(monkeypatch) -> None:
    import minigrad.course.slide_content as content

    changed = dict(SLIDES)
    first = changed[1][0]
    changed[1] = (type(first)(**{**first.__dict__, "title": first.title + "!"}), *changed[1][1:])
    monkeypatch.setattr(content, "SLIDES", changed)
    catalog = Catalog.read(catalog_path("zh", "slides"))
    assert [text for text in slide_texts() if text not in catalog.entries] == [first.title + "!"]


def _captions() -> list[str]:
    """Every caption line of every stepper of every deck (without drawing the steps)."""
    from minigrad.course.slide_graph import SlideDrawer
    from minigrad.viz import backward_steps

    lines = []
    for items in SLIDES.values():
        for item in items:
            if isinstance(item, Arithmetic):
                lines += [line for step in item.build() for line in step.caption]
            elif isinstance(item, Steps):
                root, names = item.build()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    steps = backward_steps(root, names=names, brief=True)
                drawer = SlideDrawer(steps.replay, steps.frames, style=steps.style,
                                     digits=steps.digits, brief=True)
                lines += [line for frame in steps.frames
                          for line in drawer.caption(frame).splitlines()]
    return lines


def test_every_stepper_caption_is_said_in_chinese() -> None:
    catalog = Catalog.read(catalog_path("zh", "slides"))
    lines = _captions()
    assert len(lines) > 100
    left = sorted({line for line in lines if has_words(line) and catalog.translate(line) == line})
    assert left == [], f"captions with no template in slides.po ({CAPTIONS[0]!r} …): {left[:5]}"
    assert catalog.translate("step 3/8: u = a * b, grad 15 arrives; sends to a, b") == \
        "第 3/8 步：u = a * b，收到梯度 15；传给 a, b"


def test_a_chinese_deck_is_one_offline_file_with_its_font_and_figures(chinese: str) -> None:
    assert '<html lang="zh-CN"' in chinese
    assert "<h2>小结</h2>" in chinese and "第 07 课" in chinese
    assert f'font-family: "{DECK_CJK_FAMILY}"' in chinese
    assert base64.b64encode(fonts.FONT.read_bytes()).decode("ascii") in chinese
    assert "data:image/png" not in chinese  # its figures are inline SVG, drawn in Chinese
    figures = re.findall(r'<svg role="img" aria-label="([^"]*)" class="mg-figure".*?</svg>',
                         chinese, flags=re.S)
    assert len(figures) == 3 and all(re.search(r"[\u4e00-\u9fff]", label) for label in figures)
    labels = _figure_texts(chinese)
    assert "反向：各自传回 argmax 处" in labels  # "backward: each to its argmax", from figures.po
    assert "backward: each to its argmax" not in labels
    # the figures' Chinese names the font inside the deck, not one the machine may lack
    assert f"'{DECK_CJK_FAMILY}'" in chinese and f"'{fonts.FAMILY}'" not in chinese
    assert not re.search(r"""(src|href)=["']?https?:""", chinese)
    assert "@import" not in chinese


def _figure_texts(page: str) -> list[str]:
    """The labels of the deck's figures (their SVG <text>), unescaped."""
    import html

    return [html.unescape(text) for text in re.findall(r"<text[^>]*>([^<]+)</text>", page)]


def test_every_character_on_a_chinese_slide_has_a_glyph(chinese: str) -> None:
    shown = set(_visible_text(chinese)) | set("".join(_figure_texts(chinese)))
    assert "池" in shown
    assert fonts.uncovered({char for char in shown if not char.isspace()}) == []


def test_an_english_deck_has_no_cjk_font_and_stays_english() -> None:
    english = deck_html(find_lesson(7), language="en")
    assert '<html lang="en"' in english and DECK_CJK_FAMILY not in english
    assert "<h2>Summary</h2>" in english
    from minigrad.i18n import language

    assert language._chosen is None  # the deck's language is undone


def test_the_notes_are_the_readings_translated_prose(monkeypatch) -> None:
    """A block of reading 07 in the lessons' catalog shows up, in Chinese, in the notes."""
    from minigrad.course.reading import reading_text, section_notes

    english = reading_text(find_lesson(7))
    paragraph = next(block for block in documents.blocks.messages(english.split("\n## 1.")[1])
                     if not block.startswith(("#", "|", "-", "!")) and len(block) > 80)
    real = documents.catalog

    def catalog(language: str, name: str) -> Catalog:
        if language == "zh" and name == "lessons/07-pooling":
            return Catalog({paragraph: Entry(paragraph, "最大池化的反向传播只把梯度交给最大值。")})
        return real(language, name)

    monkeypatch.setattr(documents, "catalog", catalog)
    assert "最大池化的反向传播只把梯度交给最大值。" in deck_html(find_lesson(7), language="zh")
    assert section_notes(english, "1.")  # the English headings still find the section


def test_the_command_takes_lang(tmp_path: Path, capsys) -> None:
    out = tmp_path / "deck.html"
    assert main(["slides", "1", "--lang", "zh", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "导数与链式法则" in text and "第 1/" in text  # the title, a stepper caption
    with pytest.raises(SystemExit):
        main(["slides", "1", "--lang", "fr", "--out", str(out)])
    assert "invalid choice: 'fr'" in capsys.readouterr().err


def test_speaking_undoes_its_choice() -> None:
    with speaking("zh") as chosen:
        assert chosen == current() == "zh"
    from minigrad.i18n import language

    assert language._chosen is None


def test_refreshing_the_catalog_marks_a_changed_text_fuzzy(tmp_path: Path, monkeypatch) -> None:
    import shutil

    import minigrad.course.slide_words as slide_words
    from minigrad.i18n.update import refresh, short_texts

    copy = tmp_path / "slides.po"
    shutil.copy(catalog_path("zh", "slides"), copy)
    monkeypatch.setattr(documents, "catalog_path", lambda language, name: copy)
    texts = slide_texts()
    old = "Gradients add, never assign"
    monkeypatch.setattr(slide_words, "slide_texts",
                        lambda: [text + "!" if text == old else text for text in texts])
    todo = refresh("slides", short_texts()["slides"])
    assert [entry.msgid for entry in todo] == [old + "!"]
    entry = Catalog.read(copy).entries[old + "!"]
    assert entry.fuzzy and entry.msgstr == "梯度累加，从不覆盖"
    assert old not in Catalog.read(copy).entries
