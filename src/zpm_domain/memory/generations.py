"""A memory's journal started afresh: from its own state (a save, an import, a
checkpoint) or from a snapshot (a restore, a revert).

Each is a new journal generation, whose first record
(``changes.generation.StartFrom``) names the snapshot it starts from; the
history keeps that snapshot as a base (``SnapshotStore.keep_base``), so a
moment of the generation can be recovered later (``zpm_domain.history.past``).
The memory's state in snapshot form is :meth:`Generations.image`.
``Memory`` (``zpm_domain.memory.memory``) holds a :class:`Generations`.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from zpm_domain.beliefs import defeat, supports_section, withdrawals
from zpm_domain.beliefs.supports import Support
from zpm_domain.changes.assumptions import SupportPlainly
from zpm_domain.changes.generation import KEPT, StartFrom
from zpm_domain.changes.mutations import Target
from zpm_domain.errors import PersistenceUnavailable
from zpm_domain.memory import call_context, handle_section
from zpm_domain.memory import image as images
from zpm_domain.memory.image import Image
from zpm_domain.memory.knowledge_files import KnowledgeFiles
from zpm_domain.memory.recovery import Recovery
from zpm_domain.memory.since_point import SincePoint, point_text
from zpm_domain.memory.snapshot_format import (
    Covers,
    Snapshot,
    SnapshotDamaged,
    SnapshotHeader,
    read_snapshot,
)
from zpm_domain.ports.engine import Refusals
from zpm_domain.ports.journal import Journal
from zpm_domain.ports.snapshots import SnapshotStore
from zpm_domain.ports.storage import MemoryStorage
from zpm_domain.prolog.terms import Term
from zpm_domain.stored import descriptions
from zpm_domain.stored.clauses import Clause, Origin, number

log = logging.getLogger("zpm")


class Restartable(Target, Protocol):
    """The memory as its generations see it."""

    name: str
    storage: MemoryStorage
    journal: Journal
    snapshots: SnapshotStore
    files: KnowledgeFiles
    since: SincePoint

    @property
    def read_only(self) -> bool: ...

    @property
    def writable(self) -> bool: ...

    @property
    def batches(self) -> int: ...

    @property
    def clock(self) -> Callable[[], float]: ...

    @property
    def version(self) -> str: ...

    @property
    def knowledge_digest(self) -> str: ...

    def loading(self) -> AbstractContextManager[None]: ...

    def check_writable(self) -> None: ...

    def degraded(self) -> PersistenceUnavailable: ...

    def supported(self, key: tuple[str, int]) -> Iterator[Support]: ...

    def support(self, fact: Term) -> Support | None: ...


class Generations:
    """Starts one memory's journal afresh (see the module documentation);
    ``step`` is told each durable step taken (a test stops the process there)."""

    def __init__(
        self, memory: Restartable, recovery: Recovery, step: Callable[[str], None]
    ) -> None:
        self._memory = memory
        self._recovery = recovery
        self._step = step

    # -- from the memory's own state ----------------------------------------
    def save(self, name: str) -> None:
        """Write the client-stored clauses to snapshot ``name``.

        On a read-write memory the journal starts afresh from it; on a
        read-only one only the file is written (the memory may be shared,
        its journal is not this mount's to cut).
        """
        memory = self._memory
        if not memory.writable:
            raise memory.degraded()
        with memory.journal.exclusive():
            self._recovery.catch_up()
            self._save(name, journaled=True)

    def _save(self, name: str, *, journaled: bool) -> None:
        """:meth:`save`'s work, under the exclusive journal lock, caught up;
        ``journaled``: the memory holds what its journal does, no more (a
        save, not an import), so the new generation says where."""
        memory = self._memory
        self.rotate_to_image(self.image(), name, journaled=journaled)
        call_context.current().committed(memory.name, memory.batches)
        log.info("memory %s: saved snapshot %s; the journal starts afresh", memory.name, name)

    def rotate_to_image(
        self, image: Image, name: str, *, journaled: bool = True, checkpoint: bool = False
    ) -> None:
        """Write ``image`` as snapshot ``name`` (a checkpoint: as a kept base
        only) and start the journal afresh from it, unless the memory is
        read-only (then the snapshot alone is written)."""
        memory = self._memory
        with memory.storage.together():
            text = image.text()
            if not checkpoint:
                memory.snapshots.write(name, text)
                self._step("save:written")
            if memory.read_only:
                return
            kept_as = None if checkpoint else name
            memory.snapshots.keep_base(image.header.id, text, kept_as)  # for the history
            if checkpoint:
                self._step("checkpoint:kept")
            self.keep_fork_point(image)
            covers = image.header.covers
            position = self._recovery.position
            number = memory.batches + 1
            start = StartFrom(
                secrets.token_hex(16),
                name,
                image.header.id,
                memory.numbering.next,
                saved_at=(covers.generation, covers.records) if journaled else None,
                batch=number,
                knowledge=memory.knowledge_digest,
                checkpoint=checkpoint,
                named=position.started_from if checkpoint else None,
            )
            memory.journal.rotate([start.journal_op()], call_context.current().author())
        memory.since.stop()
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
        ``Memory.writing``, with clauses that tools may store
        (``Memory.check_mutable``).  Returns the clauses the engine refused,
        ``(index, error)``: then nothing is saved.  After a refusal, or any
        error, this process holds what the storage does not: open the memory
        again (``Memories.open_again``).
        """
        memory = self._memory
        memory.check_writable()
        self.keep_fork_point()
        memory.since.stop()
        provenance = call_context.current().provenance(memory.clock)
        supported = {key for key in {c.key for c in clauses} if next(memory.supported(key), None)}
        stored: list[Clause] = []
        positions: list[int] = []  # of each stored clause in clauses
        phase = f"{memory.name}: storing the clauses"
        call_context.advance(0, len(clauses), phase)
        with memory.loading():
            for position, clause in enumerate(clauses):
                if clause.key in supported and clause.is_fact:
                    support = memory.support(clause.head)
                    if support is not None and not support.plain:
                        SupportPlainly(clause.head).apply(memory, Origin.TOOL)
                        continue
                number(clause, memory.numbering.allocate(), provenance)
                stored.append(clause)
                positions.append(position)
            refused = memory.store_all(stored, Origin.TOOL)
        call_context.advance(len(clauses), len(clauses), phase)
        if refused:
            return [(positions[index], error) for index, error in refused]
        call_context.advance(0, 1, f"{memory.name}: saving snapshot {snapshot}")
        self._save(snapshot, journaled=False)
        call_context.advance(1, 1, f"{memory.name}: saving snapshot {snapshot}")
        return []

    def locked_image(self) -> Image:
        """:meth:`image` taken under the journal lock, caught up first."""
        with self._memory.journal.lock():
            self._recovery.catch_up()
            return self.image()

    def image(self) -> Image:
        """The client-stored state as a snapshot would hold it, now (call it
        caught up, under the journal lock): clauses, supports, handles,
        withdrawals, defeated clauses and predicate descriptions."""
        memory = self._memory
        predicates = self._stored_predicates()
        position = self._recovery.position
        header = SnapshotHeader(
            memory=memory.name,
            saved=int(memory.clock()),
            clauses=sum(len(clauses) for _, clauses in predicates),
            id=secrets.token_hex(16),
            covers=Covers(position.generation, position.records),
            zpm=memory.version,
        )
        lines = supports_section.section(memory.beliefs)
        sections = [(supports_section.SECTION, lines)] if lines else []
        stored = (clause for _, clauses in predicates for clause in clauses)
        sections.append(
            (handle_section.SECTION, handle_section.section(memory.numbering.next, stored))
        )
        if history := withdrawals.section(memory.history):
            sections.append((withdrawals.SECTION, history))
        if defeated := memory.defeats.section():
            sections.append((defeat.SECTION, defeated))
        if described := descriptions.section(memory.descriptions):
            sections.append((descriptions.SECTION, described))
        return Image(header, predicates, sections, memory.namespace)

    def _stored_predicates(self) -> list[tuple[tuple[str, int], list[Clause]]]:
        memory = self._memory
        out = []
        for info in memory.predicates():
            if memory.files.is_static(info.key):
                continue
            clauses = memory.stored_clauses(*info.key)
            if clauses:
                out.append((info.key, clauses))
        return out

    def keep_fork_point(self, now: Image | None = None) -> None:
        """Write the fork point file when the fork point is a journal record
        (``SincePoint.in_journal``), before something makes the following
        stop: the file is then the fork point.  ``now``: the image of the
        state now, if at hand."""
        since = self._memory.since
        if since.following and since.in_journal:
            text = point_text(self._memory, since, now or self.image())
            self._memory.storage.write_fork_point(text)
            since.in_journal = False

    # -- from a snapshot ------------------------------------------------------
    def read_snapshot(self, name: str) -> tuple[str, Snapshot]:
        """Snapshot ``name`` read back, and the text it was read from;
        ``KeyError`` when there is none, ``SnapshotDamaged`` when it does
        not read."""
        snapshots = self._memory.snapshots
        label = snapshots.label(name)
        try:
            text = snapshots.read(name)
        except UnicodeDecodeError as error:
            raise SnapshotDamaged(label, 1, f"not UTF-8 text ({error.reason})") from None
        snapshot = read_snapshot(text, label)
        images.check_sections(snapshot, label)
        return text, snapshot

    def restore(self, name: str) -> None:
        """Replace the client-stored clauses by those of snapshot ``name``;
        the journal starts afresh from it.  Call it inside
        ``Memory.writing``, the memory loading (``Memory.loading``).

        Raises ``KeyError`` for an unknown snapshot and ``SnapshotDamaged``
        for one that does not read, before anything changes.
        """
        memory = self._memory
        text, snapshot = self.read_snapshot(name)
        memory.snapshots.keep_base(snapshot.header.id, text, name)  # for the history
        self._start_again(snapshot, name)
        log.info("memory %s: restored snapshot %s", memory.name, name)

    def revert_to(self, image: Image, batch: int) -> None:
        """Bring the memory back to ``image``, its state right after batch
        ``batch`` (a replica's, ``zpm_domain.history.past``), as one change:
        the image is kept as a base of the history and the journal starts
        afresh from it, as a restore does (so what reads answer after it is
        exactly what they answered then).  Call it inside ``Memory.writing``."""
        memory = self._memory
        memory.check_writable()
        text = image.text()
        label = f"memory {memory.name} as of {batch}"
        snapshot = read_snapshot(text, label)
        with memory.loading():
            memory.snapshots.keep_base(snapshot.header.id, text)
            self._step("revert:kept")
            self._start_again(snapshot, KEPT, reverted_to=batch)
        log.info("memory %s: reverted to %d", memory.name, batch)

    def _start_again(
        self, snapshot: Snapshot, name: str, *, reverted_to: int | None = None
    ) -> None:
        """Start a new journal generation from ``snapshot`` (named ``name``)
        and make it the state (a restore, a revert)."""
        memory = self._memory
        handles = images.snapshot_handles(snapshot, memory.snapshots.label(name))
        counter = max(memory.numbering.next, handles.next_number if handles else 1)
        self.keep_fork_point()
        start = StartFrom(
            secrets.token_hex(16),
            name,
            snapshot.header.id,
            counter,
            batch=memory.batches + 1,
            reverted_to=reverted_to,
            knowledge=memory.knowledge_digest,
        )
        memory.journal.rotate([start.journal_op()], call_context.current().author())
        self._step("restore:rotated")
        self._recovery.start_from(start, snapshot)
        call_context.current().committed(memory.name, memory.batches)
