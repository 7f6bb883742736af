"""One mounted memory: its clauses in an engine namespace, and what it keeps on disk.

A memory is named, has a scope (project or global) and a mode (rw or ro),
and owns a storage (``ports.storage.MemoryStorage``): a journal, a folder
of snapshots and its knowledge files.  Its state is, in this order:

1. the clauses of its knowledge files (monotonic: no tool removes them),
2. the clauses of its *base* snapshot, when it has one,
3. the batches of its journal since that base.

The base is the snapshot last saved or restored.  It is recorded as the
first batch of the journal generation it starts (operation ``base``, see
:class:`StartFrom`), so switching base and starting a fresh journal is one
atomic rename (``Journal.rotate``).  A snapshot's header says which
journal records it holds (``covers``): if the file named by the base is not
the one the base recorded (a save under the same name that crashed before
its rotation, or a save on a read-only mount), recovery loads it and skips
the records it already holds.

Every change goes through :meth:`Memory.commit` inside :meth:`Memory.writing`:
lock the journal (other processes wait), catch up with what they appended,
check every mutation, append the batch durably, then apply it.  So a reply
is sent only after its change is on disk, a refused change leaves no trace,
and a crash never leaves half a tool call.
"""

from __future__ import annotations

import gc
import logging
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import cached_property
from itertools import islice

from zpm_domain import progress
from zpm_domain.beliefs import defeat, withdrawals
from zpm_domain.beliefs.supports import (
    SECTION,
    Beliefs,
    BeliefsImage,
    SectionDamaged,
    Support,
    variant_key,
)
from zpm_domain.changes import from_journal
from zpm_domain.changes.generation import NumberClauses, StartFrom
from zpm_domain.changes.mutations import BadOperation, Mutation
from zpm_domain.errors import InvalidClause, MemoryReadOnly, PersistenceUnavailable, RecoveryFailed
from zpm_domain.limits import Limits
from zpm_domain.memory import handle_section
from zpm_domain.memory.snapshot_format import (
    Covers,
    Snapshot,
    SnapshotDamaged,
    SnapshotHeader,
    read_snapshot,
    write_snapshot,
)
from zpm_domain.ports.engine import Engine, Solution
from zpm_domain.ports.journal import JournalCorrupt
from zpm_domain.ports.storage import MemoryStorage, Mode, Scope
from zpm_domain.prolog.allowlist import is_protected
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.terms import Term, indicator, most_general, variant
from zpm_domain.prolog.unify import unify
from zpm_domain.stored import descriptions
from zpm_domain.stored.clauses import DENIALS, Clause, Origin, PredicateInfo, number, render_clause
from zpm_domain.stored.handles import UNRECORDED, FileNumbering, Numbering, memory_of
from zpm_domain.stored.provenance import UNKNOWN, Provenance
from zpm_domain.stored.provenance import now as provenance_now

log = logging.getLogger("zpm")

DEFAULT_MEMORY = "default"


def _first_copies(
    loaded: list[Clause], not_loaded: set[int], image: BeliefsImage
) -> dict[int, Clause]:
    """The stored clause of each fact ``image`` supports, by the identity of
    the fact: the first loaded copy of its variant (a snapshot stores a
    supported fact once)."""
    if not image.supports:
        return {}
    keys = {indicator(support.fact) for support in image.supports}
    wanted = {variant_key(support.fact): support.fact for support in image.supports}
    found: dict[int, Clause] = {}
    for index, clause in enumerate(loaded):
        if index in not_loaded or not clause.is_fact or clause.key not in keys:
            continue
        fact = wanted.pop(variant_key(clause.head), None)
        if fact is not None:
            found[id(fact)] = clause
    return found


def _snapshot_handles(snapshot: Snapshot, label: str) -> handle_section.Handles | None:
    """The handles section of a snapshot (``None`` when it has none);
    ``SnapshotDamaged`` when it does not read."""
    lines = snapshot.sections.get(handle_section.SECTION, [])
    try:
        return handle_section.Handles.read(lines)
    except handle_section.HandlesDamaged as damage:
        line = snapshot.section_lines.get(handle_section.SECTION, 0) + damage.entry
        raise SnapshotDamaged(label, line, f"section {handle_section.SECTION}: {damage}") from None


