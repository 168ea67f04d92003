"""Markdown cut into the blocks a translator translates, and put back together.

A *block* is a run of non-blank lines: a paragraph, a heading, a list, a table. Fenced code
(```` ``` ````) and display maths (``$$ … $$``) are shared by both languages and never
translated; nor is a block with no word outside its inline code and maths (``$x = 2$``).
``split`` keeps every character, so ``"".join(piece.text for piece in split(text)) == text``.

A translation must keep what both languages share: the same inline code spans, inline
maths and link targets (``shared_parts``), so a reader of either finds the same formulas,
numbers in code, and links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

_FENCE = re.compile(r"^\s*(```+|~~~+)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$(?!\$)", re.DOTALL)
_LINK_TARGET = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_WORD = re.compile(r"[A-Za-z]{2,}")
#: Chinese characters and the full-width punctuation between them.
CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_LINE_BREAK = re.compile(f"(?<=[{CJK}])\n(?=[{CJK}])")


@dataclass(frozen=True)
class Piece:
    text: str
    prose: bool  # True: a block to translate; False: kept as it is


def split(text: str) -> list[Piece]:
    """``text`` as pieces: prose blocks, and what is kept (blank lines, code, display maths)."""
    pieces: list[Piece] = []
    lines = text.splitlines(keepends=True)
    at = 0
    while at < len(lines):
        line = lines[at]
        if not line.strip():
            end = at
            while end < len(lines) and not lines[end].strip():
                end += 1
            pieces.append(Piece("".join(lines[at:end]), False))
        elif _FENCE.match(line):
            end = _closing(lines, at, lambda later: later.strip().startswith(
                _FENCE.match(line).group(1)))
            pieces.append(Piece("".join(lines[at:end]), False))
        elif line.strip().startswith("$$"):
            closes_here = line.strip() != "$$" and line.strip().endswith("$$")
            end = at + 1 if closes_here else _closing(lines, at, lambda later: "$$" in later)
            pieces.append(Piece("".join(lines[at:end]), False))
        else:
            end = at
            while (end < len(lines) and lines[end].strip() and not _FENCE.match(lines[end])
                   and not lines[end].strip().startswith("$$")):
                end += 1
            pieces.append(_prose("".join(lines[at:end])))
        at = end
    return pieces


def _closing(lines: list[str], opening: int, closes: Callable[[str], bool]) -> int:
    for at in range(opening + 1, len(lines)):
        if closes(lines[at]):
            return at + 1
    return len(lines)


def _prose(block: str) -> Piece:
    """A block of text lines, its trailing newline kept apart so that msgids have none."""
    words = _LINK_TARGET.sub("]", _INLINE_MATH.sub(" ", _CODE_SPAN.sub(" ", block)))
    return Piece(block, bool(_WORD.search(words)))


def messages(text: str) -> list[str]:
    """The msgids of ``text``: its prose blocks, without their final newline, in order."""
    return [piece.text.rstrip("\n") for piece in split(text) if piece.prose]


def translate(text: str, translated: Callable[[str], str | None]) -> str:
    """``text`` with each prose block replaced by ``translated(block)`` (kept when ``None``)."""
    out = []
    for piece in split(text):
        if piece.prose:
            block = piece.text.rstrip("\n")
            new = translated(block)
            out.append((block if new is None else new) + piece.text[len(block):])
        else:
            out.append(piece.text)
    return "".join(out)


def shared_parts(text: str) -> list[str]:
    """Inline code, inline maths and link targets of ``text``, sorted: both languages' own."""
    code = [match.group(0) for match in _CODE_SPAN.finditer(text)]
    rest = _CODE_SPAN.sub(" ", text)
    maths = [match.group(0) for match in _INLINE_MATH.finditer(rest)]
    links = _LINK_TARGET.findall(rest)
    return sorted(code + maths + links)


def join_chinese_lines(markdown: str) -> str:
    """The line breaks inside Chinese sentences taken out (not in code or display maths).

    A browser shows a line break inside a paragraph as a space, which English needs between
    words and Chinese has none of: "构建本站时\n运行" would read "构建本站时 运行". A break between
    two Chinese characters (or Chinese punctuation) is dropped; one next to a Latin word, inline
    code or maths stays a space, as Chinese typesetting wants there.
    """
    def join(block: str) -> str:
        lines = block.split("\n")
        out = [lines[0]]
        for line in lines[1:]:
            if not out[-1].lstrip().startswith("#") and _CJK_LINE_BREAK.search(
                    out[-1][-1:] + "\n" + line.lstrip()[:1]):  # a list item's next line too
                out[-1] += line.lstrip()
            else:
                out.append(line)
        return "\n".join(out)

    return "".join(piece.text if piece.text.lstrip().startswith(("```", "~~~", "$$"))
                   else join(piece.text) for piece in split(markdown))
