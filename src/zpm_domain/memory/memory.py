"""One mounted memory: its clauses in an engine namespace, and what it keeps on disk.

A memory is named, has a scope (project or global) and a mode (rw or ro),
and owns a storage (``ports.storage.MemoryStorage``): a journal, a folder
of snapshots and its knowledge files.  Its state is, in this order:

1. the clauses of its knowledge files (monotonic: no tool removes them;
   ``zpm_domain.memory.knowledge_files``),
2. the clauses of the snapshot its journal generation started from, when
   it has one (the snapshot last saved or restored),
3. the batches of its journal since then (``zpm_domain.memory.recovery``).

Every change goes through :meth:`Memory.commit` inside :meth:`Memory.writing`
(the unit of work, ``zpm_domain.memory.unit_of_work``): lock the journal
(other processes wait), catch up with what they appended, check every
mutation, append the batch durably, then apply it.  Saves, imports, restores
and reverts start its journal afresh (``zpm_domain.memory.generations``).
The memory also answers the reads tools need (``find_variant``,
``first_fact``…, ``zpm_domain.memory.reads``), so tools do not search its
storage themselves.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager

from zpm_domain.beliefs import defeat, withdrawals
from zpm_domain.beliefs.supports import Beliefs
from zpm_domain.changes.generation import StartFrom
from zpm_domain.changes.mutations import Mutation
from zpm_domain.constraints import integrity, policy
from zpm_domain.constraints.declared import Constraints
from zpm_domain.constraints.functional import Committed
from zpm_domain.constraints.policy import Policy
from zpm_domain.errors import MemoryReadOnly, PersistenceUnavailable
from zpm_domain.limits import Limits
from zpm_domain.memory import call_context, checkpoints, collector
from zpm_domain.memory.generations import Generations
from zpm_domain.memory.image import Image, Preloaded
from zpm_domain.memory.knowledge_files import KnowledgeFiles
from zpm_domain.memory.knowledge_record import KnowledgeRecord
from zpm_domain.memory.position import PersistenceStatus
from zpm_domain.memory.recovery import Recovery
from zpm_domain.memory.since_point import SincePoint
from zpm_domain.memory.snapshot_format import Snapshot
from zpm_domain.memory.stores import Stores
from zpm_domain.memory.unit_of_work import CHECKED, UnitOfWork
from zpm_domain.ports.engine import Engine, Refusals
from zpm_domain.ports.snapshots import SnapshotInfo
from zpm_domain.ports.storage import MemoryStorage, Mode, Scope
from zpm_domain.stored import descriptions
from zpm_domain.stored.clauses import Clause
from zpm_domain.stored.handles import UNRECORDED, Numbering

log = logging.getLogger("zpm")

_OPENINGS = itertools.count(1)
"""Numbers each opening of a memory in this process (``Memory.changes``)."""


class Memory(Stores):
    """One mounted memory (see the module documentation).

    ``settle`` runs after each whole-memory load (:meth:`loading`);
    ``preloaded`` is the starting snapshot of a new fork, already in memory;
    ``namespace`` the engine namespace of its clauses (default: its name);
    ``checkpoint_batches`` the fewest batches of a journal generation before
    a write starts a new one from the memory's state (``checkpoints``);
    ``constraint_policy`` the policy of a constraint declared without one
    (``zpm_domain.constraints``); ``limits`` those its writes' integrity
    checks run within.
    """

    def __init__(
        self,
        name: str,
        engine: Engine,
        storage: MemoryStorage,
        *,
        scope: Scope = "project",
        mode: Mode = "rw",
        clock: Callable[[], float] = time.time,
        version: str = "",
        step: Callable[[str], None] | None = None,
        settle: Callable[[], None] | None = None,
        preloaded: Preloaded | None = None,
        namespace: str | None = None,
        checkpoint_batches: int = checkpoints.LEAST_BATCHES,
        constraint_policy: Policy = policy.DEFAULT,
        limits: Limits = CHECKED,
    ) -> None:
        self.name = name
        self._namespace = namespace or name
        self.scope: Scope = scope
        self.mode: Mode = mode
        self.engine = engine
        self.storage = storage
        self.journal = storage.journal
        self.snapshots = storage.snapshots
        self._clock = clock
        self._version = version
        self._settle = settle or (lambda: None)
        self._writable = storage.writable()
        self.beliefs = Beliefs()
        self.numbering = Numbering()
        self.history = withdrawals.History()
        self.defeats = defeat.Defeats()
        self.descriptions = descriptions.Descriptions()
        self.constraints = Constraints(self.descriptions, constraint_policy)
        self.files = KnowledgeFiles(engine, self._namespace, self.defeats, self.constraints)
        self.fork = storage.fork_info()
        self.preloaded = preloaded
        """The starting snapshot, already in memory, of a memory about to open (a new fork)."""
        self.since = SincePoint()
        """A fork's changes since its fork point (``zpm_domain.memory.since_point``)."""
        self.aliases: dict[str, str] = {}
        self.knowledge_recorded: str | None = None
        """The digest of the knowledge files its history recorded last, as
        far as replay has read (``changes.marks``); ``None`` before any."""
        self._recovery = Recovery(self)
        self._knowledge = KnowledgeRecord(self, self._recovery)
        self._generations = Generations(self, self._recovery, step or (lambda _name: None))
        self._work = UnitOfWork(
            self,
            self._recovery,
            self._knowledge,
            self._generations,
            limits=limits,
            checkpoint_batches=checkpoint_batches,
        )
        self._opened = next(_OPENINGS)
        engine.ensure_namespace(self._namespace)

    @property
    def namespace(self) -> str:
        """The engine namespace holding this memory's clauses: its name,
        unless it was given another (a replica of its past,
        ``zpm_domain.history.past``)."""
        return self._namespace

    @property
    def clock(self) -> Callable[[], float]:
        """The clock its changes are stamped with."""
        return self._clock

    @property
    def version(self) -> str:
        """The zpm version its snapshots are written by."""
        return self._version

    @property
    def read_only(self) -> bool:
        return self.mode == "ro"

    @property
    def batches(self) -> int:
        """Where the memory stands in its history: the number of the last
        journal batch it holds, counting the batches of all its generations
        (a fork's from its base's), 0 before any.  Read it under the journal
        lock, caught up, to know the number the next batch will get."""
        return self._recovery.position.batches

    @property
    def writable(self) -> bool:
        """Whether its storage could be written when it opened."""
        return self._writable

    def loading(self) -> AbstractContextManager[None]:
        """Pause Python's cyclic garbage collector while a whole memory loads
        or is copied, then run ``settle``, given to the constructor
        (``collector.paused``)."""
        return collector.paused(self._settle)

    # -- start-up -------------------------------------------------------------
    def open(self) -> int:
        """Load the knowledge files, then the starting snapshot and the journal.

        Returns the number of journal batches replayed.  Raises
        ``JournalCorrupt`` or ``RecoveryFailed`` when the recorded state
        cannot be read back (nothing is guessed).
        """
        self.numbering.memory_id = self._recorded_id()
        self.files.memory_id = self.numbering.memory_id
        if self.fork is not None and self.fork.base_id is not None:
            self.files.memory_id = self.fork.base_id  # its base's files, under their handles
        with self.loading():
            for source in self._knowledge.read():
                if source.text is None:
                    log.warning("failed to load %s: %s", source.label, source.error)
                    continue
                self.files.load(source.text, source.label, source.name)
            with self.journal.lock():
                replayed = self._recovery.catch_up()
        self._recovery.opened = True
        self._knowledge.record()
        return replayed

    @property
    def knowledge_digest(self) -> str:
        """The digest of the knowledge files it opened with (``marks.knowledge_digest``)."""
        return self._knowledge.digest

    def knowledge_changed(self) -> bool:
        """Whether its storage now holds other knowledge files than those it
        opened with (``zpm kb push`` into a shared space): then it must be
        opened again, so that defeat and static predicates follow them."""
        return self._knowledge.changed()

    def _recorded_id(self) -> int:
        """The memory's id, given now if it has none and can record one; else
        :data:`UNRECORDED` (its clauses are numbered for this process only)."""
        try:
            recorded = self.storage.memory_id(give=not self.read_only and self._writable)
        except OSError as error:
            log.warning("memory %s: cannot record its id (%s)", self.name, error)
            recorded = None
        return UNRECORDED if recorded is None else recorded

    def start_from(self, start: StartFrom) -> None:
        """Start again from ``start`` (see ``Recovery.start_from``)."""
        self._recovery.start_from(start)

    def number_clauses(self, memory_id: int, first: int) -> None:
        """Number the clauses stored before handles (see ``Recovery.number_clauses``)."""
        self._recovery.number_clauses(memory_id, first)

    def fork_point_moved(self) -> None:
        """The fork point is this fork's state now (``MoveForkPoint``)."""
        if self.fork is not None:
            self.since.restart(self, in_journal=True)

    def keep_fork_point(self, now: Image | None = None) -> None:
        """Write the fork point file when it is behind (``Generations.keep_fork_point``)."""
        self._generations.keep_fork_point(now)

    # -- reading --------------------------------------------------------------
    def sync(self) -> None:
        """Apply batches that other processes appended since the last call."""
        with self.journal.lock():
            self._recovery.catch_up()

    @property
    def changes(self) -> str:
        """Where the memory stands as of its last catch-up: a text that
        differs after every change applied (a batch, a new journal
        generation) and for every opening of the memory (knowledge files
        read again), so a page can tell it must show the memory again."""
        position = self._recovery.position
        return f"{self.reading}:{position.generation}:{position.records}"

    @property
    def reading(self) -> str:
        """Which reading of its journal the memory holds: another after it
        opens again, or reads a rewound journal again (``Journal.rewound``),
        when what it had read before may be gone."""
        return f"{self._opened}.{self._recovery.rewinds}"

    def status(self) -> PersistenceStatus:
        """``journal_records`` counts the batches since the journal generation
        started (not its first record)."""
        position = self._recovery.position
        pending = self.journal.pending() - (1 if position.generation else 0)
        return PersistenceStatus(
            "active" if self._writable else "degraded",
            self.storage.location,
            position.started_from,
            self.journal.size_bytes(),
            max(0, pending),
        )

    # -- writing: the unit of work (zpm_domain.memory.unit_of_work) -----------
    def writing(self) -> AbstractContextManager[None]:
        """Hold the journal exclusively, caught up, while a tool plans and
        commits a change (``UnitOfWork.writing``)."""
        return self._work.writing()

    def holding(self) -> AbstractContextManager[None]:
        """Hold the journal exclusively, caught up, whatever the mount's
        mode (``UnitOfWork.holding``)."""
        return self._work.holding()

    def commit(self, mutations: Sequence[Mutation]) -> Committed:
        """Check ``mutations``, journal them as one durable batch, then apply
        them (``UnitOfWork.commit``)."""
        return self._work.commit(mutations)

    def check_integrity(
        self, mutations: Sequence[Mutation], *, rehearse: bool = False
    ) -> integrity.Pending:
        """Check ``mutations``, stored another way than by :meth:`commit`,
        against the integrity rules (``UnitOfWork.check_integrity``)."""
        return self._work.check_integrity(mutations, rehearse=rehearse)

    def integrity_made(self, pending: integrity.Pending) -> list[integrity.Violation | str]:
        """What the rules of ``keep`` policies found after :meth:`check_integrity`'s
        changes were stored (``UnitOfWork.integrity_made``)."""
        return self._work.integrity_made(pending)

    def move_fork_point(self) -> None:
        """Make the fork point this fork's state now, durably
        (``UnitOfWork.move_fork_point``)."""
        self._work.move_fork_point()

    def check_writable(self) -> None:
        """Raise ``MemoryReadOnly`` when the caller may not change this
        memory (``zpm_domain.memory.access``) or it is mounted read-only,
        and ``PersistenceUnavailable`` when its storage cannot take a change."""
        call_context.current().access.check_change(self.name)
        if self.read_only:
            raise MemoryReadOnly(self.name)
        if not self._writable:
            raise self.degraded()

    def degraded(self) -> PersistenceUnavailable:
        """The error of a change this memory's storage cannot take; where the
        storage is, only for a caller shown locations."""
        shown = call_context.current().access.sees_locations
        return PersistenceUnavailable(self.name, self.storage.location if shown else None)

    # -- snapshots: new journal generations (zpm_domain.memory.generations) ---
    def snapshot_infos(self) -> list[SnapshotInfo]:
        """Every snapshot of this memory, sorted by name."""
        return self.snapshots.list()

    def save_snapshot(self, name: str) -> None:
        """Write the client-stored clauses to snapshot ``name``, from which
        the journal starts afresh (``Generations.save``)."""
        self._generations.save(name)

    def import_clauses(self, clauses: Sequence[Clause], snapshot: str) -> Refusals:
        """Store ``clauses`` and save the memory as snapshot ``snapshot``, in
        one durable step (``Generations.import_clauses``); the clauses the
        engine refused, ``(index, error)``."""
        return self._generations.import_clauses(clauses, snapshot)

    def locked_image(self) -> Image:
        """:meth:`image` taken under the journal lock, caught up first."""
        return self._generations.locked_image()

    def image(self) -> Image:
        """The client-stored state as a snapshot would hold it, now
        (``Generations.image``)."""
        return self._generations.image()

    def read_snapshot(self, name: str) -> Snapshot:
        """Snapshot ``name`` read back; ``KeyError`` when there is none,
        ``SnapshotDamaged`` when it does not read."""
        return self._generations.read_snapshot(name)[1]

    def restore_snapshot(self, name: str) -> None:
        """Replace the client-stored clauses by those of snapshot ``name``;
        the journal starts afresh from it (``Generations.restore``)."""
        with self.writing(), self.loading():
            self._generations.restore(name)

    def revert_to(self, image: Image, batch: int) -> None:
        """Bring the memory back to ``image``, its state right after batch
        ``batch``, as one change (``Generations.revert_to``)."""
        self._generations.revert_to(image, batch)