def _stamped_clauses(snapshot: Snapshot, label: str) -> list[Clause]:
    """The snapshot's clauses with the handles and provenance of its section
    (unnumbered when it has none); ``SnapshotDamaged`` when they do not match."""
    handles = _snapshot_handles(snapshot, label)
    if handles is None:
        return snapshot.clauses
    try:
        return handles.stamp(snapshot.clauses)
    except handle_section.HandlesDamaged as damage:
        line = snapshot.section_lines.get(handle_section.SECTION, 0) + damage.entry
        raise SnapshotDamaged(label, line, f"section {handle_section.SECTION}: {damage}") from None


def _withdrawals(snapshot: Snapshot, label: str) -> list[withdrawals.Withdrawal]:
    """The withdrawal records of a snapshot; ``SnapshotDamaged`` when they do not read."""
    try:
        return withdrawals.read_section(snapshot.sections.get(withdrawals.SECTION, []))
    except withdrawals.HistoryDamaged as damage:
        line = snapshot.section_lines.get(withdrawals.SECTION, 0) + damage.entry
        raise SnapshotDamaged(label, line, f"section {withdrawals.SECTION}: {damage}") from None


def _defeated(snapshot: Snapshot, label: str) -> list[Clause]:
    """The defeated clauses of a snapshot; ``SnapshotDamaged`` when they do not read."""
    try:
        return defeat.read_section(snapshot.sections.get(defeat.SECTION, []))
    except defeat.DefeatedDamaged as damage:
        line = snapshot.section_lines.get(defeat.SECTION, 0) + damage.entry
        raise SnapshotDamaged(label, line, f"section {defeat.SECTION}: {damage}") from None


def _descriptions(
    snapshot: Snapshot, label: str
) -> dict[descriptions.Key, descriptions.Description]:
    """The predicate descriptions of a snapshot (none in a snapshot older than
    them); ``SnapshotDamaged`` when its section does not read."""
    try:
        return descriptions.read_section(snapshot.sections.get(descriptions.SECTION, []))
    except descriptions.DescriptionsDamaged as damage:
        line = snapshot.section_lines.get(descriptions.SECTION, 0) + damage.entry
        raise SnapshotDamaged(label, line, f"section {descriptions.SECTION}: {damage}") from None


def _beliefs_image(snapshot: Snapshot, label: str) -> BeliefsImage:
    """The supports a snapshot holds; ``SnapshotDamaged`` when its section does not read."""
    try:
        return BeliefsImage.read(snapshot.sections.get(SECTION, []))
    except SectionDamaged as damage:
        line = snapshot.section_lines.get(SECTION, 0) + damage.entry
        raise SnapshotDamaged(label, line, f"section {SECTION}: {damage}") from None


def snapshot_image(snapshot: Snapshot, label: str) -> Image:
    """The state ``snapshot`` holds (read from ``label``) as an :class:`Image`,
    its clauses stamped with their handles; ``SnapshotDamaged`` when one of
    its sections does not read.  The image has no engine namespace."""
    clauses = _stamped_clauses(snapshot, label)
    _beliefs_image(snapshot, label)
    _withdrawals(snapshot, label)
    _defeated(snapshot, label)
    _descriptions(snapshot, label)
    predicates: list[tuple[tuple[str, int], list[Clause]]] = []
    for clause in clauses:
        key = clause.key
        if predicates and predicates[-1][0] == key:
            predicates[-1][1].append(clause)
        else:
            predicates.append((key, [clause]))
    return Image(snapshot.header, predicates, list(snapshot.sections.items()), "")


@dataclass(frozen=True, slots=True)
class Preloaded:
    """The base snapshot of a memory about to open, already in memory (a new
    fork's), and the engine namespace that holds its clauses themselves (the
    memory it was taken from): the engine may copy them from there."""

    snapshot: Snapshot
    source: str


