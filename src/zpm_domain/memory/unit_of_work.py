"""A memory's unit of work: every change to it is one batch, checked, journaled
durably, then applied.

A tool plans and commits its change inside :meth:`UnitOfWork.writing`:
the journal is held exclusively (other processes wait) and caught up with
what they appended.  :meth:`UnitOfWork.commit` then checks every mutation
(its constraints and integrity rules too, ``zpm_domain.constraints``),
appends the batch durably and only then applies it.  So a reply is sent
only after its change is on disk, a refused change leaves no trace, and a
crash never leaves half a tool call.  After a batch, a journal generation
long enough starts afresh from the memory's state (a checkpoint,
``zpm_domain.memory.checkpoints``).  ``Memory`` (``zpm_domain.memory.memory``)
holds a :class:`UnitOfWork`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from zpm_domain.changes.fork_point import MoveForkPoint
from zpm_domain.changes.generation import KEPT
from zpm_domain.changes.mutations import Mutation, Target
from zpm_domain.constraints import functional, integrity
from zpm_domain.constraints.functional import Committed, Constrained
from zpm_domain.constraints.policy import Policy
from zpm_domain.errors import ConstraintViolated, ZpmError
from zpm_domain.limits import Limits
from zpm_domain.memory import call_context, checkpoints
from zpm_domain.memory.generations import Generations
from zpm_domain.memory.knowledge_record import KnowledgeRecord
from zpm_domain.memory.recovery import Recovery
from zpm_domain.memory.since_point import SincePoint
from zpm_domain.ports.journal import Journal, JournalConflict
from zpm_domain.stored.clauses import Origin
from zpm_domain.stored.handles import Numbering
from zpm_domain.stored.provenance import Provenance

log = logging.getLogger("zpm")

CHECKED = Limits(max_solutions=integrity.MOST_FOUND)
"""The limits a write's integrity rules are checked within, by default."""


class Committing(integrity.Checked, Constrained, Target, Protocol):
    """The memory as its unit of work sees it."""

    name: str
    journal: Journal
    since: SincePoint
    knowledge_recorded: str | None

    @property
    def clock(self) -> Callable[[], float]: ...

    @property
    def batches(self) -> int: ...

    def check_writable(self) -> None: ...

    def fork_point_moved(self) -> None: ...


@dataclass(frozen=True, slots=True)
class _Stamp:
    """What one commit gives the clauses it stores."""

    numbering: Numbering
    provenance: Provenance

    def new_handle(self) -> int:
        return self.numbering.allocate()


