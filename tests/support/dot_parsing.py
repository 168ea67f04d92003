"""Reading the DOT text that minigrad.viz writes, for assertions on its structure."""

from __future__ import annotations

import re

NODE_LINE = re.compile(r'^  (\w+) \[label="((?:[^"\\]|\\.)*)"(.*)\];$', re.M)
EDGE_LINE = re.compile(r"^  (\w+) -> (\w+)", re.M)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def parse_dot(source: str) -> tuple[dict[str, str], dict[str, str], list[tuple[str, str]]]:
    """(label of each node, attributes text of each node, edges in order)."""
    labels, attrs = {}, {}
    for node_id, label, rest in NODE_LINE.findall(source):
        labels[node_id], attrs[node_id] = label, rest
    return labels, attrs, EDGE_LINE.findall(source)
