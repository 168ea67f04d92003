"""A lesson's reading as plain text for slides: its sections, their prose, its summary.

Slides never show raw LaTeX: :func:`plain_math` turns the reading's ``$…$`` maths into
Unicode (``$\\partial L/\\partial w_1$`` → ``∂L/∂w₁``), so a deck needs no maths renderer and
nothing from the network.
"""

from __future__ import annotations

import html
import re

from minigrad.course.catalog import Lesson
from minigrad.course.folder import course_source

_SYMBOLS = {
    "partial": "∂", "cdot": "·", "times": "×", "sum": "Σ", "prod": "Π", "nabla": "∇",
    "odot": "⊙", "star": "⋆", "approx": "≈", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥",
    "ne": "≠", "neq": "≠", "to": "→", "rightarrow": "→", "leftarrow": "←", "mapsto": "↦",
    "infty": "∞", "in": "∈", "pm": "±", "circ": "∘", "ldots": "…", "dots": "…", "cdots": "⋯",
    "lVert": "‖", "rVert": "‖", "Vert": "‖", "|": "‖", "mid": "|", "top": "ᵀ", "lfloor": "⌊",
    "rfloor": "⌋", "sqrt": "√", "quad": "  ", "qquad": "   ", ",": " ", ";": " ", ":": " ",
    "!": "", " ": " ", "prime": "′", "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ",
    "Delta": "Δ", "epsilon": "ε", "varepsilon": "ε", "eta": "η", "theta": "θ", "lambda": "λ",
    "mu": "μ", "sigma": "σ", "phi": "φ", "varphi": "φ", "tau": "τ", "pi": "π", "rho": "ρ",
    "omega": "ω", "log": "log", "exp": "exp", "tanh": "tanh", "sin": "sin", "cos": "cos",
    "max": "max", "min": "min", "left": "", "right": "", "big": "", "Big": "", "bigl": "",
    "bigr": "", "displaystyle": "", "textstyle": "", "{": "{", "}": "}", "ell": "ℓ",
    "langle": "⟨", "rangle": "⟩", "ast": "∗", "Rightarrow": "⇒", "Longrightarrow": "⟹",
    "Leftrightarrow": "⇔", "Longleftrightarrow": "⟺", "ln": "ln", "bmod": " mod ",
}
_SUPERSCRIPTS = str.maketrans("0123456789+-−()=nTikmabxpt", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁽⁾⁼ⁿᵀⁱᵏᵐᵃᵇˣᵖᵗ")
_SUBSCRIPTS = str.maketrans("0123456789+-−()=ijklmnoxp", "₀₁₂₃₄₅₆₇₈₉₊₋₋₍₎₌ᵢⱼₖₗₘₙₒₓₚ")
_SCRIPT_AS_IS = ", "  # a comma between indices stays a comma: Σ_{n,i,j} reads Σₙ,ᵢ,ⱼ


def _group(text: str, start: int) -> tuple[str, int]:
    """The brace group (or single character) at ``start`` and the index after it."""
    if start < len(text) and text[start] == "{":
        depth = 0
        for index in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            if depth == 0:
                return text[start + 1:index], index + 1
        return text[start + 1:], len(text)
    if start < len(text) and text[start] == "\\":
        match = re.match(r"\\([A-Za-z]+|.)", text[start:])
        if match:
            return match[0], start + len(match[0])
    return text[start:start + 1], start + 1


def _script(body: str, table: dict, mark: str) -> str:
    plain = _latex(body)
    translated = plain.translate(table)
    if all(char != original or char in "ᵀ" + _SCRIPT_AS_IS
           for char, original in zip(translated, plain)) and plain.strip(_SCRIPT_AS_IS):
        return translated.replace(" ", "")
    return f"{mark}({plain})" if len(plain) > 1 else f"{mark}{plain}"


def _latex(text: str) -> str:
    """LaTeX maths (the body between dollars) as Unicode text."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            match = re.match(r"\\([A-Za-z]+|.)", text[index:])
            assert match is not None
            name, index = match[1], index + len(match[0])
            if name in ("partial", "nabla", "top") and text[index:index + 1] == " ":
                index += 1  # \partial L reads ∂L
            if name in ("begin", "end"):
                _, index = _group(text, index)
                out.append("[" if name == "begin" else "]")
            elif name == "\\":
                out.append("; ")
            elif name in ("frac", "tfrac", "dfrac"):
                top, index = _group(text, index)
                bottom, index = _group(text, index)
                top, bottom = _latex(top), _latex(bottom)
                wrap = lambda part: f"({part})" if re.search(r"[ +\-−]", part) else part  # noqa: E731
                out.append(f"{wrap(top)}/{wrap(bottom)}")
            elif name in ("text", "mathrm", "operatorname", "mathbf", "boldsymbol", "mathit",
                          "underbrace", "overbrace", "textbf", "emph"):
                body, index = _group(text, index)
                out.append(_latex(body) if name not in ("text", "textbf", "emph") else body)
            elif name == "mathbb":
                body, index = _group(text, index)
                out.append({"R": "ℝ", "N": "ℕ", "Z": "ℤ"}.get(body, body))
            elif name in ("hat", "bar", "tilde", "vec"):
                body, index = _group(text, index)
                mark = {"hat": "\u0302", "bar": "\u0304", "tilde": "\u0303", "vec": "\u20d7"}
                out.append(_latex(body) + mark[name])
            else:
                out.append(_SYMBOLS.get(name, name))
        elif char in "^_":
            body, index = _group(text, index + 1)
            if body[:1] == "\\" and text[index:index + 1] == " ":
                index += 1  # J^\top v reads Jᵀv
            out.append(_script(body, _SUPERSCRIPTS if char == "^" else _SUBSCRIPTS,
                               "^" if char == "^" else "_"))
        elif char in "{}":
            index += 1
        elif char == "&":
            out.append(" ")
            index += 1
        else:
            out.append("−" if char == "-" else char)
            index += 1
    return re.sub(r"[ \t]+", " ", "".join(out)).strip()


def plain_math(markdown: str) -> str:
    """Markdown prose with its ``$…$`` and ``$$…$$`` maths as Unicode, and no Markdown marks
    but backticks (``**bold**`` → ``bold``, ``[text](link)`` → ``text``)."""
    text = re.sub(r"\$\$(.+?)\$\$", lambda m: _latex(m[1]), markdown, flags=re.S)
    text = re.sub(r"(?<!\\)\$(.+?)(?<!\\)\$", lambda m: _latex(m[1]), text, flags=re.S)
    parts = text.split("`")  # odd parts are code: kept as they are
    for number in range(0, len(parts), 2):
        part = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", parts[number])
        part = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", part)
        parts[number] = re.sub(r"\*\*(.+?)\*\*|\*(.+?)\*", lambda m: m[1] or m[2], part,
                               flags=re.S)
    return re.sub(r"[ \t]*\n[ \t]*", " ", "`".join(parts)).strip()


def inline_html(text: str) -> str:
    """Plain text with backticked code as ``<code>``, escaped for HTML."""
    parts = text.split("`")
    return "".join(f"<code>{html.escape(part)}</code>" if number % 2 else html.escape(part)
                   for number, part in enumerate(parts))


def reading_text(lesson: Lesson) -> str:
    return (course_source() / "lessons" / f"{lesson.name}.md").read_text(encoding="utf-8")


def sections(markdown: str) -> dict[str, str]:
    """``{"## 3. A worked graph": body}`` for every level-2 heading of a reading."""
    found: dict[str, str] = {}
    heading = None
    lines: list[str] = []
    for line in markdown.splitlines():
        if line.startswith("## "):
            if heading:
                found[heading] = "\n".join(lines)
            heading, lines = line, []
        elif heading:
            lines.append(line)
    if heading:
        found[heading] = "\n".join(lines)
    return found


CODE_IN_NOTES = 6  # a longer code block (or table) is named, not quoted, in a slide's notes


def _code_note(match: re.Match) -> str:
    lines = [line.strip() for line in match[1].strip().splitlines() if line.strip()]
    if len(lines) > CODE_IN_NOTES:
        return "\n\n(the code is in the reading)\n\n"
    return "\n\n" + "  ".join(f"`{line.replace('`', '')}`" for line in lines) + "\n\n"


def _table_note(block: str) -> str:
    """A small table as one line of text: its rows (not the header) by "; ", cells by ", "."""
    rows = [line.strip().strip("|") for line in block.splitlines()[2:] if line.strip()]
    if len(rows) > CODE_IN_NOTES:
        return "(the table is in the reading)"
    return "; ".join(", ".join(cell.strip() for cell in row.split("|") if cell.strip())
                     for row in rows) + "."


def _paragraphs(body: str) -> list[str]:
    """The prose of a section, a paragraph or list item each, maths as Unicode: display maths
    stays where it stands, a short code block is quoted as code, a picture is its
    description, a small table a line of text; a paragraph that ends with ":" carries on with the
    next, so no note stops where an equation or a code block was."""
    body = re.sub(r"```[^\n]*\n(.*?)```", _code_note, body, flags=re.S)
    body = re.sub(r"!\[(.*?)\]\([^)]*\)", lambda m: f"\n\nFigure: {m[1]}\n\n", body,
                  flags=re.S)
    body = re.sub(r"^(-|\d+\.) ", "\n", body, flags=re.M)  # each list item its own block
    kept: list[str] = []
    for block in re.split(r"\n\s*\n", body):
        block = block.strip()
        if not block or block[0] in "#>":
            continue
        text = plain_math(_table_note(block) if block[0] == "|" else block)
        if kept and kept[-1].endswith(":"):
            kept[-1] = f"{kept[-1]} {text}"
        else:
            kept.append(text)
    return kept


def section_notes(markdown: str, prefix: str, limit: int | None = 3) -> list[str]:
    """Speaker notes: the first ``limit`` prose paragraphs of the section ``## {prefix}…``
    (``None``: all of them)."""
    if not prefix:
        return []
    for heading, body in sections(markdown).items():
        if heading[3:].startswith(prefix):
            return _paragraphs(body)[:limit]
    raise KeyError(f"the reading has no section '## {prefix}…'")


def intro_notes(markdown: str, limit: int = 3) -> list[str]:
    """The reading's opening paragraphs (before its first section), as notes."""
    intro = markdown.split("\n## ", 1)[0]
    return _paragraphs(intro.split("\n", 1)[1] if "\n" in intro else "")[:limit]


def summary_points(markdown: str) -> list[str]:
    """The bullets of the reading's ``## Summary``, one string each, maths as Unicode."""
    body = sections(markdown).get("## Summary", "")
    points: list[str] = []
    for line in body.splitlines():
        if line.startswith("- "):
            points.append(line[2:])
        elif line.startswith("  ") and points:
            points[-1] += " " + line.strip()
    return [plain_math(point) for point in points]
