"""A small directed graph drawn as one inline SVG string, server-side.

The review page draws two kinds of graph with it: the predicate dependency
graph of a knowledge base (which rules use which predicates) and the graph of
a binary relation such as ``depends_on/2`` around a chosen node.  Callers bound
the graphs (a few hundred nodes at most); nothing here needs more than the
standard library.

The drawing is a simplified Sugiyama layout, left to right:

1. cycles are broken by a depth-first search in node order; the edges that
   close a cycle (*back edges*) are reversed for layering, and drawn pointing
   leftwards, sagging and dashed, class ``edge back``; a self-loop is a back
   edge of its own node, drawn as a small loop on top of its box, class
   ``edge back loop``;
2. each node's layer is the longest path to it from a source;
3. a few barycenter sweeps, down and up, order the nodes within each layer,
   ties going to the node order;
4. layers become columns, as wide as their widest box, nodes become rows at a
   fixed pitch, each column centred vertically; an edge spanning several
   layers is one cubic Bézier from the right side of its source's box to the
   left side of its target's (no dummy nodes, so it may cross boxes between).

:func:`layout` computes the positions (pure and deterministic);
:func:`render_svg` writes the SVG.  Every label and URL is XML-escaped, and the
output holds no script, event handler or ``foreignObject``; styling is left
to CSS classes, with a few presentation attributes (which any CSS rule
overrides) so the SVG is legible on its own.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "EdgeCurve",
    "EdgeKind",
    "Graph",
    "Layout",
    "NodeBox",
    "Point",
    "layout",
    "render_svg",
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
SWEEPS = 4
"""Rounds of barycenter ordering, each one sweep down and one up."""
BACK_SAG = 18.0
"""How far below a straight line a back edge's control points are, in px."""
_FOCUS_STROKE = ' stroke-width="2"'

EdgeKind = Literal["forward", "back", "loop"]
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
            f"M{_num(x0)},{_num(y0)} "
            f"C{_num(x1)},{_num(y1)} {_num(x2)},{_num(y2)} {_num(x3)},{_num(y3)}"
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
    kinds = _classify(graph.nodes, edges, index)
    layer_of, dag_preds, dag_succs = _layers(len(graph.nodes), edges, kinds, index)
    columns = _order(layer_of, dag_preds, dag_succs)

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


