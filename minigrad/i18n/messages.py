"""What ``check()`` and ``minigrad grade`` say, in the reader's language.

The checks write their messages in English, and build them from pieces: a comparator's
sentence, then the sentence of each mistake the answer shows, joined by ``"; "``; perhaps a
suffix naming the parts of the answer that are right, or the line of the student's code that
raised. ``say(message)`` gives such a message in the current language (``language.current()``),
piece by piece, from the catalog ``zh/messages.po``:

- a piece is looked up as it is, then against the catalog's templates (msgids with ``{name}``
  placeholders, the most specific first: the one with the most fixed text); the text a
  placeholder stands for is itself said in the language (a mistake's sentence quoted in
  another), and carried into the translation's placeholder of the same name;
- the pieces of a message are its runs of ``"; "``-separated parts, the longest run that the
  catalog knows first (a sentence may hold a ``;`` of its own);
- in a piece the catalog does not know, a known advice after "what raised: " is said, and a
  Python exception's name is kept;
- what the catalog does not know stays English (a Python error's own text, say).

A message may quote what graded code chose (an exception's text): the work of saying one is
bounded (its length, its pieces, a quarter of a second), and past the bounds it stays English.

``_(template, **values)`` is the same for a message the code writes from a template of its own:
the template is the msgid, and ``values`` are filled into its translation.

English is the source: in English every function here returns its text unchanged.
"""

from __future__ import annotations

import math
import re
import threading
import time
from typing import Optional

from minigrad.i18n.catalog import Catalog, placeholders
from minigrad.i18n.documents import catalog
from minigrad.i18n.language import current

NAME = "messages"
#: How the pieces of a message are joined, by language.
SEPARATOR = {"en": "; ", "zh": "；"}
#: What follows the words a message explains, by language.
COLON = {"en": ": ", "zh": "："}
#: Bounds on the work of saying one message, whatever text a submission made it quote: the
#: longest text matched against the templates, the most pieces said as one, the most
#: ": "-separated advices looked for in one piece, the most pieces said (the rest is kept).
_LONGEST_MATCHED, _LONGEST_RUN, _MOST_COLONS, _MOST_PIECES = 600, 6, 6, 40
#: Seconds one message may take to say: past them, what is left stays English (an ordinary
#: message takes a millisecond or two).
_LONGEST_SAYING = 0.25
_budget = threading.local()
_said: dict[tuple[str, str], str] = {}
#: How the last two items of a list are joined, by language.
AND = {"en": " and ", "zh": " 和 "}
_NAMES = re.compile(r"[^\s;:]+(?: and [^\s;:]+)+")
#: How the items of a list in a message are joined, by language.
LIST = {"en": ", ", "zh": "、"}
#: Placeholders that stand for a fixed kind of text, and may touch another placeholder.
_KNOWN = {"in_result": r"(?: in result(?:\[[^\]]*\])*)?"}
#: A placeholder named ``en_…`` holds one English word of grammar ("is" or "are"), which a
#: translation may leave out.
_ENGLISH = r"[A-Za-z]+"
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: "(right: E, dE/dw; wrong: new weights)" after a message: the parts that are right.
_PARTS = re.compile(r"^(?P<message>.*) \(right: (?P<right>[^;()]*); wrong: (?P<wrong>[^;()]*)\)$",
                    re.DOTALL)
#: " (line 12 of lesson03.py, in backward: y = x ** 3)" after a message: where it raised.
_LINE = re.compile(r"^(?P<message>.*?)(?P<line> \(line \d+ of [^()]*?, in [A-Za-z_<>][\w<>.]*"
                   r"(?:: [^\n]*)?\))$", re.DOTALL)
#: "ValueError: ..." — a Python exception's name, kept, then its text.
_EXCEPTION = re.compile(r"^(?P<name>[A-Za-z_][\w.]*(?:Error|Exception|Warning|Interrupt|Exit)"
                        r"): (?P<text>.*)$", re.DOTALL)


