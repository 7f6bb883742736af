"""What each journal batch did, as events a person or an agent reads.

An event is one change a committed batch made to a memory: a clause stored,
removed or withdrawn, an assumption retracted, a predicate described or
renamed, a snapshot saved, restored or imported, a fork made, a revert (a
generation that starts from the state it went back to), a merge (the
changes it brought follow it as events of their own), or the knowledge
files changed (recorded by the first start that found them so, by no tool).  It is read
from the journal operation as written (its clause text, its handles), never
applied, so a history shows what was done, including what later changes
undid.  Who made it is the batch's author (the tool of the call and its
client); a batch journaled before batches recorded their author falls back
on the provenance its operation carries.  Operations that only keep the
memory's own bookkeeping (handles given to old clauses, a fork point moved)
make no event.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.history.cursor import Cursor
from zpm_domain.ports.journal import Author, JournalRecord
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.reader.facts import read_canonical_fact
from zpm_domain.stored.clauses import Clause
from zpm_domain.stored.handles import is_handle

Key = tuple[str, int]

KINDS = {
    "assert": "stored",
    "assume": "assumed",
    "support_plainly": "held plainly",
    "unsupport": "support taken",
    "retract": "removed",
    "retractall": "removed",
    "remove": "removed",
    "withdraw": "withdrawn",
    "describe": "described",
    "rename": "renamed",
    "retract_assumption": "assumption retracted",
    "merge": "merged",
    "kb": "knowledge files changed",
}
"""The event each clause or predicate operation makes (``base`` makes one of
``START_KINDS``; the others make none)."""

START_KINDS = ("saved", "restored", "imported", "forked", "started")
"""The events of a generation's start: a save, a restore, an import, a new
fork, or a start from the knowledge files alone."""

RESTORE_TOOL = "restore_snapshot"


@dataclass(frozen=True, slots=True)
class Event:
    """One change: its ``cursor``, its batch's time (``ts``, seconds), what
    it was (``kind``: a value of ``KINDS`` or ``START_KINDS``), the text it
    was about (a clause, a pattern, a description, a rename, an assumption,
    a snapshot's name), the predicate (``None`` for a start or an
    assumption), the handles of the clauses it concerns, who made it."""

    cursor: Cursor
    ts: int
    kind: str
    text: str
    key: Key | None
    handles: tuple[int, ...]
    tool: str | None
    client: str | None
    renamed_from: Key | None = None
    """A rename's old name (``key`` is its new one)."""


def batch_events(record: JournalRecord, batch: int) -> Iterator[Event]:
    """The events of ``record``, numbered batch ``batch``, in operation order."""
    count = 0
    renames = any(op.op == "rename" for op in record.ops)
    for op in record.ops:
        if renames and op.op == "describe":
            continue  # a rename moves the description with it: part of the rename
        made = _event(op.op, op.args, record.by)
        if made is None:
            continue
        count += 1
        kind, text, key, handles, author = made
        old = None
        if op.op == "rename" and key is not None:
            old = _key(op.args.get("from"), op.args.get("arity"))
        yield Event(
            Cursor(batch, count),
            record.ts,
            kind,
            text,
            key,
            handles,
            author.tool,
            author.client,
            old,
        )


def _event(
    op: str, args: Mapping[str, Any], by: Author | None
) -> tuple[str, str, Key | None, tuple[int, ...], Author] | None:
    author = by if by is not None else Author(_str(args.get("tool")), _str(args.get("client")))
    if op == "base":
        if args.get("checkpoint") is True:
            return None  # the memory's own state, kept: nothing changed
        reverted = args.get("revert")
        if reverted is not None:
            return "reverted", f"to {reverted}", None, (), author
        return _start(args, author), _str(args.get("snapshot")) or "", None, (), author
    kind = KINDS.get(op)
    if kind is None:
        return None
    if op == "describe":
        key = _key(args.get("name"), args.get("arity"))
        said = _str(args.get("description")) or "(the description taken away)"
        return kind, f"{_name(key)}: {said}", key, (), author
    if op == "rename":
        arity, qualifier = args.get("arity"), _str(args.get("qualifier"))
        old, new = _key(args.get("from"), arity), _key(args.get("to"), arity)
        if qualifier is not None:  # the calls of this memory's rules into another
            text = f"{qualifier}:{_name(old)} → {qualifier}:{_name(new)}"
            return kind, text, None, (), author
        return kind, f"{_name(old)} → {_name(new)}", new, (), author
    if op == "merge":
        return kind, f"from fork {args.get('fork')}", None, (), author
    if op == "kb":
        files = args.get("files")
        names = [f["name"] for f in files if isinstance(f, dict)] if isinstance(files, list) else []
        if not names and args.get("first") is True:
            return None  # no files, and none before: nothing changed
        return kind, ", ".join(str(name) for name in names) or "(none)", None, (), author
    if op == "retract_assumption":
        return kind, str(args.get("assumption", "")), None, _handles(args.get("took")), author
    text = str(args.get("clause", args.get("fact", "")))
    assumption, reason = args.get("assumption"), args.get("reason")
    if isinstance(assumption, str):
        shown = f"{text} ({assumption})"
    elif isinstance(reason, str):
        shown = f"{text} ({reason})"
    else:
        shown = text
    handles = _handles(args.get("took")) + _handles(args.get("withdrawn"), args.get("handle"))
    return kind, shown, key_of(text), handles, author


def _start(args: Mapping[str, Any], by: Author) -> str:
    if args.get("fork_point") is True:
        return "forked"
    if args.get("saved_at") is not None:
        return "saved"
    if by.tool == RESTORE_TOOL:
        return "restored"
    return "started" if args.get("snapshot") is None else "imported"


_PLAIN = re.compile(r"([a-z][A-Za-z0-9_]*)\(([^()\[\]\"'{}|]*)\)")
"""A fact whose arguments are plain words and numbers (no nesting, no
quotes): its arguments are its commas plus one."""


def key_of(text: str) -> Key | None:
    """The predicate of a clause's text (``None`` when it does not read)."""
    plain = _PLAIN.fullmatch(text)
    if plain is not None:
        return (plain.group(1), plain.group(2).count(",") + 1)
    fact = read_canonical_fact(text)
    if fact is not None:
        return (fact.name, len(fact.args))
    try:
        return Clause.from_term(read_term(text)).key
    except (PrologSyntaxError, TypeError, ValueError):
        return None


def _key(name: object, arity: object) -> Key | None:
    if isinstance(name, str) and isinstance(arity, int) and not isinstance(arity, bool):
        return (name, arity)
    return None


def _name(key: Key | None) -> str:
    return "?" if key is None else f"{key[0]}/{key[1]}"


def _handles(*values: object) -> tuple[int, ...]:
    found: list[int] = []
    for value in values:
        if value is None:
            continue
        for handle in value if isinstance(value, list) else (value,):
            if type(handle) is int and is_handle(handle) and handle not in found:
                found.append(handle)
    return tuple(found)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
