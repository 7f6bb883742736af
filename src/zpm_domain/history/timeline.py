"""A memory's timeline: every event its journal keeps, in commit order,
indexed by clause handle and by predicate, and the selections ``history``
makes of it.

The timeline is read from ``Journal.kept`` (every generation the storage
keeps) under the journal lock, caught up, and ends where the memory stands
(``Memory.batches``).  It is kept per memory and read again once the memory
has moved on or its older history was dropped (``Journal.prune``).
Batches are numbered as the memory numbers them: a generation's base
carries its own number (``StartFrom.batch``), the batches after it count
on; a generation from a journal older than that numbering starts again at
1, and the events before it are left out (their cursors would repeat).
"""

from __future__ import annotations

import bisect
import weakref
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from zpm_domain.errors import InvalidArguments
from zpm_domain.history.cursor import Cursor, Moment
from zpm_domain.history.events import Event, Key, batch_events
from zpm_domain.memory.memory import Memory
from zpm_domain.ports.journal import Journal, JournalRecord, KeptTail


@dataclass
class Timeline:
    """The events of one memory, oldest first (see the module documentation)."""

    events: list[Event]
    now: Cursor
    """Where the memory stood when the timeline was read: after its last batch."""
    first: int
    """The number of the oldest batch kept (1 when the whole history is
    kept; one past ``now`` when none is)."""
    stamps: array[int] = field(default_factory=lambda: array("q"))
    """The time of every batch kept, from number ``first`` on."""
    cursors: list[Cursor] = field(default_factory=list)
    """Each event's cursor, in order (for bisection)."""
    by_handle: dict[int, list[int]] = field(default_factory=dict)
    by_key: dict[Key, list[int]] = field(default_factory=dict)
    renames: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, records: Iterable[JournalRecord], batches: int) -> Timeline:
        """The timeline of ``records`` (every batch kept, oldest first), up
        to batch number ``batches``."""
        return cls.of_numbered(numbered(records, batches), batches)

    @classmethod
    def of_numbered(cls, kept: Sequence[tuple[int, JournalRecord]], batches: int) -> Timeline:
        """The timeline of the batches ``kept`` (:func:`numbered`), up to ``batches``."""
        timeline = cls([], Cursor(batches), kept[0][0] if kept else batches + 1)
        timeline._add(kept)
        return timeline

    def extend(self, kept: Sequence[tuple[int, JournalRecord]], batches: int) -> bool:
        """Add the batches ``kept`` after the last one it holds (numbered on
        from it, :func:`numbered`), up to batch number ``batches``, in place;
        ``False``, adding nothing, when they do not follow on one by one (a
        generation older than the numbering: read the whole history again)."""
        expected = range(self.now.batch + 1, self.now.batch + 1 + len(kept))
        if [number for number, _ in kept] != list(expected) or expected.stop - 1 != batches:
            return False
        if not self.stamps:
            self.first = self.now.batch + 1
        self._add(kept)
        self.now = Cursor(batches)
        return True

    def _add(self, kept: Sequence[tuple[int, JournalRecord]]) -> None:
        start = len(self.events)
        for number, record in kept:
            self.events.extend(batch_events(record, number))
        self.stamps.extend(record.ts for _, record in kept)
        self._index(start)

    def batch_at(self, seconds: int) -> int:
        """The number of the last batch committed before ``seconds`` (the
        one before the oldest kept when none is)."""
        before = bisect.bisect_left(self.stamps, seconds)
        return self.first + before - 1

    def _index(self, start: int) -> None:
        """Index the events from position ``start`` on."""
        self.cursors.extend(event.cursor for event in self.events[start:])
        for position in range(start, len(self.events)):
            event = self.events[position]
            for handle in event.handles:
                self.by_handle.setdefault(handle, []).append(position)
            if event.key is not None:
                self.by_key.setdefault(event.key, []).append(position)
            if event.renamed_from is not None:
                self.renames.append(position)

    def of_predicate(self, key: Key) -> list[int]:
        """The positions of the events of predicate ``key``, under the names
        it had before the renames that led to it too, in order; a name's
        events from before a predicate was renamed away from it are that
        other predicate's."""
        found: list[int] = []
        current, end = key, len(self.events)
        for position in reversed(self.renames):
            if position >= end:
                continue
            event = self.events[position]
            if event.renamed_from == current:  # renamed away: another predicate before it
                return _between(self.by_key.get(current, []), position + 1, end) + found
            if event.key == current and event.renamed_from is not None:
                found[:0] = _between(self.by_key.get(current, []), position, end)
                current, end = event.renamed_from, position
        found[:0] = _between(self.by_key.get(current, []), 0, end)
        return found

    def names(self, key: Key) -> set[Key]:
        """``key`` and the names the predicate had before the renames that
        led to it."""
        found, current, end = {key}, key, len(self.events)
        for position in reversed(self.renames):
            event = self.events[position]
            if position < end and event.key == current and event.renamed_from is not None:
                current, end = event.renamed_from, position
                found.add(current)
        return found


