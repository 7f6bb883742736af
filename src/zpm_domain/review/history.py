"""What happened to a predicate or to one clause, for the review page: the
journal's operations since the memory's current generation began (its last
save, restore or import), in the order they were made, after the
withdrawals made before it (the memory keeps every withdrawal).

Each operation is read from its journal arguments as written (a clause
text, a fact, a name), never applied: the history shows what was asked and
recorded, including changes that later ones undid.  Who did it is the
clause's own provenance where the operation carries one, else who made the
batch (a removal, a rename); a merge's changes show as merged in, by whom
and when the merge was made.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.ports.journal import JournalRecord
from zpm_domain.prolog.reader import read_term
from zpm_domain.stored.clauses import Clause, render_clause
from zpm_domain.tools.definition import ToolContext

MOST = 500
"""The history shows the newest events up to this many."""

Key = tuple[str, int]

WHAT = {
    "assert": "stored",
    "assume": "stored under an assumption",
    "support_plainly": "held plainly",
    "unsupport": "an assumption's support taken",
    "retract": "removed",
    "retractall": "removed (all matching)",
    "remove": "removed",
    "withdraw": "withdrawn",
    "describe": "described",
    "rename": "renamed",
}
"""How the page says each journal operation (the others are not about one predicate)."""

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
    were left out (``more``), and the generation's start: the snapshot the
    memory started from then (``None``: the knowledge files alone)."""

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
    memory.sync()
    records = memory.journal.generation()
    since = _started_from(records)
    keys = _names_of(records, key)
    events = [event for event, args in _events(records) if _about(args, keys, handle)]
    journaled = {event.handle for event in events if event.what == "withdrawn"}
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
        and (w.clause.handle == handle if handle is not None else w.clause.key in keys)
    ]
    events = earlier + events
    return History(events[-MOST:], len(events) > MOST, since)


def _started_from(records: list[JournalRecord]) -> str | None:
    if records and records[0].ops and records[0].ops[0].op == "base":
        snapshot = records[0].ops[0].args.get("snapshot")
        return snapshot if isinstance(snapshot, str) else None
    return None


def _events(records: list[JournalRecord]) -> Iterator[tuple[Event, Mapping[str, Any]]]:
    for record in records:
        renames = any(op.op == "rename" for op in record.ops)
        by = record.by
        merged = by is not None and by.tool == MERGE_TOOL
        for op in record.ops:
            what = WHAT.get(op.op)
            if what is None or (renames and op.op == "describe"):
                continue  # a rename moves the description: part of the rename
            args = op.args
            text = _text(op.op, args)
            at = args.get("at")
            when = at if isinstance(at, str) and not merged else _iso(record.ts)
            handle = args.get("withdrawn", args.get("handle"))
            tool, client = _str(args.get("tool")), _str(args.get("client"))
            if merged or tool is None:
                tool, client = (by.tool, by.client) if by is not None else (None, None)
            yield (
                Event(
                    when,
                    f"merged in: {what}" if merged else what,
                    text,
                    handle if isinstance(handle, int) else None,
                    tool,
                    client,
                ),
                {"op": op.op, **args},
            )


def _names_of(records: list[JournalRecord], key: Key | None) -> set[Key]:
    """``key`` and the names the predicate had before the renames that led
    to it (read from the newest operation back)."""
    if key is None:
        return set()
    keys = {key}
    for record in reversed(records):
        for op in reversed(record.ops):
            if op.op == "rename" and (op.args.get("to"), op.args.get("arity")) in keys:
                keys.add((op.args["from"], op.args["arity"]))
    return keys


def _about(args: Mapping[str, Any], keys: set[Key], handle: int | None) -> bool:
    if handle is not None:
        return handle in (args.get("handle"), args.get("withdrawn"))
    op = args["op"]
    if op == "describe":
        return (args.get("name"), args.get("arity")) in keys
    if op == "rename":
        arity = args.get("arity")
        return (args.get("from"), arity) in keys or (args.get("to"), arity) in keys
    written = args.get("clause", args.get("fact"))
    return isinstance(written, str) and _key_of(written) in keys


def _key_of(text: str) -> Key | None:
    try:
        return Clause.from_term(read_term(text)).key
    except (PrologSyntaxError, TypeError, ValueError):
        return None


def _text(op: str, args: Mapping[str, Any]) -> str:
    if op == "describe":
        said = args.get("description") or "(the description taken away)"
        return f"{args.get('name')}/{args.get('arity')}: {said}"
    if op == "rename":
        return f"{args.get('from')}/{args.get('arity')} → {args.get('to')}/{args.get('arity')}"
    text = str(args.get("clause", args.get("fact", "")))
    assumption = args.get("assumption")
    return f"{text} ({assumption})" if isinstance(assumption, str) else text


def _iso(ts: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
