"""A small DOT writer: nodes, edges and attributes, with every label escaped correctly.

DOT is the text format Graphviz lays out. Two kinds of label appear in our drawings:

* plain text (op nodes, captions): inside a double-quoted DOT string, ``\\`` and ``"`` must be
  escaped and a line break is written ``\\n``;
* record labels (``shape=record``): fields are separated by ``|`` and grouped by ``{ }``, so
  those characters, and ``< >`` (field ports), must also be escaped when they are text.

Node ids are chosen by the caller (``v0``, ``v0_op``, ``f3`` …), never ``id(obj)``: Python may
reuse an ``id`` once an object is freed, and a drawing must name the same node the same way
every time it is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Characters that mean something inside a record label, escaped with a backslash when they
# are meant as text. The backslash itself comes first so we never escape our own escapes.
_RECORD_SPECIALS = '{}|<>"'


def escape_text(text: str) -> str:
    """Escape ``text`` for a double-quoted DOT string: ``\\``, ``"``, newlines and tabs."""
    text = str(text).replace("\\", "\\\\").replace('"', '\\"')
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n").replace("\t", " ")


def escape_record_field(text: str) -> str:
    """Escape one field of a record label: also ``{ } | < >``, so they print as themselves."""
    text = str(text).replace("\\", "\\\\")
    for char in _RECORD_SPECIALS:
        text = text.replace(char, "\\" + char)
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n").replace("\t", " ")


@dataclass(frozen=True)
class Record:
    """The label of a ``shape=record`` node: fields drawn side by side.

    Graphviz lays record fields across the rank direction; wrapping them in ``{ }`` flips them.
    ``horizontal=True`` asks for fields left to right whatever the graph's ``rankdir``.
    """

    fields: tuple[str, ...]
    horizontal: bool = True

    def to_dot(self, rankdir: str) -> str:
        # An empty field still needs a box, and Graphviz trims spaces, so " " is enough.
        parts = " | ".join(escape_record_field(text) if text else " " for text in self.fields)
        flip = (rankdir in ("LR", "RL")) == self.horizontal
        return "{ " + parts + " }" if flip else parts


@dataclass
class DotGraph:
    """A directed graph written as DOT text; ``source`` is what Graphviz reads."""

    rankdir: str = "LR"
    graph_attrs: dict[str, str] = field(default_factory=dict)
    node_attrs: dict[str, str] = field(default_factory=dict)
    edge_attrs: dict[str, str] = field(default_factory=dict)
    caption: tuple[str, ...] = ()  # lines of the graph's own label, each left-justified
    node_count: int = 0
    edge_count: int = 0
    _lines: list[str] = field(default_factory=list)

    def node(self, node_id: str, label: str | Record, **attrs: str) -> None:
        """Add a node; ``label`` is plain text or a :class:`Record` (then ``shape=record``)."""
        if isinstance(label, Record):
            attrs = {"shape": "record", **attrs}
            label_text = label.to_dot(self.rankdir)
        else:
            label_text = escape_text(label)
        self._lines.append(f'  {node_id} [label="{label_text}"{_format_attrs(attrs, lead=True)}];')
        self.node_count += 1

    def edge(self, tail: str, head: str, **attrs: str) -> None:
        """Add an edge ``tail -> head``."""
        text = _format_attrs(attrs)
        self._lines.append(f"  {tail} -> {head}" + (f" [{text}]" if text else "") + ";")
        self.edge_count += 1

    @property
    def source(self) -> str:
        header = ["digraph minigrad {"]
        graph_attrs = {"rankdir": self.rankdir, **self.graph_attrs}
        graph_text = _format_attrs(graph_attrs)
        if self.caption:  # "\\l" ends a left-justified line in a Graphviz label
            lines = "".join(escape_text(line) + "\\l" for line in self.caption)
            graph_text += f', label="{lines}"'
        header.append(f"  graph [{graph_text}];")
        if self.node_attrs:
            header.append(f"  node [{_format_attrs(self.node_attrs)}];")
        if self.edge_attrs:
            header.append(f"  edge [{_format_attrs(self.edge_attrs)}];")
        return "\n".join(header + self._lines + ["}"]) + "\n"


def _format_attrs(attrs: dict[str, str], lead: bool = False) -> str:
    text = ", ".join(f'{key}="{escape_text(value)}"' for key, value in attrs.items())
    return (", " + text) if (lead and text) else text
