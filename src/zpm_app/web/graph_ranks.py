"""Where each node of a graph goes before it is placed (``graph_layout``):
which edges close a cycle, each node's layer, and the order of the nodes
within each layer (steps 1 to 3 of the layout)."""

from __future__ import annotations

from typing import Literal

EdgeKind = Literal["forward", "back", "loop"]
"""``back``: an edge that closes a cycle (reversed for layering); ``loop``: a self-loop."""

SWEEPS = 4
"""Rounds of barycenter ordering, each one sweep down and one up."""


def classify(
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


def layers(
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


def ordered(layer_of: list[int], preds: list[list[int]], succs: list[list[int]]) -> list[list[int]]:
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
