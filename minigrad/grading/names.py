"""Text from a submission shown to a person: every character that does not show is escaped.

A folder named ``bob`` plus U+180E (or U+E0041, U+061C, U+3164, U+FE0F, U+034F …) prints as
``bob``: in a class table or a gradebook it passes for the real bob. So student names, and
whatever else the grader prints from a submission, go through :func:`printable`, which writes
each such character as ``\\u{180e}``. What counts as not showing is a rule, not a list of
examples: Unicode's Default_Ignorable_Code_Point set, every control, format, surrogate,
private-use or unassigned character, every separator but the plain space, and the blank
characters that are not in those classes (the Hangul fillers, the Braille blank).
"""

from __future__ import annotations

import re
import unicodedata

#: Default_Ignorable_Code_Point, Unicode 15.1 (DerivedCoreProperties.txt), as ranges.
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
#: Characters that draw nothing yet belong to no invisible class: the Braille blank (So).
BLANK = {0x2800}
#: General categories that never show as a glyph of their own.
INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def is_invisible(character: str) -> bool:
    """True when ``character`` shows as nothing (or as a space that is not one)."""
    code = ord(character)
    if any(low <= code <= high for low, high in DEFAULT_IGNORABLE) or code in BLANK:
        return True
    category = unicodedata.category(character)
    return category in INVISIBLE_CATEGORIES or (category == "Zs" and character != " ")


def _escape(character: str) -> str:
    return f"\\u{{{ord(character):x}}}"


def printable(text: str, keep_lines: bool = True) -> str:
    """``text`` with each invisible character written as ``\\u{…}``: terminal escapes, bidi
    overrides, zero-width and ignorable characters, odd spaces, lone surrogates (undecodable
    file names). Tabs and newlines stay when ``keep_lines``."""
    kept = "\t\n" if keep_lines else ""
    return "".join(_escape(character) if is_invisible(character) and character not in kept
                   else character for character in text)


def visible_name(name: str) -> str:
    """A student's (or a file's) name as it must be shown: one line, every invisible character
    escaped, and a backslash too (``\\u{5c}``), so that no name can spell another's escape."""
    return printable(name.replace("\\", _escape("\\")), keep_lines=False)


#: First characters a spreadsheet reads as the start of a formula (``=``, ``+``, ``-``, ``@``)
#: or as "text follows" (``'``, which it then hides): escaped at the start of a student id.
FORMULA_START = "=+-@'"
_ESCAPE = re.compile(r"\\u\{([0-9a-f]{1,6})\}")


def student_id(name: str) -> str:
    """The one way a student (their folder's or file's name) is written everywhere: the
    class table, every CSV layout, the JSON keys and ``extra_data.student``, the log and
    ``--regrade``. It is :func:`visible_name` (invisible characters and ``\\`` as
    ``\\u{…}``; a byte of a name that is not UTF-8, 0xff, as its surrogate ``\\u{dcff}``),
    with a space at either end escaped too (``carol `` is ``carol\\u{20}``, never a second
    ``carol``) and a first character in :data:`FORMULA_START` escaped (``=bob`` is
    ``\\u{3d}bob``), so that no id is a spreadsheet formula. Every ``\\`` in an id starts an
    escape, so the mapping is one to one: :func:`name_of_id` undoes it."""
    text = visible_name(name)
    start = len(text) - len(text.lstrip(" "))
    end = len(text.rstrip(" "))
    if start == len(text):
        return _escape(" ") * len(text)
    head = text[start]
    head = _escape(head) if head in FORMULA_START else head
    return (_escape(" ") * start + head + text[start + 1:end]
            + _escape(" ") * (len(text) - end))


def name_of_id(text: str) -> str:
    """The name whose :func:`student_id` is ``text`` (the inverse of the escaping)."""
    return _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), text)
