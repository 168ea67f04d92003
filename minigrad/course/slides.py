"""``minigrad slides NN --out deck.html``: one self-contained, offline reveal.js deck per lesson.

    minigrad slides 06 --out deck.html                   # lesson 06's deck
    minigrad slides 06 --out deck.html --theme dark      # light text on a dark slide
    minigrad slides 06 --out deck.html --lang zh         # in Chinese (中文)
    minigrad slides 1 --out deck.html --add graph.svg --title "My graph" --at 3
    minigrad slides 1 --out deck.html --add steps.html   # a stepper of minigrad.viz
    minigrad graph lesson.py --root L --backward --slide --out graph.svg   # a slide's drawing

A deck is: a title slide, the slides listed in :mod:`minigrad.course.slide_content` (the
lesson's figures from the registry drawn for the slide by :mod:`minigrad.figures.slide`, its
worked numbers revealed a line at a time, its code, its central backward pass as a stepper of
focus drawings from :mod:`minigrad.course.slide_graph`), the reading's summary, and any
``--add`` pictures or steppers. It runs on reveal.js (vendored in ``vendor/revealjs/`` with
its licence), inlined with everything else into the one HTML file: SVG inline (the figures'
labels are text, measured like the rest), a lecturer's PNG as a data URI, no script or font
from the network. Maths is plain Unicode (:func:`minigrad.course.reading.plain_math`).
Speaker notes come from the reading's sections; ``s`` opens reveal's presenter view in its
own window (notes, next slide, timer). In Chinese (``--lang zh``) the deck's words come from the
catalog ``minigrad/i18n/zh/slides.po`` (:mod:`minigrad.course.slide_words`), its notes from the
reading's translated prose, its figures' labels from ``figures.po`` (the slide drawings made in
Chinese), and the bundled CJK font is inlined too.
"""

from __future__ import annotations

import argparse
import base64
import html
import re
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Sequence

from minigrad.course.catalog import Lesson, find_lesson
from minigrad.course.reading import (inline_html, intro_notes, reading_text, section_notes,
                                     summary_points)
from minigrad.course.slide_content import (SLIDES, Arithmetic, Code, Drawing, Numbers, Picture,
                                           Steps)
from minigrad.course.slide_graph import SLIDE_GRAPH_PT, SlideStep, slide_steps
from minigrad.course.slide_words import (DECK_CJK_FAMILY, deck_font_css, note, notes_reading,
                                         say, speaking)
from minigrad.i18n.language import LANGUAGES, current

HELP = ("write a lesson's slide deck (reveal.js): one self-contained HTML file that works "
        "offline, or a PDF")
PICTURE_TYPES = {".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg",
                 ".jpeg": "image/jpeg", ".gif": "image/gif"}


def figure_html(filename: str, alt: str, theme: str = "light") -> str:
    """A figure of the registry drawn for the slide (:mod:`minigrad.figures.slide`): inline
    SVG whose labels are text at 20 pt or more, at its natural size, in the deck's language;
    a Chinese label names the CJK font by the family the deck gives it (:data:`DECK_CJK_FAMILY`,
    inside the deck), so it is drawn by the font the figure was measured with, offline.
    On a dark deck it has no white ground and is shown inverted, as a light Graphviz drawing
    is: black labels turn white, the colours keep their hue (``mg-invert``)."""
    from minigrad.figures.slide import slide_svg
    from minigrad.i18n.fonts import FAMILY

    dark = theme == "dark"
    svg = slide_svg(filename, transparent=dark)
    if current() != "en":
        svg = svg.replace(f"'{FAMILY}'", f"'{DECK_CJK_FAMILY}'")
    classes = "mg-figure mg-invert" if dark else "mg-figure"
    return svg.replace("<svg", f'<svg role="img" aria-label="{html.escape(alt)}" '
                               f'class="{classes}"', 1)


THEMES = {"light": "white.css", "dark": "black.css"}  # the vendored reveal.js themes
SLIDE_WIDTH_PX, SLIDE_HEIGHT_PX = 1280, 720
# The room a stepper's step has under the slide's title (see deck.html's paddings), and the
# narrowest caption beside a drawing; a wider drawing gets its caption underneath.
STEP_AREA_PX = (SLIDE_WIDTH_PX - 2 * 56, SLIDE_HEIGHT_PX - 28 - 40 - 82)
SIDE_CAPTION_PX = 330
_DARK_BACKGROUNDS = re.compile(r'<polygon fill="(#1e1e1e|#000000|black)"')


