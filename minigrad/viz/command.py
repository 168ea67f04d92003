"""``minigrad graph``: a figure for slides straight from the command line.

    minigrad graph lesson.py --root loss --out loss.svg
    minigrad graph lesson.py --root loss --kind backward --theme dark --out loss.png --dpi 200
    minigrad graph lesson.py --root loss --out steps.html        # the backward stepper
    minigrad graph lesson.py --root loss --trace                 # the arithmetic, as text
    minigrad graph -e "(Value(2.0, 'a') * Value(3.0, 'b')).tanh()" --out tanh.svg

The script runs as ``python SCRIPT`` would run it (``__name__ == "__main__"``); its variables
name the tensors in the drawing. With ``-e`` the expression is evaluated with ``Value`` and
``mg`` (``import minigrad as mg``) in scope and is itself the root.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import tokenize
import traceback
import warnings
from pathlib import Path
from typing import Any

from minigrad.viz.draw import KINDS, RANKDIRS
from minigrad.viz.style import DEFAULT_FONT_SIZE, THEMES

#: Text size of ``--slide`` drawings: the size of the graphs in ``minigrad slides`` decks.
SLIDE_FONT_SIZE = 20.0
HELP = "draw the computation graph of a variable in a script (SVG, PNG, DOT, HTML stepper)"
OUT_FORMATS = (".svg", ".png", ".dot", ".gv", ".html", ".gif")


class GraphCommandError(Exception):
    """A problem with the user's input: printed as one clear message, exit code 1."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("script", nargs="?", help="the Python script that builds the graph")
    parser.add_argument("-e", "--expression", metavar="EXPR",
                        help="draw this expression instead (Value and mg are in scope)")
    parser.add_argument("--root", metavar="NAME",
                        help="the script's variable to draw (usually the loss)")
    parser.add_argument("--kind", choices=KINDS, default=None,
                        help="forward (default): values and ops; backward: the graph backward "
                             "walks (the default with --collapse)")
    parser.add_argument("--out", metavar="FILE",
                        help="output file; the suffix picks the format: .svg .png .dot "
                             ".html (backward stepper) .gif (animation); default ROOT.svg")
    parser.add_argument("--rankdir", choices=("LR", "TB", "RL", "BT"), default="LR",
                        help="layout direction: LR left to right (default), TB top to "
                             "bottom, RL, BT")
    parser.add_argument("--theme", choices=tuple(THEMES), default="light",
                        help="light (default) or dark, for dark slides")
    parser.add_argument("--font-size", type=float, default=None, metavar="N",
                        help=f"text size in points (default {DEFAULT_FONT_SIZE:g}, "
                             f"{SLIDE_FONT_SIZE:g} with --slide)")
    parser.add_argument("--slide", action="store_true",
                        help="a drawing for a slide: larger text; add it to a lesson's deck "
                             "with `minigrad slides LESSON --add FILE`")
    parser.add_argument("--dpi", type=float, default=None,
                        help="resolution of a PNG or GIF (default 96)")
    parser.add_argument("--backward", action="store_true",
                        help="run ROOT.backward() first, so the drawing shows gradients")
    parser.add_argument("--trace", action="store_true",
                        help="print every backward step: local derivatives, products, sums")
    parser.add_argument("--collapse", action="store_true",
                        help="draw each layer call (nn.Module, mg.viz.group) as one box")
    parser.add_argument("--title", help="a line of text above the drawing")


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except GraphCommandError as error:
        print(f"minigrad graph: {error}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    from minigrad.viz import VizError, backward_steps, draw_graph

    out = _output_path(args)
    root, names = _find_root(args)
    if args.backward:
        _run_backward(root)
    if args.trace:
        from minigrad.viz import trace_backward

        try:
            trace_backward(root, names=names)
        except RuntimeError as error:
            raise GraphCommandError(f"cannot trace the backward pass: {error}") from None
        if args.out is None:
            return 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if out.suffix.lower() in (".html", ".gif"):
                steps = backward_steps(root, names=names, theme=args.theme,
                                       font_size=args.font_size, rankdir=args.rankdir)
                _save(steps, out, args.dpi)
            else:
                kind = args.kind or ("backward" if args.collapse else "forward")
                graph = draw_graph(root, kind=kind, rankdir=args.rankdir, names=names,
                                   theme=args.theme, font_size=args.font_size,
                                   collapse=args.collapse, title=args.title)
                _save(graph, out, args.dpi)
        except (VizError, RuntimeError, ValueError) as error:
            raise GraphCommandError(str(error)) from None
    for warning in caught:
        print(f"minigrad graph: warning: {warning.message}", file=sys.stderr)
    print(f"wrote {out}")
    if args.slide:
        print(f"add it to a lesson's deck: minigrad slides LESSON --add {out}")
    return 0


def _save(figure: Any, out: Path, dpi: float | None) -> None:
    """Write the drawing; a destination that cannot be written (no permission, a missing or
    read-only folder) is the user's to fix, so it gets one line, not a traceback."""
    try:
        figure.save(out, dpi=dpi)
    except OSError as error:
        raise GraphCommandError(f"cannot write {out}: {_why_not_writable(out, error)}") from None


def _why_not_writable(out: Path, error: OSError) -> str:
    blocker = next((folder for folder in out.parents if folder.is_file()), None)
    if blocker is not None:  # mkdir's "File exists" would not say which
        return f"{blocker} is a file, not a folder"
    where = f" ({error.filename})" if error.filename and str(error.filename) != str(out) else ""
    return f"{error.strerror or error}{where}"


def _output_path(args: argparse.Namespace) -> Path:
    if (args.script is None) == (args.expression is None):
        raise GraphCommandError("give a script (minigrad graph SCRIPT.py --root NAME) or an "
                                "expression (-e \"...\"), not both and not neither")
    if args.script is not None and not args.root:
        raise GraphCommandError(f"which variable of {args.script} should be drawn? Add "
                                "--root NAME (for example --root loss)")
    default = f"{args.root or 'graph'}.svg"
    out = Path(args.out or default)
    if out.suffix.lower() not in OUT_FORMATS:
        raise GraphCommandError(f"unknown output format {out.suffix or '(no suffix)'!r} in "
                                f"{str(out)!r}; choose one of {', '.join(OUT_FORMATS)}")
    if args.font_size is None:
        args.font_size = SLIDE_FONT_SIZE if args.slide else DEFAULT_FONT_SIZE
    if not 6 <= args.font_size <= 72:
        raise GraphCommandError(f"--font-size must be from 6 to 72 points, got {args.font_size:g}")
    return out


def _find_root(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """Run the script or the expression; return the root and the graph objects it named."""
    import minigrad as mg
    from minigrad import Value

    if args.expression is not None:
        namespace: dict[str, Any] = {"Value": Value, "mg": mg, "minigrad": mg}
        code, is_expression = _compile_expression(args.expression)
        if is_expression:
            root = _execute(lambda: eval(code, namespace), "the expression")  # noqa: S307
            return _checked(root, "the expression", None), _graph_names(namespace)
        _execute(lambda: exec(code, namespace), "the expression")  # noqa: S102
        if not args.root:
            raise GraphCommandError("-e got statements, not an expression: add --root NAME")
        return _lookup(namespace, args.root, "the expression"), _graph_names(namespace)

    path = Path(args.script)
    if not path.is_file():
        raise GraphCommandError(f"no such script: {args.script}")
    code = _compile_script(path)
    namespace = {"__name__": "__main__", "__file__": str(path), "__builtins__": __builtins__}
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [str(path)]
    sys.path.insert(0, str(path.resolve().parent))
    try:
        _execute(lambda: exec(code, namespace), str(path))  # noqa: S102
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return _lookup(namespace, args.root, str(path)), _graph_names(namespace)


def _compile_expression(source: str) -> tuple[Any, bool]:
    """-e's code and whether it is an expression (its value is the root) rather than
    statements (then --root names one of their variables)."""
    try:
        return compile(source, "<expression>", "eval"), True
    except SyntaxError:
        pass
    try:
        return compile(source, "<expression>", "exec"), False
    except SyntaxError as error:
        raise GraphCommandError(f"-e has a syntax error, column {error.offset}: "
                                f"{error.msg}") from None


def _compile_script(path: Path) -> Any:
    """The script's code, read as Python reads it: tokenize.open honours a PEP 263 line
    such as ``# -*- coding: latin-1 -*-`` (and a UTF-8 BOM); without one, UTF-8."""
    try:
        with tokenize.open(path) as handle:
            source = handle.read()
    except (SyntaxError, UnicodeDecodeError) as error:  # an unknown coding, bytes not in it
        raise GraphCommandError(f"cannot read {path} as Python source: {error}") from None
    except OSError as error:
        raise GraphCommandError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        return compile(source, str(path), "exec")
    except SyntaxError as error:
        raise GraphCommandError(f"{path} has a syntax error, line {error.lineno}: "
                                f"{error.msg}") from None


def _recording() -> Any:
    """``minigrad.viz.record()`` where the engine offers it (it keeps the tensors a forward
    drawing needs), else nothing to do."""
    import contextlib

    import minigrad.viz

    record = getattr(minigrad.viz, "record", None)
    return record() if record is not None else contextlib.nullcontext()


def _execute(action: Any, where: str) -> Any:
    """Run the user's code; turn its exception into a message with the line that raised it."""
    try:
        with _recording():
            return action()
    except SystemExit as exit_:
        if exit_.code not in (None, 0):
            raise GraphCommandError(f"{where} called sys.exit({exit_.code!r})") from None
    except Exception as error:  # noqa: BLE001  (any error in user code is reported)
        frames = traceback.extract_tb(error.__traceback__)
        own = [frame for frame in frames if frame.filename in (where, "<expression>")
               or os.path.abspath(frame.filename) == os.path.abspath(where)]
        frame = own[-1] if own else frames[-1]
        line = f"line {frame.lineno}" + (f": {frame.line.strip()}" if frame.line else "")
        raise GraphCommandError(f"{where} raised {type(error).__name__}: {error}\n"
                                f"  at {line}") from None
    return None


def _lookup(namespace: dict[str, Any], name: str, where: str) -> Any:
    if name not in namespace:
        candidates = sorted(_graph_names(namespace))
        close = difflib.get_close_matches(name, candidates, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        listed = ", ".join(candidates) if candidates else "none"
        raise GraphCommandError(f"no variable named {name!r} in {where}.{hint} The Values and "
                                f"Tensors it defines: {listed}")
    return _checked(namespace[name], where, name)


def _checked(value: Any, where: str, name: str | None) -> Any:
    if not _is_graph_object(value):
        what = f"{name!r} in {where}" if name else where
        kind = type(value).__name__
        article = "an" if kind[:1].lower() in "aeiou" else "a"
        hint = ("--root must name the output of a computation" if name else
                "-e must compute one, e.g. -e \"Value(2.0) * Value(3.0)\"")
        raise GraphCommandError(f"{what} is {article} {kind}, not a minigrad Value or Tensor; "
                                f"{hint}")
    return value


def _is_graph_object(value: Any) -> bool:
    from minigrad import Tensor, Value

    return isinstance(value, (Value, Tensor))


def _graph_names(namespace: dict[str, Any]) -> dict[str, Any]:
    """The script's top-level Values and Tensors by name, and the parameters of its top-level
    modules as ``model.0.weight`` (a tensor with a variable of its own is drawn by that)."""
    from minigrad.nn import Module

    public = [(name, value) for name, value in namespace.items() if not name.startswith("_")]
    names = {f"{name}.{inner}": parameter for name, value in public if isinstance(value, Module)
             for inner, parameter in value.named_parameters()}
    names.update((name, value) for name, value in public if _is_graph_object(value))
    return names


def _run_backward(root: Any) -> None:
    from minigrad import Value

    try:
        if isinstance(root, Value):
            root.backward()
        else:  # keep the graph: the stepper or trace may replay it
            root.backward(retain_graph=True)
    except RuntimeError as error:
        raise GraphCommandError(f"--backward failed: {error}") from None