def render_svg(graph: Graph, link: Callable[[str], str | None] = lambda _: None) -> str:
    """``graph`` drawn as a standalone SVG element, for inlining in HTML.

    Each node is a ``<g class="node" data-name="…">`` (``class="node focus"``
    for the focus) holding a ``<title>`` with its whole label, a ``<rect>``
    and a ``<text>``, the latter two inside ``<a href="…">`` when
    ``link(name)`` gives a URL.  Each edge is a ``<path class="edge"
    data-from="…" data-to="…">``, with class ``edge back`` for an edge closing
    a cycle and ``edge back loop`` for a self-loop.  An empty graph gives a
    small SVG whose ``<text>`` says there is nothing to draw.

    Labels and URLs are escaped; characters XML cannot carry (most C0
    controls, lone surrogates, U+FFFE, U+FFFF) become U+FFFD.  Raises
    ``ValueError`` if ``link`` gives a URL with a scheme other than http or
    https (``javascript:`` and ``data:`` URLs in particular), relative URLs
    being fine.  Deterministic: the same graph and links give the same bytes.
    """
    if not graph.nodes:
        return (
            '<svg xmlns="http://www.w3.org/2000/svg" class="graph empty" viewBox="0 0 160 40"'
            ' width="160" height="40" role="img">'
            "<title>Empty graph</title>"
            '<text x="80" y="24" text-anchor="middle" font-family="monospace"'
            f' font-size="{FONT_SIZE}" fill="currentColor">Nothing to draw</text>'
            "</svg>"
        )
    drawn = layout(graph)
    marker = _marker_id(graph)
    summary = (
        f"Directed graph: {_count(len(drawn.nodes), 'node')}, {_count(len(drawn.edges), 'edge')}"
    )
    if graph.focus is not None:
        summary += f", around {graph.focus}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" viewBox="0 0 {drawn.width}'
        f' {drawn.height}" width="{drawn.width}" height="{drawn.height}" role="img"'
        f' font-family="monospace" font-size="{FONT_SIZE}">',
        f"<title>{_text(summary)}</title>",
        f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5"'
        ' markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M0,0 L10,5 L0,10 z" fill="currentColor"/></marker></defs>',
        '<g class="edges">',
    ]
    for curve in drawn.edges:
        css = {"forward": "edge", "back": "edge back", "loop": "edge back loop"}[curve.kind]
        dashes = "" if curve.kind == "forward" else ' stroke-dasharray="4 3"'
        parts.append(
            f'<path class="{css}" data-from="{_attr(curve.source)}" data-to="{_attr(curve.target)}"'
            f' d="{curve.d}" fill="none" stroke="currentColor"{dashes}'
            f' marker-end="url(#{marker})"/>'
        )
    parts.append('</g><g class="nodes">')
    for box in drawn.nodes:
        focus = box.name == graph.focus
        shape = (
            f'<rect x="{_num(box.x)}" y="{_num(box.y)}" width="{_num(box.width)}"'
            f' height="{_num(box.height)}" rx="4" fill="#fff" stroke="currentColor"'
            f"{_FOCUS_STROKE if focus else ''}/>"
            f'<text x="{_num(box.x + box.width / 2)}" y="{_num(box.y + box.height / 2 + 4)}"'
            f' text-anchor="middle" fill="currentColor">{_text(_label(box.name))}</text>'
        )
        url = link(box.name)
        if url is not None:
            _check_url(url)
            shape = f'<a href="{_attr(url)}">{shape}</a>'
        parts.append(
            f'<g class="{"node focus" if focus else "node"}" data-name="{_attr(box.name)}">'
            f"<title>{_text(box.name)}</title>{shape}</g>"
        )
    parts.append("</g></svg>")
    return "".join(parts)


def _classify(
    nodes: tuple[str, ...], edges: tuple[tuple[str, str], ...], index: dict[str, int]
) -> list[EdgeKind]:
    """Each edge's kind, by a depth-first search from each node in node order.

    Successors are visited in edge order; an edge to a node still on the
    search's path closes a cycle and is a back edge.
    """
    succs: list[list[int]] = [[] for _ in nodes]
    for s, t in edges:
        if s != t:
            succs[index[s]].append(index[t])
    on_path = [False] * len(nodes)
    seen = [False] * len(nodes)
    back: set[tuple[int, int]] = set()
    for root in range(len(nodes)):
        if seen[root]:
            continue
        seen[root] = on_path[root] = True
        stack = [(root, 0)]
        while stack:
            u, next_child = stack[-1]
            if next_child == len(succs[u]):
                stack.pop()
                on_path[u] = False
                continue
            stack[-1] = (u, next_child + 1)
            v = succs[u][next_child]
            if on_path[v]:
                back.add((u, v))
            elif not seen[v]:
                seen[v] = on_path[v] = True
                stack.append((v, 0))
    kinds: list[EdgeKind] = []
    for s, t in edges:
        if s == t:
            kinds.append("loop")
        elif (index[s], index[t]) in back:
            kinds.append("back")
        else:
            kinds.append("forward")
    return kinds


