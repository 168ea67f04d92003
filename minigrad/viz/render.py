"""Turning DOT text into SVG or PNG by running Graphviz in a separate process.

Which program: a system Graphviz ``dot`` when one is on ``PATH`` (it is the reference), else
the ``graphviz-pure`` executable that ``pip install minigrad-course`` brings along (a self-contained
port of ``dot``; it sits next to the Python interpreter in the environment's ``bin`` folder,
which is not always on ``PATH``, e.g. in a Jupyter kernel). ``MINIGRAD_DOT=/path/to/program``
overrides both.

Safety: the program runs quietly (``-q``), without a shell, with a time limit, and a PNG is
scaled down so that it never needs more than :data:`MAX_PNG_PIXELS` pixels (a huge graph at
full size would ask for gigabytes of memory).
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

DEFAULT_TIMEOUT = 60.0  # seconds; a 10 000-node graph lays out in well under 10 s
DEFAULT_PNG_DPI = 96.0  # Graphviz's own default for bitmaps
MAX_PNG_PIXELS = 25_000_000  # ~100 MB of RGBA; larger drawings are scaled down
MAX_PNG_SIDE = 30_000  # pixels; many image viewers refuse longer sides
RENDER_FORMATS = ("svg", "png")
_NOT_FOR_DOT = re.compile("[\x00\ud800-\udfff]")  # NUL and lone surrogates: see dot_safe

_INSTALL_HINT = (
    "Install the renderer that ships with minigrad (`pip install graphviz-pure`) or a system "
    "Graphviz (`apt install graphviz`, `brew install graphviz`, https://graphviz.org/download/). "
    "Without one you can still read `graph.source` or write it with `graph.save('graph.dot')`."
)


class VizError(RuntimeError):
    """Base class for every drawing error (a RuntimeError, so broad handlers still catch it)."""


class RendererNotFoundError(VizError):
    """Neither a system ``dot`` nor ``graphviz-pure`` could be found."""


class RenderError(VizError):
    """The renderer failed or took longer than its time limit."""


class GraphTooLargeError(VizError):
    """The graph has more nodes than the renderer is allowed to lay out."""


def find_renderer() -> Path:
    """The Graphviz program to run: ``$MINIGRAD_DOT``, ``dot``, then ``graphviz-pure``."""
    override = os.environ.get("MINIGRAD_DOT")
    if override:
        found = shutil.which(override)
        if found is None:
            raise RendererNotFoundError(
                f"MINIGRAD_DOT={override!r} is not an executable program. Unset it to use the "
                "default renderer, or point it at Graphviz's `dot`."
            )
        return Path(found)
    for name in ("dot", "graphviz-pure"):
        found = shutil.which(name)
        if found is not None:
            return Path(found)
    program = "graphviz-pure.exe" if os.name == "nt" else "graphviz-pure"
    # Scripts of the running environment: the venv's bin (not resolved: resolving a venv's
    # python symlink would lead to the base interpreter), then the installation schemes.
    folders = [Path(sys.executable).parent]
    for scheme in {sysconfig.get_default_scheme(), _user_scheme()}:
        try:
            folders.append(Path(sysconfig.get_path("scripts", scheme)))
        except KeyError:
            continue
    for folder in folders:
        candidate = folder / program
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise RendererNotFoundError(f"No Graphviz renderer found (looked for `dot` and "
                                f"`graphviz-pure` on PATH and in {folders[0]}). {_INSTALL_HINT}")


def run_renderer(source: str, output_format: str, timeout: float = DEFAULT_TIMEOUT,
                 extra_args: tuple[str, ...] = ()) -> bytes:
    """Lay out ``source`` and return the drawing as bytes (``output_format``: svg or png)."""
    if output_format not in RENDER_FORMATS:
        raise ValueError(f"cannot render format {output_format!r}; choose one of {RENDER_FORMATS}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds (how long the renderer "
                         f"may run; default {DEFAULT_TIMEOUT:g}), got {timeout!r}")
    program = find_renderer()
    command = [str(program), "-q", f"-T{output_format}", *extra_args]
    try:
        completed = subprocess.run(command, input=dot_safe(source).encode("utf-8"),
                                   capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise RenderError(
            f"{program.name} did not finish within {timeout:g} s. Draw a smaller graph, pass a "
            "larger `timeout=` to draw_graph, or save the DOT text with `.save('graph.dot')`."
        ) from None
    except OSError as error:
        raise RendererNotFoundError(f"could not run {program}: {error}. {_INSTALL_HINT}") from None
    if completed.returncode != 0 or not completed.stdout:
        message = completed.stderr.decode("utf-8", "replace").strip().splitlines()[:3]
        raise RenderError(f"{program.name} failed to render {output_format} (exit code "
                          f"{completed.returncode}): {' '.join(message) or 'no output'}")
    return completed.stdout


def dot_safe(source: str) -> str:
    """``source`` with the characters Graphviz cannot take replaced by U+FFFD (�).

    A NUL ends the text for Graphviz ("syntax error in line 5") and a lone surrogate (from a
    label decoded with ``errors="surrogateescape"``) cannot be encoded as UTF-8 at all; both
    can come from a user's label or variable name, and a drawing should still appear.
    """
    return _NOT_FOR_DOT.sub("\ufffd", source)


def png_dpi(svg: str, requested_dpi: float | None = None) -> float:
    """The dpi for a PNG of the drawing in ``svg``: as requested, lowered to fit the pixel caps.

    SVG sizes are in points (1/72 inch), so at ``dpi`` the PNG is ``width_pt * dpi / 72``
    pixels wide.
    """
    dpi = float(requested_dpi) if requested_dpi is not None else DEFAULT_PNG_DPI
    if not dpi > 0:
        raise ValueError(f"dpi must be a positive number, got {requested_dpi!r}")
    match = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    if match is None:
        return dpi
    width_inches, height_inches = (float(size) / 72.0 for size in match.groups())
    if width_inches <= 0 or height_inches <= 0:
        return dpi
    fit_area = math.sqrt(MAX_PNG_PIXELS / (width_inches * height_inches))
    fit_side = MAX_PNG_SIDE / max(width_inches, height_inches)
    return min(dpi, fit_area, fit_side)


def _user_scheme() -> str:
    return f"{os.name}_user" if os.name == "nt" else "posix_user"
