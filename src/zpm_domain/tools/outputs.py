"""The typed shapes of the tools' structured results (MCP ``outputSchema``).

Each tool whose text is JSON returns ``Reply[Shape]`` for one of these
``TypedDict`` classes (its return annotation says which, and the type
checker holds the data to it) and its data goes out as ``structuredContent``
beside the text; the application derives the JSON Schema (2020-12, MCP's
default dialect) from the same class.  The structured form
is the text's data, except where clients need another shape: ``query_logic``
wraps its answers in an object that also says whether the answer limit cut
them, ``trace_dependency`` wraps its nodes, and ``explain_why`` sends its
proof tree flat (``nodes`` in pre-order, each with its ``id`` and its
``parent``'s), since deeply nested JSON breaks clients' models.  Shapes stay
a few levels deep.

How a shape reads as a schema: every object is closed (no other keys) and
its ``NotRequired`` keys are optional; a class's docstring is the object's
``description``; ``Literal`` values are an ``enum`` (one value: a
``const``); ``X | None`` is ``anyOf`` X and null.  ``Annotated`` metadata
adds what types cannot say: :class:`Doc` (a description), :class:`Minimum`
and :data:`TYPE_LIST`.  The shapes of the verb tools and of forks are in
``zpm_domain.tools.verb_outputs``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired, TypedDict


@dataclass(frozen=True, slots=True)
class Doc:
    """The description of a value (``Annotated`` metadata).

    ``first``: the description leads the value's schema, before its type
    (a named part: a term, a clause handle); otherwise it follows the type.
    """

    text: str
    first: bool = False


@dataclass(frozen=True, slots=True)
class Minimum:
    """The least value of an integer (``Annotated`` metadata)."""

    value: int


@dataclass(frozen=True, slots=True)
class TypeList:
    """A union of plain types written as one ``type`` list
    (``["string", "null"]``) rather than ``anyOf`` (``Annotated`` metadata)."""


TYPE_LIST = TypeList()

TermValue = Annotated[
    str | float | list[Any],
    Doc(
        "A Prolog term as JSON: an atom or a string as a string, a number as a number, a "
        "proper list as an array, an unbound variable as _G<n>, any other term as its "
        "Prolog text.",
        first=True,
    ),
    TYPE_LIST,
]
Names = list[str]
Count = Annotated[int, Minimum(0)]
Kind = Literal["fact", "rule", "both"]
TextOrNull = Annotated[str | None, TYPE_LIST]

PredicateDescription = Annotated[
    str, Doc("The predicate's one-line description (only when it has one).")
]
ArgumentNames = Annotated[
    Names, Doc("The names of the predicate's arguments (only when they are named).")
]
"""With :data:`PredicateDescription`: the fields a described predicate adds
(``describe_predicate``), both optional."""


class QueryAnswers(TypedDict):
    answers: list[
        Annotated[
            dict[str, TermValue], Doc("One answer: each named variable of the goal and its value.")
        ]
    ]
    truncated: Annotated[bool, Doc("The answers reached the answer limit: more may exist.")]


class KnowledgePredicate(TypedDict):
    name: str
    arity: Count
    type: Kind
    count: Count
    description: NotRequired[PredicateDescription]
    arguments: NotRequired[ArgumentNames]


PolicyName = Literal["refuse", "supersede", "keep"]


class DeclaredConstraint(TypedDict):
    predicate: Annotated[str, Doc("name/arity")]
    kind: Annotated[
        Literal["functional", "integrity"],
        Doc("functional: last argument a function of the others; integrity: its rules"),
    ]
    policy: PolicyName
    declared: Annotated[str, Doc("file:line, describe_predicate, or default")]


class KnowledgeSchema(TypedDict):
    predicates: list[KnowledgePredicate]
    total: Count
    constraints: NotRequired[list[DeclaredConstraint]]


MemoryScope = Literal["project", "global"]
MemoryMode = Literal["rw", "ro"]


class OverviewPredicate(TypedDict):
    functor: str
    arity: Count
    kind: Kind
    count: Count
    samples: Names
    description: NotRequired[PredicateDescription]
    arguments: NotRequired[ArgumentNames]


class AssumptionsSummary(TypedDict):
    count: Count
    names: Names


class SnapshotsSummary(TypedDict):
    count: Count
    latest: str | None
    latest_at: str | None


class PersistenceSummary(TypedDict):
    wal_pending: Count
    healthy: bool


class Mount(TypedDict):
    name: str
    scope: MemoryScope
    mode: MemoryMode


class MountsSummary(TypedDict):
    available: bool
    count: Count
    items: list[Mount]


class Overview(TypedDict):
    predicates: list[OverviewPredicate]
    assumptions: AssumptionsSummary
    snapshots: SnapshotsSummary
    persistence: PersistenceSummary
    mounts: MountsSummary
    truncated: bool


class MemoryEntry(TypedDict):
    name: str
    scope: MemoryScope
    mounted: bool
    mode: MemoryMode | None
    fork_of: NotRequired[Annotated[str, Doc("A fork's base (forks only).")]]
    session: NotRequired[
        Annotated[
            Literal[True], Doc("This session's own fork (zpm serve --fork; that entry only).")
        ]
    ]


class MemoryList(TypedDict):
    memories: list[MemoryEntry]


class AssumptionNames(TypedDict):
    assumptions: Names


BeliefSource = Literal["interactive", "journal", "snapshot", "file", "unknown"]


class BeliefStatus(TypedDict):
    status: Literal["in", "out"]
    justifications: Names
    source: BeliefSource


class Justification(TypedDict):
    facts: Names


class RuleSite(TypedDict):
    head: str
    body: str
    memory: str


class CrossMemoryRef(RuleSite):
    qualifier: str


class AssumptionSite(TypedDict):
    assumption: str
    fact: str
    memory: str


class References(TypedDict):
    target: str
    memory: str
    rules: list[RuleSite]
    direct_facts_count: Count
    facts_referenced_in_assumptions: list[AssumptionSite]
    cross_memory_refs: list[CrossMemoryRef]


class RewrittenMemory(TypedDict):
    memory: str
    rules_updated: Count


class UnchangedMemory(TypedDict):
    memory: str
    refs: Count
    reason: str


class CrossMemoryImpact(TypedDict):
    rewritten: list[RewrittenMemory]
    warnings: list[UnchangedMemory]
    skipped_readonly: list[UnchangedMemory]


class Rename(TypedDict):
    renamed_facts: Count
    rewritten_rule_bodies: Count
    affected_rule_ids: Names
    cross_memory_impact: CrossMemoryImpact
    is_error: bool


class Trace(TypedDict):
    """The distinct nodes reachable from the start node, in the order found."""

    nodes: list[TermValue]


class Violations(TypedDict):
    violations: list[TermValue]
    truncated: bool


class ProofNode(TypedDict):
    id: Count
    parent: Count | None
    goal: str
    rule_applied: str
    truncated: bool


class Explanation(TypedDict):
    """The first proof, flat: its nodes in pre-order (the root first, id 0, parent
    null); a node's children follow it in order. No nodes when the fact is not
    proven."""

    fact: str
    proven: bool
    nodes: list[ProofNode]


SearchPlace = Literal["predicate", "description", "argument", "body"]

Matched = TypedDict("Matched", {"word": str, "in": SearchPlace, "part": str})
Matched.__doc__ = "A query word, where it matched best, and the word part it matched."

Handle = Annotated[
    int, Doc("A clause handle: stable for the clause's lineage.", first=True), Minimum(1)
]


class Found(TypedDict):
    memory: str
    predicate: Annotated[str, Doc("The predicate as name/arity.")]
    handle: Annotated[
        Handle | None,
        Doc("The clause's handle; null for a described predicate without clauses."),
    ]
    clause: Annotated[
        TextOrNull,
        Doc("The clause as Prolog text; null for a described predicate without clauses."),
    ]
    matched: list[Matched]
    description: NotRequired[PredicateDescription]
    arguments: NotRequired[ArgumentNames]
    file: NotRequired[
        Annotated[str, Doc("The knowledge file and line of a knowledge-file clause.")]
    ]


class Search(TypedDict):
    """The clauses that mention the query's words, best first (see search_facts)."""

    results: list[Found]
    count: Count
    total: Annotated[Count, Doc("How many results there are in all pages.")]
    next_cursor: Annotated[Count | None, Doc("The cursor of the next page; null on the last page.")]