@dataclass(frozen=True)
class Image:
    """A memory's client-stored state in snapshot form (see :meth:`Memory.image`);
    ``namespace``: the memory's engine namespace."""

    header: SnapshotHeader
    predicates: list[tuple[tuple[str, int], list[Clause]]]
    sections: list[tuple[str, list[str]]]
    namespace: str

    @cached_property
    def clauses(self) -> list[Clause]:
        """The stored clauses in order (stamped: this memory's own objects)."""
        return [clause for _, clauses in self.predicates for clause in clauses]

    @cached_property
    def texts(self) -> list[str]:
        """The text of each of :attr:`clauses`, rendered once."""
        return [render_clause(clause) for clause in self.clauses]

    def text(self) -> str:
        """The snapshot text."""
        return write_snapshot(self.header, self.predicates, self.sections, self.texts)

    def snapshot(self) -> Snapshot:
        """The snapshot as :func:`read_snapshot` would read its text back."""
        return Snapshot(self.header, self.clauses, dict(self.sections))

    def preloaded(self) -> Preloaded:
        """:meth:`snapshot`, to open a memory from (a fork of this one)."""
        return Preloaded(self.snapshot(), self.namespace)

    def held(
        self,
    ) -> tuple[dict[int, Support], list[withdrawals.Withdrawal], list[Clause]]:
        """The supports of the clauses assumptions hold (by the clause's
        identity), the withdrawal records and the defeated clauses."""
        sections = dict(self.sections)
        image = BeliefsImage.read(sections.get(SECTION, []))
        copies = _first_copies(self.clauses, set(), image)
        supports = {}
        for support in image.supports:
            clause = copies.get(id(support.fact))
            if clause is not None:
                supports[id(clause)] = support
        history = withdrawals.read_section(sections.get(withdrawals.SECTION, []))
        return supports, history, defeat.read_section(sections.get(defeat.SECTION, []))


@dataclass(frozen=True, slots=True)
class PersistenceStatus:
    status: str
    location: str
    base: str | None
    journal_bytes: int
    journal_records: int


@dataclass(frozen=True, slots=True)
class _Stamp:
    """What one commit gives the clauses it stores."""

    numbering: Numbering
    provenance: Provenance

    def new_handle(self) -> int:
        return self.numbering.allocate()