#: Messages that ``check()`` and the grader compose from the pieces of others (they are
#: extracted with the rest, and ``say`` matches them like any template).
TEMPLATES = (
    "raised {error}",
    "(line {line} of {file}, in {function}: {code})",
    "(line {line} of {file}, in {function})",
    "your notebook cell",
    "returned something that cannot be graded: {error}",
    "{file}: SyntaxError at {error}",
    "{file}: could not be imported: {error}",
)


def _(template: str, language: Optional[str] = None, **values: object) -> str:
    """``template.format(**values)`` in the language: the template is the catalog's msgid."""
    lang = language or current()
    if lang == "en":
        return template.format(**values)
    entry = catalog(lang, NAME).entries.get(template)
    translated = entry.msgstr if entry is not None and entry.translated else template
    return translated.format(**values)


def heading(section: str, lesson: str, language: Optional[str] = None) -> str:
    """The title of a section of the reading ``lessons/<lesson>.md``, as its translation in
    the language gives it (the reading's own catalog), else as the messages give it."""
    lang = language or current()
    if lang == "en":
        return section
    found = catalog(lang, f"lessons/{lesson}") if lesson else None
    for level in ("## ", "### ", "#### ", "# "):
        entry = found.entries.get(level + section) if found is not None else None
        if entry is not None and entry.translated:
            return entry.msgstr.lstrip("#").strip()
    return say(section, lang)


def say(message: str, language: Optional[str] = None) -> str:
    """``message``, written by a check or the grader in English, in the language."""
    lang = language or current()
    if lang == "en" or not message:
        return message
    if getattr(_budget, "until", None) is not None:  # within a message being said
        return _say(message, lang)
    if (message, lang) in _said:
        return _said[message, lang]
    _budget.until = time.monotonic() + _LONGEST_SAYING
    try:
        said = _say(message, lang)
        if time.monotonic() <= _budget.until and len(_said) < 8192:
            _said[message, lang] = said  # (a message cut short by the budget is not kept)
        return said
    finally:
        _budget.until = None


def say_pieces(pieces: list[str], language: Optional[str] = None) -> list[str]:
    """The pieces of one message (its ``"; "``-separated parts), each run said as one."""
    lang = language or current()
    if lang == "en":
        return list(pieces)
    return _runs(tuple(pieces), lang)


def join(pieces: list[str], language: Optional[str] = None) -> str:
    return SEPARATOR.get(language or current(), "; ").join(pieces)


def _say(message: str, lang: str) -> str:
    entry = catalog(lang, NAME).entries.get(message)
    if entry is not None and entry.translated:  # a whole message, hint or formula
        return entry.msgstr
    found = _PARTS.match(message)
    if found:
        right = LIST[lang].join(say(name.strip(), lang) for name in found["right"].split(", "))
        wrong = LIST[lang].join(say(name.strip(), lang) for name in found["wrong"].split(", "))
        return _say(found["message"], lang) + _(" (right: {right}; wrong: {wrong})", lang,
                                                 right=right, wrong=wrong)
    found = _LINE.match(message)
    if found and found["message"]:
        return _say(found["message"], lang) + _line(found["line"], lang)
    pieces = message.split("; ")
    said = _runs(tuple(pieces[:_MOST_PIECES]), lang)
    return SEPARATOR[lang].join(said + pieces[_MOST_PIECES:])


def _line(suffix: str, lang: str) -> str:
    return _one(suffix.strip(), lang)


def _runs(pieces: tuple[str, ...], lang: str) -> list[str]:
    out, at = [], 0
    while at < len(pieces):
        for end in range(min(len(pieces), at + _LONGEST_RUN), at, -1):
            run = "; ".join(pieces[at:end])
            said = _known(run, lang, across=end - at > 1)
            if said is not None:
                out.append(said)
                at = end
                break
        else:
            out.append(_one(pieces[at], lang))
            at += 1
    return out


def _one(piece: str, lang: str) -> str:
    said = _known(piece, lang)
    if said is not None:
        return said
    found = _EXCEPTION.match(piece)
    if found:
        return f"{found['name']}: {_say(found['text'], lang)}"
    before, colon, after = piece.partition(": ")
    for _ in range(_MOST_COLONS):  # "what raised: advice": the advice may be a message
        if not colon:
            break
        said = _known(after, lang)
        if said is not None:
            return f"{_one(before, lang)}{COLON[lang]}{said}"
        more, colon, after = after.partition(": ")
        before = f"{before}: {more}"
    return piece