def picture_html(data: bytes, suffix: str, alt: str, theme: str = "light") -> str:
    """A picture for a slide: SVG inline (its text stays sharp), anything else a data URI.
    A Graphviz drawing in the other theme (a dark drawing on a light deck, or a light one on
    a dark deck) is shown with its colours inverted, so it is not a black box on white."""
    if suffix == ".svg":
        svg = data.decode("utf-8")
        start = svg.find("<svg")
        svg = svg[start:] if start >= 0 else svg
        dark = bool(_DARK_BACKGROUNDS.search(svg[:4000]))
        invert = ' class="mg-invert"' if dark != (theme == "dark") and "graph0" in svg else ""
        label = f' role="img" aria-label="{html.escape(alt)}"{invert}'
        return svg.replace("<svg", f"<svg{label}", 1)
    mime = PICTURE_TYPES[suffix]
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:{mime};base64,{encoded}">'


def _notes(paragraphs: Iterable[str]) -> str:
    body = "".join(f"<p>{inline_html(note(text))}</p>" for text in paragraphs)
    return f'<aside class="notes">{body}</aside>' if body else ""


def _slide(kind: str, title: str, body: str, notes: str = "") -> str:
    return (f'<section class="{kind}"><div class="mg-slide"><h2>{html.escape(title)}</h2>'
            f"{body}</div>{notes}</section>")


def _svg_size_px(svg: str) -> tuple[float, float]:
    """A Graphviz drawing's natural size in CSS px (its ``width``/``height`` are in pt)."""
    match = re.search(r'<svg[^>]*?width="([\d.]+)pt"[^>]*?height="([\d.]+)pt"', svg)
    if not match:
        return (0.0, 0.0)
    return (float(match[1]) * 4 / 3, float(match[2]) * 4 / 3)


def stepper_html(steps: Sequence[SlideStep], fit: bool = False) -> str:
    """A backward pass as reveal.js fragments: step 1 shows with the slide, each → shows the
    next step in its place (so → steps through backward, then moves on; a PDF has a page per
    step). Drawings keep their natural size, a caption beside them when there is room, else
    underneath; ``fit``: a drawing of the lecturer's own, shrunk to the room if too big."""
    # Beside its drawing, a step's caption must hold its longest word (a node's name such as
    # MaxPool2DWithIndicesBackward0) on one line: about 0.6 of the 28 px font per character.
    def room_beside(step: SlideStep) -> bool:
        longest = max((len(word) for line in step.caption for word in line.split()), default=0)
        caption_px = max(SIDE_CAPTION_PX, longest * 0.6 * 28 + 40)
        return _svg_size_px(step.picture)[0] + 24 + caption_px <= STEP_AREA_PX[0]

    layout = "side" if all(room_beside(step) for step in steps) else "below"
    parts = []
    last = len(steps) - 1
    for number, step in enumerate(steps):
        if number == 0:
            fragment = ' fragment fade-out" data-fragment-index="0' if last else ""
        elif number < last:
            fragment = f' fragment current-visible" data-fragment-index="{number - 1}'
        else:
            fragment = f' fragment" data-fragment-index="{number - 1}'
        # a minus sign, not a hyphen, so a line never breaks inside -7.451e-10
        caption = "".join(f"<span>{html.escape(re.sub(r'-(?=[0-9.])', '−', say(line)))}</span>"
                          for line in step.caption)
        start = step.picture.find("<svg")
        picture = step.picture[start:] if start >= 0 else step.picture
        parts.append(f'<div class="mg-step {layout}{" fit" if fit else ""}{fragment}" '
                     f'data-step="{number + 1}">{picture}<p class="caption">{caption}</p></div>')
    return f'<div class="mg-steps" data-steps="{len(steps)}">{"".join(parts)}</div>'


