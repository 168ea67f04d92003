"""A gettext catalog (``.po`` file): English texts (msgid) and their translations (msgstr).

Only the part of the PO format the course uses is read and written: translator comments
(``# …``), flags (``#, fuzzy``), the msgid and the msgstr, each a C-style string that may be
split over lines. An entry whose msgstr is empty, or that is marked fuzzy, counts as not
translated: ``translate`` gives the English back.

A msgid may hold placeholders, ``{name}``, for the parts of a message computed at run time
("expected shape {shape}, got {got}"). ``translate`` matches such a template against the whole
English text, each placeholder taking the shortest text that makes the rest match, and puts
the same pieces into the msgstr's placeholders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass
class Entry:
    msgid: str
    msgstr: str = ""
    fuzzy: bool = False
    comments: list[str] = field(default_factory=list)

    @property
    def translated(self) -> bool:
        return bool(self.msgstr) and not self.fuzzy


@dataclass
class Catalog:
    """The entries of one ``.po`` file, in file order, by msgid; ``header``: the comments
    above its header entry (what the file is), kept when the file is written again."""
    entries: dict[str, Entry] = field(default_factory=dict)
    path: Path | None = None
    header: list[str] = field(default_factory=list)
    _patterns: list | None = field(default=None, repr=False, compare=False)

    @classmethod
    def read(cls, path: Path) -> "Catalog":
        catalog = cls(path=Path(path))
        if Path(path).exists():
            for entry in parse(Path(path).read_text(encoding="utf-8")):
                if entry.msgid:
                    catalog.entries[entry.msgid] = entry
                else:
                    catalog.header = entry.comments
        return catalog

    def write(self, path: Path | None = None) -> None:
        target = Path(path or self.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(self.entries.values(), self.header), encoding="utf-8")

    def translate(self, text: str) -> str:
        """``text`` in the catalog's language, or ``text`` itself when it has no translation."""
        entry = self.entries.get(text)
        if entry is not None:
            return entry.msgstr if entry.translated else text
        if self._patterns is None:
            self._patterns = [(_compiled(entry.msgid), entry.msgstr)
                              for entry in self.entries.values()
                              if entry.translated and _PLACEHOLDER.search(entry.msgid)]
        for pattern, template in self._patterns:
            found = pattern.fullmatch(text)
            if found:
                return template.format(**found.groupdict())
        return text

    def untranslated(self) -> list[Entry]:
        return [entry for entry in self.entries.values() if not entry.translated]


@lru_cache(maxsize=4096)
def _compiled(template: str) -> re.Pattern:
    pieces, seen, at = [], set(), 0
    for found in _PLACEHOLDER.finditer(template):
        pieces.append(re.escape(template[at:found.start()]))
        name = found.group(1)
        pieces.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        at = found.end()
    pieces.append(re.escape(template[at:]))
    return re.compile("".join(pieces), re.DOTALL)


def placeholders(text: str) -> list[str]:
    """The ``{name}`` placeholders of a template, sorted (a translation must keep them all)."""
    return sorted(_PLACEHOLDER.findall(text))


# ------------------------------------------------------------------------ the file format
def parse(text: str) -> list[Entry]:
    """The entries of a PO file's text (obsolete ``#~`` entries are dropped)."""
    entries, entry, field_name = [], Entry(""), None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#~"):
            continue
        if stripped.startswith("#"):
            if field_name is not None:
                entries.append(entry)
                entry, field_name = Entry(""), None
            if stripped.startswith("#,"):
                entry.fuzzy = "fuzzy" in stripped[2:].replace(",", " ").split()
            elif not stripped.startswith(("#:", "#.", "#|")):
                entry.comments.append(stripped[1:].strip())
            continue
        keyword, _, rest = stripped.partition(" ")
        if keyword in ("msgid", "msgstr"):
            if keyword == "msgid" and field_name is not None:
                entries.append(entry)
                entry = Entry("")
            field_name = keyword
            setattr(entry, field_name, _unquote(rest, number))
        elif stripped.startswith('"') and field_name is not None:
            setattr(entry, field_name, getattr(entry, field_name) + _unquote(stripped, number))
        else:
            raise ValueError(f"line {number} of a .po file: cannot read {line!r}")
    if field_name is not None:
        entries.append(entry)
    return entries


def render(entries, header_comments: list[str] = ()) -> str:
    """The PO file text for ``entries`` (a header entry first, as gettext tools expect, under
    ``header_comments``)."""
    header = "".join(f"# {comment}\n" for comment in header_comments) + (
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Language: zh_CN\\n"\n')
    chunks = [header]
    for entry in entries:
        lines = [f"# {comment}" for comment in entry.comments]
        if entry.fuzzy:
            lines.append("#, fuzzy")
        lines += _quoted("msgid", entry.msgid) + _quoted("msgstr", entry.msgstr)
        chunks.append("\n".join(lines) + "\n")
    return "\n".join(chunks)


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}
_UNESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t"}


def _quoted(keyword: str, text: str) -> list[str]:
    escaped = ["".join(_ESCAPES.get(char, char) for char in line)
               for line in text.splitlines(keepends=True)]
    if len(escaped) <= 1:
        return [f'{keyword} "{escaped[0] if escaped else ""}"']
    return [f'{keyword} ""'] + [f'"{line}"' for line in escaped]


def _unquote(quoted: str, number: int) -> str:
    quoted = quoted.strip()
    if len(quoted) < 2 or quoted[0] != '"' or quoted[-1] != '"':
        raise ValueError(f"line {number} of a .po file: expected a quoted string, got {quoted!r}")
    out, chars = [], iter(quoted[1:-1])
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            if following not in _UNESCAPES:
                raise ValueError(f"line {number} of a .po file: unknown escape \\{following}")
            out.append(_UNESCAPES[following])
        else:
            out.append(char)
    return "".join(out)
