"""The words of a slide deck in the deck's language: catalog ``minigrad/i18n/zh/slides.po``.

A deck's own texts are looked up by their English: the lessons' titles, what each builds and
its time (:data:`minigrad.course.catalog.LESSONS`), every slide's title, worked-numbers line and
legend (:data:`minigrad.course.slide_content.SLIDES`), the number grids' labels, the deck's own
words (:data:`DECK_TEXTS`) and the steppers' captions (:data:`CAPTIONS`, templates whose
``{name}`` parts are the numbers and node names of the step). :func:`slide_texts` lists every
one, and a test fails while one has no Chinese. The speaker notes and the summary are the
reading's own prose, translated in the lessons' catalogs (:func:`notes_reading`).
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Iterator

from minigrad.i18n import documents
from minigrad.i18n import language as languages
from minigrad.i18n.language import current

CATALOG = "slides"

#: The deck's own words (title slide, summary, the notes' stand-ins for a figure or long code).
DECK_TEXTS = (
    "Lesson {number} — {title}",
    "minigrad · lesson {number}",
    "You build:",
    "Summary",
    "Figure: {description}",
    "(the code is in the reading)",
    "(the table is in the reading)",
)

#: The steppers' captions: a backward step (minigrad.viz's caption, a line each) and the
#: arithmetic steppers of lessons 06 and 07 (minigrad.course.arithmetic).
CAPTIONS = (
    "step {step}/{total}: {what} is a leaf, grad {grad}",
    "step {step}/{total}: {what}, grad {grad} arrives; sends to nothing",
    "step {step}/{total}: {what}, grad {grad} arrives; sends to {targets}",
    "rule: {rule}",
    "Forward: the kernel on the window at row 0, column 1:",
    "∂L/∂w = x ⋆ δ: δ slides over x like a kernel.",
    "∂L/∂x = full(δ, rot180 w): δ padded with k − 1 = 1 ring of zeros, correlated with the "
    "kernel turned by 180°.",
    "All nine input gradients: corners feed one output, the centre all four.",
    "Forward: each 2×2 window keeps its maximum, and where it was (the index r·W + c).",
    "Window ({i},{j}): its maximum {value} is x[{row},{column}] (index {index}).",
    "∂L/∂x[{row},{column}] = ∂L/∂y[{i},{j}] = {value}; the other three pixels of the window "
    "get 0.",
)

#: The number grids' labels with words (minigrad.course.arithmetic).
GRID_LABELS = ("δ padded", "w rotated 180°", "y = max per 2×2 window")

_WORD = re.compile(r"[A-Za-z]{2,}")


def has_words(text: str) -> bool:
    """Whether ``text`` holds a word (two letters or more) to translate."""
    return bool(_WORD.search(text))


def say(text: str, **values: object) -> str:
    """``text`` in the current language (:func:`speaking`), its ``{name}`` parts from
    ``values``; a text the catalog lacks, or matches no template of, stays as it is."""
    shown = documents.text(text, CATALOG) if current() != "en" else text
    return shown.format(**values) if values else shown


@contextmanager
def speaking(language: str | None) -> Iterator[str]:
    """Make a deck in ``language`` (``None``: the current one); the choice is undone after."""
    before = languages._chosen
    chosen = languages.resolve(language) if language else current()
    languages.use(chosen)
    try:
        yield chosen
    finally:
        languages.use(before)


def notes_reading(markdown: str, stem: str, language: str) -> str:
    """The reading ``lessons/<stem>.md`` with its prose in ``language`` and its headings as
    they are in English, so the slides find their sections (``"3."``, ``## Summary``) by the
    same names in either language (the notes never show a heading)."""
    if language == "en":
        return markdown
    found = documents.catalog(language, f"lessons/{stem}")

    def translated(block: str) -> str | None:
        if block.startswith("#"):
            return None
        entry = found.entries.get(block)
        return entry.msgstr if entry is not None and entry.translated else None

    from minigrad.i18n import blocks

    return blocks.translate(markdown, translated)


def slide_texts() -> list[str]:
    """Every text of every deck that the catalog must translate, each once, in deck order."""
    from minigrad.course.catalog import LESSONS
    from minigrad.course.slide_content import SLIDES, Drawing, Numbers

    found: dict[str, None] = dict.fromkeys(DECK_TEXTS)
    for lesson in LESSONS:
        if lesson.number not in SLIDES:
            continue
        for text in (lesson.title, lesson.builds, lesson.time):
            if text:
                found.setdefault(text, None)
        for item in SLIDES[lesson.number]:
            found.setdefault(item.title, None)
            if isinstance(item, Numbers):
                for line in item.lines:
                    if has_words(line):
                        found.setdefault(line, None)
            if isinstance(item, Drawing):
                for line in item.legend:
                    found.setdefault(line, None)
    for text in (*GRID_LABELS, *CAPTIONS):
        found.setdefault(text, None)
    return list(found)


_NOTE_TEXTS = ("(the code is in the reading)", "(the table is in the reading)")


def note(paragraph: str) -> str:
    """A paragraph of speaker notes: the reading's own prose (already in the deck's language),
    or one of the stand-ins for a figure or a long code block, translated here."""
    if paragraph in _NOTE_TEXTS or paragraph.startswith("Figure: "):
        return say(paragraph)
    return paragraph


#: The family name a deck gives the bundled CJK font (its @font-face is inside the deck).
DECK_CJK_FAMILY = "minigrad CJK"


def deck_font_css(language: str) -> str:
    """CSS for a deck in ``language``: for Chinese, the bundled subset of Noto Sans CJK SC
    (:mod:`minigrad.i18n.fonts`) as a data URI, after the deck's Latin fonts (Latin letters,
    digits and maths keep their font; a CJK character falls back to it), so the deck draws
    its Chinese offline on any machine."""
    if language == "en":
        return ""
    import base64

    from minigrad.i18n.fonts import FONT

    data = base64.b64encode(FONT.read_bytes()).decode("ascii")
    return (f'@font-face {{ font-family: "{DECK_CJK_FAMILY}"; font-weight: 100 900; '
            f'src: url(data:font/otf;base64,{data}) format("opentype"); }}\n'
            ':root { --r-main-font: "Helvetica Neue", Helvetica, Arial, "Liberation Sans", '
            f'"DejaVu Sans", "{DECK_CJK_FAMILY}", sans-serif; }}')
