"""One memory's files: where they are (``Layout``) and the storage port over
them (``FileStorage``: its journal, snapshots, knowledge files, fork record
and id).  ``file_storage.FileRegistry`` lays the memories out and opens them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from zpm_adapters.files.durable import write_atomically
from zpm_adapters.files.file_journal import FileJournal
from zpm_adapters.files.file_snapshots import FileSnapshotStore
from zpm_adapters.files.memory_ids import CounterDamaged, MemoryIdCounter
from zpm_domain.ports.journal import Journal
from zpm_domain.ports.snapshots import SnapshotStore
from zpm_domain.ports.storage import ForkInfo, KnowledgeFile, MemoryStorage
from zpm_domain.stored.handles import MAX_MEMORY_ID

Step = Callable[[str], None]


@dataclass(frozen=True)
class Layout:
    """Where one memory's files are."""

    journal: Path
    snapshots: Path
    location: Path
    knowledge: Callable[[], list[Path]]
    memory_ids: MemoryIdCounter
    memory_id: Path
    """The file recording the memory's id."""
    names_from: Path
    """Knowledge files are named relative to this folder in provenance."""
    fork: ForkInfo | None = None
    fork_point: Path | None = None


class FileStorage(MemoryStorage):
    """One memory's files, per a :class:`Layout`."""

    def __init__(
        self, layout: Layout, *, clock: Callable[[], float] = time.time, step: Step | None = None
    ) -> None:
        self.layout = layout
        self._journal = FileJournal(layout.journal, clock=clock, step=step)
        self._snapshots = FileSnapshotStore(layout.snapshots, clock)

    @property
    def journal(self) -> Journal:
        return self._journal

    @property
    def snapshots(self) -> SnapshotStore:
        return self._snapshots

    @property
    def location(self) -> str:
        return str(self.layout.location)

    def knowledge_files(self) -> list[KnowledgeFile]:
        files = []
        for path in self.layout.knowledge():
            name = _relative(path, self.layout.names_from)
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                files.append(KnowledgeFile(str(path), None, str(error), name=name))
            else:
                files.append(KnowledgeFile(str(path), text, name=name))
        return files

    def writable(self) -> bool:
        """The journal's folder accepts new files, and the journal (if any) writes."""
        folder = self.layout.journal.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return False
        if not os.access(folder, os.W_OK | os.X_OK):
            return False
        journal = self.layout.journal
        return not journal.exists() or os.access(journal, os.W_OK)

    def fork_info(self) -> ForkInfo | None:
        return self.layout.fork

    def read_fork_point(self) -> str:
        if self.layout.fork_point is None:
            raise KeyError("fork point")
        try:
            return self.layout.fork_point.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise KeyError(str(self.layout.fork_point)) from None

    def write_fork_point(self, text: str) -> None:
        target = self.layout.fork_point
        if target is None:
            raise KeyError("fork point")
        write_atomically(target.with_name(target.name + ".next"), target, text.encode())

    def fork_point_label(self) -> str:
        return str(self.layout.fork_point or super().fork_point_label())

    def memory_id(self, *, give: bool) -> int | None:
        path = self.layout.memory_id
        try:
            return _read_memory_id(path)
        except FileNotFoundError:
            if not give:
                return None
        memory_id = self.layout.memory_ids.allocate()
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path.with_name(f"{path.name}.tmp"), path, f"{memory_id}\n".encode())
        return memory_id


def _read_memory_id(path: Path) -> int:
    """The id recorded at ``path``; ``FileNotFoundError`` when there is none,
    ``CounterDamaged`` when the file does not hold one."""
    text = path.read_text(encoding="ascii", errors="replace").strip()
    if not text.isdigit() or not 0 < int(text) <= MAX_MEMORY_ID:
        raise CounterDamaged(f"{path}: not a memory id")
    return int(text)


def _relative(path: Path, folder: Path) -> str:
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return str(path)
