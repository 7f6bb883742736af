"""A small directed graph laid out left to right, for drawing (``graph_svg``).

The review page draws two kinds of graph: the predicate dependency graph of
a knowledge base (which rules use which predicates) and the graph of a binary
relation such as ``depends_on/2`` around a chosen node.  Callers bound the
graphs (a few hundred nodes at most); nothing here needs more than the
standard library.

The layout is a simplified Sugiyama layout, left to right:

1. cycles are broken by a depth-first search in node order; the edges that
   close a cycle (*back edges*) are reversed for layering, and drawn pointing
   leftwards, sagging and dashed; a self-loop is a back edge of its own node,
   drawn as a small loop on top of its box;
2. each node's layer is the longest path to it from a source;
3. a few barycenter sweeps, down and up, order the nodes within each layer,
   ties going to the node order;
4. layers become columns, as wide as their widest box, nodes become rows at a
   fixed pitch, each column centred vertically; an edge spanning several
   layers is one cubic Bézier from the right side of its source's box to the
   left side of its target's (no dummy nodes, so it may cross boxes between).

:func:`layout` computes the positions: pure and deterministic.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass

from zpm_app.web.graph_ranks import EdgeKind, classify, layers, ordered

__all__ = [
    "EdgeCurve",
    "EdgeKind",
    "Graph",
    "Layout",
    "NodeBox",
    "Point",
    "coordinate",
    "label",
    "layout",
]

CHAR_WIDTH = 7.2
"""Estimated advance of one character of the 12 px monospace font, in px."""


FONT_SIZE = 12


NODE_PADDING = 10.0
"""Space between a box's sides and its label, in px."""


MIN_NODE_WIDTH = 40.0


NODE_HEIGHT = 24.0


ROW_PITCH = 36.0
"""Vertical distance between the tops of two boxes of a column, in px."""


LAYER_GAP = 64.0
"""Horizontal space between two columns, in px."""


MARGIN = 8.0


MAX_LABEL_COLUMNS = 60
"""Longer labels are cut, with an ellipsis, in the box; the tooltip is whole."""


BACK_SAG = 18.0
"""How far below a straight line a back edge's control points are, in px."""


Point = tuple[float, float]


@dataclass(frozen=True)
class Graph:
    """A directed graph to draw.

    ``nodes`` are unique labels in a stable order, which decides every tie of
    the layout.  ``edges`` are ``(source, target)`` pairs of nodes; a repeated
    edge is drawn once, and self-loops are allowed.  ``focus``, if given, is a
    node drawn highlighted.

    Raises ``ValueError`` on construction for a repeated node label, an edge
    naming an unknown node, or an unknown ``focus``.
    """

    nodes: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    focus: str | None = None

    def __post_init__(self) -> None:
        known: set[str] = set()
        for name in self.nodes:
            if name in known:
                raise ValueError(f"node {name!r} is listed twice")
            known.add(name)
        for source, target in self.edges:
            for end in (source, target):
                if end not in known:
                    raise ValueError(f"edge ({source!r}, {target!r}) names unknown node {end!r}")
        if self.focus is not None and self.focus not in known:
            raise ValueError(f"focus {self.focus!r} is not a node")


@dataclass(frozen=True)
class NodeBox:
    """Where a node is drawn: its box's top-left corner and size, in px.

    ``layer`` is its column (0 leftmost) and ``order`` its row within that
    column (0 topmost).
    """

    name: str
    layer: int
    order: int
    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height


@dataclass(frozen=True)
class EdgeCurve:
    """An edge as one cubic Bézier from ``start`` to ``end`` (the arrowhead).

    ``kind`` is ``"forward"`` for an edge to a later layer, ``"back"`` for an
    edge that closes a cycle (its target is in an earlier layer), ``"loop"``
    for a self-loop.
    """

    source: str
    target: str
    kind: EdgeKind
    start: Point
    control1: Point
    control2: Point
    end: Point

    @property
    def d(self) -> str:
        """The curve as the ``d`` attribute of an SVG path."""
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = self.start, self.control1, self.control2, self.end
        return (
            f"M{coordinate(x0)},{coordinate(y0)} "
            f"C{coordinate(x1)},{coordinate(y1)} {coordinate(x2)},{coordinate(y2)} "
            f"{coordinate(x3)},{coordinate(y3)}"
        )


@dataclass(frozen=True)
class Layout:
    """The positions of a :class:`Graph`'s drawing.

    ``nodes`` follow the graph's node order, ``edges`` the order of the
    edges' first occurrences (repeats dropped).  Every coordinate is rounded
    to 0.1 px and lies within ``width`` × ``height``, the size of the drawing
    including its margin.  Within a layer, boxes do not overlap; a forward
    edge's target is in a later layer than its source, a back edge's in an
    earlier one.
    """

    nodes: tuple[NodeBox, ...]
    edges: tuple[EdgeCurve, ...]
    layers: int
    width: int
    height: int

    def box(self, name: str) -> NodeBox:
        """The box of node ``name``; ``KeyError`` if there is none."""
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(name)


