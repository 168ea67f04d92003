"""Which language the course speaks: an explicit choice, else the environment, else English.

In order, the first that says something wins:

1. ``use("zh")`` (what ``--lang zh`` on the command line does);
2. the environment variable ``MINIGRAD_LANG`` (``zh`` or ``en``);
3. a file ``.minigrad-lang`` in the current folder or one above it, holding ``zh`` or ``en``:
   ``minigrad course DIR --lang zh`` and ``minigrad exercises --lang zh --to DIR`` write one
   into DIR (`mark_folder`), so the notebooks in it check in Chinese however JupyterLab is
   started later;
4. the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, ``LANGUAGE``): one starting with ``zh``
   means Chinese.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The languages the course speaks, by code, with their names in themselves.
LANGUAGES = {"en": "English", "zh": "中文"}
MARKER = ".minigrad-lang"
_ALIASES = {"zh-cn": "zh", "zh_cn": "zh", "zh-hans": "zh", "zh_hans": "zh", "cn": "zh",
            "chinese": "zh", "english": "en", "en-us": "en", "en_us": "en", "en-gb": "en"}
_chosen: str | None = None


def resolve(name: str) -> str:
    """The course's code for a language name (``zh_CN`` → ``zh``); a clear error otherwise."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in LANGUAGES:
        raise ValueError(f"unknown language {name!r}: minigrad speaks "
                         + ", ".join(f"{code} ({title})" for code, title in LANGUAGES.items()))
    return key


def language_argument(name: str) -> str:
    """``resolve`` for a command's ``--lang`` (``type=language_argument``): argparse then
    refuses an unknown language with its usage line and exit code 2."""
    import argparse

    try:
        return resolve(name)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def use(name: str | None) -> None:
    """Choose the language for this process (``None`` goes back to the environment's)."""
    global _chosen
    _chosen = None if name is None else resolve(name)


def current() -> str:
    """The language to speak now: ``"en"`` or ``"zh"`` (see the module's docstring)."""
    if _chosen is not None:
        return _chosen
    named = os.environ.get("MINIGRAD_LANG", "").strip()
    if named:
        try:
            return resolve(named)
        except ValueError:
            pass
    marked = _marker_language(Path.cwd())
    if marked:
        return marked
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(variable, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def mark_folder(folder: Path, language: str) -> None:
    """Write ``folder/.minigrad-lang`` naming `language`, unless it is English (the default)
    or the folder has a marker already (never overwritten: the student's own choice)."""
    marker = folder / MARKER
    if language == "en" or marker.exists() or marker.is_symlink():
        return
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with open(marker, "x", encoding="utf-8") as out:
            out.write(language + "\n")
    except FileExistsError:
        pass


def _marker_language(folder: Path) -> str | None:
    for place in (folder, *folder.parents):
        try:
            text = (place / MARKER).read_text(encoding="utf-8")
        except OSError:
            continue
        try:
            return resolve(text)
        except ValueError:
            return None
    return None
