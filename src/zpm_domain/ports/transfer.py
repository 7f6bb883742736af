"""The transfer port: a storage's memories read and written whole, to copy
a project from one storage to another (``zpm storage migrate``).

``StoredMemory`` is everything one memory keeps, in a form both storages
share: a journal generation is its lines as a file journal holds them
(``zpm_adapters.wal_format``), which a database row holds too,
so a copy keeps every batch byte for byte, its time and checksum included.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from zpm_domain.ports.storage import ForkInfo, MemoryRef, Scope


@dataclass(frozen=True, slots=True)
class StoredSnapshot:
    """One snapshot: its name, its text, and when it was written (unix seconds)."""

    name: str
    text: str
    written: float


@dataclass(frozen=True, slots=True)
class StoredMemory:
    """Everything memory ``ref`` keeps.

    ``knowledge`` holds its own knowledge files as ``(name, text)`` pairs,
    named as provenance names them (``kb/facts.pl``, ``kb/<memory>/knowledge.pl``;
    a fork has none of its own).  ``batches`` are the lines of the newest
    generation of its journal, oldest first, each without its newline;
    ``history`` the lines of each earlier generation its storage keeps,
    oldest first: they do not count for the state, and are the memory's
    history (``zpm_domain.history``).
    """

    ref: MemoryRef
    memory_id: int | None
    fork: ForkInfo | None
    fork_point: str | None
    snapshots: tuple[StoredSnapshot, ...]
    knowledge: tuple[tuple[str, str], ...]
    batches: tuple[str, ...]
    history: tuple[tuple[str, ...], ...] = ()
    bases: tuple[tuple[str, str], ...] = ()
    """The snapshots kept for the history (``SnapshotStore.keep_base``):
    ``(content id, text)``, sorted by id."""


class MemoryTransfer(ABC):
    """The memories of one project (and of the global scope) of a storage,
    read and written whole.  ``where`` names the storage in messages."""

    @property
    @abstractmethod
    def where(self) -> str:
        """How messages name this storage (a folder, or a database's space)."""

    @abstractmethod
    def memories(self, scope: Scope) -> list[MemoryRef]:
        """The memories of ``scope``: for ``project``, ``default`` first,
        then the others by name; for ``global``, every global one by name."""

    @abstractmethod
    def read_memory(self, ref: MemoryRef) -> StoredMemory:
        """Everything memory ``ref`` keeps.  ``JournalCorrupt`` naming the
        journal and the line when its newest generation holds a damaged
        batch (a torn final one, what a crash mid-append leaves, is left
        out, as opening the memory drops it); ``OSError`` for a file that
        cannot be read, naming it."""

    @abstractmethod
    def holdings(self, scope: Scope) -> list[str]:
        """What ``scope`` holds that a copy would overwrite, one phrase each
        (``memory notes``, ``default: 12 journal batches``); empty when it
        holds nothing but an empty default memory (global: no memory)."""

    @abstractmethod
    def write_memory(self, memory: StoredMemory) -> None:
        """Store ``memory`` (into a scope that :meth:`holdings` found empty),
        all of it or, after a crash, none of it; the default memory takes
        the place of the empty one."""

    @abstractmethod
    def ids_given(self, scope: Scope) -> int:
        """How many memory ids the counter of ``scope`` has given."""

    @abstractmethod
    def set_ids_given(self, scope: Scope, count: int) -> None:
        """Make the counter of ``scope`` say it gave ``count`` ids, so that
        the next memory made gets an id no copied memory has."""