def layout(graph: Graph) -> Layout:
    """Lays ``graph`` out left to right; see the module's docstring.

    Deterministic: the same graph gives the same layout.  An empty graph
    gives an empty layout of size 0 × 0.
    """
    if not graph.nodes:
        return Layout(nodes=(), edges=(), layers=0, width=0, height=0)
    index = {name: i for i, name in enumerate(graph.nodes)}
    edges = tuple(dict.fromkeys(graph.edges))
    kinds = classify(graph.nodes, edges, index)
    layer_of, dag_preds, dag_succs = layers(len(graph.nodes), edges, kinds, index)
    columns = ordered(layer_of, dag_preds, dag_succs)

    widths = [_node_width(name) for name in graph.nodes]
    tallest = max(len(column) for column in columns)
    boxes: list[NodeBox | None] = [None] * len(graph.nodes)
    left = 0.0
    for layer, column in enumerate(columns):
        column_width = max(widths[i] for i in column)
        offset = (tallest - len(column)) / 2
        for order, i in enumerate(column):
            boxes[i] = NodeBox(
                name=graph.nodes[i],
                layer=layer,
                order=order,
                x=left + (column_width - widths[i]) / 2,
                y=(order + offset) * ROW_PITCH,
                width=widths[i],
                height=NODE_HEIGHT,
            )
        left += column_width + LAYER_GAP
    placed = [box for box in boxes if box is not None]
    curves = [
        _curve(placed[index[s]], placed[index[t]], kind) for (s, t), kind in zip(edges, kinds)
    ]
    return _framed(placed, curves, len(columns))


def _curve(source: NodeBox, target: NodeBox, kind: EdgeKind) -> EdgeCurve:
    """The Bézier of an edge between two placed boxes."""
    if kind == "loop":
        # An ear on the top of the box, near its right end, clear of the
        # sides where the other edges arrive and leave; it rises 12 px, the
        # gap between two rows.
        top = source.y
        return EdgeCurve(
            source.name,
            target.name,
            kind,
            (source.right - 26, top),
            (source.right - 26, top - 16),
            (source.right - 6, top - 16),
            (source.right - 6, top),
        )
    if kind == "back":
        # Drawn the way it points, leftwards, from the left side of the source
        # to the right side of the target, sagging so that the two edges of a
        # two-node cycle, which share their ends, stay apart.
        start = (source.x, source.y + source.height / 2)
        end = (target.right, target.y + target.height / 2)
        reach = max(20.0, (start[0] - end[0]) / 2)
        sag = BACK_SAG
        return EdgeCurve(
            source.name,
            target.name,
            kind,
            start,
            (start[0] - reach, start[1] + sag),
            (end[0] + reach, end[1] + sag),
            end,
        )
    start = (source.right, source.y + source.height / 2)
    end = (target.x, target.y + target.height / 2)
    reach = max(20.0, (end[0] - start[0]) / 2)
    return EdgeCurve(
        source.name,
        target.name,
        kind,
        start,
        (start[0] + reach, start[1]),
        (end[0] - reach, end[1]),
        end,
    )


def _framed(boxes: list[NodeBox], curves: list[EdgeCurve], layers: int) -> Layout:
    """The layout moved so that everything, margin included, starts at 0,0.

    A Bézier lies within the hull of its control points, so those bound it.
    """
    xs = [b.x for b in boxes] + [b.right for b in boxes]
    ys = [b.y for b in boxes] + [b.bottom for b in boxes]
    for c in curves:
        for x, y in (c.start, c.control1, c.control2, c.end):
            xs.append(x)
            ys.append(y)
    dx, dy = MARGIN - min(xs), MARGIN - min(ys)

    def moved(p: Point) -> Point:
        return (round(p[0] + dx, 1), round(p[1] + dy, 1))

    return Layout(
        nodes=tuple(
            NodeBox(
                b.name,
                b.layer,
                b.order,
                round(b.x + dx, 1),
                round(b.y + dy, 1),
                round(b.width, 1),
                round(b.height, 1),
            )
            for b in boxes
        ),
        edges=tuple(
            EdgeCurve(
                c.source,
                c.target,
                c.kind,
                moved(c.start),
                moved(c.control1),
                moved(c.control2),
                moved(c.end),
            )
            for c in curves
        ),
        layers=layers,
        width=math.ceil(max(xs) + dx + MARGIN),
        height=math.ceil(max(ys) + dy + MARGIN),
    )


def _columns(text: str) -> int:
    """How many monospace cells ``text`` takes: wide East Asian characters
    take two, combining marks none."""
    cells = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        cells += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return cells


def label(name: str) -> str:
    """The text shown in a node's box: ``name``, cut to
    :data:`MAX_LABEL_COLUMNS` cells with an ellipsis if longer."""
    if _columns(name) <= MAX_LABEL_COLUMNS:
        return name
    cut = []
    cells = 0
    for char in name:
        cells += _columns(char)
        if cells > MAX_LABEL_COLUMNS - 1:
            break
        cut.append(char)
    return "".join(cut) + "…"


def _node_width(name: str) -> float:
    return max(MIN_NODE_WIDTH, _columns(label(name)) * CHAR_WIDTH + 2 * NODE_PADDING)


def coordinate(value: float) -> str:
    """A coordinate to 0.1 px, without a useless ``.0``."""
    text = f"{value:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text
