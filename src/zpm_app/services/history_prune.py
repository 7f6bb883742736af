"""``zpm history prune``: drop a project's history older than a moment.

Each memory's journal drops its archived generations whose every batch is
older than the moment (``Journal.prune``), and its snapshots the copies kept
for the generations dropped (``SnapshotStore.drop_base``): the history kept stays whole
generations up to the current one, so the state is never touched and every
moment kept can still be read (``as_of``); reads before the new horizon
answer an error naming it.  Works on files and on a database alike, beside
running servers (a journal's lock is held only while it prunes).
"""

from __future__ import annotations

from dataclasses import dataclass

from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.ports.storage import MemoryMissing, MemoryRef, MemoryRegistry, MemoryStorage
from zpm_domain.stored.provenance import iso_time


@dataclass(frozen=True, slots=True)
class Pruned:
    """What one memory dropped (``batches``), and since when it keeps its
    history now (``since``: the time of its oldest batch kept; ``None``
    when it keeps none)."""

    memory: str
    batches: int
    since: str | None


def prune(registry: MemoryRegistry, where: str, before: int, memory: str | None) -> list[Pruned]:
    """Drop the history before ``before`` (unix seconds) of every memory of
    ``registry`` (a project's, which messages name ``where``), or of
    ``memory`` alone (``MemoryMissing`` when it has no memory of that name)."""
    refs = [MemoryRef(DEFAULT_MEMORY, "project"), *registry.discover()]
    if memory is not None:
        refs = [ref for ref in refs if ref.name == memory]
        if not refs:
            raise MemoryMissing(f"memory {memory} is not in {where}")
    done = []
    for ref in refs:
        storage = registry.storage(ref)
        try:
            dropped = storage.journal.prune(before)
            first = storage.journal.first_kept()
            _drop_unused_bases(storage)
        finally:
            storage.close()
        label = ref.name if ref.scope == "project" else f"{ref.name} (global)"
        done.append(Pruned(label, dropped, None if first is None else iso_time(first.ts)))
    return done


def _drop_unused_bases(storage: MemoryStorage) -> None:
    """Drop the snapshots kept for the history that no generation kept
    starts from any more."""
    used = {
        record.ops[0].args.get("id")
        for record in storage.journal.kept()
        if record.ops and record.ops[0].op == "base"
    }
    for snapshot_id in storage.snapshots.kept_bases():
        if snapshot_id not in used:
            storage.snapshots.drop_base(snapshot_id)
