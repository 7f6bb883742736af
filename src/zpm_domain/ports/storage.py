"""The storage ports: where memories keep what outlives the process.

``MemoryRegistry`` knows the memories of a project (its own, and the global
ones shared by every project of the user), creates them, opens their
storage and keeps the manifest of mounts.  ``MemoryStorage`` is one
memory's share of it: its journal, its snapshots and its knowledge files.
The domain never sees a path; the adapters decide the layout.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from zpm_domain.ports.journal import Author, Journal, JournalOp
from zpm_domain.ports.snapshots import SnapshotStore

Scope = Literal["project", "global"]
Mode = Literal["rw", "ro"]
Change = Literal["batches", "memories"]
"""What another process changed (``MemoryRegistry.watch``): batches of some
journals, or the memories themselves (their mounts or knowledge files)."""


KNOWLEDGE_HEADER = """\
% Knowledge file of zpm memory '{name}'.
% Clauses written here are loaded when the memory is mounted. Tools can query
% them but never change them; declare a predicate with :- dynamic(Name/Arity).
% to let tools add clauses to it.
"""
"""The text of a new memory's knowledge file (``MemoryRegistry.create``), for
``str.format(name=...)``: the same whichever storage keeps it."""


@dataclass(frozen=True, slots=True)
class MemoryRef:
    """A memory on disk: its name and scope."""

    name: str
    scope: Scope


@dataclass(frozen=True, slots=True)
class MountEntry:
    """One line of the manifest: a memory to mount at start, and how."""

    name: str
    scope: Scope
    mode: Mode


@dataclass(frozen=True, slots=True)
class KnowledgeFile:
    """A knowledge file of a memory: its text, or why it could not be read.

    ``label`` names it in messages (a path); ``name`` in the provenance of
    its clauses (``kb/facts.pl``: short, the same on every machine), the
    label when not given.
    """

    label: str
    text: str | None
    error: str | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class ForkInfo:
    """What makes a memory a fork: the memory it was forked from (whose
    knowledge files it reads), that memory's id (its knowledge-file clauses
    keep their handles in the fork; ``None`` when it had none), and when the
    fork was made (seconds since the epoch) and last changed."""

    base: MemoryRef
    base_id: int | None
    created: float
    changed: float | None = None
    """When the fork last changed (its journal), as far as the storage knows."""


@dataclass(frozen=True, slots=True)
class NewFork:
    """Everything a fork starts with, written at once by ``MemoryRegistry.create_fork``.

    ``snapshot`` is the text of the base's state it was copied from, stored
    as the fork's snapshot ``seed``, which ``first_batch`` (the first batch
    of its journal) makes its recovery base, and as its fork point (what
    merges compare with, ``zpm_domain.forks.state``).
    """

    info: ForkInfo
    snapshot: str
    seed: str
    first_batch: list[JournalOp]
    by: Author | None = None
    """Who made the fork (the first batch's author, ``Journal.append``)."""


class MemoryStorage(ABC):
    """What one memory keeps on disk."""

    @property
    @abstractmethod
    def journal(self) -> Journal:
        """The memory's write-ahead journal."""

    @property
    @abstractmethod
    def snapshots(self) -> SnapshotStore:
        """The memory's snapshot folder."""

    @property
    @abstractmethod
    def location(self) -> str:
        """Where the memory's journal lives (``get_persistence_status``'s ``dir``,
        shown only to a caller that sees locations: ``Access.sees_locations``)."""

    @abstractmethod
    def knowledge_files(self) -> list[KnowledgeFile]:
        """The memory's knowledge files, in the order they load."""

    @abstractmethod
    def writable(self) -> bool:
        """Whether changes can be made durable here (``False``: degraded)."""

    @abstractmethod
    def memory_id(self, *, give: bool) -> int | None:
        """The memory's id (``zpm_domain.stored.handles``), recorded once for good.

        ``None`` when it has none yet, unless ``give``: then a new one is
        taken from the scope's counter (even for a project memory, odd for a
        global one), recorded durably and returned.  Raises ``OSError``
        when it cannot be recorded.
        """

    def together(self) -> contextlib.AbstractContextManager[None]:
        """The writes of the block (a snapshot and the journal's rotation
        to it) become durable together, in one transaction, or none of them
        does; the handles that wrote forget what they wrote when it fails.
        The default does nothing: files make each write durable in turn, and
        recovery handles a crash between them (a snapshot records what it
        ``covers``)."""
        return contextlib.nullcontext()

    def fork_info(self) -> ForkInfo | None:
        """What the memory was forked from; ``None`` for a memory that is not a fork."""
        return None

    def read_fork_point(self) -> str:
        """A fork's fork point, a snapshot text (``zpm_domain.forks.state``);
        ``KeyError`` when there is none."""
        raise KeyError("fork point")

    def write_fork_point(self, text: str) -> None:
        """Replace a fork's fork point, atomically and durably."""
        raise NotImplementedError

    def fork_point_label(self) -> str:
        """Where a fork's fork point lives, for messages."""
        return f"{self.location} (fork point)"

    def close(self) -> None:  # noqa: B027 (optional hook)
        """Release files and locks; the default closes the journal."""
        self.journal.close()


class MemoryExists(Exception):
    """``create`` of a memory that is already there."""


class MemoryMissing(Exception):
    """``storage`` of a memory that is not there (``str()`` says where it was looked for)."""


class MemoryRegistry(ABC):
    """The memories of one project, and the manifest of mounts."""

    @abstractmethod
    def discover(self) -> list[MemoryRef]:
        """Every named memory on disk (not ``default``), sorted by name then scope.

        A scope that cannot be listed (no global folder) contributes nothing.
        """

    @abstractmethod
    def exists(self, ref: MemoryRef) -> bool:
        """Whether memory ``ref`` is on disk (``default`` always is)."""

    @abstractmethod
    def create(self, ref: MemoryRef) -> None:
        """Create memory ``ref`` with an empty knowledge file.

        Raises ``MemoryExists`` when it is already there, ``OSError`` when
        it cannot be created (nothing is left behind).
        """

    @abstractmethod
    def create_fork(self, ref: MemoryRef, fork: NewFork) -> None:
        """Create memory ``ref`` as a fork, all of it or nothing (a crash
        leaves no partial fork).  Raises ``MemoryExists`` or ``OSError``."""

    @abstractmethod
    def fork_info(self, ref: MemoryRef) -> ForkInfo | None:
        """What memory ``ref`` was forked from (``None``: not a fork, or not there)."""

    @abstractmethod
    def remove(self, ref: MemoryRef) -> None:
        """Delete memory ``ref`` and all its files (it must not be mounted):
        all of them or, after a crash, none.  ``MemoryMissing`` when it is
        not there."""

    @abstractmethod
    def storage(self, ref: MemoryRef) -> MemoryStorage:
        """Open the storage of memory ``ref``; ``MemoryMissing`` when it is not there."""

    @abstractmethod
    def read_manifest(self) -> list[MountEntry] | None:
        """The mounts recorded by the last writer, ``None`` when there is no manifest.

        A manifest that cannot be read is moved aside with a warning and
        reads as ``None``.
        """

    @abstractmethod
    def write_manifest(self, entries: list[MountEntry]) -> None:
        """Record ``entries`` as the mounts, atomically.  A shared manifest
        (see :meth:`manifest_version`) raises ``JournalConflict`` when another
        process wrote it since this one last read it: nothing is written."""

    def manifest_version(self) -> int | None:
        """What the manifest's version is now, when several processes share
        it (a database: every process on a space mounts the same memories);
        ``None`` when each process keeps its own mounts once started (files:
        the manifest is what the next start mounts).  Replacing a memory's
        knowledge files in a shared storage changes the version too."""
        return None

    def watch(self, changed: Callable[[Change], None]) -> Callable[[], None] | None:
        """Call ``changed``, from another thread, whenever another process
        has changed this project's memories (a wake-up: what changed is read
        as every call reads it); the function that stops watching.  ``None``
        when the storage cannot tell (files: a change by another process is
        seen at the next call)."""
        return None

    def write_group(self) -> WriteGroup | None:
        """Open a group commit on the calling thread (see :class:`WriteGroup`);
        ``None`` when this storage makes each batch durable on its own."""
        return None

    def unavailable(self) -> str | None:
        """Why the storage cannot be used now, ``None`` when it answers: a
        health check, cheap and safe to call from any thread.  Files are
        always there (a failing disk shows in the calls themselves)."""
        return None


class WriteGroup(ABC):
    """The batches of several calls, made durable together: a group commit,
    which saves a database's round trip and commit, or a file's ``fsync``,
    per call.

    While a group is open on a thread, a batch that a journal appends there
    inside its ``exclusive`` block is queued, not yet durable, and the
    journal's writers' lock stays held until the group commits it; every
    other write to the storage, and every read that could see the
    difference, commits the queued batches first, so the storage never
    holds them out of order.  The caller applies each batch as usual and
    must not let anyone learn the outcome of a call of the group before
    :meth:`end` has returned: a call is acknowledged only once committed.

    A failed commit stores none of the batches.  When the connection was
    lost during the commit itself, the group first finds out whether the
    commit was made: made, the group goes on as after any commit; not made,
    it has failed; and when the storage cannot tell, it fails with
    ``StorageOutcomeUnknown``: the batches may be stored, so the calls must
    not be made again.  Every journal that had batches in a failed commit is
    ``rewound`` (``Journal.rewound``): its memory drops what it applied and
    reads the journal again at its next catch-up.  From then on the group
    refuses to queue more; :meth:`end` raises the failure.
    """

    @abstractmethod
    def pending(self) -> bool:
        """Whether batches wait to be committed."""

    @abstractmethod
    def failed(self) -> bool:
        """Whether a commit of this group failed (see the class doc)."""

    @abstractmethod
    def end(self) -> None:
        """Commit the queued batches in one transaction, release the locks and
        close the group.  ``StorageUnavailable`` or ``JournalConflict`` (a
        database) or ``OSError`` (files) when the commit failed now or before
        (nothing of it is stored), ``StorageOutcomeUnknown`` when it may be
        stored; the group is closed all the same."""
