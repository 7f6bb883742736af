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
(the unit of work): lock the journal (other processes wait), catch up with
what they appended, check every mutation, append the batch durably, then
apply it.  So a reply is sent only after its change is on disk, a refused
change leaves no trace, and a crash never leaves half a tool call.  The
memory also answers the reads tools need (``find_variant``, ``first_fact``…),
so tools do not search its storage themselves.
"""

from __future__ import annotations

import gc
import itertools
import logging
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from zpm_domain import progress
from zpm_domain.beliefs import defeat, withdrawals
from zpm_domain.beliefs.supports import SECTION, Beliefs
from zpm_domain.changes.assumptions import SupportPlainly
from zpm_domain.changes.fork_point import MoveForkPoint
from zpm_domain.changes.generation import KEPT, StartFrom
from zpm_domain.changes.marks import KnowledgeMark, knowledge_digest, texts_of
from zpm_domain.changes.mutations import Mutation
from zpm_domain.constraints import functional, integrity, policy
from zpm_domain.constraints.declared import Constraints
from zpm_domain.constraints.functional import Committed
from zpm_domain.constraints.policy import Policy
from zpm_domain.errors import (
    ConstraintViolated,
    MemoryReadOnly,
    PersistenceUnavailable,
    ZpmError,
)
from zpm_domain.limits import Limits
from zpm_domain.memory import access, checkpoints, handle_section
from zpm_domain.memory import image as images
from zpm_domain.memory.image import Image, Preloaded
from zpm_domain.memory.knowledge_files import KnowledgeFiles
from zpm_domain.memory.reads import Reads
from zpm_domain.memory.recovery import Recovery
from zpm_domain.memory.since_point import SincePoint, point_text
from zpm_domain.memory.snapshot_format import (
    Covers,
    Snapshot,
    SnapshotDamaged,
    SnapshotHeader,
    read_snapshot,
)
from zpm_domain.ports.engine import Engine, Refusals
from zpm_domain.ports.journal import Author, JournalConflict
from zpm_domain.ports.snapshots import SnapshotInfo
from zpm_domain.ports.storage import KnowledgeFile, MemoryStorage, Mode, Scope
from zpm_domain.prolog.allowlist import is_protected
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.terms import Term, indicator
from zpm_domain.stored import descriptions
from zpm_domain.stored.clauses import Clause, Origin, number
from zpm_domain.stored.handles import UNRECORDED, Numbering
from zpm_domain.stored.provenance import Provenance, current_call
from zpm_domain.stored.provenance import now as provenance_now

log = logging.getLogger("zpm")

_OPENINGS = itertools.count(1)
"""Numbers each opening of a memory in this process (``Memory.changes``)."""


@dataclass(frozen=True, slots=True)
class PersistenceStatus:
    """``last_snapshot``: the snapshot the journal generation started from."""

    status: str
    location: str
    last_snapshot: str | None
    journal_bytes: int
    journal_records: int


@dataclass(frozen=True, slots=True)
class _Stamp:
    """What one commit gives the clauses it stores."""

    numbering: Numbering
    provenance: Provenance

    def new_handle(self) -> int:
        return self.numbering.allocate()


CHECKED = Limits(max_solutions=integrity.MOST_FOUND)
"""The limits a write's integrity rules are checked within, by default."""


