"""A memory's predicates and a predicate's clauses as the review page shows
them: counts and descriptions, then each clause with its handle, its
provenance, the assumptions that hold it, and whether it is believed,
defeated by the knowledge files, withdrawn, or a knowledge-file clause.

The stored clauses come a page at a time, in clause order, after the clause
with a given handle (a cursor that stays valid while other clauses come and
go): a page reads the clauses before it only to skip them, and builds rows
for the ones it shows alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice

from zpm_domain.errors import InvalidArguments
from zpm_domain.history.timeline import Timeline, timeline
from zpm_domain.memory.memory import Memory
from zpm_domain.stored.clauses import Clause, render_clause
from zpm_domain.stored.provenance import UNKNOWN, Provenance, iso_time
from zpm_domain.tools.definition import ToolContext
from zpm_domain.tools.moments import reading

PAGE = 100
"""Stored clauses per page."""


@dataclass(frozen=True, slots=True)
class PredicateRow:
    """One predicate of a memory: its believed clauses (knowledge-file ones
    included), whether its definition is a knowledge file's (static), and
    its description, when one was given."""

    name: str
    arity: int
    clauses: int
    from_files: int
    static: bool
    description: str | None


@dataclass(frozen=True, slots=True)
class ClauseRow:
    """One clause: ``state`` is ``believed``, ``defeated``, ``withdrawn``,
    ``removed`` or ``file``; ``where`` is a knowledge-file clause's
    ``file:line``; ``taken_by`` the withdrawal's or the removal's provenance
    (the tool, client and time that took it)."""

    handle: int | None
    text: str
    state: str
    provenance: Provenance
    assumptions: tuple[str, ...] = ()
    where: str | None = None
    taken_by: Provenance | None = None


@dataclass(frozen=True, slots=True)
class ClausePage:
    """A page of ``name/arity``'s stored clauses (``rows``), the cursor of
    the next page (``None``: this is the last), and on the first page the
    predicate's knowledge-file, defeated and withdrawn clauses."""

    memory: str
    name: str
    arity: int
    description: str | None
    rows: list[ClauseRow]
    next_after: int | None
    files: list[ClauseRow]
    defeated: list[ClauseRow]
    withdrawn: list[ClauseRow]
    removed: list[ClauseRow] = field(default_factory=list)
    """The newest clauses taken out of the predicate (not withdrawn), newest
    first, with who took them, when and with which tool (the first page of
    the present only)."""


def predicate_rows(
    context: ToolContext, memory_name: str, as_of: str | None = None
) -> list[PredicateRow]:
    """Every predicate of memory ``memory_name`` (as it was at ``as_of``,
    when given) with clauses or declared, in order of first definition
    (``MemoryNotMounted`` when the caller does not see it)."""
    memory = reading(context.memories, memory_name, as_of)
    memory.sync()
    rows = []
    for info in memory.predicates():
        described = memory.description_of(info.name, info.arity)
        rows.append(
            PredicateRow(
                info.name,
                info.arity,
                info.clause_count,
                memory.files.count(info.key),
                memory.files.is_static(info.key),
                None if described is None else described.text,
            )
        )
    return rows


def clause_page(
    context: ToolContext,
    memory_name: str,
    name: str,
    arity: int,
    after: int | None = None,
    limit: int = PAGE,
    as_of: str | None = None,
) -> ClausePage:
    """The page of ``name/arity``'s stored clauses that follows the clause
    with handle ``after`` (``None``: the first page), as the memory was at
    ``as_of`` when given.  ``InvalidArguments`` when that clause is no
    longer there (the page was read before it went)."""
    memory = reading(context.memories, memory_name, as_of)
    memory.sync()
    key = (name, arity)
    stored: Iterator[Clause] = islice(
        memory.iter_clauses(name, arity), memory.files.count(key), None
    )
    if after is not None:
        stored = _after(stored, after, f"{name}/{arity}", memory.name)
    shown = list(islice(stored, limit + 1))
    more = len(shown) > limit
    rows = [_believed(memory, clause) for clause in shown[:limit]]
    first = after is None
    described = memory.description_of(name, arity)
    return ClausePage(
        memory.name,
        name,
        arity,
        None if described is None else described.text,
        rows,
        rows[-1].handle if more and rows else None,
        [_from_file(clause, where) for clause, where in memory.file_clauses(name, arity)]
        if first
        else [],
        [_defeated(clause) for clause in memory.defeats if clause.key == key] if first else [],
        [
            ClauseRow(
                w.clause.handle,
                render_clause(w.clause),
                "withdrawn",
                w.clause.provenance or UNKNOWN,
                taken_by=w.provenance,
            )
            for w in memory.history.records()
            if w.clause.key == key
        ]
        if first
        else [],
        _removed(memory, key) if first and as_of is None else [],
    )


REMOVED_SHOWN = 20
"""How many removed clauses a predicate's first page lists."""


def _removed(memory: Memory, key: tuple[str, int]) -> list[ClauseRow]:
    """The newest removals of ``key``'s clauses, from the memory's history."""
    line = timeline(memory)
    rows: list[ClauseRow] = []
    for position in reversed(line.of_predicate(key)):
        event = line.events[position]
        if event.kind != "removed":
            continue
        taken = Provenance(event.tool, event.client, iso_time(event.ts))
        for handle in event.handles or (None,):  # a pattern took each of its clauses
            text = event.text if handle is None else _stored_text(line, handle, event.text)
            rows.append(ClauseRow(handle, text, "removed", UNKNOWN, taken_by=taken))
        if len(rows) >= REMOVED_SHOWN:
            break
    return rows[:REMOVED_SHOWN]


def _stored_text(line: Timeline, handle: int, otherwise: str) -> str:
    """The text the clause with ``handle`` was last stored with (``otherwise``
    when the history kept does not say)."""
    for position in reversed(line.by_handle.get(handle, [])):
        event = line.events[position]
        if event.kind in ("stored", "assumed", "held plainly"):
            return event.text.split(" (", 1)[0] if event.kind == "assumed" else event.text
    return otherwise


def _after(clauses: Iterator[Clause], handle: int, label: str, memory: str) -> Iterator[Clause]:
    for clause in clauses:
        if clause.handle == handle:
            return clauses
    raise InvalidArguments(
        f"the clause with handle {handle} is no longer a clause of {label} in memory {memory}: "
        "start again from the first page"
    )


def _believed(memory: Memory, clause: Clause) -> ClauseRow:
    support = memory.support_of(clause)
    return ClauseRow(
        clause.handle,
        render_clause(clause),
        "believed",
        clause.provenance or UNKNOWN,
        () if support is None else tuple(support.assumptions),
    )


def _from_file(clause: Clause, where: str) -> ClauseRow:
    """A knowledge-file clause, placed by its file's name in provenance (the
    project's relative name) when it has one, else by ``where``."""
    provenance = clause.provenance or UNKNOWN
    if provenance.file is not None:
        where = f"{provenance.file}:{provenance.line}"
    return ClauseRow(clause.handle, render_clause(clause), "file", provenance, where=where)


def _defeated(clause: Clause) -> ClauseRow:
    return ClauseRow(clause.handle, render_clause(clause), "defeated", clause.provenance or UNKNOWN)
