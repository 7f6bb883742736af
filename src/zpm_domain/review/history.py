"""What happened to a predicate or to one clause, for the review page: the
memory's timeline (``zpm_domain.history``: every change its storage keeps,
across saves, restores and imports), in the order the changes were made,
after the withdrawals older than what is kept (the memory keeps every
withdrawal).

Who did it is the author of the change's batch; a merge's changes show as
merged in, by whom and when the merge was made.
"""

from __future__ import annotations

from dataclasses import dataclass

from zpm_domain.history.events import Event as Change
from zpm_domain.history.timeline import timeline
from zpm_domain.stored.clauses import render_clause
from zpm_domain.stored.provenance import iso_time
from zpm_domain.tools.definition import ToolContext

MOST = 500
"""The history shows the newest events up to this many."""

Key = tuple[str, int]

WHAT = {
    "assumed": "stored under an assumption",
    "support taken": "an assumption's support taken",
}
"""How the page says an event where it does not use the event's own name."""

MERGE_TOOL = "merge_memory"
"""The tool whose batches bring a fork's changes in: each shows as merged in,
when and by whom the merge was made (the clause itself keeps who first
stored it, in the fork)."""


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened: ``when`` (ISO 8601, UTC), ``what`` (how the
    page says it), the clause or text it was about, the handle, and who
    did it with which tool, when the journal knows."""

    when: str
    what: str
    text: str
    handle: int | None
    tool: str | None
    client: str | None


@dataclass(frozen=True, slots=True)
class History:
    """The newest events (``events``, oldest first), whether older ones
    were left out (``more``), and since when the memory's changes are kept
    (``since``: ``None`` when all of them are)."""

    events: list[Event]
    more: bool
    since: str | None


def history(
    context: ToolContext,
    memory_name: str,
    key: Key | None = None,
    handle: int | None = None,
) -> History:
    """The events of predicate ``key``, under the names it had before a
    rename too, or of the clause with ``handle`` (one of the two), in
    memory ``memory_name``."""
    memory = context.memories.resolve(memory_name)
    line = timeline(memory)
    if handle is not None:
        positions = line.by_handle.get(handle, [])
    else:
        positions = line.of_predicate(key) if key is not None else []
    changes = [line.events[p] for p in positions]
    events = [_event(change, handle) for change in changes]
    names = line.names(key) if key is not None else set()
    journaled = {h for change in changes if change.kind == "withdrawn" for h in change.handles}
    earlier = [
        Event(
            w.provenance.at or "",
            "withdrawn",
            render_clause(w.clause),
            w.clause.handle,
            w.provenance.tool,
            w.provenance.client,
        )
        for w in memory.history.records()
        if w.clause.handle not in journaled
        and (
            w.clause.handle == handle
            if handle is not None
            else key is not None and w.clause.key in names
        )
    ]
    events = earlier + events
    since = None if line.first <= 1 or not line.events else iso_time(line.events[0].ts)
    return History(events[-MOST:], len(events) > MOST, since)


def _event(change: Change, handle: int | None) -> Event:
    what = WHAT.get(change.kind, change.kind)
    if change.tool == MERGE_TOOL:
        what = f"merged in: {what}"
    shown = handle if handle in change.handles else (change.handles or (None,))[0]
    return Event(iso_time(change.ts), what, change.text, shown, change.tool, change.client)
