"""``minigrad slides NN --out deck.html``: one self-contained, offline slide deck per lesson.

    minigrad slides 06 --out deck.html                  # lesson 06's deck
    minigrad slides 1 --out deck.html --add graph.svg   # plus a slide of your own drawing
    minigrad graph lesson.py --root L --slide --out graph.svg   # a drawing sized for a slide

A deck is: a title slide, the slides listed in :mod:`minigrad.course.slide_content` (the
lesson's figures from the registry, its worked numbers, its central backward graph as the
stepper of :mod:`minigrad.viz.stepper`), the reading's summary, and any ``--add`` pictures.
Everything is inside the one HTML file: SVG inline, PNG as data URIs, no script or font from
the network. Maths is plain Unicode (:func:`minigrad.course.reading.plain_math`). Speaker
notes come from the reading's sections; press ``s`` in the deck to show them.
"""

from __future__ import annotations

import argparse
import base64
import html
import sys
import tempfile
import warnings
from importlib import resources
from pathlib import Path
from typing import Any, Iterable

from minigrad.course.catalog import Lesson, find_lesson
from minigrad.course.folder import course_source
from minigrad.course.reading import (inline_html, intro_notes, reading_text, section_notes,
                                     summary_points)
from minigrad.course.slide_content import SLIDES, Numbers, Picture, Steps
from minigrad.viz.command import SLIDE_FONT_SIZE

HELP = "write a lesson's slide deck: one self-contained HTML file that works offline"
PICTURE_TYPES = {".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg",
                 ".jpeg": "image/jpeg", ".gif": "image/gif"}


def figure_file(filename: str) -> bytes:
    """A registered figure as the course ships it (``assets/``), or drawn now if missing."""
    from minigrad.figures import find_figures

    (figure,) = find_figures([filename])
    shipped = course_source() / "assets" / figure.filename
    if shipped.is_file():
        return shipped.read_bytes()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / figure.filename
        figure.draw(path)
        return path.read_bytes()


def picture_html(data: bytes, suffix: str, alt: str) -> str:
    """A picture for a slide: SVG inline (its text stays sharp), anything else a data URI."""
    if suffix == ".svg":
        svg = data.decode("utf-8")
        start = svg.find("<svg")
        svg = svg[start:] if start >= 0 else svg
        label = f' role="img" aria-label="{html.escape(alt)}"'
        return svg.replace("<svg", f"<svg{label}", 1)
    mime = PICTURE_TYPES[suffix]
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:{mime};base64,{encoded}">'


def _notes(paragraphs: Iterable[str]) -> str:
    body = "".join(f"<p>{inline_html(text)}</p>" for text in paragraphs)
    return f'<aside class="notes">{body}</aside>' if body else ""


def _slide(kind: str, title: str, body: str, notes: str = "") -> str:
    return (f'<section class="slide {kind}"><h1>{html.escape(title)}</h1>{body}{notes}'
            "</section>")


def stepper_html(root: Any, names: dict[str, Any], rankdir: str) -> str:
    """The lesson's backward pass as minigrad.viz's stepper, at slide size."""
    from minigrad.viz import backward_steps

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a conv net's many steps: on purpose
        steps = backward_steps(root, names=names, font_size=SLIDE_FONT_SIZE, rankdir=rankdir,
                               brief=True)
    return steps.html(whole_page=False)


def title_slide(lesson: Lesson, markdown: str) -> str:
    notes = _notes(intro_notes(markdown))
    builds = (f'<p class="builds">You build: <b>{html.escape(lesson.builds)}</b></p>'
              if lesson.builds else "")
    time = f"<p>{html.escape(lesson.time.capitalize())}</p>" if lesson.time else ""
    return (f'<section class="slide title-slide"><p class="kicker">minigrad · lesson '
            f"{lesson.number:02d}</p><h1>{html.escape(lesson.title)}</h1>{builds}{time}"
            f"{notes}</section>")


