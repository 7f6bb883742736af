"""A memory as it was: a read-only replica recovered from its kept history.

The state of a memory right after batch ``N`` of its history is what
recovery builds from the generation that batch belongs to: the knowledge
files, the generation's starting snapshot, and its batches up to ``N``.  A
replica is exactly that: a :class:`~zpm_domain.memory.memory.Memory` in an
engine namespace of its own (``<name>@<N>``), opened by the same recovery
code from a journal that holds those batches alone, so it answers every read
as the memory did then, by construction.  Each generation start gets the
very snapshot it recorded: the named one while it is still that one, else
the copy the history kept when the generation began
(``SnapshotStore.keep_base``); a generation started by a save that has
neither (saved before zpm kept them) is replayed from the generation before
it instead (the save held the very state that generation ended with).

A replica is never written: its storage refuses, and it is mounted
read-only.  The last few replicas asked for are kept per memory.  Its
knowledge files are those the history recorded last at or before its
moment (``changes.marks.KnowledgeMark``), each under the label the file of
that name has now (its name when there is none); a moment older than any
record kept reads the files as they are now.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from zpm_domain.changes.generation import StartFrom
from zpm_domain.errors import InvalidArguments, RecoveryFailed
from zpm_domain.history.cursor import Cursor, Moment
from zpm_domain.history.replicas import Past
from zpm_domain.history.timeline import (
    Timeline,
    generation_firsts,
    generation_of,
    numbered,
    timeline,
)
from zpm_domain.memory.memory import Memory
from zpm_domain.ports.journal import Journal, JournalRecord
from zpm_domain.stored.provenance import iso_time

_PASTS: weakref.WeakKeyDictionary[Memory, Past] = weakref.WeakKeyDictionary()


def as_of(
    memory: Memory,
    moment: Moment,
    base_of: Callable[[], Memory] | None = None,
    *,
    replica: bool = False,
) -> Memory:
    """``memory`` as it was at ``moment`` (caught up first): the memory
    itself when nothing changed since (unless ``replica``: a read whose
    goals reach other memories as they were needs one of its own), else a
    replica of its past, whose ``batches`` is the number of the last batch
    it holds.  For a fork, a moment before it was made is its base's at that
    moment (``base_of`` gives the base; its batches number as the fork's do
    up to the fork).  ``InvalidArguments`` for a cursor ahead of the
    memory's history or a moment before what it keeps."""
    past = _PASTS.get(memory)
    if past is not None and moment.cursor is not None:  # a moment read before, still kept
        found = past.cached(moment.cursor.batch, memory.journal.kept_since())
        if found is not None:
            return found
    kept_history = _kept_history(memory)
    now = kept_history.now
    if moment.cursor is not None:
        if moment.cursor.batch > now:
            raise InvalidArguments(
                f"as_of {moment.cursor.text} is ahead of this memory's history, "
                f"which stands at {now}"
            )
        batch = moment.cursor.batch
    else:
        batch = kept_history.batch_at(moment.seconds or 0)
    if batch == now and not replica:
        return memory
    first = kept_history.first
    if first > 1 and batch < first:  # before the oldest generation kept starts
        if memory.fork is not None and base_of is not None and kept_history.forked:
            earlier = moment if moment.cursor is None else Moment(cursor=Cursor(batch))
            return as_of(base_of(), earlier)
        raise _before(memory, moment, first, kept_history.since)
    if past is None:
        past = _PASTS[memory] = Past(memory)
        weakref.finalize(memory, past.close)  # its replicas leave the engine with it
    mark = memory.journal.kept_since()
    found = past.cached(batch, mark)
    if found is not None:
        return found
    with memory.journal.lock():
        generation = _generation_of(memory.journal, batch)
    if generation is not None:
        try:
            return past.at(batch, generation, mark, memory.knowledge_digest)
        except RecoveryFailed:
            pass  # its start cannot be read: from the whole history, as below
    with memory.journal.lock():
        kept = numbered(memory.journal.kept(), batch)
    if not kept and batch > 0:  # pruned by another process meanwhile
        raise _before(memory, moment, batch + 1, None)
    return past.at(batch, [record for _, record in kept], mark, None)


def _generation_of(journal: Journal, batch: int) -> list[JournalRecord] | None:
    """The batches of the generation that holds batch ``batch``, up to it,
    read alone (``timeline.kept_from``); ``None`` when that cannot be told."""
    found = generation_of(journal, batch)
    if found is None:
        return None
    first, records = found
    return [record for _, record in numbered(records, batch, after=first - 1)]


@dataclass(frozen=True, slots=True)
class _KeptHistory:
    """What a read of the past needs to know of a memory's kept history:
    where the memory stands (``now``), its oldest batch kept (``first``) and
    that batch's time (``since``), whether that batch made the fork, and the
    last batch committed before a time (``batch_at``)."""

    now: int
    first: int
    since: int | None
    forked: bool
    batch_at: Callable[[int], int]


def _kept_history(memory: Memory) -> _KeptHistory:
    """:class:`_KeptHistory` from the first batch of each generation kept
    (``Journal.kept_starts``), without reading the history's events; from
    the timeline for a journal older than the numbering."""
    with memory.journal.lock():
        memory.sync()
        now, starts = memory.batches, memory.journal.kept_starts()
    firsts = generation_firsts(starts)
    if firsts is None:
        line = timeline(memory)
        since = line.stamps[0] if line.stamps else None
        return _KeptHistory(line.now.batch, line.first, since, _forked_at(line), line.batch_at)
    start = starts[0].ops[0] if starts and starts[0].ops else None
    forked = start is not None and start.op == StartFrom.op and start.args.get("fork_point") is True
    return _KeptHistory(
        now,
        firsts[0] if firsts else now + 1,
        starts[0].ts if starts else None,
        forked,
        partial(_batch_at, memory, starts, firsts, now),
    )


def _batch_at(
    memory: Memory, starts: Sequence[JournalRecord], firsts: Sequence[int], now: int, seconds: int
) -> int:
    """The number of the last batch committed before ``seconds`` (the one
    before the oldest kept when none is), read from the generation that
    holds it alone (batches are committed in time order)."""
    begun = [index for index, start in enumerate(starts) if start.ts < seconds]
    if not begun:
        return (firsts[0] if firsts else now + 1) - 1
    index = begun[-1]
    with memory.journal.lock():
        records = memory.journal.kept_generation(index)
    kept = numbered(records, now, after=firsts[index] - 1)
    before = [number for number, record in kept if record.ts < seconds]
    return before[-1] if before else firsts[index] - 1


def _forked_at(line: Timeline) -> bool:
    """Whether the oldest batch kept is the one that made the fork (its
    history before it is its base's)."""
    return (
        bool(line.events)
        and line.events[0].kind == "forked"
        and (line.events[0].cursor.batch == line.first)
    )


def _before(memory: Memory, moment: Moment, first: int, since: int | None) -> InvalidArguments:
    shown = moment.cursor.text if moment.cursor is not None else iso_time(moment.seconds or 0)
    horizon = "now" if since is None else iso_time(since)
    return InvalidArguments(
        f"as_of {shown} is before the history memory {memory.name} keeps "
        f"(it starts at {horizon}, cursor {first})"
    )