class UnitOfWork:
    """Commits one memory's changes (see the module documentation).

    ``limits``: those its integrity checks run within; ``checkpoint_batches``:
    the fewest batches of a journal generation before a write starts a new
    one from the memory's state (``checkpoints``).
    """

    def __init__(
        self,
        memory: Committing,
        recovery: Recovery,
        knowledge: KnowledgeRecord,
        generations: Generations,
        *,
        limits: Limits,
        checkpoint_batches: int,
    ) -> None:
        self._memory = memory
        self._recovery = recovery
        self._knowledge = knowledge
        self._generations = generations
        self._integrity = integrity.Guard()
        self._limits = limits
        self._checkpoint_batches = checkpoint_batches

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the journal exclusively (``Journal.exclusive``), caught up,
        while a tool plans and commits a change.

        Raises ``MemoryReadOnly`` or ``PersistenceUnavailable`` first.
        """
        self._memory.check_writable()
        with self._memory.journal.exclusive():
            self._recovery.catch_up()
            yield

    @contextmanager
    def holding(self) -> Iterator[None]:
        """Hold the journal exclusively, caught up, whatever the mount's mode
        (a merge holds the fork it reads while it moves its fork point)."""
        with self._memory.journal.exclusive():
            self._recovery.catch_up()
            yield

    def move_fork_point(self) -> None:
        """Make the fork point this fork's state now, durably: a
        ``fork_point`` record (call it inside :meth:`holding`)."""
        memory = self._memory
        memory.journal.append([MoveForkPoint().journal_op()])
        self._recovery.position.records += 1
        call_context.current().committed(memory.name, memory.batches)
        memory.fork_point_moved()

    def commit(self, mutations: Sequence[Mutation]) -> Committed:
        """Check ``mutations``, journal them as one durable batch, then apply them.

        Returns them as committed: stamped with the handles and provenance
        of what they store (:meth:`Mutation.stamped`), with the conflicts
        they made with the memory's constraints (``zpm_domain.constraints``):
        a ``refuse`` policy's raises ``ConstraintViolated`` (nothing is
        written); a ``supersede`` policy's withdraws the stored facts in the
        same batch, first; a ``keep`` policy's are returned.  The integrity
        rules the batch may break are checked too
        (``zpm_domain.constraints.integrity``): as if it were stored when
        their policy is ``refuse``, after it is applied when it is ``keep``.  Must be called
        inside :meth:`writing`.  Nothing is written when the batch is empty.
        When the append fails (``JournalConflict``: another writer of a
        shared journal came first; ``StorageUnavailable``; ``OSError``)
        nothing is applied and no handle is used up.
        """
        memory = self._memory
        memory.check_writable()
        for mutation in mutations:
            mutation.check(memory)
        if not mutations:
            return Committed()
        found = functional.conflicts(memory, mutations)
        refused = [c for c in found if c.policy is Policy.REFUSE]
        if refused:
            raise ConstraintViolated(refused[0].refusal(), refused[0].replacing())
        superseding = functional.withdrawals(c for c in found if c.supersedes)
        counter = memory.numbering.next
        stamp = _Stamp(memory.numbering, call_context.current().provenance(memory.clock))
        try:
            batch = [m.stamped(stamp).recorded(memory) for m in [*superseding, *mutations]]
            checking = self._integrity.before(memory, batch, self._limits, self._state())
            if memory.since.in_journal and any(m.footprint(memory) is None for m in batch):
                self._generations.keep_fork_point()
            journaled = list(batch)
            if memory.knowledge_recorded is None:  # a new memory's first batch says it has no files
                journaled.append(self._knowledge.mark())
            memory.journal.append(
                [m.journal_op() for m in journaled], call_context.current().author()
            )
        except BaseException:
            memory.numbering.next = counter  # not stored: its handles were never given
            raise
        self._recovery.position.records += 1
        call_context.current().committed(memory.name, memory.batches)
        for mutation in journaled:
            memory.since.note(mutation, memory)
            mutation.apply(memory, Origin.TOOL)
        made = self._integrity.after(checking, self._state())
        self._checkpoint_if_due()
        return Committed(batch[len(superseding) :], found, made)

    def check_integrity(
        self, mutations: Sequence[Mutation], *, rehearse: bool = False
    ) -> integrity.Pending:
        """Check ``mutations``, about to be stored another way than by
        :meth:`commit` (an import), against the integrity rules, as
        :meth:`commit` does: ``ConstraintViolated`` for a ``refuse``
        policy's; ``rehearse`` (a dry run): raise nothing, and list in
        ``foreseen`` what they would make the rules find.  Call it inside
        :meth:`writing`."""
        memory = self._memory
        batch = [mutation.recorded(memory) for mutation in mutations]
        return self._integrity.before(memory, batch, self._limits, self._state(), rehearse=rehearse)

    def integrity_made(self, pending: integrity.Pending) -> list[integrity.Violation | str]:
        """What the changes :meth:`check_integrity` checked, now stored,
        made the rules of ``keep`` policies find."""
        return self._integrity.after(pending, self._state())

    def _state(self) -> tuple[tuple[object, ...], tuple[object, ...]]:
        """Where the memory stands, and where its rules stand (what its
        integrity rules found is kept while the first stays, their
        dependencies while the second does): its generation, how often its
        journal was read again and its knowledge files; then its batches,
        or the replayed changes that may have changed a rule."""
        recovery = self._recovery
        base = (recovery.position.generation, recovery.rewinds, self._knowledge.digest)
        return (*base, self._memory.batches), (*base, recovery.rule_changes)

    def _checkpoint_if_due(self) -> None:
        """Start a new journal generation from the memory's own state when
        the current one is long enough (``checkpoints.due``): the state is
        kept as a base of the history, not as a named snapshot, and the
        status still names the snapshot it names now.  Call it under the
        exclusive journal lock, caught up (a write's, after its batch).  A
        failure is logged, not raised: the write it follows is stored, and
        the next write tries again."""
        memory = self._memory
        position = self._recovery.position
        if position.records < self._checkpoint_batches:
            return
        if not checkpoints.due(
            position.records,
            sum(info.clause_count for info in memory.predicates()),
            self._checkpoint_batches,
        ):
            return
        generations = self._generations
        try:
            generations.rotate_to_image(generations.image(), KEPT, checkpoint=True)
        except JournalConflict:  # another server's batch came first: a later write checkpoints
            log.debug("memory %s: a checkpoint met another writer's batch", memory.name)
        except (OSError, ZpmError) as error:
            log.warning("memory %s: cannot write a checkpoint: %s", memory.name, error)
