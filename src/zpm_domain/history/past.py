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

import contextlib
import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial

from zpm_domain.changes import from_journal
from zpm_domain.changes.generation import StartFrom
from zpm_domain.changes.marks import KnowledgeMark, KnowledgeText
from zpm_domain.errors import InvalidArguments, RecoveryFailed
from zpm_domain.history.cursor import Cursor, Moment
from zpm_domain.history.timeline import (
    Timeline,
    generation_firsts,
    generation_of,
    numbered,
    timeline,
)
from zpm_domain.memory.memory import Memory
from zpm_domain.ports.journal import Author, Journal, JournalOp, JournalRecord
from zpm_domain.ports.snapshots import SnapshotInfo, SnapshotStore
from zpm_domain.ports.storage import ForkInfo, KnowledgeFile, MemoryStorage
from zpm_domain.stored.provenance import iso_time

_ID = re.compile(r"^%% id: (\S+)$", re.MULTILINE)
HEADER_CHARS = 4096
"""Where a snapshot's header ends at the latest (``snapshot_format``)."""

KEPT_REPLICAS = 2
"""How many replicas of one memory's past stay open (the most recently used)."""


class PastJournal(Journal):
    """The batches a replica replays, given once to its first ``read_new``."""

    def __init__(self, records: Sequence[JournalRecord], label: str) -> None:
        self._records = list(records)
        self._unread = list(records)
        self._label = label
        self._lock = threading.RLock()

    @property
    def label(self) -> str:
        return self._label

    def append(self, ops: Sequence[JournalOp], by: Author | None = None) -> None:
        raise PermissionError(f"{self._label}: the past is not written")

    def rotate(self, first: Sequence[JournalOp], by: Author | None = None) -> None:
        raise PermissionError(f"{self._label}: the past is not written")

    def read_new(self) -> list[JournalRecord]:
        unread, self._unread = self._unread, []
        return unread

    def generation(self) -> list[JournalRecord]:
        return list(self._records)

    def size_bytes(self) -> int:
        return 0

    def pending(self) -> int:
        return len(self._records)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        with self._lock:
            yield

    def close(self) -> None:
        pass


class PastSnapshots(SnapshotStore):
    """A memory's snapshots as a replica of its past reads them: each
    generation start it replays gets the very snapshot it recorded (its
    content id), the named one while it is still that one, else the base
    the history kept (``SnapshotStore.kept_base``)."""

    def __init__(self, store: SnapshotStore, records: Sequence[JournalRecord]) -> None:
        self._store = store
        self._wanted: dict[str, list[str]] = {}
        for place, record in enumerate(records):
            if _is_start(record) and (place == 0 or not _is_save(record)):
                args = record.ops[0].args
                name, wanted = args.get("snapshot"), args.get("id")
                if isinstance(name, str) and isinstance(wanted, str):
                    self._wanted.setdefault(name, []).append(wanted)

    def write(self, name: str, text: str) -> None:
        raise PermissionError(f"{self._store.label(name)}: the past is not written")

    def read(self, name: str) -> str:
        queue = self._wanted.get(name)
        if not queue:
            return self._store.read(name)
        return _snapshot_as_recorded(self._store, name, queue.pop(0))

    def list(self) -> list[SnapshotInfo]:
        return self._store.list()

    def label(self, name: str) -> str:
        return self._store.label(name)


class PastStorage(MemoryStorage):
    """A memory's storage as a replica of its past sees it: its snapshots
    (:class:`PastSnapshots`) and knowledge files, read only, and the batches
    it replays."""

    def __init__(
        self,
        storage: MemoryStorage,
        journal: PastJournal,
        knowledge: Sequence[KnowledgeText] | None = None,
    ) -> None:
        self._storage = storage
        self._journal = journal
        self._snapshots = PastSnapshots(storage.snapshots, journal.generation())
        self._knowledge = knowledge

    @property
    def journal(self) -> Journal:
        return self._journal

    @property
    def snapshots(self) -> SnapshotStore:
        return self._snapshots

    @property
    def location(self) -> str:
        return self._storage.location

    def knowledge_files(self) -> list[KnowledgeFile]:
        now = self._storage.knowledge_files()
        if self._knowledge is None:
            return now
        labels = {file.name or file.label: file.label for file in now}
        return [
            KnowledgeFile(labels.get(file.name, file.name), file.text, file.error, file.name)
            for file in self._knowledge
        ]

    def writable(self) -> bool:
        return False

    def memory_id(self, *, give: bool) -> int | None:
        return self._storage.memory_id(give=False)

    def fork_info(self) -> ForkInfo | None:
        return self._storage.fork_info()

    def read_fork_point(self) -> str:
        return self._storage.read_fork_point()

    def fork_point_label(self) -> str:
        return self._storage.fork_point_label()

    def close(self) -> None:
        pass


