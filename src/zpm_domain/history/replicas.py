"""Replicas of a memory's past: each a ``Memory`` opened read-only in an engine
namespace of its own (``<name>@<N>``) from the kept batches up to its moment
(:func:`open_replica`), the last few used kept open per memory
(:class:`Past`).  See ``zpm_domain.history.past``.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Sequence

from zpm_domain.changes import from_journal
from zpm_domain.changes.generation import StartFrom
from zpm_domain.changes.marks import KnowledgeMark, KnowledgeText
from zpm_domain.errors import RecoveryFailed
from zpm_domain.history.past_storage import (
    PastJournal,
    PastStorage,
    is_save,
    is_start,
    snapshot_as_recorded,
)
from zpm_domain.memory.memory import Memory
from zpm_domain.ports.journal import JournalRecord

KEPT_REPLICAS = 2
"""How many replicas of one memory's past stay open (the most recently used)."""


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
            drop(replica)
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
        replica = open_replica(memory, batch, records, knowledge)
        self._replicas[batch] = (replica, kept_since)
        while len(self._replicas) > KEPT_REPLICAS:
            _, (old, _) = self._replicas.popitem(last=False)
            drop(old)
        return replica

    def close(self) -> None:
        """Drop every replica (their namespaces leave the engine)."""
        while self._replicas:
            drop(self._replicas.popitem()[1][0])


def open_replica(
    memory: Memory, batch: int, records: Sequence[JournalRecord], knowledge: str | None
) -> Memory:
    """Open the replica of ``memory`` right after batch ``batch``, from the
    newest generation start at or before it whose snapshot is as it was."""
    starts = [i for i, record in enumerate(records) if is_start(record)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)  # the oldest batches kept, from the knowledge files alone
    for index in reversed(starts):
        lost = _lost_snapshot(memory, records[index]) if records else None
        if lost is not None:
            if index != starts[0] and is_save(records[index]):
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
            drop(replica)
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
    if not is_start(record):
        return None
    args = record.ops[0].args
    name, wanted = args.get("snapshot"), args.get("id")
    if not isinstance(name, str) or not isinstance(wanted, str):
        return None
    try:
        snapshot_as_recorded(memory.snapshots, name, wanted)
    except (KeyError, OSError, UnicodeDecodeError):
        return name
    return None


def drop(replica: Memory) -> None:
    """Take ``replica``'s clauses out of the engine."""
    replica.engine.drop_namespace(replica.namespace)
