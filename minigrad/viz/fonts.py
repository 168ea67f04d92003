"""Text that fits its box in every viewer.

Graphviz sizes a box from the width of its text in the font it is told to use. Both renderers
we run measure ``Helvetica`` with Helvetica's metrics (graphviz-pure from Graphviz's built-in
tables, a system ``dot`` through a metric-compatible face such as Liberation Sans), but the
SVG only *names* the font: a viewer without Helvetica or a twin (Arial, Liberation Sans,
Arimo) draws a wider face such as DejaVu Sans, and the text spills out of its box.

So :func:`fit_svg_text` gives every text element of an SVG two things: a font list of faces
with Helvetica's metrics, and ``textLength`` — its width in Helvetica, measured here from the
Adobe metrics that matplotlib ships — with ``lengthAdjust="spacingAndGlyphs"``. A viewer then
draws the text exactly that wide, whatever face it picked.
"""

from __future__ import annotations

import functools
import html
import re
from pathlib import Path

FONT = "Helvetica"
#: Faces with Helvetica's widths, most common first; the generic family comes last.
FONT_FAMILY = "Helvetica,Arial,'Liberation Sans',Arimo,'Nimbus Sans',sans-serif"
_DEFAULT_WIDTH = 556  # a digit's width, for characters the metrics do not list

# Unicode characters our labels use, by their Adobe glyph name.
_GLYPH_NAMES = {"×": "multiply", "·": "periodcentered", "²": "twosuperior",
                "³": "threesuperior", "−": "minus", "±": "plusminus", "°": "degree",
                "'": "quotesingle", "`": "grave", "…": "ellipsis", "µ": "mu"}


@functools.lru_cache(maxsize=1)
def _helvetica_widths() -> dict[str, int]:
    """Advance widths (1/1000 em) of Helvetica's characters, from matplotlib's AFM file."""
    import matplotlib

    path = Path(matplotlib.get_data_path()) / "fonts" / "afm" / "phvr8a.afm"
    by_name: dict[str, int] = {}
    by_code: dict[str, int] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        match = re.match(r"C (-?\d+) ; WX (\d+) ; N (\S+) ;", line)
        if match:
            code, width, name = int(match[1]), int(match[2]), match[3]
            by_name[name] = width
            if 32 <= code < 127:
                by_code[chr(code)] = width
    for char, name in _GLYPH_NAMES.items():
        if name in by_name:
            by_code[char] = by_name[name]
    return by_code


def text_width(text: str, font_size: float) -> float:
    """Width in points of ``text`` set in Helvetica at ``font_size`` points."""
    widths = _helvetica_widths()
    return sum(widths.get(char, _DEFAULT_WIDTH) for char in text) * font_size / 1000.0


@functools.lru_cache(maxsize=1)
def _dejavu() -> object:
    from matplotlib import font_manager, ft2font

    return ft2font.FT2Font(font_manager.findfont("DejaVu Sans"))


def room_for_text(text: str, font_size: float) -> float:
    """Width in points a box needs for ``text`` whichever face draws it: the wider of Helvetica
    and DejaVu Sans (the usual fallback, and what a system ``dot`` may draw a PNG with)."""
    font = _dejavu()
    font.set_size(font_size, 72)  # type: ignore[attr-defined]
    font.set_text(text)  # type: ignore[attr-defined]
    dejavu = font.get_width_height()[0] / 64.0  # type: ignore[attr-defined]
    return max(text_width(text, font_size), dejavu)


_TEXT = re.compile(r'<text([^>]*?)font-family="([^"]*)"([^>]*?)font-size="([\d.]+)"([^>]*)>'
                   r"([^<]*)</text>")


def fit_svg_text(svg: str) -> str:
    """``svg`` with each Helvetica text drawn at its measured width (see the module docstring)."""

    def fit(match: re.Match) -> str:
        before, family, middle, size, after, content = match.groups()
        if "Helvetica" not in family or "textLength" in before + middle + after:
            return match[0]
        width = text_width(html.unescape(content), float(size))
        length = f' textLength="{width:.2f}" lengthAdjust="spacingAndGlyphs"' if width > 0 else ""
        return (f'<text{before}font-family="{FONT_FAMILY}"{middle}font-size="{size}"'
                f"{after}{length}>{content}</text>")

    return _TEXT.sub(fit, svg)
