"""The graph drawing: a layered layout, and an SVG that is safe to inline."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zpm_app.web.graph_layout import Graph, Layout, layout
from zpm_app.web.graph_svg import render_svg

SVG = "{http://www.w3.org/2000/svg}"
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    """``text`` as the SVG carries it: characters XML cannot hold become U+FFFD."""
    return NOT_XML.sub("\ufffd", text)


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def node_groups(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if "node" in g.get("class", "").split()]


def edge_paths(root: ET.Element) -> list[ET.Element]:
    return [p for p in root.iter(f"{SVG}path") if "edge" in p.get("class", "").split()]


LABELS = st.text(max_size=10)


@st.composite
def graphs(draw: st.DrawFn, labels: st.SearchStrategy[str] = LABELS) -> Graph:
    nodes = draw(st.lists(labels, unique=True, max_size=12))
    if not nodes:
        return Graph((), ())
    index = st.integers(0, len(nodes) - 1)
    pairs = draw(st.lists(st.tuples(index, index), max_size=30))
    focus = draw(st.none() | st.sampled_from(nodes))
    return Graph(tuple(nodes), tuple((nodes[s], nodes[t]) for s, t in pairs), focus)


def always(url: str) -> Callable[[str], str]:
    return lambda _: url


def reaches(graph: Graph, start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        here = todo.pop()
        if here == goal:
            return True
        for s, t in graph.edges:
            if s == here and t not in seen:
                seen.add(t)
                todo.append(t)
    return False


@given(graphs())
def test_the_same_graph_gives_the_same_bytes(graph: Graph) -> None:
    again = Graph(tuple(list(graph.nodes)), tuple(list(graph.edges)), graph.focus)
    assert render_svg(graph) == render_svg(again)
    assert layout(graph) == layout(again)


@given(graphs())
def test_every_node_and_every_distinct_edge_is_drawn_once(graph: Graph) -> None:
    root = parse(render_svg(graph))
    names = [g.get("data-name") for g in node_groups(root)]
    assert Counter(names) == Counter(xml_safe(n) for n in graph.nodes)
    drawn = [(p.get("data-from"), p.get("data-to")) for p in edge_paths(root)]
    expected = [(xml_safe(s), xml_safe(t)) for s, t in dict.fromkeys(graph.edges)]
    assert Counter(drawn) == Counter(expected)


@given(graphs())
def test_boxes_of_a_layer_do_not_overlap_and_edges_point_the_way_they_are_classed(
    graph: Graph,
) -> None:
    drawn = layout(graph)
    assert [b.name for b in drawn.nodes] == list(graph.nodes)
    for layer in range(drawn.layers):
        column = sorted((b for b in drawn.nodes if b.layer == layer), key=lambda b: b.order)
        assert [b.order for b in column] == list(range(len(column)))
        for upper, lower in zip(column, column[1:]):
            assert upper.bottom < lower.y
    for box in drawn.nodes:
        assert 0 <= box.x and box.right <= drawn.width
        assert 0 <= box.y and box.bottom <= drawn.height
    for edge in drawn.edges:
        source, target = drawn.box(edge.source), drawn.box(edge.target)
        if edge.kind == "forward":
            assert source.layer < target.layer
        elif edge.kind == "back":
            assert source.layer > target.layer
        else:
            assert edge.source == edge.target
        for x, y in (edge.start, edge.control1, edge.control2, edge.end):
            assert 0 <= x <= drawn.width and 0 <= y <= drawn.height


@given(graphs())
def test_a_back_edge_closes_a_cycle(graph: Graph) -> None:
    for edge in layout(graph).edges:
        if edge.kind == "back":
            assert reaches(graph, edge.target, edge.source)


@given(graphs())
def test_an_acyclic_graph_has_no_back_edge(graph: Graph) -> None:
    rank = {name: i for i, name in enumerate(graph.nodes)}
    forward = tuple((s, t) for s, t in graph.edges if rank[s] < rank[t])
    drawn = layout(Graph(graph.nodes, forward))
    assert all(edge.kind == "forward" for edge in drawn.edges)
    # Longest path from the sources: every node past layer 0 has a
    # predecessor exactly one layer before it.
    for box in drawn.nodes:
        if box.layer > 0:
            before = {drawn.box(s).layer for s, t in forward if t == box.name}
            assert box.layer - 1 in before


@given(graphs(labels=st.text(alphabet=st.characters(exclude_categories=()), max_size=10)))
def test_any_labels_give_well_formed_svg_without_active_content(graph: Graph) -> None:
    root = parse(render_svg(graph, lambda name: f"/kb/{name}?x=1&y='2'"))
    for element in root.iter():
        assert element.tag.removeprefix(SVG) not in ("script", "foreignObject")
        assert not any(attribute.lower().startswith("on") for attribute in element.attrib)


def test_a_cycle_is_broken_at_the_edge_back_to_the_first_node() -> None:
    graph = Graph(("a", "b", "c"), (("a", "b"), ("b", "c"), ("c", "a")))
    drawn = layout(graph)
    assert [b.layer for b in drawn.nodes] == [0, 1, 2]
    assert [e.kind for e in drawn.edges] == ["forward", "forward", "back"]
    classes = {
        (p.get("data-from"), p.get("data-to")): p.get("class")
        for p in edge_paths(parse(render_svg(graph)))
    }
    assert classes == {("a", "b"): "edge", ("b", "c"): "edge", ("c", "a"): "edge back"}


def test_the_two_edges_of_a_two_node_cycle_are_drawn_apart() -> None:
    drawn = layout(Graph(("a", "b"), (("a", "b"), ("b", "a"))))
    there, back = drawn.edges
    assert (there.kind, back.kind) == ("forward", "back")
    assert {there.start, there.end} == {back.start, back.end}
    assert there.d != back.d


def test_a_self_loop_is_a_loop_on_its_own_layer() -> None:
    graph = Graph(("p", "q"), (("p", "p"), ("p", "q"), ("q", "q")))
    drawn = layout(graph)
    assert [b.layer for b in drawn.nodes] == [0, 1]
    assert [e.kind for e in drawn.edges] == ["loop", "forward", "loop"]
    paths = edge_paths(parse(render_svg(graph)))
    assert [p.get("class") for p in paths] == ["edge back loop", "edge", "edge back loop"]


def test_repeated_edges_are_drawn_once() -> None:
    graph = Graph(("a", "b"), (("a", "b"), ("a", "b"), ("b", "b"), ("b", "b")))
    assert len(edge_paths(parse(render_svg(graph)))) == 2


def test_barycenter_sweeps_uncross_edges() -> None:
    # In node order x comes before y, but y's neighbour a is above x's b.
    drawn = layout(Graph(("a", "b", "x", "y"), (("a", "y"), ("b", "x"))))
    assert drawn.box("y").order < drawn.box("x").order


def test_labels_and_links_appear_only_escaped() -> None:
    script = "<script>alert(1)</script>"
    url = '/kb?name=x&y="z"'
    graph = Graph((script, "ok"), ((script, "ok"),), focus=script)
    svg = render_svg(graph, lambda name: url if name == script else None)
    assert "<script" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    assert '"z"' not in svg and "&y=" not in svg
    assert 'href="/kb?name=x&amp;y=&quot;z&quot;"' in svg
    root = parse(svg)
    (anchor,) = root.iter(f"{SVG}a")
    assert anchor.get("href") == url
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert script in texts
    assert [g.get("data-name") for g in node_groups(root)] == [script, "ok"]


def test_quotes_ampersands_and_non_ascii_survive_the_round_trip() -> None:
    names = ('l\'été & "co"', "日本語", "tab\there\nline\rreturn", "nul\x00byte")
    root = parse(render_svg(Graph(names, ((names[0], names[1]),))))
    assert [g.get("data-name") for g in node_groups(root)] == [xml_safe(n) for n in names]
    titles = [g.find(f"{SVG}title") for g in node_groups(root)]
    assert [t.text for t in titles if t is not None] == [xml_safe(n) for n in names]


def test_only_http_and_relative_links_are_accepted() -> None:
    graph = Graph(("a",), ())
    for url in ("/kb/a", "kb/a?x=1", "https://example.org/a", "#a"):
        assert f'href="{url}"' in render_svg(graph, always(url))
    for url in ("javascript:alert(1)", " JavaScript:alert(1)", "java\tscript:x", "data:text/html,"):
        with pytest.raises(ValueError, match="scheme"):
            render_svg(graph, always(url))


def test_the_focus_node_has_the_focus_class() -> None:
    graph = Graph(("a", "b", "c"), (("a", "b"), ("b", "c")), focus="b")
    classes = {g.get("data-name"): g.get("class") for g in node_groups(parse(render_svg(graph)))}
    assert classes == {"a": "node", "b": "node focus", "c": "node"}
    unfocused = node_groups(parse(render_svg(Graph(graph.nodes, graph.edges))))
    assert {g.get("class") for g in unfocused} == {"node"}


def test_links_wrap_the_box_and_label_of_the_nodes_that_have_one() -> None:
    graph = Graph(("a", "b"), (("a", "b"),))
    root = parse(render_svg(graph, lambda name: f"/p/{name}" if name == "a" else None))
    groups = {g.get("data-name"): g for g in node_groups(root)}
    anchor = groups["a"].find(f"{SVG}a")
    assert anchor is not None and anchor.get("href") == "/p/a"
    assert [child.tag.removeprefix(SVG) for child in anchor] == ["rect", "text"]
    assert groups["b"].find(f"{SVG}a") is None
    assert [child.tag.removeprefix(SVG) for child in groups["b"]] == ["title", "rect", "text"]


def test_the_svg_element_has_its_size_class_role_and_title() -> None:
    graph = Graph(("a", "b"), (("a", "b"),))
    drawn: Layout = layout(graph)
    root = parse(render_svg(graph))
    assert root.get("class") == "graph"
    assert root.get("role") == "img"
    assert root.get("viewBox") == f"0 0 {drawn.width} {drawn.height}"
    assert (root.get("width"), root.get("height")) == (str(drawn.width), str(drawn.height))
    assert root[0].tag == f"{SVG}title" and root[0].text
    markers = list(root.iter(f"{SVG}marker"))
    assert len(markers) == 1
    assert {p.get("marker-end") for p in edge_paths(root)} == {f"url(#{markers[0].get('id')})"}


def test_an_empty_graph_says_there_is_nothing_to_draw() -> None:
    root = parse(render_svg(Graph((), ())))
    assert [t.text for t in root.iter(f"{SVG}text")] == ["Nothing to draw"]
    assert node_groups(root) == [] and edge_paths(root) == []
    assert layout(Graph((), ())).nodes == ()


def test_a_long_label_is_cut_in_its_box_but_whole_in_its_title() -> None:
    name = "p" * 200
    root = parse(render_svg(Graph((name,), ())))
    (group,) = node_groups(root)
    text = group.find(f"{SVG}text")
    title = group.find(f"{SVG}title")
    assert text is not None and text.text is not None and text.text.endswith("…")
    assert len(text.text) < 100
    assert title is not None and title.text == name


def test_wide_characters_make_wider_boxes() -> None:
    drawn = layout(Graph(("abcd", "日本語漢"), ()))
    assert drawn.box("日本語漢").width > drawn.box("abcd").width


@pytest.mark.parametrize(
    ("nodes", "edges", "focus"),
    [
        (("a", "a"), (), None),
        (("a",), (("a", "b"),), None),
        (("a",), (("c", "a"),), None),
        (("a",), (), "b"),
    ],
)
def test_invalid_graphs_are_refused(
    nodes: tuple[str, ...], edges: tuple[tuple[str, str], ...], focus: str | None
) -> None:
    with pytest.raises(ValueError):
        Graph(nodes, edges, focus)
