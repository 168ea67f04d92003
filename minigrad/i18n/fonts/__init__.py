"""The font the Chinese course bundles: a subset of Noto Sans CJK SC (SIL Open Font Licence 1.1,
``OFL.txt`` beside it) holding the characters the Chinese catalogs use.

Figures (matplotlib), slide decks and the site draw Chinese text with it, offline. It holds
every character of every ``msgstr`` of ``minigrad/i18n/zh/`` (translated or not yet
revisited), printable ASCII and the common full-width punctuation; Latin letters, digits and
maths symbols are drawn by the font each medium already uses (DejaVu Sans in figures), CJK by
this one. ``python -m minigrad.i18n.fonts`` makes it again from the full font after the
catalogs change (Debian: ``apt-get install fonts-noto-cjk``; or ``--source FILE`` naming
``NotoSansCJK-Regular.ttc``, ``NotoSansCJKsc-Regular.otf`` or ``NotoSansSC-Regular.otf``);
a test fails while a catalog uses a character that neither this subset nor DejaVu Sans has.
Figures also draw bold labels: ``NotoSansSC-minigrad-Bold.otf`` holds the figure catalog's
characters in the bold face (``NotoSansCJK-Bold.ttc``), made by the same command.
"""

from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path

FOLDER = Path(__file__).resolve().parent
FONT = FOLDER / "NotoSansSC-minigrad.otf"
BOLD = FOLDER / "NotoSansSC-minigrad-Bold.otf"
LICENCE = FOLDER / "OFL.txt"
#: The family name the subset keeps (matplotlib and CSS refer to it by this name).
FAMILY = "Noto Sans CJK SC"
#: Full-width punctuation and symbols a Chinese text uses, whether or not a catalog has them yet.
PUNCTUATION = "，。、：；？！“”‘’（）《》【】「」—…·～％＋－＝＜＞／"
#: Where the full font is found on a system that has it.
SOURCES = (Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
           Path("/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc"),
           Path("/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc"),
           Path("/Library/Fonts/NotoSansCJKsc-Regular.otf"))


def catalog_files(language: str = "zh") -> list[Path]:
    """Every catalog of ``language`` (``zh/messages.po``, ``zh/lessons/01-derivatives.po`` …)."""
    root = FOLDER.parent / language
    return sorted(root.rglob("*.po"))


def catalog_characters(language: str = "zh") -> set[str]:
    """Every character of every translation in ``language``'s catalogs."""
    from minigrad.i18n.catalog import Catalog

    found: set[str] = set()
    for path in catalog_files(language):
        for entry in Catalog.read(path).entries.values():
            found.update(entry.msgstr)
    return found


def figure_characters(language: str = "zh") -> set[str]:
    """What the bold subset holds: the figure catalog's characters, ASCII and punctuation."""
    from minigrad.i18n.catalog import Catalog

    found = {char for entry in Catalog.read(FOLDER.parent / language / "figures.po")
             .entries.values() for char in entry.msgstr}
    return (found | set(string.printable.strip()) | set(PUNCTUATION) | {" "}) \
        - set("\n\t\r\x0b\x0c")


def wanted_characters(language: str = "zh") -> set[str]:
    """What the subset holds: the catalogs' characters, printable ASCII, :data:`PUNCTUATION`."""
    return (catalog_characters(language) | set(string.printable.strip()) | set(PUNCTUATION)
            | {" "}) - set("\n\t\r\x0b\x0c")


@lru_cache(maxsize=None)
def _cmap(path: str, number: int = 0) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    with TTFont(path, fontNumber=number, lazy=True) as font:
        return frozenset(font.getBestCmap())


def subset_characters() -> frozenset[int]:
    """The code points the bundled subset draws."""
    return _cmap(str(FONT))


def dejavu_characters() -> frozenset[int]:
    """The code points of DejaVu Sans, matplotlib's own font (figures draw Latin with it)."""
    import matplotlib

    return _cmap(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"))


def uncovered(characters: set[str]) -> list[str]:
    """The characters of ``characters`` that neither the subset nor DejaVu Sans can draw."""
    drawn = subset_characters() | dejavu_characters()
    return sorted(char for char in characters if char.isprintable() and ord(char) not in drawn)


def find_source() -> tuple[Path, int]:
    """The full Noto Sans CJK SC on this system: (file, index of the SC face in it)."""
    from fontTools.ttLib import TTCollection, TTFont

    for path in SOURCES:
        if path.is_file():
            return path, _sc_face(path)
    raise FileNotFoundError(
        "no Noto Sans CJK SC on this system: install it (Debian/Ubuntu: apt-get install "
        "fonts-noto-cjk) or name the file with --source (NotoSansCJK-Regular.ttc or "
        "NotoSansCJKsc-Regular.otf from https://github.com/googlefonts/noto-cjk)")


def _sc_face(path: Path) -> int:
    """The index of the Simplified Chinese face in a font collection (0 for a single font)."""
    from fontTools.ttLib import TTCollection

    if path.suffix.lower() != ".ttc":
        return 0
    collection = TTCollection(str(path), lazy=True)
    for number, font in enumerate(collection.fonts):
        if font["name"].getDebugName(1) == FAMILY:
            return number
    raise ValueError(f"{path} holds no face named {FAMILY!r}")


def make_subset(source: Path, number: int, characters: set[str], out: Path = FONT) -> Path:
    """Write the subset of ``source`` (face ``number``) holding ``characters`` to ``out``.

    The head table's date is kept from the source, so the same characters give the same bytes.
    """
    from fontTools import subset
    from fontTools.ttLib import TTFont

    options = subset.Options()
    options.recalc_timestamp = False
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.hinting = False
    options.layout_features = ["kern", "liga", "locl", "vert", "vrt2", "halt", "palt"]
    font = TTFont(str(source), fontNumber=number, lazy=False)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(ord(char) for char in characters))
    subsetter.subset(font)
    out.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(out))
    _cmap.cache_clear()
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m minigrad.i18n.fonts",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, metavar="FILE",
                        help="the full font (default: Noto Sans CJK SC where Debian installs it)")
    args = parser.parse_args(argv)
    try:
        source, number = ((args.source, _sc_face(args.source)) if args.source
                          else find_source())
    except (OSError, ValueError) as error:
        print(f"python -m minigrad.i18n.fonts: {error}")
        return 1
    characters = wanted_characters()
    make_subset(source, number, characters)
    bold = source.with_name(source.name.replace("Regular", "Bold"))
    if bold != source and bold.is_file():
        make_subset(bold, _sc_face(bold), figure_characters(), BOLD)
        print(f"wrote {BOLD} ({BOLD.stat().st_size // 1024} KB, bold, the figures' characters)")
    else:
        print(f"no bold face beside {source} ({bold.name}): {BOLD.name} left as it is")
    lacking = sorted(char for char in characters if ord(char) not in subset_characters())
    print(f"wrote {FONT} ({FONT.stat().st_size // 1024} KB, {len(subset_characters())} "
          f"characters from {source.name})")
    if lacking:
        print("not in Noto Sans CJK SC (drawn by the medium's own font): " + "".join(lacking))
    return 0
