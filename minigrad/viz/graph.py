"""`Graph`: a drawing's DOT text plus the ways to show it (Jupyter) or save it (files)."""

from __future__ import annotations

from pathlib import Path

from minigrad.viz import render
from minigrad.viz.fonts import fit_svg_text
from minigrad.viz.stepper import picture_fragment

DEFAULT_MAX_NODES = 10_000
SAVE_FORMATS = {".svg": "svg", ".png": "png", ".dot": "dot", ".gv": "dot"}


class Graph:
    """A computation graph ready to render.

    Attributes:
        source: the DOT text (always available, whatever the size of the graph).
        node_count, edge_count: how many nodes and edges the drawing has.
        max_nodes: graphs with more nodes are not rendered (layout time grows quickly with
            size); ``source`` and ``save("graph.dot")`` still work.
        timeout: seconds the renderer may take before it is stopped.

    In Jupyter a Graph displays itself as SVG. ``save(path)`` picks the format from the suffix.
    """

    def __init__(self, source: str, node_count: int, edge_count: int, *,
                 max_nodes: int = DEFAULT_MAX_NODES,
                 timeout: float = render.DEFAULT_TIMEOUT) -> None:
        self.source = source
        self.node_count = node_count
        self.edge_count = edge_count
        self.max_nodes = max_nodes
        self.timeout = timeout
        self._svg: str | None = None

    def __repr__(self) -> str:
        return f"<minigrad.viz.Graph: {self.node_count} nodes, {self.edge_count} edges>"

    def __str__(self) -> str:
        return self.source

    # ------------------------------------------------------------------ rendering
    def pipe(self, format: str = "svg", *, dpi: float | None = None) -> bytes:
        """The drawing as bytes: ``"svg"``, ``"png"`` (``dpi`` defaults to 96) or ``"dot"``."""
        if format == "dot":
            return render.dot_safe(self.source).encode("utf-8")
        if format == "svg":
            return self.svg().encode("utf-8")
        if format == "png":
            # The SVG pass tells the drawing's size, so the PNG can be kept to a sane size.
            resolution = render.png_dpi(self.svg(), dpi)
            return render.run_renderer(self.source, "png", self.timeout,
                                       extra_args=(f"-Gdpi={resolution:.4g}",))
        raise ValueError(f"unknown format {format!r}; choose 'svg', 'png' or 'dot'")

    def svg(self) -> str:
        """The drawing as SVG text (rendered once, then kept)."""
        if self._svg is None:
            self._check_size()
            svg = render.run_renderer(self.source, "svg", self.timeout).decode("utf-8")
            self._svg = fit_svg_text(svg)
        return self._svg

    def save(self, path: str | Path, *, dpi: float | None = None) -> Path:
        """Write the drawing to ``path``; the suffix picks the format (.svg .png .dot/.gv).

        Missing parent folders are created. Returns the path written.
        """
        path = Path(path)
        output_format = SAVE_FORMATS.get(path.suffix.lower())
        if output_format is None:
            known = ", ".join(SAVE_FORMATS)
            raise ValueError(f"cannot save a graph as {path.name!r}: the suffix "
                             f"{path.suffix or '(none)'!r} is not one of {known}")
        data = self.pipe(output_format, dpi=dpi)  # render before touching the file system
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    # ------------------------------------------------------------------ Jupyter
    def _repr_svg_(self) -> str | None:
        try:
            return self.svg()
        except render.VizError:
            return None

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict:
        # Jupyter shows the richest type it gets: HTML that shrinks a wide drawing to the
        # output area (a click shows it full size), the bare SVG for other front ends, or
        # else this text with the reason.
        try:
            svg = self.svg()
        except render.VizError as error:
            return {"text/plain": f"{self!r}\n{error}"}
        return {"text/html": picture_fragment(svg), "image/svg+xml": svg,
                "text/plain": repr(self)}

    def _check_size(self) -> None:
        if self.node_count > self.max_nodes:
            raise render.GraphTooLargeError(
                f"this graph has {self.node_count} nodes, more than max_nodes={self.max_nodes}; "
                "laying it out would be slow and the picture unreadable. Draw a smaller part "
                "(one neuron, a shorter chain), raise the limit with draw_graph(..., "
                "max_nodes=N), or use `.source` / `.save('graph.dot')` for the DOT text."
            )
