"""Graphs the review page draws: which predicates a memory's rules use, and
a binary relation around one node.  Both are bounded: past their limit they
stop growing and say so."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace

from zpm_domain.errors import InvalidArguments
from zpm_domain.memory.memory import Memory
from zpm_domain.prolog.sandbox import check_goal
from zpm_domain.prolog.terms import Struct, Term, Var, variables
from zpm_domain.prolog.writer import Renderer
from zpm_domain.stored.references import calls
from zpm_domain.tools.definition import ToolContext
from zpm_domain.tools.inputs import parse_term
from zpm_domain.tools.moments import reading

MOST_NODES = 120
"""A graph stops growing at this many nodes."""
MOST_DEPTH = 6
"""How many steps from its start a relation graph may go."""


@dataclass(frozen=True, slots=True)
class GraphData:
    """``nodes`` in the order they were met; ``edges`` as pairs of nodes;
    ``cut``: the limit stopped the graph before it was whole."""

    nodes: list[str] = field(default_factory=list)
    edges: list[tuple[str, str]] = field(default_factory=list)
    cut: bool = False


def dependency_graph(context: ToolContext, memory_name: str, as_of: str | None = None) -> GraphData:
    """The predicates of memory ``memory_name`` (``name/arity``) and an edge
    from each rule's predicate to every predicate of the memory its body
    calls (unqualified, or qualified with the memory itself); predicates no
    rule uses or defines are left out.  Built-ins and predicates of other
    memories are not drawn.  ``as_of``: the memory as it was then."""
    memory = reading(context.memories, memory_name, as_of)
    memory.sync()
    known = {info.key for info in memory.predicates()}
    nodes: dict[str, None] = {}
    edges: dict[tuple[str, str], None] = {}
    for info in memory.predicates():
        source = f"{info.name}/{info.arity}"
        for clause in memory.iter_clauses(info.name, info.arity):
            if clause.is_fact:
                continue
            for call in calls(clause.body):
                local = call.qualifier in (None, memory.name)
                if not local or (call.name, call.arity) not in known:
                    continue
                target = f"{call.name}/{call.arity}"
                if len(nodes) >= MOST_NODES and (source not in nodes or target not in nodes):
                    return GraphData(list(nodes), list(edges), cut=True)
                nodes.setdefault(source)
                nodes.setdefault(target)
                edges.setdefault((source, target))
    return GraphData(list(nodes), list(edges))


def relation_graph(
    context: ToolContext,
    memory_name: str,
    name: str,
    start: str,
    depth: int,
    as_of: str | None = None,
) -> GraphData:
    """The graph of relation ``name/2`` from node ``start`` (a term, read by
    the term reader) outwards, ``depth`` steps at most: an edge ``X -> Y``
    for each answer ``Y`` of ``name(X, Y)``, facts and rules alike, within
    the tools' sandbox and limits.  ``InvalidArguments`` when ``name/2`` is
    not a predicate of the memory, for a node with variables, or a depth
    outside 1 to :data:`MOST_DEPTH`.  ``as_of``: the memory as it was then."""
    if depth < 1 or depth > MOST_DEPTH:
        raise InvalidArguments(f"the depth is 1 to {MOST_DEPTH}, not {depth}")
    first = parse_term(start, "node")
    if variables(first):
        raise InvalidArguments("the node to start from must be ground (no variables)")
    memory = reading(context.memories, memory_name, as_of)
    context.memories.sync_all()
    if name not in _relations(memory):
        raise InvalidArguments(f"{name}/2 is not a predicate of memory {memory.name}")
    renderer = Renderer()
    nodes: dict[str, None] = {renderer.render(first): None}
    edges: dict[tuple[str, str], None] = {}
    waiting: deque[tuple[Term, int]] = deque([(first, 0)])
    limits = replace(context.limits, max_solutions=MOST_NODES)
    while waiting:
        node, steps = waiting.popleft()
        if steps == depth:
            continue
        other = Var("Y")
        goal = Struct(name, (node, other))
        check_goal(goal)
        for solution in memory.first_solutions(goal, limits):
            value = solution[other]
            source, target = renderer.render(node), renderer.render(value)
            if target not in nodes:
                if len(nodes) >= MOST_NODES:
                    return GraphData(list(nodes), list(edges), cut=True)
                nodes[target] = None
                if not variables(value):
                    waiting.append((value, steps + 1))
            edges.setdefault((source, target))
    return GraphData(list(nodes), list(edges))


def relation_names(context: ToolContext, memory_name: str, as_of: str | None = None) -> list[str]:
    """The memory's predicates of arity 2, the relations one may draw."""
    return _relations(reading(context.memories, memory_name, as_of))


def _relations(memory: Memory) -> list[str]:
    return [info.name for info in memory.predicates() if info.arity == 2]