class Memory(Reads):
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
        self._step = step or (lambda _name: None)
        self._checkpoint_batches = checkpoint_batches
        self._settle = settle or (lambda: None)
        self._writable = storage.writable()
        self.beliefs = Beliefs()
        self.numbering = Numbering()
        self.history = withdrawals.History()
        self.defeats = defeat.Defeats()
        self.descriptions = descriptions.Descriptions()
        self.constraints = Constraints(self.descriptions, constraint_policy)
        self._integrity = integrity.Guard()
        self._limits = limits
        self.files = KnowledgeFiles(engine, self._namespace, self.defeats, self.constraints)
        self.fork = storage.fork_info()
        self.preloaded = preloaded
        """The starting snapshot, already in memory, of a memory about to open (a new fork)."""
        self.since = SincePoint()
        """A fork's changes since its fork point (``zpm_domain.memory.since_point``)."""
        self._recovery = Recovery(self)
        self._opened = next(_OPENINGS)
        self._knowledge: list[KnowledgeFile] = []
        self._digest = knowledge_digest(())
        self.aliases: dict[str, str] = {}
        self.knowledge_recorded: str | None = None
        """The digest of the knowledge files its history recorded last, as
        far as replay has read (``changes.marks``); ``None`` before any."""
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

    @contextmanager
    def loading(self) -> Iterator[None]:
        """Pause Python's cyclic garbage collector while a whole memory loads
        or is copied, then run ``settle`` (given to the constructor).

        Loading makes hundreds of thousands of long-lived term objects and no
        reference cycles; the collector would walk the growing heap again and
        again, and once more, whole, on its first run after the load.  The
        composition root passes ``gc.freeze`` as ``settle``, so that later
        collections leave what was loaded out (reference counting still
        frees those objects when they are dropped); the domain never changes
        the process-wide collector state itself.
        """
        enabled = gc.isenabled()
        gc.disable()
        try:
            yield
        finally:
            self._settle()
            if enabled:
                gc.enable()

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
            sources = self.storage.knowledge_files()
            self._knowledge = sources
            self._digest = knowledge_digest(texts_of(sources))
            for source in sources:
                if source.text is None:
                    log.warning("failed to load %s: %s", source.label, source.error)
                    continue
                self.files.load(source.text, source.label, source.name)
            with self.journal.lock():
                replayed = self._recovery.catch_up()
        self._recovery.opened = True
        self._record_knowledge()
        return replayed

    @property
    def knowledge_digest(self) -> str:
        """The digest of the knowledge files it opened with (``marks.knowledge_digest``)."""
        return self._digest

    def _knowledge_mark(self) -> KnowledgeMark:
        """The files it opened with, as the history records them."""
        return KnowledgeMark(texts_of(self._knowledge), self.knowledge_recorded is None)

    def _record_knowledge(self) -> None:
        """Journal the knowledge files it opened with when they are not those
        its history recorded last (a batch of its own, by no tool call: the
        first process to open the memory with them writes it).  Not on a
        memory that cannot be written; a failure is logged, not raised (the
        memory serves as it is, and the next start tries again)."""
        if self.read_only or not self._writable:
            return
        mark = self._knowledge_mark()
        if mark.digest == self.knowledge_recorded or (
            not mark.files and self.knowledge_recorded is None
        ):
            return  # no files, none recorded: its next batch records that (``commit``)
        try:
            with self.journal.exclusive():
                self._recovery.catch_up()
                if mark.digest == self.knowledge_recorded:
                    return
                self.journal.append([mark.journal_op()])
                self._recovery.position.records += 1
                self.knowledge_recorded = mark.digest
        except (OSError, ZpmError) as error:
            log.warning("memory %s: cannot record its knowledge files: %s", self.name, error)

    def knowledge_changed(self) -> bool:
        """Whether its storage now holds other knowledge files than those it
        opened with (``zpm kb push`` into a shared space): then it must be
        opened again, so that defeat and static predicates follow them."""
        return self.storage.knowledge_files() != self._knowledge

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
        """Write the fork point file when the fork point is a journal record
        (``SincePoint.in_journal``), before something makes the following
        stop: the file is then the fork point.  ``now``: the image of the
        state now, if at hand."""
        since = self.since
        if since.following and since.in_journal:
            self.storage.write_fork_point(point_text(self, since, now or self.image()))
            since.in_journal = False

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

    # -- writing --------------------------------------------------------------
    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the journal exclusively (``Journal.exclusive``), caught up,
        while a tool plans and commits a change.

        Raises ``MemoryReadOnly`` or ``PersistenceUnavailable`` first.
        """
        self._check_writable()
        with self.journal.exclusive():
            self._recovery.catch_up()
            yield

    @contextmanager
    def holding(self) -> Iterator[None]:
        """Hold the journal exclusively, caught up, whatever the mount's mode
        (a merge holds the fork it reads while it moves its fork point)."""
        with self.journal.exclusive():
            self._recovery.catch_up()
            yield

    def move_fork_point(self) -> None:
        """Make the fork point this fork's state now, durably: a
        ``fork_point`` record (call it inside :meth:`holding`)."""
        self.journal.append([MoveForkPoint().journal_op()])
        self._recovery.position.records += 1
        self._committed()
        self.fork_point_moved()

    def check_mutable(self, head: Term) -> None:
        """Raise ``PermissionDenied`` if tools may not change ``head``'s predicate."""
        key = indicator(head)
        if is_protected(*key):
            raise PermissionDenied.builtin(*key)
        if self.files.is_static(key):
            raise PermissionDenied.static(*key)

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
        self._check_writable()
        for mutation in mutations:
            mutation.check(self)
        if not mutations:
            return Committed()
        found = functional.conflicts(self, mutations)
        refused = [c for c in found if c.policy is Policy.REFUSE]
        if refused:
            raise ConstraintViolated(refused[0].refusal(), refused[0].replacing())
        superseding = functional.withdrawals(c for c in found if c.supersedes)
        counter = self.numbering.next
        stamp = _Stamp(self.numbering, provenance_now(self._clock))
        try:
            batch = [m.stamped(stamp).recorded(self) for m in [*superseding, *mutations]]
            checking = self._integrity.before(self, batch, self._limits, self._state())
            if self.since.in_journal and any(m.footprint(self) is None for m in batch):
                self.keep_fork_point()
            journaled = list(batch)
            if self.knowledge_recorded is None:  # a new memory's first batch says it has no files
                journaled.append(self._knowledge_mark())
            self.journal.append([m.journal_op() for m in journaled], author())
        except BaseException:
            self.numbering.next = counter  # not stored: its handles were never given
            raise
        self._recovery.position.records += 1
        self._committed()
        for mutation in journaled:
            self.since.note(mutation, self)
            mutation.apply(self, Origin.TOOL)
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
        batch = [mutation.recorded(self) for mutation in mutations]
        return self._integrity.before(self, batch, self._limits, self._state(), rehearse=rehearse)

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
        base = (recovery.position.generation, recovery.rewinds, self._digest)
        return (*base, self.batches), (*base, recovery.rule_changes)

    def _checkpoint_if_due(self) -> None:
        """Start a new journal generation from the memory's own state when
        the current one is long enough (``checkpoints.due``): the state is
        kept as a base of the history, not as a named snapshot, and the
        status still names the snapshot it names now.  Call it under the
        exclusive journal lock, caught up (a write's, after its batch).  A
        failure is logged, not raised: the write it follows is stored, and
        the next write tries again."""
        position = self._recovery.position
        if position.records < self._checkpoint_batches:
            return
        if not checkpoints.due(
            position.records,
            sum(info.clause_count for info in self.predicates()),
            self._checkpoint_batches,
        ):
            return
        try:
            self._rotate_to_image(self.image(), KEPT, checkpoint=True)
        except JournalConflict:  # another server's batch came first: a later write checkpoints
            log.debug("memory %s: a checkpoint met another writer's batch", self.name)
        except (OSError, ZpmError) as error:
            log.warning("memory %s: cannot write a checkpoint: %s", self.name, error)

    def _committed(self) -> None:
        """Tell the call in progress where this memory stands after its batch."""
        call = current_call()
        if call is not None:
            call.committed(self.name, self.batches)

    def store(self, clause: Clause, origin: Origin) -> defeat.Defeat | None:
        """Store a clause a tool gives (or the journal, or a snapshot): into the
        engine, unless it is defeated (then among the defeated clauses); the defeat."""
        found = self.defeat_of(clause)
        if found is not None:
            self.defeats.add(clause)
            return found
        self.engine.add_clause(self.namespace, clause)
        self.beliefs.arrived(clause, origin)
        return None

    def store_all(self, clauses: Sequence[Clause], origin: Origin) -> Refusals:
        """:meth:`store` of each clause, the engine adding the believed ones in
        one ``add_clauses`` (a journal replay stores its runs of additions
        this way); the clauses the engine refused, ``(index in clauses,
        error)``, the others stored."""
        believed: list[int] = []
        for index, clause in enumerate(clauses):
            if self.defeat_of(clause) is None:
                believed.append(index)
            else:
                self.defeats.add(clause)
        refused = self.engine.add_clauses(self.namespace, [clauses[i] for i in believed])
        skipped = {index for index, _ in refused}
        for position, index in enumerate(believed):
            if position not in skipped:
                self.beliefs.arrived(clauses[index], origin)
        return [(believed[position], error) for position, error in refused]

    def snapshot_infos(self) -> list[SnapshotInfo]:
        """Every snapshot of this memory, sorted by name."""
        return self.snapshots.list()

    def _check_writable(self) -> None:
        access.current().check_change(self.name)  # the caller's reach (zpm_domain.memory.access)
        if self.read_only:
            raise MemoryReadOnly(self.name)
        if not self._writable:
            raise self._degraded()

    def _degraded(self) -> PersistenceUnavailable:
        """The error of a change this memory's storage cannot take; where the
        storage is, only for a caller shown locations."""
        shown = access.current().sees_locations
        return PersistenceUnavailable(self.name, self.storage.location if shown else None)

    # -- snapshots ------------------------------------------------------------
    def save_snapshot(self, name: str) -> None:
        """Write the client-stored clauses to snapshot ``name``.

        On a read-write memory the journal starts afresh from it; on a
        read-only one only the file is written (the memory may be shared,
        its journal is not this mount's to cut).
        """
        if not self._writable:
            raise self._degraded()
        with self.journal.exclusive():
            self._recovery.catch_up()
            self._save(name, journaled=True)

    def _save(self, name: str, *, journaled: bool) -> None:
        """:meth:`save_snapshot`'s work, under the exclusive journal lock,
        caught up; ``journaled``: the memory holds what its journal does, no
        more (a save, not an import), so the new generation says where."""
        self._rotate_to_image(self.image(), name, journaled=journaled)
        self._committed()
        log.info("memory %s: saved snapshot %s; the journal starts afresh", self.name, name)

    def _rotate_to_image(
        self, image: Image, name: str, *, journaled: bool = True, checkpoint: bool = False
    ) -> None:
        """Write ``image`` as snapshot ``name`` (a checkpoint: as a kept base
        only) and start the journal afresh from it, unless the memory is
        read-only (then the snapshot alone is written)."""
        with self.storage.together():
            text = image.text()
            if not checkpoint:
                self.snapshots.write(name, text)
                self._step("save:written")
            if self.read_only:
                return
            kept_as = None if checkpoint else name
            self.snapshots.keep_base(image.header.id, text, kept_as)  # for the history
            if checkpoint:
                self._step("checkpoint:kept")
            self.keep_fork_point(image)
            covers = image.header.covers
            position = self._recovery.position
            number = self.batches + 1
            start = StartFrom(
                secrets.token_hex(16),
                name,
                image.header.id,
                self.numbering.next,
                saved_at=(covers.generation, covers.records) if journaled else None,
                batch=number,
                knowledge=self.knowledge_digest,
                checkpoint=checkpoint,
                named=position.started_from if checkpoint else None,
            )
            self.journal.rotate([start.journal_op()], author())
        self.since.stop()
        self._step("checkpoint:rotated" if checkpoint else "save:rotated")
        position.generation, position.records = start.generation, 1
        position.started_from, position.first = start.shown, number

    def import_clauses(self, clauses: Sequence[Clause], snapshot: str) -> Refusals:
        """Store ``clauses`` (read for this import alone, without handles:
        each is numbered in place with a new handle and the provenance of the
        call in progress, ``number``) at the end of their predicates,
        then save the memory as snapshot ``snapshot``, from which the journal
        starts afresh: the import is durable in one step, as a save is.  A
        crash before the journal turns to the snapshot leaves the memory as
        it was before the import.

        A fact that assumptions alone hold becomes plainly held instead of
        stored again, as ``remember_fact`` does.  Call it inside
        :meth:`writing`, with clauses that tools may store
        (:meth:`check_mutable`).  Returns the clauses the engine refused,
        ``(index, error)``: then nothing is saved.  After a refusal, or any
        error, this process holds what the storage does not: open the memory
        again (``Memories.open_again``).
        """
        self._check_writable()
        self.keep_fork_point()
        self.since.stop()
        provenance = provenance_now(self._clock)
        supported = {key for key in {c.key for c in clauses} if next(self.supported(key), None)}
        stored: list[Clause] = []
        positions: list[int] = []  # of each stored clause in clauses
        phase = f"{self.name}: storing the clauses"
        progress.advance(0, len(clauses), phase)
        with self.loading():
            for position, clause in enumerate(clauses):
                if clause.key in supported and clause.is_fact:
                    support = self.support(clause.head)
                    if support is not None and not support.plain:
                        SupportPlainly(clause.head).apply(self, Origin.TOOL)
                        continue
                number(clause, self.numbering.allocate(), provenance)
                stored.append(clause)
                positions.append(position)
            refused = self.store_all(stored, Origin.TOOL)
        progress.advance(len(clauses), len(clauses), phase)
        if refused:
            return [(positions[index], error) for index, error in refused]
        progress.advance(0, 1, f"{self.name}: saving snapshot {snapshot}")
        self._save(snapshot, journaled=False)
        progress.advance(1, 1, f"{self.name}: saving snapshot {snapshot}")
        return []

    def locked_image(self) -> Image:
        """:meth:`image` taken under the journal lock, caught up first."""
        with self.journal.lock():
            self._recovery.catch_up()
            return self.image()

    def image(self) -> Image:
        """The client-stored state as a snapshot would hold it, now (call it
        caught up, under the journal lock): clauses, supports, handles,
        withdrawals, defeated clauses and predicate descriptions."""
        predicates = self._stored_predicates()
        position = self._recovery.position
        header = SnapshotHeader(
            memory=self.name,
            saved=int(self._clock()),
            clauses=sum(len(clauses) for _, clauses in predicates),
            id=secrets.token_hex(16),
            covers=Covers(position.generation, position.records),
            zpm=self._version,
        )
        sections = [(SECTION, lines)] if (lines := self.beliefs.section()) else []
        stored = (clause for _, clauses in predicates for clause in clauses)
        sections.append(
            (handle_section.SECTION, handle_section.section(self.numbering.next, stored))
        )
        if history := withdrawals.section(self.history):
            sections.append((withdrawals.SECTION, history))
        if defeated := self.defeats.section():
            sections.append((defeat.SECTION, defeated))
        if described := descriptions.section(self.descriptions):
            sections.append((descriptions.SECTION, described))
        return Image(header, predicates, sections, self.namespace)

    def read_snapshot(self, name: str) -> Snapshot:
        """Snapshot ``name`` read back; ``KeyError`` when there is none,
        ``SnapshotDamaged`` when it does not read."""
        return self._read_snapshot(name)[1]

    def _read_snapshot(self, name: str) -> tuple[str, Snapshot]:
        """:meth:`read_snapshot`, with the text it was read from."""
        label = self.snapshots.label(name)
        try:
            text = self.snapshots.read(name)
        except UnicodeDecodeError as error:
            raise SnapshotDamaged(label, 1, f"not UTF-8 text ({error.reason})") from None
        snapshot = read_snapshot(text, label)
        images.check_sections(snapshot, label)
        return text, snapshot

    def restore_snapshot(self, name: str) -> None:
        """Replace the client-stored clauses by those of snapshot ``name``;
        the journal starts afresh from it.

        Raises ``KeyError`` for an unknown snapshot and ``SnapshotDamaged``
        for one that does not read, before anything changes.
        """
        with self.writing(), self.loading():
            text, snapshot = self._read_snapshot(name)
            self.snapshots.keep_base(snapshot.header.id, text, name)  # for the history
            self._start_again(snapshot, name)
            log.info("memory %s: restored snapshot %s", self.name, name)

    def revert_to(self, image: Image, batch: int) -> None:
        """Bring the memory back to ``image``, its state right after batch
        ``batch`` (a replica's, ``zpm_domain.history.past``), as one change:
        the image is kept as a base of the history and the journal starts
        afresh from it, as a restore does (so what reads answer after it is
        exactly what they answered then).  Call it inside :meth:`writing`."""
        self._check_writable()
        text = image.text()
        label = f"memory {self.name} as of {batch}"
        snapshot = read_snapshot(text, label)
        with self.loading():
            self.snapshots.keep_base(snapshot.header.id, text)
            self._step("revert:kept")
            self._start_again(snapshot, KEPT, reverted_to=batch)
        log.info("memory %s: reverted to %d", self.name, batch)

    def _start_again(
        self, snapshot: Snapshot, name: str, *, reverted_to: int | None = None
    ) -> None:
        """Start a new journal generation from ``snapshot`` (named ``name``)
        and make it the state (a restore, a revert)."""
        handles = images.snapshot_handles(snapshot, self.snapshots.label(name))
        counter = max(self.numbering.next, handles.next_number if handles else 1)
        self.keep_fork_point()
        start = StartFrom(
            secrets.token_hex(16),
            name,
            snapshot.header.id,
            counter,
            batch=self.batches + 1,
            reverted_to=reverted_to,
            knowledge=self.knowledge_digest,
        )
        self.journal.rotate([start.journal_op()], author())
        self._step("restore:rotated")
        self._recovery.start_from(start, snapshot)
        self._committed()

    def _stored_predicates(self) -> list[tuple[tuple[str, int], list[Clause]]]:
        out = []
        for info in self.predicates():
            if self.files.is_static(info.key):
                continue
            clauses = self.stored_clauses(*info.key)
            if clauses:
                out.append((info.key, clauses))
        return out


def author() -> Author | None:
    """Who makes the batch being written: the tool call in progress, its
    tool and client (``None`` outside a tool call: a start, a recovery)."""
    call = current_call()
    return None if call is None else Author(call.tool, call.client)
