"""A laid-out graph (``graph_layout``) drawn as one inline SVG string, server-side.

Back edges are drawn with class ``edge back``, self-loops ``edge back loop``.
Every label and URL is XML-escaped, and the output holds no script, event
handler or ``foreignObject``; styling is left to CSS classes, with a few
presentation attributes (which any CSS rule overrides) so the SVG is legible
on its own.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from zpm_app.web.graph_layout import FONT_SIZE, Graph, coordinate, label, layout

__all__ = ["render_svg"]

_FOCUS_STROKE = ' stroke-width="2"'


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
            f'<rect x="{coordinate(box.x)}" y="{coordinate(box.y)}" width="{coordinate(box.width)}"'
            f' height="{coordinate(box.height)}" rx="4" fill="#fff" stroke="currentColor"'
            f"{_FOCUS_STROKE if focus else ''}/>"
            f'<text x="{coordinate(box.x + box.width / 2)}"'
            f' y="{coordinate(box.y + box.height / 2 + 4)}"'
            f' text-anchor="middle" fill="currentColor">{_text(label(box.name))}</text>'
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
