"""The typed shapes of ``history``'s structured result (the conventions of
``zpm_domain.tools.outputs``)."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from zpm_domain.tools.outputs import Count, Doc, Handle, TextOrNull
from zpm_domain.tools.verb_outputs import ConstraintConflict, MadeViolation

CursorText = Annotated[
    str, Doc("A position in the memory's history: pass it back as given.", first=True)
]


Kind = Literal[
    "stored",
    "assumed",
    "held plainly",
    "support taken",
    "removed",
    "withdrawn",
    "described",
    "renamed",
    "assumption retracted",
    "reverted",
    "merged",
    "knowledge files changed",
    "saved",
    "restored",
    "imported",
    "forked",
    "started",
]
"""What a change was (``zpm_domain.history.events``)."""


class HistoryEvent(TypedDict):
    """One change, with the cursor right after it."""

    cursor: CursorText
    at: Annotated[str, Doc("When its call committed (ISO 8601, UTC).")]
    event: Kind
    text: Annotated[
        str,
        Doc(
            "What it was about: a clause, a pattern, a description, a rename, an "
            "assumption, a snapshot's name, the knowledge files."
        ),
    ]
    predicate: TextOrNull
    handles: Annotated[list[Handle], Doc("The handles of the clauses it concerns.")]
    tool: TextOrNull
    client: TextOrNull


class History(TypedDict):
    events: list[HistoryEvent]
    count: Count
    next_cursor: Annotated[
        str | None,
        Doc(
            "With since: pass it as since next time (after the last event returned). "
            "Otherwise: pass it as cursor for the next page; null on the last page."
        ),
    ]
    now: Annotated[str, Doc("Where the memory stands: the cursor after its last change.")]


class DiffChange(TypedDict):
    """One net change, as zpm forks diff lists a fork's (a rename: the clause's text
    changed under its handle; was: its text before)."""

    op: Literal["store", "remove", "withdraw", "rename", "support", "unsupport"]
    handle: Handle
    sentence: str
    was: NotRequired[str]
    assumption: NotRequired[TextOrNull]
    assumptions: NotRequired[list[str]]
    plain: NotRequired[bool]


class DescriptionChange(TypedDict):
    predicate: str
    description: TextOrNull
    was: TextOrNull


class MemoryDiff(TypedDict):
    memory: str
    since: CursorText
    until: CursorText
    changes: list[DiffChange]
    described: list[DescriptionChange]


class RevertOperation(TypedDict):
    op: Literal["store", "remove", "withdraw", "support", "unsupport", "describe"]
    handle: NotRequired[Handle]
    sentence: NotRequired[str]
    assumption: NotRequired[TextOrNull]
    predicate: NotRequired[str]


class RevertSkip(RevertOperation):
    reason: str


class RevertCounts(TypedDict):
    stored: Count
    removed: Count
    withdrawn: Count
    supports: Count
    described: Count


class Reverted(TypedDict):
    memory: str
    to: CursorText
    dry_run: bool
    applied: RevertCounts
    operations: Annotated[list[RevertOperation], Doc("The first 100 operations.")]
    skipped: list[RevertSkip]
    now: Annotated[str, Doc("Where the memory stands after the revert (with dry_run: unchanged).")]
    constraints: NotRequired[
        Annotated[
            list[ConstraintConflict],
            Doc("Contradictions the moment brings back (when any): refuse applies nothing"),
        ]
    ]
    violations: NotRequired[
        Annotated[
            list[MadeViolation],
            Doc("Integrity violations the moment brings back (when any)"),
        ]
    ]
