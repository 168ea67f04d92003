"""Figures drawn for a slide (minigrad/figures/slide.py): every picture a deck shows has one,
its labels are SVG text at 20 pt or more, and the check refuses what a hall cannot read.
(The decks in a browser: tests/course/test_slides_browser.py.)"""

from __future__ import annotations

import re

import pytest

from minigrad.course.slide_content import SLIDES, Picture
from minigrad.figures import find_figures
from minigrad.figures.slide import (SLIDE_FIGURES, SLIDE_PT, SLIDE_RC, SLIDE_ROOM_PX,
                                    power_of_ten, slide_problems, slide_svg)

# Quick to draw (the others train a network first; the browser test draws them in the decks).
QUICK = ("lesson06_sliding_window.png", "lesson06_stride_dilation.png", "lesson05_network.png",
         "lesson03_modes.png", "epsilon_error.png")


def test_every_picture_of_every_deck_has_a_slide_drawing() -> None:
    find_figures()
    shown = {slide.figure for slides in SLIDES.values() for slide in slides
             if isinstance(slide, Picture)}
    assert len(shown) == 17
    assert shown <= set(SLIDE_FIGURES), shown - set(SLIDE_FIGURES)


@pytest.mark.parametrize("name", QUICK)
def test_a_slide_figure_is_svg_text_at_20_pt_inside_the_room(name: str) -> None:
    svg = slide_svg(name)
    assert svg.startswith("<svg") and "<image" not in svg
    width, height = (float(v) for v in re.search(
        r'<svg[^>]*width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
    assert width * 4 / 3 <= SLIDE_ROOM_PX[0] + 0.5 and height * 4 / 3 <= SLIDE_ROOM_PX[1] + 0.5
    sizes = [float(size) for size in re.findall(r"font-(?:size)?:? ?([\d.]+)px", svg)]
    texts = re.findall(r"<text[^>]*>([^<]+)</text>", svg)
    assert len(texts) >= 5 and len(sizes) >= len(texts)
    assert min(sizes) >= SLIDE_PT  # user units are pt: the SVG shows at its natural size


def test_slide_figures_are_the_lessons_numbers_with_briefer_labels() -> None:
    texts = re.findall(r"<text[^>]*>([^<]+)</text>", slide_svg("lesson06_stride_dilation.png"))
    assert "∂L/∂x[2, 2] = 1·9 + 2·7 + 3·3 + 4·1 = 36" in texts  # the reading's sum, no tail
    assert "dilate" in texts and "36" in texts


def _figure(*texts: tuple[float, float, str, float]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(6, 3))
    for x, y, label, size in texts:
        fig.text(x, y, label, fontsize=size)
    return fig


def test_the_check_refuses_small_maths_overlapping_and_outside_labels() -> None:
    import matplotlib
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(SLIDE_RC):
        fine = _figure((0.1, 0.1, "far apart", 20), (0.6, 0.7, "x₁ at 20 pt", 24))
        assert slide_problems(fine) == []
        small = _figure((0.1, 0.1, "too small", 13))
        assert any("13 pt, under 20" in p for p in slide_problems(small))
        maths = _figure((0.1, 0.1, "$x_1$", 20))
        assert any("maths mode" in p for p in slide_problems(maths))
        crowded = _figure((0.1, 0.1, "one label", 20), (0.15, 0.12, "another", 20))
        assert any("overlap" in p for p in slide_problems(crowded))
        outside = _figure((0.9, 0.5, "runs off the right edge", 20))
        assert any("leaves the picture" in p for p in slide_problems(outside))
        big = _figure((0.1, 0.1, "fine", 20))
        big.set_size_inches(14, 3)
        assert any("the room" in p for p in slide_problems(big))
    plt.close("all")


def test_a_log_axis_reads_in_unicode() -> None:
    assert [power_of_ten(v) for v in (1e-8, 1.0, 100.0, 3e-4)] == ["10⁻⁸", "10⁰", "10²", ""]


def test_two_slide_figures_share_no_id_in_one_deck() -> None:
    first, second = (slide_svg(name) for name in QUICK[:2])
    ids = [set(re.findall(r'\bid="([^"]+)"', svg)) for svg in (first, second)]
    assert ids[0] and ids[1] and not ids[0] & ids[1]
    for svg, own in zip((first, second), ids):  # every reference points into its own drawing
        assert set(re.findall(r'(?:url\(#|href="#)([^)"]+)', svg)) <= own


CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


@pytest.mark.parametrize("name", ["lesson03_broadcast.png", "lesson03_modes.png",
                                  "lesson06_stride_dilation.png", "epsilon_error.png"])
def test_a_chinese_slide_figure_has_chinese_labels_in_the_cjk_font(name: str) -> None:
    """Drawn in Chinese (a --lang zh deck), the slide drawing's worded labels, the brief ones
    included, are the catalog's Chinese, each <text> with Chinese in it names the bundled CJK
    font (titles made with the axes too), no glyph is missing, and the check still passes
    with the wider labels (slide_svg raises otherwise)."""
    import warnings

    import matplotlib

    from minigrad.course.slide_words import speaking
    from minigrad.i18n import fonts

    find_figures()  # the figures' modules imported in English, as in a course's process
    with matplotlib.rc_context({"font.family": ["sans-serif"]}), speaking("zh"), \
            warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*missing from font.*")
        svg = slide_svg(name)
    texts = re.findall(r"<text([^>]*)>([^<]+)</text>", svg)
    chinese = [(style, text) for style, text in texts if CJK.search(text)]
    assert chinese, texts
    assert all(f"'{fonts.FAMILY}'" in style for style, _ in chinese), chinese
    assert min(float(size) for size in re.findall(r"font-size: ([\d.]+)px", svg)) >= SLIDE_PT
    assert fonts.uncovered({char for _, text in texts for char in text}) == []


def test_the_brief_slide_labels_are_said_in_chinese() -> None:
    from minigrad.course.slide_words import speaking

    with speaking("zh"):
        broadcast = re.findall(r"<text[^>]*>([^<]+)</text>", slide_svg("lesson03_broadcast.png"))
        modes = re.findall(r"<text[^>]*>([^<]+)</text>", slide_svg("lesson03_modes.png"))
    assert "前向：b 复制到每一行" in broadcast  # brief: "forward: b copied to every row"
    assert "每个输出一遍：损失只要 1 遍" in modes  # its second line, the number filled in
