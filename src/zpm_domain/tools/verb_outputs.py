"""The typed shapes of the verb tools' and forks' structured results.

The same conventions as ``zpm_domain.tools.outputs``: closed objects,
``NotRequired`` keys optional, a class's docstring its description, proofs
flat (``nodes`` in pre-order, each with its ``id`` and its ``parent``'s).
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from zpm_domain.tools.outputs import Count, Doc, Handle, Minimum, Names, TextOrNull


class Provenance(TypedDict):
    tool: TextOrNull
    client: TextOrNull
    at: TextOrNull
    file: NotRequired[str]
    line: NotRequired[Annotated[int, Minimum(1)]]
    assumptions: Names


class Asserted(TypedDict):
    handle: Handle
    already_there: bool


class ExceptingHandles(TypedDict):
    """The handles of the new withdrawal records, in the order of the withdrawn clauses."""

    excepting_handles: list[Handle]


class ExceptingHandle(TypedDict):
    """The handle of the new withdrawal record; null when the memory holds no such clause."""

    excepting_handle: Handle | None


class MatchingRow(TypedDict):
    sentence: str
    context: str
    handle: Handle
    asserted: bool
    provenance: Annotated[
        Provenance,
        Doc(
            "Where a clause came from: the tool, client and time that stored it, or the "
            "knowledge file and line; the assumptions that support it now.",
            first=True,
        ),
    ]


class Matching(TypedDict):
    rows: list[MatchingRow]
    count: Count
    truncated: bool


class JustificationNode(TypedDict):
    id: Count
    parent: Count | None
    goal: str
    rule_applied: str
    handle: NotRequired[Handle]
    truncated: bool


class HandledProof(TypedDict):
    """A proof, flat: its nodes in pre-order (the root first, id 0, parent null); each
    node a stored clause proved names that clause's handle (built-ins have none)."""

    nodes: list[JustificationNode]


class VerbAnswer(TypedDict):
    bindings: Annotated[
        dict[str, str],
        Doc("Each named variable of the goal and its value as Prolog text."),
    ]
    justification: HandledProof | None


class VerbQuery(TypedDict):
    answers: list[VerbAnswer]
    truncated: bool


class StoredSentence(TypedDict):
    handle: Handle
    sentence: str
    context: str


class Winner(StoredSentence):
    defeat_class: Literal["functional"]
    rules: Names


class Defeat(TypedDict):
    """A stored fact that knowledge defeats: the loser, the knowledge-file facts that
    win and the rule that makes them win, and the memories the rule holds in."""

    kind: Literal["defeat"]
    loser: StoredSentence
    winners: list[Winner]
    placed_in: Names


class Conflicting(StoredSentence):
    rules: Names


class FunctionalConflict(TypedDict):
    """Stored facts of a functional predicate that contradict the goal."""

    kind: Literal["conflict"]
    fact: StoredSentence
    conflicting: list[Conflicting]
    placed_in: Names


class ArgueNode(JustificationNode):
    defeat: NotRequired[Defeat]
    conflict: NotRequired[FunctionalConflict]


class ArgueTree(TypedDict):
    nodes: list[ArgueNode]


class Inference(TypedDict):
    """A proof against, flat as a justification: of the goal's denial neg(Goal), or,
    for a conjunction, a conjunction node over the against side of its first conjunct
    that has one (a defeated conjunct is a defeat node carrying its defeat)."""

    kind: Literal["inference"]
    tree: ArgueTree


Verdict = Literal["true", "false", "both", "unknown"]


class Argued(TypedDict):
    verdict: Verdict
    for_justification: HandledProof | None
    against_justification: Inference | Defeat | FunctionalConflict | None


MergeOp = Literal["store", "withdraw", "remove", "support", "unsupport"]


class Skipped(TypedDict):
    handle: Handle
    op: MergeOp
    sentence: str
    assumption: NotRequired[TextOrNull]
    reason: str


class SideChange(TypedDict):
    """What one side did to the clause: renamed it (sentences: the clause now), withdrew
    or removed it, or updated it (sentences: its new facts, same predicate and first
    argument)."""

    change: Literal["rename", "withdraw", "remove", "update"]
    sentences: Names


class Conflict(TypedDict):
    """A clause of the fork point that the base and the fork both changed, differently."""

    handle: Handle
    sentence: str
    base: SideChange
    fork: SideChange
    winner: Literal["base", "fork"] | None


class Applied(TypedDict):
    stored: Count
    withdrawn: Count
    removed: Count
    supports: Count


class Operation(TypedDict):
    op: MergeOp
    handle: Handle
    sentence: str
    assumption: NotRequired[TextOrNull]
    assumptions: NotRequired[Names]
    plain: NotRequired[bool]


class Merged(TypedDict):
    """A merge of a fork into its base: what was (or, in a dry run, would be) applied,
    the operations skipped because they no longer apply to the base, and the
    conflicts."""

    fork: str
    into: str
    applied: Applied
    skipped: list[Skipped]
    operations: Annotated[
        list[Operation],
        Doc(
            "The applied operations in order (at most 100); support and unsupport name the "
            "assumption (null: the plain assertion); a store under assumptions lists them "
            "(plain: whether it is asserted plainly too), a removal or withdrawal lists the "
            "assumptions that lose the clause."
        ),
    ]
    dry_run: bool
    conflicts: Annotated[list[Conflict], Doc("At most 100, in the point's order.")]
    blocked: Annotated[
        str | None, Doc("Why nothing was applied (a conflict has no winner), else null.")
    ]
    described: NotRequired[
        Annotated[
            Names,
            Doc(
                "The predicates (name/arity) whose description the merge sets or removes "
                "in the base (only when there are any)."
            ),
        ]
    ]
    constraints: NotRequired[
        Annotated[
            list[ConstraintConflict],
            Doc("Facts it stores that contradict a functional predicate's (when any)"),
        ]
    ]
    violations: NotRequired[
        Annotated[
            list[MadeViolation],
            Doc("New integrity violations (when any): refuse applies nothing"),
        ]
    ]


class ConstraintConflict(TypedDict):
    fact: str
    conflicts_with: str
    handle: Handle
    policy: Annotated[
        Literal["refuse", "supersede", "keep"],
        Doc("refuse: nothing is applied; supersede: conflicts_with is withdrawn; keep: both"),
    ]


class MadeViolation(TypedDict):
    violation: str
    policy: Literal["refuse", "keep"]