def _known(text: str, lang: str, across: bool = False) -> Optional[str]:
    """``text`` in the language when the catalog knows it (as it is, or by a template).
    ``across``: ``text`` is several pieces of a message, which only a msgid that holds a
    ``"; "`` of its own can match (a template's placeholder never swallows a whole piece)."""
    messages = catalog(lang, NAME)
    entry = messages.entries.get(text)
    if entry is not None:
        return entry.msgstr if entry.translated else None
    stripped = text.strip()
    if stripped != text and stripped:
        said = _known(stripped, lang)
        if said is not None:
            return text[: len(text) - len(text.lstrip())] + said
    if len(text) > _LONGEST_MATCHED or time.monotonic() > (_budget.until or math.inf):
        return None
    for msgid, fixed, pattern, template in _templates(messages):
        if across and not _spans(msgid) or not all(part in text for part in fixed):
            continue
        found = pattern.fullmatch(text)
        if found:
            values = {name: _value(value, lang) for name, value in found.groupdict().items()}
            return template.format(**values)
    return None


def _spans(msgid: str) -> bool:
    """Can the template match several pieces of a message? When it holds a ``"; "`` of its
    own, or when fixed text on both ends holds its placeholders in (a placeholder then takes
    a text with a ``;`` in it, "gradcheck says: {verdict} (input 0 is X …)", and never cuts
    another message in two)."""
    if "; " in msgid:
        return True
    fixed = _PLACEHOLDER.sub("", msgid)
    return len(fixed) >= 12 and not msgid.startswith("{") and not msgid.endswith("}")


def _value(value: Optional[str], lang: str) -> str:
    """A placeholder's text: a message of its own, said in the language, or kept."""
    if not value:
        return value or ""
    if len(value) > 2 and value[0] == value[-1] and value[0] in "'\"":  # a quoted text
        return value[0] + _value(value[1:-1], lang) + value[0]
    if _NAMES.fullmatch(value):  # "y and dL/dx": the names of parts, as a list
        return AND[lang].join(value.split(" and "))
    if any(char.isalpha() for char in value) and " " in value:
        return _say(value, lang)
    return value


_compiled: dict[int, list] = {}


def _templates(messages: Catalog) -> list:
    """The catalog's translated templates, the one with the most fixed text first: (msgid, its
    fixed parts, which a text it matches holds, its pattern, the translation)."""
    key = id(messages)
    if key not in _compiled:
        found = []
        for entry in messages.entries.values():
            if entry.translated and _PLACEHOLDER.search(entry.msgid):
                fixed = len(_PLACEHOLDER.sub("", entry.msgid))
                parts = [part for part in _PLACEHOLDER.split(entry.msgid)[::2] if part]
                found.append((fixed, entry.msgid, parts, pattern(entry.msgid), entry.msgstr))
        found.sort(key=lambda item: -item[0])
        _compiled[key] = [item[1:] for item in found]
    return _compiled[key]


def pattern(template: str) -> re.Pattern:
    """A template as a regular expression: each placeholder takes the shortest text that
    lets the rest match (a repeated name, the same text again)."""
    pieces, seen, at = [], set(), 0
    for found in _PLACEHOLDER.finditer(template):
        pieces.append(re.escape(template[at:found.start()]))
        name = found.group(1)
        if name in seen:
            pieces.append(f"(?P={name})")
        else:
            text = _KNOWN.get(name, _ENGLISH if name.startswith("en_") else ".+?")
            pieces.append(f"(?P<{name}>{text})")
        seen.add(name)
        at = found.end()
    pieces.append(re.escape(template[at:]))
    return re.compile("".join(pieces), re.DOTALL)


def same_placeholders(msgid: str, msgstr: str) -> bool:
    """Does a translation keep the template's placeholders (those of English grammar, named
    ``en_…``, it may leave out)?"""
    wanted = [name for name in placeholders(msgid) if not name.startswith("en_")]
    return [name for name in placeholders(msgstr) if not name.startswith("en_")] == wanted \
        and set(placeholders(msgstr)) <= set(placeholders(msgid))