def numbered(
    records: Iterable[JournalRecord], batches: int, after: int = 0
) -> list[tuple[int, JournalRecord]]:
    """Each of ``records`` (every batch kept, oldest first; or those after
    batch number ``after``) with its number in the memory's history, up to
    number ``batches``; when a generation older than the numbering starts
    again at 1, only the batches from it on (see the module documentation)."""
    found: list[tuple[int, JournalRecord]] = []
    number = after
    for record in records:
        start = record.ops[0] if record.ops and record.ops[0].op == "base" else None
        if start is None:
            number += 1
        else:
            given = start.args.get("batch")
            if isinstance(given, int) and not isinstance(given, bool) and given > 0:
                number = given
            else:  # numbered from 1 again: what came before cannot be told apart
                number = 1
                found.clear()
        if number > batches:
            break
        found.append((number, record))
    return found


def _between(positions: Sequence[int], low: int, high: int) -> list[int]:
    return list(positions[bisect.bisect_left(positions, low) : bisect.bisect_left(positions, high)])


@dataclass
class _Read:
    """A memory's timeline as last read: where the memory stood
    (``Memory.changes``), which reading of its journal that was
    (``Memory.reading``), the history kept then (``Journal.kept_since``),
    and where the batches read end (``Journal.kept_after``; ``None``: read
    it whole next time)."""

    changes: str
    reading: str
    since: str
    line: Timeline
    mark: object | None
    whole: bool = True
    """Whether it holds every batch kept (else from one generation on)."""


_READ: weakref.WeakKeyDictionary[Memory, _Read] = weakref.WeakKeyDictionary()


def timeline(memory: Memory, after: Cursor | None = None) -> Timeline:
    """The timeline of ``memory`` as it stands now (caught up with the
    other processes' batches first).  Once read, what the memory committed
    since is read alone and added to it (an agent's changes feed after its
    own writes costs what they added); it is read whole again after the
    memory opened again or read a rewound journal again, after a prune, or
    when the journal cannot tell what was added (``Journal.kept_after``).

    A caller that needs only the events after cursor ``after`` (the changes
    feed, ``zpm_domain.history.recent``) may get a timeline that starts with
    the generation holding it (its ``first``), read without the generations
    before: a server's first feed costs what changed lately, not what the
    memory ever did.  A timeline read whole is never given up for a part."""
    with memory.journal.lock():
        memory.sync()
        since, batches = memory.journal.kept_since(), memory.batches
        read = _READ.get(memory)
        covers = read is not None and (
            read.whole or (after is not None and after.batch >= read.line.first)
        )
        if read is not None and covers and (read.changes, read.since) == (memory.changes, since):
            return read.line
        line, tail, kept, whole = None, None, None, True
        if read is not None and covers and read.mark is not None and read.since == since:
            if read.reading == memory.reading:
                tail = memory.journal.kept_after(read.mark)
                if not tail.whole:
                    kept = numbered(tail.records, batches, after=read.line.now.batch)
                    if read.line.extend(kept, batches):
                        line, whole = read.line, read.whole
        if line is None and after is not None and after.batch > 0:
            if read is None or not read.whole:
                found = kept_from(memory.journal, after.batch)
                if found is not None:
                    first, tail = found
                    kept = numbered(tail.records, batches, after=first - 1)
                    line, whole = Timeline.of_numbered(kept, batches), tail.whole
        if line is None:
            if tail is None or not tail.whole:  # else: every batch kept, read just now
                tail = memory.journal.kept_after(None)
            kept = numbered(tail.records, batches)
            line, whole = Timeline.of_numbered(kept, batches), True
        assert tail is not None and kept is not None
        mark = tail.mark if len(kept) == len(tail.records) else None  # some not taken
        _READ[memory] = _Read(memory.changes, memory.reading, since, line, mark, whole)
    return line


def read_whole(memory: Memory) -> bool:
    """Whether the timeline of every batch ``memory`` keeps was read (it is
    brought up to date from then on, never read whole again unless the
    journal cannot tell what was added)."""
    read = _READ.get(memory)
    return read is not None and read.whole


def kept_from(journal: Journal, batch: int) -> tuple[int, KeptTail] | None:
    """The number of the first batch of the generation that holds batch
    ``batch``, and every batch kept from it on (``Journal.kept_from_generation``),
    read without the generations before it; ``None`` when that cannot be
    told (:func:`generation_firsts`), no generation kept holds it, or the
    journal changed meanwhile."""
    found = _holding(journal, batch)
    if found is None:
        return None
    index, first, start = found
    tail = journal.kept_from_generation(index)
    if not tail.records or tail.records[0] != start:
        return None
    return first, tail


