"""``minigrad figures``: write the course's figures into a folder (``make assets``).

``--only epsilon_error`` (a file name, with or without its suffix; repeatable) writes a few;
``--list`` names them all.
"""

from __future__ import annotations

import argparse
import sys

from minigrad.figures.registry import find_figures, make_figures


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--to", default="assets", metavar="DIR",
                        help="folder to write the figures into (default: assets)")
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
    for path in make_figures(args.to, [fig.filename for fig in chosen]):
        print(f"wrote {path}  ({path.stat().st_size // 1024 or 1} KB)")
    return 0
