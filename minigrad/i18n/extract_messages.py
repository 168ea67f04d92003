"""``python -m minigrad.i18n.extract_messages``: every student-facing message, into messages.po.

The messages are read from the code (its syntax tree, never by running it):

- in the modules that judge an answer (the lessons' checks and their given runners' verdicts,
  the modules of ``exercises/``: the comparators, the mistakes, the source rules, the answers'
  limits; and :data:`JUDGING`: what a hidden case says, the grader's own):
  every string and f-string that is a sentence (two words or more), except docstrings, the
  text of an exception the code raises for the course's authors, and strings a message is
  only tested against (``text.startswith("…")``);
- in the modules that show them (:data:`SHOWING`: ``check()`` and the grader's reports):
  the templates handed to ``messages._(...)``.

An f-string becomes a template: each ``{expression}`` a placeholder named after what it shows
(``{describe(got)}`` → ``{got}``), so ``say`` can match the message computed at run time and
carry that part into the translation. A regular expression's replacement (``r"… \\1 …"``)
gives ``{g1}``.

The catalog keeps the translation of every message that is in the code; a message whose
English changed gets the translation of the most similar old one, marked fuzzy; a new one an
empty translation (``tests/i18n/test_messages.py`` fails until both are translated). The
translations of messages no longer in the code are kept at the end, marked obsolete.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import re
from pathlib import Path

from minigrad.i18n.catalog import Catalog
from minigrad.i18n.documents import catalog_path
from minigrad.i18n.messages import NAME, TEMPLATES
from minigrad.i18n.source_texts import texts_given_to
from minigrad.i18n.update import refreshed

PACKAGE = Path(__file__).resolve().parents[1]
#: Modules whose sentences are messages (relative to the package), besides every module of
#: ``exercises/`` (the comparators, the mistakes, the runners, the source rules, the answers'
#: limits …) but ``selfcheck.py``, which shows them.
JUDGING = ("grading/redaction.py", "grading/grader.py")
#: Modules that show messages through ``_()`` templates.
SHOWING = ("exercises/selfcheck.py", "grading/reports.py", "grading/gradescope.py")
_WORDS = re.compile(r"[A-Za-z]{2,}")
_NOT_NAMES = set(dir(builtins)) | {"describe", "one_line", "join", "printable", "sorted",
                                   "_where", "strip", "format", "splitlines", "rstrip"}


def sources() -> list[Path]:
    """The lessons' checks and their given code (the runners' verdicts), the modules of
    ``exercises/`` that judge, and :data:`JUDGING`."""
    lessons = sorted((PACKAGE / "exercises" / "lessons").glob("lesson[0-9][0-9]*.py"))
    judging = [path for path in sorted((PACKAGE / "exercises").glob("*.py"))
               if path.name not in ("__init__.py", "selfcheck.py")]
    return [*lessons, *judging, *(PACKAGE / name for name in JUDGING)]


def is_sentence(template: str) -> bool:
    fixed = re.sub(r"\{[A-Za-z_][A-Za-z0-9_]*\}", " ", template)
    return len(_WORDS.findall(fixed)) >= 2 and " " in fixed.strip()


def placeholder_name(node: ast.expr) -> str:
    """What an f-string's ``{expression}`` is called in its template."""
    if isinstance(node, ast.IfExp) and all(isinstance(branch, ast.Constant)
                                           for branch in (node.body, node.orelse)):
        return "en_word"  # English grammar ("is" or "are"): a translation may leave it out
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_where":
        return "in_result"
    names = []
    for part in ast.walk(node):
        if isinstance(part, ast.Name) and part.id not in _NOT_NAMES:
            names.append(part.id)
        elif isinstance(part, ast.Attribute) and part.attr not in _NOT_NAMES \
                and not part.attr.startswith("__"):
            names.append(part.attr)
    name = "_".join(dict.fromkeys(name.strip("_") for name in names if name.strip("_"))) \
        or "value"
    return name[:40]


def template(node: ast.JoinedStr) -> str:
    """An f-string as a template: its text, with a named placeholder for each expression."""
    out, named = [], {}
    for part in node.values:
        if isinstance(part, ast.Constant):
            out.append(str(part.value).replace("{", "{{").replace("}", "}}"))
            continue
        expression = ast.dump(part.value)
        if expression not in named:
            base = placeholder_name(part.value)
            name, number = base, 2
            while name in named.values():
                name, number = f"{base}{number}", number + 1
            named[expression] = name
        out.append("{" + named[expression] + "}")
    return "".join(out)


