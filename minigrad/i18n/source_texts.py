"""The texts a module hands to a function, read from its syntax tree (never by running it).

A catalog's English comes from the code that says it: every ``words("…")`` of the figures,
every ``line("…")`` of the commands, every ``_("…")`` of the modules that show messages. This
is the one reader of them all.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Collection


def texts_given_to(path: Path, names: Collection[str]) -> list[str]:
    """The string literal that each call of a function named in ``names`` gets as its first
    argument in the module at ``path``, in source order (a text called twice is listed twice)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    calls = [node for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
             and node.func.id in names and node.args
             and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)]
    return [node.args[0].value
            for node in sorted(calls, key=lambda call: (call.lineno, call.col_offset))]