class Past:
    """The replicas of one memory's past, the last :data:`KEPT_REPLICAS` used."""

    def __init__(self, memory: Memory) -> None:
        self._memory = weakref.ref(memory)
        self._replicas: OrderedDict[int, tuple[Memory, str]] = OrderedDict()

    def cached(self, batch: int, kept_since: str) -> Memory | None:
        """The replica right after batch ``batch``, if it is open and the
        history it was read from is still kept as it was (``kept_since``:
        ``Journal.kept_since`` now)."""
        found = self._replicas.get(batch)
        if found is None:
            return None
        replica, mark = found
        if mark != kept_since:  # pruned since: the moment may be gone
            del self._replicas[batch]
            _drop(replica)
            return None
        self._replicas.move_to_end(batch)
        return replica

    def at(
        self,
        batch: int,
        records: Sequence[JournalRecord],
        kept_since: str,
        knowledge: str | None,
    ) -> Memory:
        """The replica right after batch ``batch`` (``records``: the batches
        kept up to it, oldest first: every one, or those of its generation
        alone; ``kept_since``: ``Journal.kept_since``; ``knowledge``: the
        digest of the files the memory has now, which a generation that
        started with the same files reads as they are)."""
        memory = self._memory()
        assert memory is not None
        replica = self.cached(batch, kept_since)
        if replica is not None:
            return replica
        replica = _replica(memory, batch, records, knowledge)
        self._replicas[batch] = (replica, kept_since)
        while len(self._replicas) > KEPT_REPLICAS:
            _, (old, _) = self._replicas.popitem(last=False)
            _drop(old)
        return replica

    def close(self) -> None:
        """Drop every replica (their namespaces leave the engine)."""
        while self._replicas:
            _drop(self._replicas.popitem()[1][0])


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


def _replica(
    memory: Memory, batch: int, records: Sequence[JournalRecord], knowledge: str | None
) -> Memory:
    """Open the replica of ``memory`` right after batch ``batch``, from the
    newest generation start at or before it whose snapshot is as it was."""
    starts = [i for i, record in enumerate(records) if _is_start(record)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)  # the oldest batches kept, from the knowledge files alone
    for index in reversed(starts):
        lost = _lost_snapshot(memory, records[index]) if records else None
        if lost is not None:
            if index != starts[0] and _is_save(records[index]):
                continue  # a save: the generation before it ends in the state it held
            raise RecoveryFailed(
                f"memory {memory.name} as of cursor {batch} started from snapshot {lost}, "
                "which has been saved over or deleted since (and was saved before zpm kept "
                "the snapshots its history starts from)"
            )
        journal = PastJournal(records[index:], memory.journal.label)
        replica = Memory(
            memory.name,
            memory.engine,
            PastStorage(memory.storage, journal, _knowledge_then(memory, records, knowledge)),
            scope=memory.scope,
            mode="ro",
            clock=memory.clock,
            version=memory.version,
            namespace=f"{memory.namespace}@{batch}",
        )
        try:
            replica.open()
        except BaseException:
            _drop(replica)
            raise
        replica.aliases = {memory.name: replica.namespace}  # a goal naming it reads it then
        return replica
    raise AssertionError("unreachable: the oldest start opens or raises")


def _knowledge_then(
    memory: Memory, records: Sequence[JournalRecord], knowledge: str | None
) -> tuple[KnowledgeText, ...] | None:
    """The knowledge files the newest ``kb`` record at or before the end of
    ``records`` names (``None``: the files as they are now).  When
    ``records`` are one generation's alone (``knowledge`` given) and hold
    none: the files now if the generation started with files of the same
    digest, else the whole history is searched."""
    found = _newest_mark(records)
    if found is not None or knowledge is None:
        return found
    start = records[0].ops[0] if records and records[0].ops else None
    if start is not None and start.op == StartFrom.op and start.args.get("kb") == knowledge:
        return None
    with memory.journal.lock():
        kept = memory.journal.kept()
    cut = next((i for i, record in enumerate(kept) if record == records[0]), len(kept))
    return _newest_mark(kept[:cut])


def _newest_mark(records: Sequence[JournalRecord]) -> tuple[KnowledgeText, ...] | None:
    """The files the newest ``kb`` record of ``records`` names, if any does."""
    for record in reversed(records):
        for op in reversed(record.ops):
            if op.op == KnowledgeMark.op:
                mark = from_journal(op)
                assert isinstance(mark, KnowledgeMark)
                return mark.files
    return None


def _lost_snapshot(memory: Memory, record: JournalRecord) -> str | None:
    """The name of the snapshot generation start ``record`` loads, when the
    snapshot under that name is no longer the one it recorded; else ``None``."""
    if not _is_start(record):
        return None
    args = record.ops[0].args
    name, wanted = args.get("snapshot"), args.get("id")
    if not isinstance(name, str) or not isinstance(wanted, str):
        return None
    try:
        _snapshot_as_recorded(memory.snapshots, name, wanted)
    except (KeyError, OSError, UnicodeDecodeError):
        return name
    return None


def _snapshot_as_recorded(store: SnapshotStore, name: str, wanted: str) -> str:
    """The text of snapshot ``name`` as a start recorded it (content id
    ``wanted``): the named one while it is that one, else the base the
    history kept; ``KeyError`` when neither is."""
    try:
        text = store.read(name)
    except KeyError:
        text = None
    if text is not None:
        found = _ID.search(text, 0, HEADER_CHARS)
        if found is not None and found.group(1) == wanted:
            return text
    try:
        return store.kept_base(wanted)
    except KeyError:
        raise KeyError(name) from None


def _is_start(record: JournalRecord) -> bool:
    return bool(record.ops) and record.ops[0].op == "base"


def _is_save(record: JournalRecord) -> bool:
    return record.ops[0].args.get("saved_at") is not None


def _drop(replica: Memory) -> None:
    replica.engine.drop_namespace(replica.namespace)