def _layers(
    count: int,
    edges: tuple[tuple[str, str], ...],
    kinds: list[EdgeKind],
    index: dict[str, int],
) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """Each node's layer (longest path from a source) and the acyclic graph's
    predecessors and successors of each node (back edges reversed, self-loops
    left out, repeats dropped)."""
    dag: dict[tuple[int, int], None] = {}
    for (s, t), kind in zip(edges, kinds):
        if kind == "forward":
            dag[(index[s], index[t])] = None
        elif kind == "back":
            dag[(index[t], index[s])] = None
    preds: list[list[int]] = [[] for _ in range(count)]
    succs: list[list[int]] = [[] for _ in range(count)]
    waiting = [0] * count
    for u, v in dag:
        succs[u].append(v)
        preds[v].append(u)
        waiting[v] += 1
    layer = [0] * count
    ready = [u for u in range(count) if waiting[u] == 0]
    while ready:
        u = ready.pop()
        for v in succs[u]:
            layer[v] = max(layer[v], layer[u] + 1)
            waiting[v] -= 1
            if waiting[v] == 0:
                ready.append(v)
    return layer, preds, succs


def _order(layer_of: list[int], preds: list[list[int]], succs: list[list[int]]) -> list[list[int]]:
    """The nodes of each layer, top to bottom, after the barycenter sweeps.

    A node's position is its row plus its column's centring offset, the
    ordinate it will be drawn at, so that neighbours in layers of different
    sizes compare fairly.  A node without neighbours on the side a sweep
    looks at keeps its position; ties go to the node order.
    """
    columns: list[list[int]] = [[] for _ in range(max(layer_of) + 1)]
    for i, layer in enumerate(layer_of):
        columns[layer].append(i)
    tallest = max(len(column) for column in columns)
    position = [0.0] * len(layer_of)

    def place(column: list[int]) -> None:
        offset = (tallest - len(column)) / 2
        for row, i in enumerate(column):
            position[i] = row + offset

    def sweep(layers: range, neighbours: list[list[int]]) -> None:
        for layer in layers:
            column = columns[layer]
            keys: dict[int, float] = {}
            for i in column:
                around = neighbours[i]
                keys[i] = sum(position[j] for j in around) / len(around) if around else position[i]
            column.sort(key=lambda i: (keys[i], i))
            place(column)

    for column in columns:
        place(column)
    for _ in range(SWEEPS):
        sweep(range(1, len(columns)), preds)
        sweep(range(len(columns) - 2, -1, -1), succs)
    return columns


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


def _label(name: str) -> str:
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
    return max(MIN_NODE_WIDTH, _columns(_label(name)) * CHAR_WIDTH + 2 * NODE_PADDING)


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: str) -> str:
    """``value`` escaped as XML character data.  ``\\r`` is a reference
    because parsers turn a literal one into ``\\n``."""
    value = _NOT_XML.sub("\ufffd", value)
    return (
        value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\r", "&#13;")
    )


def _attr(value: str) -> str:
    """``value`` escaped as a double-quoted XML attribute value.  Tabs and
    line breaks are references because parsers turn literal ones into
    spaces."""
    return (
        _text(value)
        .replace('"', "&quot;")
        .replace("'", "&#39;")
        .replace("\t", "&#9;")
        .replace("\n", "&#10;")
    )


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_URL_IGNORED = re.compile("[\t\n\r]")


def _check_url(url: str) -> None:
    """Refuses a URL whose scheme is not http or https, as a browser would
    read it (ignoring tabs and line breaks, and leading controls and spaces)."""
    scheme = _SCHEME.match(_URL_IGNORED.sub("", url).lstrip("".join(map(chr, range(0x21)))))
    if scheme is not None and scheme.group(1).lower() not in ("http", "https"):
        raise ValueError(f"link URL {url!r} has scheme {scheme.group(1)!r}")


def _marker_id(graph: Graph) -> str:
    """An id for the arrowhead marker, derived from the graph, so that two
    different graphs inlined in one page do not share an id."""
    digest = hashlib.sha256(repr((graph.nodes, graph.edges, graph.focus)).encode("utf-8"))
    return f"zpm-arrow-{digest.hexdigest()[:12]}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _num(value: float) -> str:
    """A coordinate to 0.1 px, without a useless ``.0``."""
    text = f"{value:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text
