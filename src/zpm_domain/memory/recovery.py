"""Bringing a memory's state back from its durable record.

A memory's state is its knowledge files, then the snapshot its journal
generation started from (its *start*: the generation's first record,
journal operation ``base``, see ``zpm_domain.changes.generation.StartFrom``),
then the batches of that generation.  :class:`Recovery` starts from a start,
replays the journal, catches up with batches other processes appended, and
numbers the clauses stored before handles existed.  A snapshot's header says
which journal records it holds (``covers``): if the file a start names is
not the one the start recorded (a save under the same name that crashed
before its rotation, or a save on a read-only mount), recovery loads it and
skips the records it already holds.

("Base" names a fork's parent memory everywhere else in zpm; the journal
operation keeps its old name.)
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass
from typing import Protocol

from zpm_domain import progress
from zpm_domain.changes import from_journal
from zpm_domain.changes.generation import NumberClauses, StartFrom
from zpm_domain.changes.mutations import AddClause, BadOperation, Mutation, Target
from zpm_domain.constraints.effects import changes_rules
from zpm_domain.errors import RecoveryFailed
from zpm_domain.memory import image as images
from zpm_domain.memory.image import Preloaded
from zpm_domain.memory.knowledge_files import KnowledgeFiles
from zpm_domain.memory.since_point import SincePoint
from zpm_domain.memory.snapshot_format import Snapshot, SnapshotDamaged, read_snapshot
from zpm_domain.ports.journal import Journal, JournalCorrupt
from zpm_domain.ports.snapshots import SnapshotStore
from zpm_domain.ports.storage import ForkInfo
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.terms import Term, most_general
from zpm_domain.stored.clauses import Clause, Origin, Runs, number, render_clause
from zpm_domain.stored.handles import UNRECORDED, memory_of
from zpm_domain.stored.provenance import UNKNOWN

log = logging.getLogger("zpm")


@dataclass
class Position:
    """Where a memory stands in its journal.

    ``generation`` names the journal generation (its start record's; empty
    before any), ``records`` counts its batches applied or held (the start
    record included), ``skip`` the next batches the starting snapshot already
    holds, ``started_from`` is the snapshot the generation started from
    (``None``: the knowledge files alone), and ``first`` the number of the
    generation's first batch in the memory's whole history
    (``StartFrom.batch``).
    """

    generation: str = ""
    records: int = 0
    skip: int = 0
    started_from: str | None = None
    first: int = 1

    @property
    def batches(self) -> int:
        """How many batches the memory's whole history holds up to here: the
        number of the last one applied (0 before any)."""
        return self.first + self.records - 1


class Recovering(Target, Protocol):
    """The memory as recovery sees it."""

    name: str
    journal: Journal
    snapshots: SnapshotStore
    files: KnowledgeFiles
    preloaded: Preloaded | None
    since: SincePoint
    fork: ForkInfo | None
    knowledge_recorded: str | None

    @property
    def read_only(self) -> bool: ...

    @property
    def writable(self) -> bool:
        """Whether its storage can be written now."""

    def read_snapshot(self, name: str) -> Snapshot:
        """Snapshot ``name``, every section checked."""

    def keep_fork_point(self) -> None:
        """Write a fork's fork point file when it is behind (see
        ``zpm_domain.memory.since_point``)."""


class Recovery:
    """Replays and restarts one memory (see the module documentation)."""

    def __init__(self, memory: Recovering) -> None:
        self._memory = memory
        self.position = Position()
        self.opened = False
        """Whether the memory has opened: from then on, the batches caught up
        were written by servers running now, and what they store is as
        ``interactive`` as what this server's own tools store."""
        self.rewinds = 0
        """How many times it went back to the knowledge files alone to read a
        rewound journal again (:meth:`_forget`)."""
        self.rule_changes = 0
        """How many replayed changes may have changed a rule
        (``constraints.effects.changes_rules``), starts included."""

    def catch_up(self) -> int:
        """Apply the journal batches not applied yet (call it under the
        journal lock); returns how many were read.  ``JournalCorrupt`` for
        an operation that does not read.  What they store comes from the
        journal (``Origin.JOURNAL``) while the memory opens, and from a
        running server's tool (``Origin.TOOL``) afterwards, so every server
        of a shared memory tells a belief's source alike."""
        memory = self._memory
        if memory.journal.rewound():
            self._forget()
        pending = deque(memory.journal.read_new())  # each record let go once applied
        count = len(pending)
        label = memory.journal.label
        phase = f"{memory.name}: replaying the journal"
        additions = _Additions(memory, Origin.TOOL if self.opened else Origin.JOURNAL)
        for done in range(count):
            record = pending.popleft()
            progress.advance(done, count, phase)
            mutations = []
            for op in record.ops:
                try:
                    mutations.append(from_journal(op))
                except BadOperation as exc:
                    raise JournalCorrupt(label, record.line, str(exc)) from exc
            if mutations and isinstance(mutations[0], StartFrom):
                additions.store()
                self._start(mutations[0])
                continue
            self.position.records += 1
            if self.position.skip:
                self.position.skip -= 1
                continue
            for mutation in mutations:
                if not self._passes(mutation, label, record.line):
                    continue
                if changes_rules(mutation, memory):
                    self.rule_changes += 1
                if isinstance(mutation, AddClause):
                    memory.since.note(mutation, memory)
                    additions.add(mutation.clause)
                else:
                    additions.store()
                    memory.since.note(mutation, memory)
                    mutation.apply(memory, additions.origin)
        additions.store()
        if count:
            progress.advance(count, count, phase)
        if memory.numbering.unnumbered:
            self._settle_numbering()
        return count

    def _start(self, start: StartFrom) -> None:
        """Begin the generation ``start`` begins.  A save of the state this
        memory holds (another server's ``save_snapshot`` of a shared memory,
        read while catching up) only moves it on to the new generation: it
        keeps what it holds, as the server that saved does, beliefs'
        sources included, and reads no snapshot.  Any other start loads its
        snapshot (``start_from``)."""
        position = self.position
        if start.saved_at is None or start.saved_at != (position.generation, position.records):
            self.start_from(start)
            return
        self._memory.since.stop()  # a save stops following a fork's changes
        self.position = Position(start.generation, 1, 0, start.shown, start.batch or 1)
        self._memory.numbering.raise_to(start.next_number or 1)

    def start_from(self, start: StartFrom, snapshot: Snapshot | None = None) -> None:
        """Make ``start`` the state: knowledge files plus its snapshot.

        ``snapshot`` is the start's snapshot already read, if at hand (read
        for this start alone: its clauses become the memory's).  A
        clause the memory refuses now (a name that became built in) is
        reported and left out, the same way every time.
        """
        memory = self._memory
        self.position = Position(start.generation, 1, 0, start.shown, start.batch or 1)
        self.rule_changes += 1
        self._drop_state()
        memory.knowledge_recorded = start.knowledge
        memory.numbering.raise_to(start.next_number or 1)
        if start.snapshot is None:
            return
        source, runs = None, None
        if snapshot is None and memory.preloaded is not None:
            if memory.preloaded.snapshot.header.id == start.snapshot_id:
                snapshot, source = memory.preloaded.snapshot, memory.preloaded.source
                runs = memory.preloaded.runs
            memory.preloaded = None
        if snapshot is None:
            snapshot = self._starting_snapshot(start)
        if snapshot.header.id != start.snapshot_id:
            self.position.skip = snapshot.header.covers.records - 1
        label = memory.snapshots.label(start.snapshot)
        # a preloaded snapshot holds a memory's own image: stamped already
        self._load(snapshot, label, stamped=source is not None, source=source, runs=runs)
        if start.fork_point and memory.fork is not None and snapshot.header.id == start.snapshot_id:
            # the fork's first snapshot itself (not one saved over it, whose
            # save crashed before the journal turned to it): its fork point
            memory.since.restart(memory, in_journal=False)

    def _load(
        self,
        snapshot: Snapshot,
        label: str,
        *,
        stamped: bool,
        source: str | None,
        runs: Runs | None = None,
    ) -> None:
        """Load ``snapshot``'s clauses and sections into the emptied memory
        (``runs``: the clauses' runs of one predicate each, when known)."""
        memory = self._memory
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
        loadable, runs = self._loadable(clauses, label, runs)
        not_loaded: set[int] = set()
        progress.advance(0, len(loadable), f"{memory.name}: loading {label}")
        if source is None:
            failed = memory.engine.add_clauses(memory.namespace, loadable)
        else:
            failed = memory.engine.copy_clauses(source, memory.namespace, loadable, runs)
        for index, error in failed:
            not_loaded.add(index)
            clause = loadable[index]
            log.warning("%s: not loaded: %s (%s)", label, render_clause(clause), error.message)
        supports = images.beliefs_image(snapshot, label)
        progress.advance(len(loadable), len(loadable), f"{memory.name}: loading {label}")
        copies = images.first_copies(loadable, not_loaded, supports)
        supports.load_into(memory.beliefs, lambda fact: copies.get(id(fact)))
        for withdrawal in images.withdrawn(snapshot, label):
            memory.history.add(withdrawal)
            memory.numbering.saw(withdrawal.record)
        for clause in images.defeated(snapshot, label):
            if self._refusal(clause.head) is None:
                memory.store(clause, Origin.SNAPSHOT)
                memory.numbering.saw(clause.handle)
        for key, description in images.described(snapshot, label).items():
            memory.descriptions.put(key, description)

    def _loadable(
        self, clauses: list[Clause], label: str, runs: Runs | None
    ) -> tuple[list[Clause], Runs | None]:
        """The clauses the memory takes (a name that became built in is
        refused, reported), and their runs of one predicate each when
        ``runs`` gave those of ``clauses`` (each run checked once)."""
        if runs is not None:
            refused = [(s, e, r) for s, e in runs if (r := self._refusal(clauses[s].head))]
            if not refused:
                return clauses, runs
        loadable: list[Clause] = []
        refusals: dict[tuple[str, int], PermissionDenied | None] = {}
        for clause in clauses:
            key = clause.key
            if key not in refusals:
                refusals[key] = self._refusal(clause.head)
            refusal = refusals[key]
            if refusal is None:
                loadable.append(clause)
            else:
                log.warning(
                    "%s: not loaded: %s (%s)", label, render_clause(clause), refusal.message
                )
        return loadable, None

    def number_clauses(self, memory_id: int, first: int) -> None:
        """Number the stored clauses that have no handle, or only one given
        for this process (see ``NumberClauses``)."""
        memory = self._memory
        memory.since.stop()  # renumbered clauses: their handles were not followed
        memory.numbering.memory_id = memory_id
        memory.numbering.raise_to(first)
        for info in memory.predicates():
            if memory.files.is_static(info.key):
                continue
            for clause in memory.stored_clauses(*info.key):
                if clause.handle is None or memory_of(clause.handle) == UNRECORDED:
                    handle = memory.numbering.allocate()
                    number(clause, handle, clause.provenance or UNKNOWN)
        for clause in memory.defeats:
            if clause.handle is None or memory_of(clause.handle) == UNRECORDED:
                number(clause, memory.numbering.allocate(), clause.provenance or UNKNOWN)
        memory.numbering.unnumbered = False
        memory.beliefs.forget_handles()

    def _settle_numbering(self) -> None:
        """Number the clauses that arrived without a handle: journaled once
        when the memory can record it, else for this process only."""
        memory = self._memory
        memory_id = memory.numbering.memory_id
        assert memory_id is not None
        numbering = NumberClauses(memory_id, memory.numbering.next)
        if memory_id != UNRECORDED and not memory.read_only and memory.writable:
            memory.keep_fork_point()
            memory.journal.append([numbering.journal_op()])
            self.position.records += 1
            log.info("memory %s: gave handles to the clauses stored before handles", memory.name)
        self.number_clauses(memory_id, memory.numbering.next)

    def _forget(self) -> None:
        """Back to the knowledge files alone, before a journal that was
        rewound (``Journal.rewound``) is read again from its newest
        generation: what was applied from batches that were then lost goes,
        handles given included."""
        log.warning(
            "memory %s: changes were not stored; reading its journal again", self._memory.name
        )
        self.position = Position()
        self.rewinds += 1
        self._drop_state()
        self._memory.numbering.next = 1

    def _drop_state(self) -> None:
        """Drop the client-stored clauses and everything said about them."""
        memory = self._memory
        memory.since.stop()
        self._drop_stored_clauses()
        memory.beliefs.reset()
        memory.history.clear()
        memory.defeats.clear()
        memory.descriptions.clear()
        memory.numbering.unnumbered = False

    def _refusal(self, head: Term) -> PermissionDenied | None:
        try:
            self._memory.check_mutable(head)
        except PermissionDenied as refusal:
            return refusal
        return None

    def _drop_stored_clauses(self) -> None:
        memory = self._memory
        for info in memory.predicates():
            if not memory.files.is_static(info.key) and info.clause_count:
                memory.engine.retract_all(memory.namespace, most_general(*info.key))

    def _starting_snapshot(self, start: StartFrom) -> Snapshot:
        """The snapshot a journal start names, checked against what it recorded."""
        assert start.snapshot is not None
        memory = self._memory
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

    def _passes(self, mutation: Mutation, label: str, line: int) -> bool:
        """Whether a journaled mutation still passes its check, so replay
        applies it.

        A record for a predicate that is built in now (a newer zpm protects
        its name) or that a knowledge file now defines is not applied, and
        is reported; it stays in the journal, so nothing is lost when the
        name becomes free again.
        """
        try:
            mutation.check(self._memory)
        except PermissionDenied as refusal:
            op = mutation.journal_op()
            log.warning(
                "%s line %d: not loaded, kept in the journal: %s %s (%s is %s now)",
                label,
                line,
                op.op,
                " ".join(str(v) for v in op.args.values()),
                refusal.indicator,
                refusal.reason,
            )
            return False
        return True


def _kept_base(memory: Recovering, start: StartFrom, label: str) -> Snapshot | None:
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


class _Additions:
    """A run of replayed additions, stored together (``Target.store_all``:
    one engine call for the run, where one per clause would cost the SWI
    engines a call into Prolog each) before any other change applies.

    Storing a run is the same as applying its ``AddClause`` mutations one
    by one: whether a clause is defeated depends on the knowledge files
    alone, and the checks the mutations passed on the predicates' names,
    which additions do not change.
    """

    def __init__(self, memory: Target, origin: Origin) -> None:
        self._memory = memory
        self.origin = origin
        self._run: list[Clause] = []

    def add(self, clause: Clause) -> None:
        self._run.append(clause)

    def store(self) -> None:
        """Store the run, then number what it stored; raises the error of
        the first clause the engine refused (as storing them one by one
        would have, once the others are stored)."""
        run, self._run = self._run, []
        if not run:
            return
        refused = self._memory.store_all(run, self.origin)
        if refused:
            raise refused[0][1]
        for clause in run:
            self._memory.numbering.saw(clause.handle)