def drawing_html(item: Drawing, theme: str = "light") -> str:
    """A whole graph drawn for the slide at its natural size: its smallest text (an op's
    symbol, set a little smaller than the boxes) at :data:`SLIDE_GRAPH_PT` points, left to
    right if that fits, else top to bottom, with the legend beside it."""
    room = STEP_AREA_PX[0] - (24 + SIDE_CAPTION_PX if item.legend else 0), STEP_AREA_PX[1]
    tried = []
    for rankdir in ("LR", "TB"):
        svg = item.draw(SLIDE_GRAPH_PT, rankdir, theme).svg()
        smallest = min(float(size) for size in re.findall(r'font-size="([\d.]+)"', svg))
        if smallest < SLIDE_GRAPH_PT:
            svg = item.draw(SLIDE_GRAPH_PT ** 2 / smallest, rankdir, theme).svg()
        width, height = _svg_size_px(svg)
        tried.append(f"{rankdir} {width:.0f} × {height:.0f} px")
        if width <= room[0] and height <= room[1]:
            svg = svg[svg.find("<svg"):].replace(
                "<svg", f'<svg role="img" aria-label="{html.escape(say(item.title))}"', 1)
            legend = "".join(f"<span>{html.escape(say(line))}</span>" for line in item.legend)
            caption = f'<p class="caption">{legend}</p>' if legend else ""
            return (f'<div class="mg-steps mg-drawing"><div class="mg-step side">{svg}{caption}'
                    "</div></div>")
    raise ValueError(f"the drawing {item.title!r} does not fit a slide at "
                     f"{SLIDE_GRAPH_PT:g} pt ({', '.join(tried)}; room {room[0]} × {room[1]})")


def code_html(source: str) -> str:
    return f'<pre class="code"><code>{html.escape(source.strip())}</code></pre>'


def title_slide(lesson: Lesson, markdown: str) -> str:
    notes = _notes(intro_notes(markdown))
    builds = (f'<p class="builds">{html.escape(say("You build:"))} '
              f"<b>{html.escape(say(lesson.builds))}</b></p>" if lesson.builds else "")
    time = say(lesson.time) if lesson.time else ""
    time = f"<p>{html.escape(time[:1].upper() + time[1:])}</p>" if time else ""
    kicker = say("minigrad · lesson {number}", number=f"{lesson.number:02d}")
    return (f'<section class="title-slide"><div class="mg-slide"><p class="kicker">'
            f"{html.escape(kicker)}</p><h2>{html.escape(say(lesson.title))}</h2>{builds}{time}"
            f"</div>{notes}</section>")


