"""``FileTransfer``: a project's memories in files, read and written whole
(the transfer port, ``zpm_domain.ports.transfer``), laid out as
``file_storage`` lays them out.

A named memory (project or global) is written in a hidden folder beside
its place, then renamed into place, as ``FileRegistry.create_fork`` does:
a crash leaves no memory or all of it.  The default memory's files are
spread over ``.zpm/``: its knowledge files (``kb/*.pl``), its snapshots
(a staged folder renamed to ``kb/default/snapshots``) and its id are
written first, and its journal, written aside and renamed over
``data/journal.wal``, last: until then the memory has no state of its own,
and what was written shows in :meth:`FileTransfer.holdings`.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from zpm_adapters.files.durable import fsync_directory, write_atomically, write_synced
from zpm_adapters.files.file_snapshots import FileSnapshotStore
from zpm_adapters.files.file_storage import (
    FORK_INFO,
    FORK_POINT,
    KNOWLEDGE_FILE,
    MEMORY_ID,
    FileRegistry,
    FileStorage,
    fork_record,
)
from zpm_adapters.files.journal_files import archive_name, archives_of
from zpm_adapters.files.journal_lines import read_lines, write_lines
from zpm_adapters.files.project import knowledge_files
from zpm_domain.errors import ZpmError
from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.ports.storage import MemoryRef, Scope
from zpm_domain.ports.transfer import MemoryTransfer, StoredMemory, StoredSnapshot

DEFAULT = MemoryRef(DEFAULT_MEMORY, "project")


class NotKeptInFiles(ZpmError):
    """A memory holds a knowledge file that has no place in a project's files."""


class FileTransfer(MemoryTransfer):
    """The memories of ``registry``'s project and global root."""

    def __init__(self, registry: FileRegistry) -> None:
        self.registry = registry
        self.paths = registry.paths

    @property
    def where(self) -> str:
        return str(self.paths.root)

    def memories(self, scope: Scope) -> list[MemoryRef]:
        found = [ref for ref in self.registry.discover() if ref.scope == scope]
        return [DEFAULT, *found] if scope == "project" else found

    def read_memory(self, ref: MemoryRef) -> StoredMemory:
        layout = self.registry.layout(ref)
        storage = FileStorage(layout)
        try:
            fork_point = None
            if layout.fork is not None:
                try:
                    fork_point = storage.read_fork_point()
                except KeyError:
                    fork_point = None
            store = FileSnapshotStore(layout.snapshots)
            snapshots = tuple(
                StoredSnapshot(info.name, store.read(info.name), info.written)
                for info in store.list()
            )
            knowledge: list[tuple[str, str]] = []
            if layout.fork is None:
                for source in storage.knowledge_files():
                    if source.text is None:
                        raise OSError(f"{source.label}: cannot read: {source.error}")
                    knowledge.append((source.name or source.label, source.text))
            return StoredMemory(
                ref=ref,
                memory_id=storage.memory_id(give=False),
                fork=layout.fork,
                fork_point=fork_point,
                snapshots=snapshots,
                knowledge=tuple(knowledge),
                batches=tuple(read_lines(layout.journal)),
                history=tuple(tuple(read_lines(a)) for a in archives_of(layout.journal)),
                bases=tuple((i, store.kept_base(i)) for i in store.kept_bases()),
            )
        finally:
            storage.close()

    def holdings(self, scope: Scope) -> list[str]:
        if scope == "global":
            if self.registry.global_root is None:
                return []
            return [f"global memory {ref.name}" for ref in self.memories("global")]
        held = [f"memory {ref.name}" for ref in self.memories("project")[1:]]
        layout = self.registry.layout(DEFAULT)
        if batches := len(read_lines(layout.journal)):
            held.append(f"default: {batches} journal batches in {layout.journal}")
        if snapshots := FileSnapshotStore(layout.snapshots).list():
            held.append(f"default: {len(snapshots)} snapshots in {layout.snapshots}")
        held += [f"default: knowledge file {path}" for path in knowledge_files(self.paths)]
        return held

    def write_memory(self, memory: StoredMemory) -> None:
        if memory.ref == DEFAULT:
            self._write_default(memory)
        else:
            self._write_named(memory)

    def ids_given(self, scope: Scope) -> int:
        return self.registry.id_counter(scope).given()

    def set_ids_given(self, scope: Scope, count: int) -> None:
        self.registry.id_counter(scope).set_given(count)

    # -- internals ------------------------------------------------------------
    def _write_default(self, memory: StoredMemory) -> None:
        kb, data = self.paths.kb_dir, self.paths.data_dir
        kb.mkdir(parents=True, exist_ok=True)
        data.mkdir(parents=True, exist_ok=True)
        for name, text in memory.knowledge:
            file = name.removeprefix("kb/")
            if file == name or "/" in file or not file.endswith(".pl"):
                raise NotKeptInFiles(
                    f"the default memory's knowledge file {name} has no place in {kb} "
                    "(only kb/<file>.pl)"
                )
            target = kb / file
            write_atomically(
                target.with_name(f".{file}.copying-{os.getpid()}"), target, _utf8(text)
            )
        if memory.snapshots or memory.bases:
            place = self.registry.layout(DEFAULT).snapshots
            place.parent.mkdir(parents=True, exist_ok=True)
            staged = place.parent / f".snapshots.copying-{os.getpid()}"
            _staged(staged, place, lambda: _write_snapshots(staged, memory))
        if memory.memory_id is not None:
            target = data / MEMORY_ID
            write_atomically(
                target.with_name(f"{MEMORY_ID}.tmp"), target, f"{memory.memory_id}\n".encode()
            )
        journal = self.paths.wal_path
        _write_history(data, memory.history)
        staged_journal = journal.with_name(f".{journal.name}.copying-{os.getpid()}")
        try:
            write_lines(staged_journal, memory.batches)
            os.replace(staged_journal, journal)
        except BaseException:
            staged_journal.unlink(missing_ok=True)
            raise
        fsync_directory(data)

    def _write_named(self, memory: StoredMemory) -> None:
        ref = memory.ref
        if self.registry.exists(ref):
            raise OSError(f"memory {ref.name} ({ref.scope} scope) is already there")
        own = f"kb/{ref.name}/{KNOWLEDGE_FILE}"
        for name, _ in memory.knowledge:
            if name != own:
                raise NotKeptInFiles(
                    f"memory {ref.name}'s knowledge file {name} has no place in files (only {own})"
                )
        folder = self.registry.folder(ref)
        folder.parent.mkdir(parents=True, exist_ok=True)
        staged = folder.parent / f".{ref.name}.copying-{os.getpid()}"
        _staged(staged, folder, lambda: _write_folder(staged, memory))


