"""The snapshot a journal generation starts from: found and checked against
what its start recorded (:func:`starting_snapshot`), then loaded into the
emptied memory (:func:`load_snapshot`).

A snapshot's header says which journal records it holds (``covers``): if
the file a start names is not the one the start recorded (a save under the
same name that crashed before its rotation, or a save on a read-only
mount), recovery (``zpm_domain.memory.recovery``) loads it and skips the
records it already holds.  When the named file is gone, the base the
history kept for the start is read instead (``SnapshotStore.kept_base``).
"""

from __future__ import annotations

import logging
from typing import Protocol

from zpm_domain.changes.generation import StartFrom
from zpm_domain.changes.mutations import Target
from zpm_domain.errors import RecoveryFailed
from zpm_domain.memory import call_context
from zpm_domain.memory import image as images
from zpm_domain.memory.snapshot_format import Snapshot, SnapshotDamaged, read_snapshot
from zpm_domain.ports.snapshots import SnapshotStore
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.terms import Term
from zpm_domain.stored.clauses import Clause, Origin, Runs, render_clause

log = logging.getLogger("zpm")


class Started(Target, Protocol):
    """The memory as the loading of its starting snapshot sees it."""

    name: str
    snapshots: SnapshotStore

    def read_snapshot(self, name: str) -> Snapshot:
        """Snapshot ``name``, every section checked."""


def starting_snapshot(memory: Started, start: StartFrom) -> Snapshot:
    """The snapshot a journal start names, checked against what it recorded;
    ``RecoveryFailed`` when it is missing (and no base was kept for it),
    damaged, or replaced by one that is not its recovery base."""
    assert start.snapshot is not None
    label = memory.snapshots.label(start.snapshot)
    try:
        snapshot = memory.read_snapshot(start.snapshot)
    except KeyError:
        kept = _kept_base(memory, start, label)
        if kept is not None:
            return kept
        raise RecoveryFailed(
            f"{label}: the snapshot that memory {memory.name} was last saved to or "
            "restored from is missing; put it back, or move the journal aside to start "
            "from the knowledge files alone"
        ) from None
    except SnapshotDamaged as damage:
        raise RecoveryFailed(
            f"{damage.message} (the recovery base of memory {memory.name})"
        ) from None
    covers = snapshot.header.covers
    if snapshot.header.id != start.snapshot_id and covers.generation != start.generation:
        raise RecoveryFailed(
            f"{label}: snapshot {start.snapshot} was replaced by one that is not the "
            f"recovery base of memory {memory.name}"
        )
    return snapshot


def _kept_base(memory: Started, start: StartFrom, label: str) -> Snapshot | None:
    """The base the history kept for ``start`` when its named snapshot is
    gone (a revert's start names none), read and checked; ``None`` when
    none was kept."""
    if start.snapshot_id is None:
        return None
    try:
        text = memory.snapshots.kept_base(start.snapshot_id)
    except KeyError:
        return None
    try:
        snapshot = read_snapshot(text, label)
        images.check_sections(snapshot, label)
    except SnapshotDamaged as damage:
        raise RecoveryFailed(
            f"{damage.message} (the recovery base of memory {memory.name})"
        ) from None
    return snapshot


def load_snapshot(
    memory: Started,
    snapshot: Snapshot,
    label: str,
    *,
    stamped: bool,
    source: str | None,
    runs: Runs | None = None,
) -> None:
    """Load ``snapshot``'s clauses and sections into the emptied memory.

    ``stamped``: its clauses are the memory's own objects already (a
    preloaded image); ``source``: the engine namespace holding them, to copy
    them from; ``runs``: the clauses' runs of one predicate each, when
    known.  A clause the memory refuses now (a name that became built in)
    is reported and left out, the same way every time.
    """
    handles = images.snapshot_handles(snapshot, label)
    if handles is None:
        memory.numbering.unnumbered = bool(snapshot.clauses)
    else:
        memory.numbering.raise_to(handles.next_number)
        for first, count, _ in handles.runs:
            memory.numbering.saw(None if first is None else first + count - 1)
    clauses = (
        snapshot.clauses if stamped else images.stamped_clauses(snapshot, label, in_place=True)
    )
    loadable, runs = _loadable(memory, clauses, label, runs)
    not_loaded: set[int] = set()
    call_context.advance(0, len(loadable), f"{memory.name}: loading {label}")
    if source is None:
        failed = memory.engine.add_clauses(memory.namespace, loadable)
    else:
        failed = memory.engine.copy_clauses(source, memory.namespace, loadable, runs)
    for index, error in failed:
        not_loaded.add(index)
        clause = loadable[index]
        log.warning("%s: not loaded: %s (%s)", label, render_clause(clause), error.message)
    supports = images.beliefs_image(snapshot, label)
    call_context.advance(len(loadable), len(loadable), f"{memory.name}: loading {label}")
    copies = images.first_copies(loadable, not_loaded, supports)
    supports.load_into(memory.beliefs, lambda fact: copies.get(id(fact)))
    for withdrawal in images.withdrawn(snapshot, label):
        memory.history.add(withdrawal)
        memory.numbering.saw(withdrawal.record)
    for clause in images.defeated(snapshot, label):
        if _refusal(memory, clause.head) is None:
            memory.store(clause, Origin.SNAPSHOT)
            memory.numbering.saw(clause.handle)
    for key, description in images.described(snapshot, label).items():
        memory.descriptions.put(key, description)


def _loadable(
    memory: Target, clauses: list[Clause], label: str, runs: Runs | None
) -> tuple[list[Clause], Runs | None]:
    """The clauses the memory takes (a name that became built in is
    refused, reported), and their runs of one predicate each when
    ``runs`` gave those of ``clauses`` (each run checked once)."""
    if runs is not None:
        refused = [(s, e, r) for s, e in runs if (r := _refusal(memory, clauses[s].head))]
        if not refused:
            return clauses, runs
    loadable: list[Clause] = []
    refusals: dict[tuple[str, int], PermissionDenied | None] = {}
    for clause in clauses:
        key = clause.key
        if key not in refusals:
            refusals[key] = _refusal(memory, clause.head)
        refused_now = refusals[key]
        if refused_now is None:
            loadable.append(clause)
        else:
            log.warning(
                "%s: not loaded: %s (%s)", label, render_clause(clause), refused_now.message
            )
    return loadable, None


def _refusal(memory: Target, head: Term) -> PermissionDenied | None:
    """Why tools may not change ``head``'s predicate in ``memory`` now
    (``Target.check_mutable``); ``None`` when they may."""
    try:
        memory.check_mutable(head)
    except PermissionDenied as refused:
        return refused
    return None