def generation_of(journal: Journal, batch: int) -> tuple[int, list[JournalRecord]] | None:
    """The number of the first batch of the generation that holds batch
    ``batch``, and that generation's batches (``Journal.kept_generation``),
    read alone; ``None`` as for :func:`kept_from`."""
    found = _holding(journal, batch)
    if found is None:
        return None
    index, first, start = found
    generation = journal.kept_generation(index)
    if not generation or generation[0] != start:
        return None
    return first, generation


def _holding(journal: Journal, batch: int) -> tuple[int, int, JournalRecord] | None:
    """The index of the generation kept that holds batch ``batch``, the
    number of its first batch and that batch (``None``: it cannot be told)."""
    starts = journal.kept_starts()
    firsts = generation_firsts(starts)
    chosen = [i for i, first in enumerate(firsts or []) if first <= batch]
    if firsts is None or not chosen:
        return None
    return chosen[-1], firsts[chosen[-1]], starts[chosen[-1]]


def generation_firsts(starts: Sequence[JournalRecord]) -> list[int] | None:
    """The number of the first batch of each generation whose first batch
    is ``starts`` (``Journal.kept_starts``); ``None`` when a generation's
    start does not carry its number (a journal older than the numbering)."""
    firsts: list[int] = []
    for index, record in enumerate(starts):
        start = record.ops[0] if record.ops and record.ops[0].op == "base" else None
        given = None if start is None else start.args.get("batch")
        if isinstance(given, int) and not isinstance(given, bool) and given > 0:
            firsts.append(given)
        elif start is None and index == 0:
            firsts.append(1)  # a memory's first generation, from its knowledge files alone
        else:
            return None
    return firsts


@dataclass(frozen=True, slots=True)
class Selection:
    """Events a ``history`` call asked for, in the order asked; ``more``:
    others came after the last one (in that order)."""

    events: list[Event]
    more: bool


@dataclass(frozen=True, slots=True)
class Question:
    """What a ``history`` call asks: the events about a clause (``handle``)
    or a predicate (``key``), by ``client`` with ``tool``, from ``since``
    (after a cursor; at or after a time) to ``until`` (up to a cursor,
    itself included; before a time), newest first or not, after ``page``
    (a cursor in that order), at most ``limit``."""

    handle: int | None = None
    key: Key | None = None
    client: str | None = None
    tool: str | None = None
    since: Moment | None = None
    until: Moment | None = None
    newest_first: bool = True
    page: Cursor | None = None
    limit: int = 50


def select(line: Timeline, question: Question) -> Selection:
    """The events of ``line`` that ``question`` asks for."""
    for moment, name in ((question.since, "since"), (question.until, "until")):
        if moment is not None and moment.cursor is not None and moment.cursor > line.now:
            raise InvalidArguments(
                f"{name} {moment.cursor.text} is ahead of this memory's history, "
                f"which stands at {line.now.text}"
            )
    low, high = _window(line, question)
    positions: Sequence[int]
    if question.handle is not None:
        positions = line.by_handle.get(question.handle, [])
        if question.key is not None:
            kept = set(line.of_predicate(question.key))
            positions = [p for p in positions if p in kept]
        positions = _between(positions, low, high)
    elif question.key is not None:
        positions = _between(line.of_predicate(question.key), low, high)
    else:
        positions = range(low, high)
    ordered = reversed(positions) if question.newest_first else iter(positions)
    chosen: list[Event] = []
    for position in ordered:
        event = line.events[position]
        if not _wanted(event, question):
            continue
        if len(chosen) == question.limit:
            return Selection(chosen, True)
        chosen.append(event)
    return Selection(chosen, False)


def _window(line: Timeline, question: Question) -> tuple[int, int]:
    """The positions the cursors of ``question`` leave: from after
    ``since`` up to ``until`` (itself included), and past ``page`` in the
    order asked (events are in cursor order: found by bisection)."""
    cursors = line.cursors
    low, high = 0, len(cursors)
    if question.since is not None and question.since.cursor is not None:
        low = bisect.bisect_right(cursors, question.since.cursor)
    if question.until is not None and question.until.cursor is not None:
        high = bisect.bisect_right(cursors, question.until.cursor)
    page = question.page
    if page is not None and question.newest_first:
        high = min(high, bisect.bisect_left(cursors, page))
    elif page is not None:
        low = max(low, bisect.bisect_right(cursors, page))
    return low, max(low, high)


def _wanted(event: Event, question: Question) -> bool:
    if question.client is not None and event.client != question.client:
        return False
    if question.tool is not None and event.tool != question.tool:
        return False
    page = question.page
    if page is not None and (
        event.cursor >= page if question.newest_first else event.cursor <= page
    ):
        return False
    since, until = question.since, question.until
    if since is not None:
        if since.cursor is not None and event.cursor <= since.cursor:
            return False
        if since.seconds is not None and event.ts < since.seconds:
            return False
    if until is not None:
        if until.cursor is not None and event.cursor > until.cursor:
            return False
        if until.seconds is not None and event.ts >= until.seconds:
            return False
    return True