def lesson_slides(lesson: Lesson) -> list[str]:
    """Every slide of a lesson's deck, as HTML sections."""
    markdown = reading_text(lesson)
    slides = [title_slide(lesson, markdown)]
    for item in SLIDES[lesson.number]:
        notes = _notes(section_notes(markdown, item.notes))
        if isinstance(item, Picture):
            data = figure_file(item.figure)
            body = f'<div class="picture">{picture_html(data, Path(item.figure).suffix, item.title)}</div>'
            slides.append(_slide("picture-slide", item.title, body, notes))
        elif isinstance(item, Numbers):
            lines = "".join(f"<li>{inline_html(line)}</li>" for line in item.lines)
            slides.append(_slide("numbers-slide", item.title, f'<ul class="numbers">{lines}</ul>',
                                 notes))
        elif isinstance(item, Steps):
            root, names = item.build()
            body = stepper_html(root, names, item.rankdir)
            kind = "stepper-slide tall" if item.rankdir in ("TB", "BT") else "stepper-slide"
            slides.append(_slide(kind, item.title, body, notes))
    points = summary_points(markdown)
    if points:
        items = "".join(f"<li>{inline_html(point)}</li>" for point in points[:5])
        slides.append(_slide("summary-slide", "Summary", f"<ul>{items}</ul>",
                             _notes(points[5:])))
    return slides


def added_slide(path: Path) -> str:
    """A slide of the lecturer's own picture (``--add``): SVG, PNG, JPEG or GIF."""
    suffix = path.suffix.lower()
    if suffix not in PICTURE_TYPES:
        raise ValueError(f"cannot add {path.name!r} as a slide: use a picture "
                         f"({', '.join(PICTURE_TYPES)}), e.g. minigrad graph … --out graph.svg")
    title = path.stem.replace("_", " ").replace("-", " ")
    body = f'<div class="picture">{picture_html(path.read_bytes(), suffix, title)}</div>'
    return _slide("picture-slide added-slide", title, body)


def deck_html(lesson: Lesson, extra: Iterable[Path] = ()) -> str:
    """The whole deck of ``lesson`` as one HTML document (``extra``: pictures to append)."""
    slides = lesson_slides(lesson) + [added_slide(Path(path)) for path in extra]
    template = resources.files("minigrad.course").joinpath("deck.html").read_text("utf-8")
    title = f"Lesson {lesson.number:02d} — {lesson.title}"
    return (template.replace("@@TITLE@@", html.escape(title))
            .replace("@@LESSON@@", f"{lesson.number:02d}")
            .replace("@@FOOTER@@", html.escape(f"minigrad · {title}"))
            .replace("@@SLIDES@@", "\n".join(slides)))


def write_deck(lesson_key: int | str, out: str | Path, extra: Iterable[Path] = ()) -> Path:
    """Write the deck of a lesson (number, ``"06"`` or slug) to ``out``; returns the path."""
    out = Path(out)
    text = deck_html(find_lesson(lesson_key), extra)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out


# ---------------------------------------------------------------------- command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("lesson", metavar="LESSON", help="the lesson: 6, 06 or its slug")
    parser.add_argument("--out", metavar="FILE", default=None,
                        help="the deck to write (default: lesson-NN-slides.html)")
    parser.add_argument("--add", metavar="PICTURE", action="append", default=[], type=Path,
                        help="append a slide of your own picture (.svg .png .jpg .gif), e.g. "
                             "from `minigrad graph … --slide --out graph.svg`; repeatable")


def run(args: argparse.Namespace) -> int:
    try:
        lesson = find_lesson(args.lesson)
        for path in args.add:
            if not path.is_file():
                raise ValueError(f"--add: no such file: {path}")
            if path.suffix.lower() not in PICTURE_TYPES:
                raise ValueError(f"--add: {path.name} is not a picture "
                                 f"({', '.join(PICTURE_TYPES)})")
        out = Path(args.out or f"lesson-{lesson.number:02d}-slides.html")
        if out.suffix.lower() not in (".html", ".htm"):
            raise ValueError(f"--out must be an .html file, got {out}")
        write_deck(lesson.number, out, args.add)
    except (ValueError, OSError) as error:
        print(f"minigrad slides: {error}", file=sys.stderr)
        return 1
    print(f"wrote {out}  (open it in a browser: → next, ← back, s speaker notes, f full screen)")
    return 0
