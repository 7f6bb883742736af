"""Bringing a memory's state back from its durable record.

A memory's state is its knowledge files, then the snapshot its journal
generation started from (its *start*: the generation's first record,
journal operation ``base``, see ``zpm_domain.changes.generation.StartFrom``),
then the batches of that generation.  :class:`Recovery` starts from a start,
replays the journal, catches up with batches other processes appended, and
numbers the clauses stored before handles existed.  Where the memory stands
is its :class:`~zpm_domain.memory.position.Position`; a start's snapshot is
found and loaded by ``zpm_domain.memory.starting_snapshot``, and replayed
additions are stored in runs (``zpm_domain.memory.additions``).

("Base" names a fork's parent memory everywhere else in zpm; the journal
operation keeps its old name.)
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Protocol

from zpm_domain.changes import from_journal
from zpm_domain.changes.generation import NumberClauses, StartFrom
from zpm_domain.changes.mutations import AddClause, BadOperation, Mutation
from zpm_domain.constraints.effects import changes_rules
from zpm_domain.memory import call_context
from zpm_domain.memory.additions import Additions
from zpm_domain.memory.image import Preloaded
from zpm_domain.memory.knowledge_files import KnowledgeFiles
from zpm_domain.memory.position import Position
from zpm_domain.memory.since_point import SincePoint
from zpm_domain.memory.snapshot_format import Snapshot
from zpm_domain.memory.starting_snapshot import Started, load_snapshot, starting_snapshot
from zpm_domain.ports.journal import Journal, JournalCorrupt
from zpm_domain.ports.storage import ForkInfo
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.terms import most_general
from zpm_domain.stored.clauses import Origin, number
from zpm_domain.stored.handles import UNRECORDED, memory_of
from zpm_domain.stored.provenance import UNKNOWN

log = logging.getLogger("zpm")


class Recovering(Started, Protocol):
    """The memory as recovery sees it."""

    journal: Journal
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
        additions = Additions(memory, Origin.TOOL if self.opened else Origin.JOURNAL)
        for done in range(count):
            record = pending.popleft()
            call_context.advance(done, count, phase)
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
            call_context.advance(count, count, phase)
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
            snapshot = starting_snapshot(memory, start)
        if snapshot.header.id != start.snapshot_id:
            self.position.skip = snapshot.header.covers.records - 1
        label = memory.snapshots.label(start.snapshot)
        # a preloaded snapshot holds a memory's own image: stamped already
        load_snapshot(memory, snapshot, label, stamped=source is not None, source=source, runs=runs)
        if start.fork_point and memory.fork is not None and snapshot.header.id == start.snapshot_id:
            # the fork's first snapshot itself (not one saved over it, whose
            # save crashed before the journal turned to it): its fork point
            memory.since.restart(memory, in_journal=False)

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

    def _drop_stored_clauses(self) -> None:
        memory = self._memory
        for info in memory.predicates():
            if not memory.files.is_static(info.key) and info.clause_count:
                memory.engine.retract_all(memory.namespace, most_general(*info.key))

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