def slide_notes(markdown: str, slides: Sequence[Any]) -> list[list[str]]:
    """Each slide's notes: the prose of its section of the reading. Slides that name the same
    section share its paragraphs out in order, so no two slides carry the same notes."""
    sharing: dict[str, list[int]] = {}
    for position, item in enumerate(slides):
        sharing.setdefault(item.notes, []).append(position)
    notes: list[list[str]] = [[] for _ in slides]
    for prefix, positions in sharing.items():
        paragraphs = section_notes(markdown, prefix, limit=None)
        count = len(positions)
        for share, position in enumerate(positions):
            part = paragraphs[share * len(paragraphs) // count:
                              (share + 1) * len(paragraphs) // count]
            notes[position] = part[:4] if part else paragraphs[-1:]
    return notes


def lesson_slides(lesson: Lesson, theme: str = "light") -> list[str]:
    """Every slide of a lesson's deck, as HTML sections."""
    markdown = notes_reading(reading_text(lesson), lesson.name, current())
    slides = [title_slide(lesson, markdown)]
    items = SLIDES[lesson.number]
    for item, paragraphs in zip(items, slide_notes(markdown, items)):
        notes = _notes(paragraphs)
        title = say(item.title)
        if isinstance(item, Picture):
            picture = figure_html(item.figure, title, theme)
            slides.append(_slide("picture-slide", title,
                                 f'<div class="picture">{picture}</div>', notes))
        elif isinstance(item, Numbers):
            revealed = ("<li>", '<li class="fragment">')  # one line at a time
            lines = "".join(f"{revealed[number > 0]}{inline_html(say(line))}</li>"
                            for number, line in enumerate(item.lines))
            slides.append(_slide("numbers-slide", title, f'<ul class="numbers">{lines}</ul>',
                                 notes))
        elif isinstance(item, Drawing):
            slides.append(_slide("drawing-slide", title, drawing_html(item, theme), notes))
        elif isinstance(item, Code):
            slides.append(_slide("code-slide", title, code_html(item.source()), notes))
        elif isinstance(item, Arithmetic):
            slides.append(_slide("stepper-slide arithmetic-slide", title,
                                 stepper_html(item.build()), notes))
        elif isinstance(item, Steps):
            root, names = item.build()
            body = stepper_html(slide_steps(root, names, rankdir=item.rankdir, theme=theme))
            slides.append(_slide("stepper-slide", title, body, notes))
    points = summary_points(markdown)
    if points:
        items_html = "".join(f"<li>{inline_html(point)}</li>" for point in points[:5])
        slides.append(_slide("summary-slide", say("Summary"), f"<ul>{items_html}</ul>",
                             _notes(points[5:])))
    return slides


# ---------------------------------------------------------------------- the lecturer's slides
@dataclass
class Added:
    """A slide of the lecturer's own (``--add``): a picture or a stepper page of
    ``minigrad.viz``, with a title (default: from the file name) and the slide number it
    becomes (default: after the summary)."""

    path: Path
    title: str = ""
    at: int | None = None


_STEPPER_FRAME = re.compile(r'<div class="mg-frame mg-picture" data-frame="\d+"[^>]*>(.*?)</div>\s*'
                            r'<div class="mg-text"[^>]*>(.*?)</div>', re.S)


def stepper_file_steps(text: str, name: str) -> list[SlideStep]:
    """The steps of a stepper page written by ``minigrad.viz`` (``steps.save("x.html")``,
    ``minigrad graph … --steps --out x.html``)."""
    found = [SlideStep(svg, tuple(html.unescape(caption).splitlines()))
             for svg, caption in _STEPPER_FRAME.findall(text)]
    if not found:
        raise ValueError(f"cannot add {name!r} as a slide: it is not a stepper page of "
                         "minigrad.viz (save one with steps.save('steps.html'))")
    return found


def added_slide(added: Added, theme: str = "light") -> str:
    """A slide of the lecturer's own: SVG, PNG, JPEG or GIF, or a stepper ``.html``."""
    path = added.path
    suffix = path.suffix.lower()
    title = added.title or path.stem.replace("_", " ").replace("-", " ")
    if suffix in (".html", ".htm"):
        steps = stepper_file_steps(path.read_text(encoding="utf-8"), path.name)
        return _slide("stepper-slide added-slide", title, stepper_html(steps, fit=True))
    if suffix not in PICTURE_TYPES:
        raise ValueError(f"cannot add {path.name!r} as a slide: use a picture "
                         f"({', '.join(PICTURE_TYPES)}) or a stepper .html, "
                         "e.g. minigrad graph … --out graph.svg")
    picture = picture_html(path.read_bytes(), suffix, title, theme)
    return _slide("picture-slide added-slide", title, f'<div class="picture">{picture}</div>')


def _vendored(name: str) -> str:
    return (resources.files("minigrad.course").joinpath("vendor", "revealjs", *name.split("/"))
            .read_text("utf-8"))


def deck_html(lesson: Lesson, extra: Iterable[Added | Path] = (), theme: str = "light",
              language: str | None = None) -> str:
    """The whole deck of ``lesson`` as one HTML document, reveal.js and all (``extra``: the
    lecturer's own slides, ``theme``: ``"light"`` or ``"dark"``, ``language``: ``"en"`` or
    ``"zh"``, by default :func:`minigrad.i18n.current`)."""
    if theme not in THEMES:
        raise ValueError(f"no theme {theme!r}; the themes are {', '.join(THEMES)}")
    with speaking(language) as chosen:
        return _deck_html(lesson, extra, theme, chosen)


def _deck_html(lesson: Lesson, extra: Iterable[Added | Path], theme: str, language: str) -> str:
    slides = lesson_slides(lesson, theme)
    for added in extra:
        added = added if isinstance(added, Added) else Added(Path(added))
        at = len(slides) + 1 if added.at is None else added.at
        if not 1 <= at <= len(slides) + 1:
            raise ValueError(f"--at {at}: the deck has {len(slides)} slides, so a slide can "
                             f"go at 1 … {len(slides) + 1}")
        slides.insert(at - 1, added_slide(added, theme))
    template = resources.files("minigrad.course").joinpath("deck.html").read_text("utf-8")
    title = say("Lesson {number} — {title}", number=f"{lesson.number:02d}",
                title=say(lesson.title))
    # The themes' web font is not vendored: its @import goes (deck.html names a font stack).
    theme_css = re.sub(r"@import url\([^)]*\);", "", _vendored(f"theme/{THEMES[theme]}"))
    fills = {"TITLE": html.escape(title), "LESSON": f"{lesson.number:02d}", "THEME": theme,
             "REVEAL_CSS": _vendored("reveal.css"), "THEME_CSS": theme_css,
             "REVEAL_JS": _vendored("reveal.js"), "NOTES_JS": _vendored("plugin/notes.js"),
             "SLIDES": "\n".join(slides), "LANG": "zh-CN" if language == "zh" else language,
             "FONT_CSS": deck_font_css(language)}
    return re.sub(r"@@([A-Z_]+)@@", lambda match: fills[match[1]], template)


def write_deck(lesson_key: int | str, out: str | Path, extra: Iterable[Added | Path] = (),
               theme: str = "light", language: str | None = None) -> Path:
    """Write the deck of a lesson (number, ``"06"`` or slug) to ``out``: an ``.html`` deck, or
    a ``.pdf`` of it with a page per slide, step and revealed line (needs chromium and
    playwright, see :mod:`minigrad.course.deck_pdf`); returns the path."""
    out = Path(out)
    text = deck_html(find_lesson(lesson_key), extra, theme, language)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".pdf":
        from minigrad.course.deck_pdf import html_to_pdf

        with tempfile.TemporaryDirectory() as folder:
            page = Path(folder) / "deck.html"
            page.write_text(text, encoding="utf-8")
            html_to_pdf(page, out)
        return out
    out.write_text(text, encoding="utf-8")
    return out


# ---------------------------------------------------------------------- command line
class _AddSlide(argparse.Action):
    def __call__(self, parser, namespace, value, option_string=None):  # type: ignore[override]
        added = getattr(namespace, "add", None) or []
        if option_string == "--add":
            added.append(Added(Path(value)))
        elif not added:
            parser.error(f"{option_string} names the slide of the --add before it; "
                         f"give --add FILE first")
        elif option_string == "--title":
            added[-1].title = value
        else:
            added[-1].at = value
        namespace.add = added


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("lesson", metavar="LESSON", help="the lesson: 6, 06 or its slug")
    parser.add_argument("--out", metavar="FILE", default=None,
                        help="the deck to write: .html (default lesson-NN-slides.html) or "
                             ".pdf (a page per slide and step; needs chromium and playwright)")
    parser.add_argument("--theme", choices=tuple(THEMES), default="light",
                        help="light (default) or dark slides")
    parser.add_argument("--lang", metavar="LANG", choices=tuple(LANGUAGES), default=None,
                        help="the deck's language: en or zh (中文: titles, worked numbers, "
                             "stepper captions, notes and figures in Chinese, with a CJK font "
                             "inside the deck). Default: MINIGRAD_LANG, else the locale "
                             "(LANG=zh_CN.UTF-8 gives zh), else en")
    parser.add_argument("--add", metavar="FILE", action=_AddSlide, default=[],
                        help="add a slide of your own: a picture (.svg .png .jpg .gif), e.g. "
                             "from `minigrad graph … --slide --out graph.svg`, or a stepper "
                             ".html of minigrad.viz; repeatable")
    parser.add_argument("--title", metavar="TEXT", action=_AddSlide,
                        help="the title of the --add slide before it (default: its file name)")
    parser.add_argument("--at", metavar="N", type=int, action=_AddSlide,
                        help="the slide number the --add slide before it becomes "
                             "(default: the end)")


def run(args: argparse.Namespace) -> int:
    try:
        lesson = find_lesson(args.lesson)
        for added in args.add:
            path = added.path
            if not path.is_file():
                raise ValueError(f"--add: no such file: {path}")
            if path.suffix.lower() not in (*PICTURE_TYPES, ".html", ".htm"):
                raise ValueError(f"--add: {path.name} is not a picture "
                                 f"({', '.join(PICTURE_TYPES)}) or a stepper .html")
        out = Path(args.out or f"lesson-{lesson.number:02d}-slides.html")
        if out.suffix.lower() not in (".html", ".htm", ".pdf"):
            raise ValueError(f"--out must be an .html or a .pdf file, got {out}")
        write_deck(lesson.number, out, args.add, args.theme, getattr(args, "lang", None))
    except (ValueError, OSError, RuntimeError) as error:
        print(f"minigrad slides: {error}", file=sys.stderr)
        return 1
    from minigrad.i18n.cli_text import line

    language = getattr(args, "lang", None) or current()
    if out.suffix.lower() == ".pdf":
        print(line("wrote {out}  (a page per slide, per step and per revealed line)", language,
                   out=out))
    else:
        print(line("wrote {out}  (open it in a browser: → next, ← back, s presenter view in its "
                   "own window, f full screen, o overview)", language, out=out))
    return 0