def _literal(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value  # a "{name}" in it is a placeholder that .format fills
    if isinstance(node, ast.JoinedStr):
        return template(node)
    return None


def _skipped(tree: ast.AST) -> set[int]:
    """The nodes whose strings are not messages: docstrings, the parts of an f-string (the
    f-string is one message), what an exception is raised with, and what a text is tested
    against, a mistake's ``group``, a dict's key and a few words handed to a private helper
    (labels, never shown)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skipped.add(id(node.value))
        elif isinstance(node, ast.JoinedStr):
            skipped.update(id(part) for part in ast.walk(node) if part is not node)
        elif isinstance(node, ast.Raise) and node.exc is not None:
            skipped.update(id(part) for part in ast.walk(node.exc))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("startswith", "endswith", "compile", "search", "match",
                                       "fullmatch", "split", "partition", "replace"):
            skipped.update(id(part) for arg in node.args for part in ast.walk(arg))
        elif isinstance(node, ast.keyword) and node.arg == "group":  # a label, never shown
            skipped.update(id(part) for part in ast.walk(node.value))
        elif isinstance(node, ast.Dict):  # keys name things; the values may be messages
            skipped.update(id(part) for key in node.keys if key is not None
                           for part in ast.walk(key))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id.startswith("_"):  # a short argument of a helper: a key
            skipped.update(id(arg) for arg in node.args
                           if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                           and len(arg.value.split()) < 4)
        elif isinstance(node, ast.Compare):
            for part in [node.left, *node.comparators]:
                skipped.update(id(inner) for inner in ast.walk(part))
    return skipped


def part_names(path: Path) -> list[str]:
    """The names of the parts of an answer (``Exercise(parts=(...))``) that hold a word: a
    message says which parts are right ("right: loss; wrong: accuracy")."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.keyword) and node.arg == "parts" \
                and isinstance(node.value, (ast.Tuple, ast.List)):
            found += [(item.lineno, item.col_offset, item.value) for item in node.value.elts
                      if isinstance(item, ast.Constant) and isinstance(item.value, str)
                      and re.search(r"[a-z]{3,}", item.value)]
    return [text for _, _, text in sorted(found)]


def judged_messages(path: Path) -> list[str]:
    """The sentences of a judging module, in the order they are written."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _skipped(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        text = _literal(node)
        if text is None:
            continue
        text = re.sub(r"\\(\d)", r"{g\1}", text)  # a regular expression's replacement
        if is_sentence(text):
            found.append((node.lineno, node.col_offset, text))
    return [text for _, _, text in sorted(found)]


def shown_templates(path: Path) -> list[str]:
    """The templates a showing module hands to ``_()``."""
    return texts_given_to(path, {"_"})


def statuses(path: Path) -> list[str]:
    """The words of ``STATUS_BY_KIND`` (one word each, so not sentences): a grade table's."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(target, ast.Name)
                                                and target.id == "STATUS_BY_KIND"
                                                for target in node.targets):
            return [value.value for value in node.value.values]
    return []


def messages() -> list[str]:
    """Every message, once, in the order of the files and of the code in each."""
    found: list[str] = []
    for path in sources():
        found += judged_messages(path) + part_names(path)
    for name in SHOWING:
        found += shown_templates(PACKAGE / name)
    found += shown_templates(PACKAGE / "i18n" / "messages.py")
    found += [*TEMPLATES, *statuses(PACKAGE / "grading" / "grader.py")]
    return list(dict.fromkeys(found))


#: The comment of a translated entry whose message is no longer in the code (gettext's
#: obsolete entries): kept after the others, for a message that comes back (a merge of a branch
#: that still has it, a change undone); ``say`` may still use it, a test does not ask for it.
OBSOLETE = "obsolete: not in the code"


def in_step(old: Catalog, msgids: list[str]) -> Catalog:
    """``old``'s entries for ``msgids`` in their order (kept, carried over as fuzzy, or new
    and empty: :func:`.update.refreshed`), then ``old``'s other translated entries, marked
    :data:`OBSOLETE`."""
    new = refreshed(old, msgids)
    for entry in new.entries.values():
        entry.comments = [comment for comment in entry.comments if comment != OBSOLETE]
    for msgid, entry in old.entries.items():
        if msgid not in new.entries and entry.translated:
            entry.comments = [*(c for c in entry.comments if c != OBSOLETE), OBSOLETE]
            new.entries[msgid] = entry
    return new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minigrad.i18n.extract_messages",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="zh")
    args = parser.parse_args(argv)
    path = catalog_path(args.lang, NAME)
    updated = in_step(Catalog.read(path), messages())
    updated.write(path)
    todo = updated.untranslated()
    print(f"{path.relative_to(PACKAGE)}: {len(updated.entries)} messages, "
          f"{len(todo)} to translate ({sum(entry.fuzzy for entry in todo)} changed in English)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