class Memory:
    """A mounted memory (see the module docstring).

    ``step`` is called with the name of each durable step of a save or a
    restore (``save:written``, ``save:rotated``, ``restore:rotated``), so
    crash tests can stop there.  ``clock`` stamps snapshots.
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
    ) -> None:
        self.name = name
        self.scope: Scope = scope
        self.mode: Mode = mode
        self.engine = engine
        self.storage = storage
        self.journal = storage.journal
        self.snapshots = storage.snapshots
        self._clock = clock
        self._version = version
        self._step = step or (lambda _name: None)
        self._settle = settle or (lambda: None)
        self._file_clauses: dict[tuple[str, int], list[str]] = {}
        self._static: set[tuple[str, int]] = set()
        self._declared_dynamic: set[tuple[str, int]] = set()
        self._generation = ""
        self._records = 0
        self._skip = 0
        self._base: str | None = None
        self._writable = storage.writable()
        self.beliefs = Beliefs()
        self.numbering = Numbering()
        self.history = withdrawals.History()
        self.defeats = defeat.Defeats()
        self.descriptions = descriptions.Descriptions()
        self._file_numbering = FileNumbering()
        self._file_id = UNRECORDED
        self._file_positions: dict[str, int] = {}
        self._file_names: dict[str, str] = {}
        self.fork = storage.fork_info()
        self.preloaded = preloaded
        """The base snapshot, already in memory, of a memory about to open (a new fork)."""
        engine.ensure_namespace(name)

    @property
    def namespace(self) -> str:
        """The engine namespace holding this memory's clauses."""
        return self.name

    @property
    def read_only(self) -> bool:
        return self.mode == "ro"

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
        """Load the knowledge files, then the base snapshot and the journal.

        Returns the number of journal batches replayed.  Raises
        ``JournalCorrupt`` or ``RecoveryFailed`` when the recorded state
        cannot be read back (nothing is guessed).
        """
        from zpm_domain.memory.knowledge_files import consult_text

        self.numbering.memory_id = self._recorded_id()
        self._file_id = self.numbering.memory_id
        if self.fork is not None and self.fork.base_id is not None:
            self._file_id = self.fork.base_id  # its base's files, under their handles
        with self.loading():
            for source in self.storage.knowledge_files():
                if source.text is None:
                    log.warning("failed to load %s: %s", source.label, source.error)
                    continue
                self._file_names[source.label] = source.name or source.label
                consult_text(self, source.text, source.label)
            with self.journal.lock():
                return self._catch_up()

    def _recorded_id(self) -> int:
        """The memory's id, given now if it has none and can record one; else
        :data:`UNRECORDED` (its clauses are numbered for this process only)."""
        try:
            recorded = self.storage.memory_id(give=not self.read_only and self._writable)
        except OSError as error:
            log.warning("memory %s: cannot record its id (%s)", self.name, error)
            recorded = None
        return UNRECORDED if recorded is None else recorded

    def add_file_clause(self, clause: Clause, label: str, line: int) -> None:
        """Add the clause at ``line`` of knowledge file ``label``.

        It is monotonic: no tool removes or changes it.  Its predicate is
        static, unless the file declared it dynamic first (then tools may
        add clauses to it); denials (``neg/1``) are always dynamic, so
        clients may add denials beside the files' own.  Its handle comes
        from the file's name and the clause's position in it
        (``zpm_domain.stored.handles``).
        """
        key = clause.key
        if is_protected(*key):
            raise PermissionDenied.builtin(*key)
        name = self._file_names.get(label, label)
        position = self._file_positions.get(name, 0)
        handle = self._file_numbering.handle(self._file_id, name, position)
        clause = clause.stamped(handle, Provenance.of_file(name, line))
        if key == DENIALS and key not in self._declared_dynamic:
            self.declare_dynamic(*key)
        self.engine.add_clause(self.namespace, clause, static=True)
        self._file_positions[name] = position + 1
        self._file_clauses.setdefault(key, []).append(f"{label}:{line}")
        if key not in self._declared_dynamic:
            self._static.add(key)

    def declare_dynamic(self, name: str, arity: int) -> None:
        """A knowledge file's ``:- dynamic(name/arity)``."""
        if is_protected(name, arity):
            raise PermissionDenied.builtin(name, arity)
        if (name, arity) in self._static:
            raise PermissionDenied.static(name, arity)
        self._declared_dynamic.add((name, arity))
        self.engine.declare_dynamic(self.namespace, name, arity)

    def declare_functional(self, name: str, arity: int, label: str, line: int) -> None:
        """A knowledge file's ``:- functional(name/arity)`` at ``line`` of ``label``:
        the predicate is dynamic, and its facts are defeated as
        ``zpm_domain.beliefs.defeat`` says."""
        if arity == 0:
            raise InvalidClause(f"{name}/0 cannot be functional: it has no argument")
        self.declare_dynamic(name, arity)
        self.defeats.declare(name, arity, f"{self._file_names.get(label, label)}:{line}")

    def defeat_of(self, clause: Clause) -> defeat.Defeat | None:
        """Why ``clause`` is defeated by this memory's knowledge files (``None``: it is not)."""
        return self.defeats.defeat_of(clause, self._file_facts)

    def store(self, clause: Clause) -> defeat.Defeat | None:
        """Store a clause a tool gives (or the journal, or a snapshot): into the
        engine, unless it is defeated (then among the defeated clauses); the defeat."""
        found = self.defeat_of(clause)
        if found is not None:
            self.defeats.add(clause)
            return found
        self.engine.add_clause(self.namespace, clause)
        self.beliefs.arrived(clause)
        return None

    def _file_facts(self, key: tuple[str, int]) -> list[Clause]:
        return [clause for clause, _ in self.file_clauses(*key)]

    # -- reading --------------------------------------------------------------
    def sync(self) -> None:
        """Apply batches that other processes appended since the last call."""
        with self.journal.lock():
            self._catch_up()

    def clauses(self, name: str, arity: int) -> list[Clause]:
        """Every clause of ``name/arity``, knowledge-file clauses first."""
        return self.engine.clauses(self.namespace, name, arity)

    def iter_clauses(self, name: str, arity: int) -> Iterator[Clause]:
        """The clauses of :meth:`clauses`, read lazily (see ``Engine.iter_clauses``)."""
        return self.engine.iter_clauses(self.namespace, name, arity)

    def stored_clauses(self, name: str, arity: int) -> list[Clause]:
        """The clauses of ``name/arity`` that tools stored (not from knowledge files)."""
        return self.clauses(name, arity)[len(self._file_clauses.get((name, arity), ())) :]

    def file_clauses(self, name: str, arity: int) -> list[tuple[Clause, str]]:
        """The knowledge-file clauses of ``name/arity`` with their ``file:line``
        (they come first: the stored clauses after them are not read)."""
        wheres = self._file_clauses.get((name, arity), [])
        return list(zip(self.iter_clauses(name, arity), wheres))

    def predicates(self) -> list[PredicateInfo]:
        return self.engine.predicates(self.namespace)

    def first_solutions(self, goal: Term, limits: Limits) -> list[Solution]:
        """The first ``limits.max_solutions`` answers of ``goal`` in this memory;
        the engine's enumeration stops there and is closed, so a goal with
        infinitely many answers still ends."""
        answers = self.engine.solve(self.namespace, goal, limits)
        try:
            return list(islice(answers, limits.max_solutions))
        finally:
            close = getattr(answers, "close", None)
            if close is not None:
                close()

    def holds_stored_copy(self, fact: Term) -> bool:
        """Whether a client-stored fact is a variant of ``fact``."""
        return any(
            c.is_fact and variant(c.head, fact) for c in self.stored_clauses(*indicator(fact))
        )

    def source_of(self, fact: Term) -> Origin | None:
        """Where the first stored fact unifying with ``fact`` came from
        (``None`` when no stored fact unifies)."""
        key = indicator(fact)
        for clause, _ in self.file_clauses(*key):
            if clause.is_fact and unify(fact, clause.head) is not None:
                return Origin.FILE
        for clause in self.stored_clauses(*key):
            if clause.is_fact and unify(fact, clause.head) is not None:
                return self.beliefs.origin(clause)
        return None

    def is_static(self, name: str, arity: int) -> bool:
        return (name, arity) in self._static

    @property
    def base(self) -> str | None:
        """The snapshot last saved or restored (the recovery base), if any."""
        return self._base

    def status(self) -> PersistenceStatus:
        """``journal_records`` counts the batches since the base (not the base record)."""
        pending = self.journal.pending() - (1 if self._generation else 0)
        return PersistenceStatus(
            "active" if self._writable else "degraded",
            self.storage.location,
            self._base,
            self.journal.size_bytes(),
            max(0, pending),
        )

    # -- writing --------------------------------------------------------------
    def writing(self) -> AbstractContextManager[None]:
        """Hold the journal lock, caught up, while a tool plans and commits a change.

        Raises ``MemoryReadOnly`` or ``PersistenceUnavailable`` first.
        """
        return self._writing()

    @contextmanager
    def _writing(self) -> Iterator[None]:
        self._check_writable()
        with self.journal.lock():
            self._catch_up()
            yield

    def check_mutable(self, head: Term) -> None:
        """Raise ``PermissionDenied`` if tools may not change ``head``'s predicate."""
        key = indicator(head)
        if is_protected(*key):
            raise PermissionDenied.builtin(*key)
        if key in self._static:
            raise PermissionDenied.static(*key)

    def commit(self, mutations: Sequence[Mutation]) -> list[Mutation]:
        """Check ``mutations``, journal them as one durable batch, then apply them.

        Returns them as committed: stamped with the handles and provenance
        of what they store (:meth:`Mutation.stamped`).  Must be called
        inside :meth:`writing`.  Nothing is written when the batch is empty.
        """
        self._check_writable()
        for mutation in mutations:
            mutation.check(self)
        if not mutations:
            return []
        stamp = self._stamp()
        mutations = [m.stamped(stamp) for m in mutations]
        self.journal.append([m.journal_op() for m in mutations])
        self._records += 1
        self.beliefs.arriving = Origin.TOOL
        try:
            for mutation in mutations:
                mutation.apply(self)
        finally:
            self.beliefs.arriving = Origin.JOURNAL
        return mutations

    def stored_with(self, handle: int) -> Clause | None:
        """The client-stored clause with ``handle``, if the memory holds it now."""
        found = self.beliefs.stored_with(handle, self._all_stored)
        return found if found is not None else self.defeats.with_handle(handle)

    def file_clause_with(self, handle: int) -> tuple[Clause, str] | None:
        """The knowledge-file clause with ``handle`` and its ``file:line``, if any."""
        for key in self._file_clauses:
            for clause, where in self.file_clauses(*key):
                if clause.handle == handle:
                    return clause, where
        return None

    def _all_stored(self) -> Iterator[Clause]:
        for info in self.predicates():
            if info.key not in self._static:
                yield from self.stored_clauses(*info.key)

    def support_of(self, clause: Clause) -> Support | None:
        """The supports of ``clause`` when it is the copy of its fact that
        assumptions support (``None`` otherwise: a plain copy)."""
        if not clause.is_fact:
            return None
        support = self.beliefs.support(clause.head)
        if support is None:
            return None
        if support.stored is not None:
            return support if support.stored is clause else None
        for other in self.stored_clauses(*clause.key):
            if other.is_fact and variant(other.head, clause.head):
                return support if other is clause else None
        return None

    def _stamp(self) -> _Stamp:
        return _Stamp(self.numbering, provenance_now(self._clock))

    def number_clauses(self, memory_id: int, first: int) -> None:
        """Number the stored clauses that have no handle, or only one given
        for this process (see :class:`NumberClauses`)."""
        self.numbering.memory_id = memory_id
        self.numbering.raise_to(first)
        for info in self.predicates():
            if info.key in self._static:
                continue
            for clause in self.stored_clauses(*info.key):
                if clause.handle is None or memory_of(clause.handle) == UNRECORDED:
                    handle = self.numbering.allocate()
                    number(clause, handle, clause.provenance or UNKNOWN)
        for clause in self.defeats:
            if clause.handle is None or memory_of(clause.handle) == UNRECORDED:
                number(clause, self.numbering.allocate(), clause.provenance or UNKNOWN)
        self.numbering.unnumbered = False
        self.beliefs.forget_handles()

    def _settle_numbering(self) -> None:
        """Number the clauses that arrived without a handle: journaled once
        when the memory can record it, else for this process only."""
        memory_id = self.numbering.memory_id
        assert memory_id is not None
        numbering = NumberClauses(memory_id, self.numbering.next)
        if memory_id != UNRECORDED and not self.read_only and self._writable:
            self.journal.append([numbering.journal_op()])
            self._records += 1
            log.info("memory %s: gave handles to the clauses stored before handles", self.name)
        self.number_clauses(memory_id, self.numbering.next)

    # -- snapshots ------------------------------------------------------------
    def save_snapshot(self, name: str) -> None:
        """Write the client-stored clauses to snapshot ``name``.

        On a read-write memory the snapshot becomes the recovery base and a
        fresh journal starts; on a read-only one only the file is written
        (the memory may be shared, its journal is not this mount's to cut).
        """
        if not self._writable:
            raise PersistenceUnavailable(self.name, self.storage.location)
        with self.journal.lock():
            self._catch_up()
            image = self.image()
            snapshot_id = image.header.id
            self.snapshots.write(name, image.text())
            self._step("save:written")
            if self.read_only:
                return
            base = StartFrom(secrets.token_hex(16), name, snapshot_id, self.numbering.next)
            self.journal.rotate([base.journal_op()])
            self._step("save:rotated")
            self._generation, self._records, self._base = base.generation, 1, name
            log.info("memory %s: saved snapshot %s; the journal starts afresh", self.name, name)

    def locked_image(self) -> Image:
        """:meth:`image` taken under the journal lock, caught up first."""
        with self.journal.lock():
            self._catch_up()
            return self.image()

    def image(self) -> Image:
        """The client-stored state as a snapshot would hold it, now (call it
        caught up, under the journal lock): clauses, supports, handles,
        withdrawals, defeated clauses and predicate descriptions."""
        predicates = self._stored_predicates()
        header = SnapshotHeader(
            memory=self.name,
            saved=int(self._clock()),
            clauses=sum(len(clauses) for _, clauses in predicates),
            id=secrets.token_hex(16),
            covers=Covers(self._generation, self._records),
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
        label = self.snapshots.label(name)
        try:
            text = self.snapshots.read(name)
        except UnicodeDecodeError as error:
            raise SnapshotDamaged(label, 1, f"not UTF-8 text ({error.reason})") from None
        snapshot = read_snapshot(text, label)
        _beliefs_image(snapshot, label)
        _stamped_clauses(snapshot, label)
        _withdrawals(snapshot, label)
        _defeated(snapshot, label)
        _descriptions(snapshot, label)
        return snapshot

    def restore_snapshot(self, name: str) -> None:
        """Replace the client-stored clauses by those of snapshot ``name``,
        which becomes the recovery base; a fresh journal starts.

        Raises ``KeyError`` for an unknown snapshot and ``SnapshotDamaged``
        for one that does not read, before anything changes.
        """
        with self.writing(), self.loading():
            snapshot = self.read_snapshot(name)
            handles = _snapshot_handles(snapshot, self.snapshots.label(name))
            counter = max(self.numbering.next, handles.next_number if handles else 1)
            base = StartFrom(secrets.token_hex(16), name, snapshot.header.id, counter)
            self.journal.rotate([base.journal_op()])
            self._step("restore:rotated")
            self.start_from(base, snapshot)
            log.info("memory %s: restored snapshot %s", self.name, name)

    def start_from(self, base: StartFrom, snapshot: Snapshot | None = None) -> None:
        """Make ``base`` the state: knowledge files plus its snapshot.

        ``snapshot`` is the base's snapshot already read, if at hand.  A
        clause the memory refuses now (a name that became built in) is
        reported and left out, the same way every time.
        """
        self._generation, self._records, self._base = base.generation, 1, base.snapshot
        self._skip = 0
        self._drop_stored_clauses()
        self.beliefs.reset()
        self.history.clear()
        self.defeats.clear()
        self.descriptions.clear()
        self.numbering.raise_to(base.next_number or 1)
        self.numbering.unnumbered = False
        if base.snapshot is None:
            return
        source = None
        if snapshot is None and self.preloaded is not None:
            if self.preloaded.snapshot.header.id == base.snapshot_id:
                snapshot, source = self.preloaded.snapshot, self.preloaded.source
            self.preloaded = None
        if snapshot is None:
            snapshot = self._base_snapshot(base)
        if snapshot.header.id != base.snapshot_id:
            self._skip = snapshot.header.covers.records - 1
        label = self.snapshots.label(base.snapshot)
        handles = _snapshot_handles(snapshot, label)
        if handles is None:
            self.numbering.unnumbered = bool(snapshot.clauses)
        else:
            self.numbering.raise_to(handles.next_number)
            for first, count, _ in handles.runs:
                self.numbering.saw(None if first is None else first + count - 1)
        loadable: list[Clause] = []
        refusals: dict[tuple[str, int], PermissionDenied | None] = {}
        # a preloaded snapshot holds a memory's own image: stamped already
        stamped = snapshot.clauses if source is not None else _stamped_clauses(snapshot, label)
        for clause in stamped:
            key = clause.key
            if key not in refusals:
                refusals[key] = self._refusal(clause.head)
            refused = refusals[key]
            if refused is None:
                loadable.append(clause)
            else:
                log.warning(
                    "%s: not loaded: %s (%s)", label, render_clause(clause), refused.message
                )
        not_loaded: set[int] = set()
        progress.advance(0, len(loadable), f"{self.name}: loading {label}")
        if source is None:
            failed = self.engine.add_clauses(self.namespace, loadable)
        else:
            failed = self.engine.copy_clauses(source, self.namespace, loadable)
        for index, error in failed:
            not_loaded.add(index)
            clause = loadable[index]
            log.warning("%s: not loaded: %s (%s)", label, render_clause(clause), error.message)
        image = _beliefs_image(snapshot, label)
        progress.advance(len(loadable), len(loadable), f"{self.name}: loading {label}")
        copies = _first_copies(loadable, not_loaded, image)
        image.load_into(self.beliefs, lambda fact: copies.get(id(fact)))
        for withdrawal in _withdrawals(snapshot, label):
            self.history.add(withdrawal)
            self.numbering.saw(withdrawal.record)
        for clause in _defeated(snapshot, label):
            if self._refusal(clause.head) is None:
                self.store(clause)
                self.numbering.saw(clause.handle)
        for key, description in _descriptions(snapshot, label).items():
            self.descriptions.put(key, description)

    # -- internals ------------------------------------------------------------
    def _refusal(self, head: Term) -> PermissionDenied | None:
        try:
            self.check_mutable(head)
        except PermissionDenied as refusal:
            return refusal
        return None

    def _check_writable(self) -> None:
        if self.read_only:
            raise MemoryReadOnly(self.name)
        if not self._writable:
            raise PersistenceUnavailable(self.name, self.storage.location)

    def _stored_predicates(self) -> list[tuple[tuple[str, int], list[Clause]]]:
        out = []
        for info in self.predicates():
            if info.key in self._static:
                continue
            clauses = self.stored_clauses(*info.key)
            if clauses:
                out.append((info.key, clauses))
        return out

    def _drop_stored_clauses(self) -> None:
        for info in self.predicates():
            if info.key not in self._static and info.clause_count:
                self.engine.retract_all(self.namespace, most_general(*info.key))

    def _base_snapshot(self, base: StartFrom) -> Snapshot:
        """The snapshot a journal base names, checked against what it recorded."""
        assert base.snapshot is not None
        label = self.snapshots.label(base.snapshot)
        try:
            snapshot = self.read_snapshot(base.snapshot)
        except KeyError:
            raise RecoveryFailed(
                f"{label}: the snapshot that memory {self.name} was last saved to or "
                "restored from is missing; put it back, or move the journal aside to start "
                "from the knowledge files alone"
            ) from None
        except SnapshotDamaged as damage:
            raise RecoveryFailed(
                f"{damage.message} (the recovery base of memory {self.name})"
            ) from None
        covers = snapshot.header.covers
        if snapshot.header.id != base.snapshot_id and covers.generation != base.generation:
            raise RecoveryFailed(
                f"{label}: snapshot {base.snapshot} was replaced by one that is not the "
                f"recovery base of memory {self.name}"
            )
        return snapshot

    def _catch_up(self) -> int:
        self.beliefs.arriving = Origin.JOURNAL
        records = self.journal.read_new()
        label = self.journal.label
        phase = f"{self.name}: replaying the journal"
        for done, record in enumerate(records):
            progress.advance(done, len(records), phase)
            mutations = []
            for op in record.ops:
                try:
                    mutations.append(from_journal(op))
                except BadOperation as exc:
                    raise JournalCorrupt(label, record.line, str(exc)) from exc
            if mutations and isinstance(mutations[0], StartFrom):
                mutations[0].apply(self)
                continue
            self._records += 1
            if self._skip:
                self._skip -= 1
                continue
            for mutation in mutations:
                self._replay(mutation, label, record.line)
        if records:
            progress.advance(len(records), len(records), phase)
        if self.numbering.unnumbered:
            self._settle_numbering()
        return len(records)

    def _replay(self, mutation: Mutation, label: str, line: int) -> None:
        """Apply one journaled mutation, unless it no longer passes its check.

        A record for a predicate that is built in now (a newer zpm protects
        its name) or that a knowledge file now defines is not applied, and
        is reported; it stays in the journal, so nothing is lost when the
        name becomes free again.
        """
        try:
            mutation.check(self)
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
            return
        mutation.apply(self)
