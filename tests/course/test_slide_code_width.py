"""A code slide's lines fit the slide: at 1280×720 the code box shows about 70 characters of
the monospace font (measured in chromium: lesson 02's 73-character line overflowed by 37 px),
and a longer line is cut off at the slide's edge, in either language."""

from __future__ import annotations

from minigrad.course.slide_content import SLIDES, Code

WIDEST = 70


def test_every_code_slide_fits_the_slide_width() -> None:
    codes = [(lesson, slide) for lesson, slides in SLIDES.items() for slide in slides
             if isinstance(slide, Code)]
    assert codes
    for lesson, slide in codes:
        too_wide = [line for line in slide.source().splitlines() if len(line) > WIDEST]
        assert too_wide == [], (lesson, slide.title)