def _write_folder(folder: Path, memory: StoredMemory) -> None:
    """Every file of named memory ``memory`` into ``folder`` (made durable)."""
    for _, text in memory.knowledge:
        write_synced(folder / KNOWLEDGE_FILE, _utf8(text))
    if memory.fork is not None:
        write_synced(folder / FORK_INFO, fork_record(memory.fork))
    if memory.fork_point is not None:
        write_synced(folder / FORK_POINT, _utf8(memory.fork_point))
    if memory.memory_id is not None:
        write_synced(folder / MEMORY_ID, f"{memory.memory_id}\n".encode())
    if memory.snapshots or memory.bases:
        snapshots = folder / "snapshots"
        snapshots.mkdir()
        _write_snapshots(snapshots, memory)
    _write_history(folder, memory.history)
    write_lines(folder / "journal.wal", memory.batches)


def _write_history(folder: Path, history: tuple[tuple[str, ...], ...]) -> None:
    """Each earlier generation of a journal as an archive in ``folder``, named
    by the time of its last batch and its place, so they sort in order."""
    for place, lines in enumerate(history, start=1):
        if lines:
            ts = int(json.loads(lines[-1])["ts"])
            write_lines(folder / archive_name(ts, place), lines)


def _write_snapshots(folder: Path, memory: StoredMemory) -> None:
    """Each snapshot of ``memory`` as ``<name>.pl`` in ``folder``, its time
    its file's, and the bases its history keeps."""
    store = FileSnapshotStore(folder)
    for snapshot in memory.snapshots:
        write_synced(store.path(snapshot.name), _utf8(snapshot.text))
        os.utime(store.path(snapshot.name), (snapshot.written, snapshot.written))
    for snapshot_id, text in memory.bases:
        store.keep_base(snapshot_id, text)


def _staged(staged: Path, place: Path, fill: Callable[[], None]) -> None:
    """Make folder ``staged``, ``fill()`` it, make it durable and rename it to
    ``place`` (which must be missing or an empty folder); on any failure
    ``staged`` is removed and ``place`` is as it was."""
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir()
    try:
        fill()
        fsync_directory(staged)
        try:
            os.rename(staged, place)
        except OSError as error:
            raise OSError(f"{place} is already there: {error.strerror}") from None
        fsync_directory(place.parent)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")
