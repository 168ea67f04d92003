"""``minigrad figures``: write the course's figures into a folder (``make assets``).

``--only epsilon_error`` (a file name, with or without its suffix; repeatable) writes a few;
``--list`` names them all. ``--lang zh`` draws the figures whose labels carry words with Chinese
labels, into ``assets/zh/`` by default: the Chinese course (``minigrad course --lang zh``)
takes them in place of the English ones; the other figures are shared.
"""

from __future__ import annotations

import argparse
import sys

from minigrad.figures.registry import find_figures, make_figures
from minigrad.i18n.language import language_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--to", default=None, metavar="DIR",
                        help="folder to write the figures into (default: assets, or "
                             "assets/LANG for --lang other than en)")
    parser.add_argument("--lang", default="en", type=language_argument, metavar="LANG",
                        help="the labels' language: en (default, every figure) or zh (中文: "
                             "only the figures whose labels carry words)")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="write only this figure (file name, suffix optional); repeatable")
    parser.add_argument("--list", action="store_true", help="list the figures and exit")


def run(args: argparse.Namespace) -> int:
    if args.list:
        for fig in find_figures():
            print(f"lesson {fig.lesson:02d}  {fig.filename:<32} {fig.description}")
        return 0
    try:
        chosen = find_figures(args.only)
    except ValueError as error:
        print(f"minigrad figures: {error}", file=sys.stderr)
        return 2
    folder = args.to or ("assets" if args.lang == "en" else f"assets/{args.lang}")
    for path in make_figures(folder, [fig.filename for fig in chosen], language=args.lang):
        print(f"wrote {path}  ({path.stat().st_size // 1024 or 1} KB)")
    return 0
