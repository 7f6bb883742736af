"""Memories kept in memory: the fakes of the storage ports.

A :class:`VolatileDisk` plays the part of the disk: the files of each memory
(a journal store, a snapshot store, knowledge texts) and the manifest.  Two
registries on one disk behave like two processes on one project: each
storage they open gets its own journal handle on the shared journal.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from zpm_adapters.volatile.volatile_journal import VolatileJournal, VolatileJournalStore
from zpm_adapters.volatile.volatile_snapshots import VolatileSnapshots
from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.ports.journal import Journal
from zpm_domain.ports.snapshots import SnapshotStore
from zpm_domain.ports.storage import (
    ForkInfo,
    KnowledgeFile,
    MemoryExists,
    MemoryMissing,
    MemoryRef,
    MemoryRegistry,
    MemoryStorage,
    MountEntry,
    NewFork,
)


@dataclass
class VolatileFiles:
    """What one memory keeps "on disk"."""

    journal: VolatileJournalStore = field(default_factory=VolatileJournalStore)
    snapshots: VolatileSnapshots = field(default_factory=VolatileSnapshots)
    knowledge: list[KnowledgeFile] = field(default_factory=list)
    writable: bool = True
    memory_id: int | None = None
    fork: ForkInfo | None = None
    fork_point: str | None = None


@dataclass
class VolatileDisk:
    """The memories "on disk" (``default`` always) and the manifest; ``clock``
    stamps the snapshots written."""

    clock: Callable[[], float] = time.time
    memories: dict[MemoryRef, VolatileFiles] = field(default_factory=dict)
    manifest: list[MountEntry] | None = None
    memory_ids: dict[str, int] = field(default_factory=dict)
    """How many memory ids each scope gave."""

    def __post_init__(self) -> None:
        self.memories.setdefault(MemoryRef(DEFAULT_MEMORY, "project"), self.new_files())

    def allocate_memory_id(self, scope: str) -> int:
        k = self.memory_ids[scope] = self.memory_ids.get(scope, 0) + 1
        return 2 * k if scope == "project" else 2 * k - 1

    def new_files(self) -> VolatileFiles:
        return VolatileFiles(snapshots=VolatileSnapshots(clock=self.clock))

    def files(self, name: str, scope: str = "project") -> VolatileFiles:
        return self.memories[MemoryRef(name, scope)]  # type: ignore[arg-type]


class VolatileStorage(MemoryStorage):
    def __init__(
        self,
        ref: MemoryRef,
        files: VolatileFiles,
        disk: VolatileDisk,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._ref = ref
        self.files = files
        self._disk = disk
        self._journal = VolatileJournal(files.journal, clock=clock)

    @property
    def journal(self) -> Journal:
        return self._journal

    @property
    def snapshots(self) -> SnapshotStore:
        return self.files.snapshots

    @property
    def location(self) -> str:
        return f"volatile:{self._ref.scope}/{self._ref.name}"

    def knowledge_files(self) -> list[KnowledgeFile]:
        """A fork's are its base's (read from the base, not copied)."""
        files, seen = self.files, 0
        while files.fork is not None and seen < len(self._disk.memories):
            files, seen = self._disk.memories[files.fork.base], seen + 1
        return list(files.knowledge)

    def writable(self) -> bool:
        return self.files.writable

    def fork_info(self) -> ForkInfo | None:
        return self.files.fork

    def read_fork_point(self) -> str:
        if self.files.fork_point is None:
            raise KeyError("fork point")
        return self.files.fork_point

    def write_fork_point(self, text: str) -> None:
        if self.files.fork is None:
            raise KeyError("fork point")
        self.files.fork_point = text

    def memory_id(self, *, give: bool) -> int | None:
        if self.files.memory_id is None and give:
            if not self.files.writable:
                raise PermissionError(f"{self.location} is not writable")
            self.files.memory_id = self._disk.allocate_memory_id(self._ref.scope)
        return self.files.memory_id


class VolatileRegistry(MemoryRegistry):
    def __init__(
        self, disk: VolatileDisk | None = None, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.disk = disk if disk is not None else VolatileDisk()
        self._clock = clock

    def discover(self) -> list[MemoryRef]:
        return sorted(
            (ref for ref in self.disk.memories if ref.name != DEFAULT_MEMORY),
            key=lambda ref: (ref.name, ref.scope),
        )

    def exists(self, ref: MemoryRef) -> bool:
        return ref in self.disk.memories

    def create(self, ref: MemoryRef) -> None:
        if ref in self.disk.memories:
            raise MemoryExists(ref.name)
        self.disk.memories[ref] = self.disk.new_files()

    def create_fork(self, ref: MemoryRef, fork: NewFork) -> None:
        if ref in self.disk.memories:
            raise MemoryExists(ref.name)
        files = self.disk.new_files()
        files.fork, files.fork_point = fork.info, fork.snapshot
        files.snapshots.write(fork.seed, fork.snapshot)
        VolatileJournal(files.journal, clock=self._clock).rotate(fork.first_batch, fork.by)
        self.disk.memories[ref] = files

    def fork_info(self, ref: MemoryRef) -> ForkInfo | None:
        files = self.disk.memories.get(ref)
        return None if files is None else files.fork

    def remove(self, ref: MemoryRef) -> None:
        if ref == MemoryRef(DEFAULT_MEMORY, "project"):
            raise ValueError("the default memory cannot be removed")
        if self.disk.memories.pop(ref, None) is None:
            raise MemoryMissing(f"memory {ref.name} ({ref.scope} scope) does not exist")

    def storage(self, ref: MemoryRef) -> MemoryStorage:
        files = self.disk.memories.get(ref)
        if files is None:
            raise MemoryMissing(f"memory {ref.name} ({ref.scope} scope) does not exist")
        return VolatileStorage(ref, files, self.disk, clock=self._clock)

    def read_manifest(self) -> list[MountEntry] | None:
        return None if self.disk.manifest is None else list(self.disk.manifest)

    def write_manifest(self, entries: list[MountEntry]) -> None:
        self.disk.manifest = list(entries)
