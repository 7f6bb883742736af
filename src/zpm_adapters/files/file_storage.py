"""Memories on disk: ``FileRegistry`` for a project, ``FileStorage`` for one memory.

Layout (architecture §9)::

    <project>/.zpm/
        mounts.json                 the manifest of mounts
        data/journal.wal            default memory: journal (+ journal.lock, archives)
        kb/*.pl                     default memory: knowledge files
        kb/default/snapshots/       default memory: snapshots
        kb/<name>/                  a project memory:
            knowledge.pl                its knowledge file
            journal.wal                 its journal (+ journal.lock, archives)
            snapshots/                  its snapshots
            memory-id                   its id (handles)
            fork.json                   a fork: what it was forked from (it reads
                                        that memory's knowledge files, not its own)
            fork-point.pl               a fork: its fork point, a snapshot (what merges
                                        compare with)
    <global root>/<name>/           a global memory, laid out like a project one

Deleting a memory renames its folder to ``.<name>.removing-<pid>`` beside
it (an atomic step; hidden folders are never listed), then deletes that.

Calls that write one after another may share their journals' ``fsync``
(``write_group``, a ``file_group.FileWriteGroup``): every change of these
files made on the group's thread commits the group first.

The global root is ``$XDG_DATA_HOME/zpm/kb``, else ``~/.local/share/zpm/kb``
(``zpm_app.bootstrap.config`` decides); without one, global memories cannot be
created or mounted.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from zpm_adapters.files import manifest
from zpm_adapters.files.durable import fsync_directory, write_synced
from zpm_adapters.files.file_group import FileWriteGroup, settle
from zpm_adapters.files.file_snapshots import FileSnapshotStore
from zpm_adapters.files.memory_files import FileStorage as FileStorage
from zpm_adapters.files.memory_files import Layout as Layout
from zpm_adapters.files.memory_files import Step
from zpm_adapters.files.memory_ids import MemoryIdCounter
from zpm_adapters.files.project import ProjectPaths, knowledge_files
from zpm_adapters.wal_format import encode_batch
from zpm_domain.errors import ZpmError
from zpm_domain.memory.names import DEFAULT_MEMORY, NAME_PATTERN, RESERVED_NAMES
from zpm_domain.ports.storage import (
    KNOWLEDGE_HEADER,
    ForkInfo,
    MemoryExists,
    MemoryMissing,
    MemoryRef,
    MemoryRegistry,
    MemoryStorage,
    MountEntry,
    NewFork,
    Scope,
)

log = logging.getLogger("zpm")

KNOWLEDGE_FILE = "knowledge.pl"
MEMORY_IDS = "memory-ids"
"""The counter of memory ids (``.zpm/memory-ids``; ``<global root>/.memory-ids``)."""
MEMORY_ID = "memory-id"
"""A memory's own id, beside its journal."""
FORK_INFO = "fork.json"
FORK_POINT = "fork-point.pl"


class FileRegistry(MemoryRegistry):
    """The memories of the project at ``paths`` and of the ``global_root``."""

    def __init__(
        self,
        paths: ProjectPaths,
        global_root: Path | None,
        *,
        clock: Callable[[], float] = time.time,
        step: Step | None = None,
    ) -> None:
        self.paths = paths
        self.global_root = global_root
        self._clock = clock
        self._step = step

    def write_group(self) -> FileWriteGroup:
        """A group commit on the calling thread: the batches its calls append
        are made durable by one ``fsync`` per journal (``file_group``)."""
        return FileWriteGroup()

    # -- memories -------------------------------------------------------------
    def discover(self) -> list[MemoryRef]:
        found = [MemoryRef(name, "project") for name in _memory_dirs(self.paths.kb_dir)]
        if self.global_root is not None:
            found += [MemoryRef(name, "global") for name in _memory_dirs(self.global_root)]
        return sorted(found, key=lambda ref: (ref.name, ref.scope))

    def exists(self, ref: MemoryRef) -> bool:
        if ref.name == DEFAULT_MEMORY and ref.scope == "project":
            return True
        folder = self._folder(ref, required=False)
        return folder is not None and folder.is_dir()

    def create(self, ref: MemoryRef) -> None:
        settle()
        if self.exists(ref):
            raise MemoryExists(ref.name)
        folder = self._folder(ref, required=True)
        assert folder is not None
        if folder.exists():
            raise MemoryExists(ref.name)
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir()
        try:
            knowledge = folder / KNOWLEDGE_FILE
            with open(knowledge, "x", encoding="utf-8") as handle:
                handle.write(KNOWLEDGE_HEADER.format(name=ref.name))
                handle.flush()
                os.fsync(handle.fileno())
            fsync_directory(folder)
            fsync_directory(folder.parent)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise

    def create_fork(self, ref: MemoryRef, fork: NewFork) -> None:
        """Write the fork in a hidden folder beside its place, then rename it
        into place: a crash leaves either no fork or all of it (a hidden
        folder left behind is ignored, and removed by the next fork)."""
        settle()
        if self.exists(ref):
            raise MemoryExists(ref.name)
        folder = self._folder(ref, required=True)
        assert folder is not None
        folder.parent.mkdir(parents=True, exist_ok=True)
        for stale in folder.parent.glob(f".{ref.name}.forking-*"):
            shutil.rmtree(stale, ignore_errors=True)
        staged = folder.parent / f".{ref.name}.forking-{os.getpid()}"
        staged.mkdir()
        try:
            write_synced(staged / FORK_INFO, fork_record(fork.info))
            write_synced(staged / FORK_POINT, fork.snapshot.encode())
            FileSnapshotStore(staged / "snapshots", self._clock).write(fork.seed, fork.snapshot)
            write_synced(
                staged / "journal.wal",
                encode_batch(fork.first_batch, int(self._clock()), by=fork.by),
            )
            fsync_directory(staged)
            try:
                os.rename(staged, folder)
            except OSError as error:
                if folder.exists():
                    raise MemoryExists(ref.name) from error
                raise
            fsync_directory(folder.parent)
        except BaseException:
            shutil.rmtree(staged, ignore_errors=True)
            raise

    def fork_info(self, ref: MemoryRef) -> ForkInfo | None:
        folder = self._folder(ref, required=False)
        if folder is None or (ref.name == DEFAULT_MEMORY and ref.scope == "project"):
            return None
        info = _read_fork_info(folder / FORK_INFO)
        if info is None:
            return None
        try:
            changed = max(info.created, (folder / "journal.wal").stat().st_mtime)
        except OSError:
            changed = info.created
        return replace(info, changed=changed)

    def remove(self, ref: MemoryRef) -> None:
        """Rename the memory's folder aside (``.<name>.removing-<pid>``, which
        no scan lists) in one atomic step, make that durable, then delete it:
        a crash before the rename leaves the memory whole, after it leaves no
        memory, and a folder left aside is deleted by the next removal in
        that scope.  ``MemoryMissing`` when the memory is not there."""
        settle()
        if ref.name == DEFAULT_MEMORY and ref.scope == "project":
            raise ValueError("the default memory cannot be removed")
        folder = self._folder(ref, required=True)
        assert folder is not None
        doomed = folder.parent / f".{ref.name}.removing-{os.getpid()}"
        shutil.rmtree(doomed, ignore_errors=True)
        try:
            os.rename(folder, doomed)
        except FileNotFoundError:
            raise MemoryMissing(
                f"memory {ref.name} ({ref.scope} scope) is not at {folder}"
            ) from None
        fsync_directory(folder.parent)
        if self._step is not None:
            self._step("remove:moved")
        try:
            shutil.rmtree(doomed)
        except OSError as error:
            log.warning("memory %s is deleted, but %s stays: %s", ref.name, doomed, error)
        for aside in folder.parent.glob(".*.removing-*"):
            shutil.rmtree(aside, ignore_errors=True)  # left by a removal that stopped

    def storage(self, ref: MemoryRef) -> MemoryStorage:
        return FileStorage(self.layout(ref), clock=self._clock, step=self._step)

    def layout(self, ref: MemoryRef) -> Layout:
        """Where memory ``ref`` keeps its files; ``MemoryMissing`` when it is not there."""
        if ref.name == DEFAULT_MEMORY and ref.scope == "project":
            return Layout(
                journal=self.paths.wal_path,
                snapshots=self.paths.kb_dir / DEFAULT_MEMORY / "snapshots",
                location=self.paths.data_dir,
                knowledge=lambda: knowledge_files(self.paths),
                memory_ids=self._memory_ids(ref),
                memory_id=self.paths.data_dir / MEMORY_ID,
                names_from=self.paths.zpm_dir,
            )
        folder = self._folder(ref, required=True)
        assert folder is not None
        if not folder.is_dir():
            raise MemoryMissing(f"memory {ref.name} ({ref.scope} scope) is not at {folder}")
        fork = _read_fork_info(folder / FORK_INFO)
        if fork is not None:
            base = self.layout(fork.base)  # a fork reads its base's knowledge files
            return Layout(
                journal=folder / "journal.wal",
                snapshots=folder / "snapshots",
                location=folder,
                knowledge=base.knowledge,
                memory_ids=self._memory_ids(ref),
                memory_id=folder / MEMORY_ID,
                names_from=base.names_from,
                fork=fork,
                fork_point=folder / FORK_POINT,
            )
        knowledge = folder / KNOWLEDGE_FILE
        return Layout(
            journal=folder / "journal.wal",
            snapshots=folder / "snapshots",
            location=folder,
            knowledge=lambda: [knowledge] if knowledge.is_file() else [],
            memory_ids=self._memory_ids(ref),
            memory_id=folder / MEMORY_ID,
            names_from=folder.parent.parent,
        )

    def _memory_ids(self, ref: MemoryRef) -> MemoryIdCounter:
        return self.id_counter(ref.scope)

    def id_counter(self, scope: Scope) -> MemoryIdCounter:
        """The counter of the ids of ``scope``'s memories
        (``GlobalScopeUnavailable`` for the global scope without a global root)."""
        if scope == "project":
            return MemoryIdCounter(self.paths.zpm_dir / MEMORY_IDS, "even")
        if self.global_root is None:
            raise GlobalScopeUnavailable()
        return MemoryIdCounter(self.global_root / ("." + MEMORY_IDS), "odd")

    # -- the manifest ---------------------------------------------------------
    def read_manifest(self) -> list[MountEntry] | None:
        return manifest.read_manifest(self.paths.mounts_path, clock=self._clock)

    def write_manifest(self, entries: list[MountEntry]) -> None:
        recorded: list[tuple[MountEntry, str | None]] = []
        for entry in entries:
            where = self._folder(MemoryRef(entry.name, entry.scope), required=False)
            if where is not None and entry.scope == "project":
                where = where.relative_to(self.paths.root)
            recorded.append((entry, None if where is None else str(where)))
        manifest.write_manifest(self.paths.mounts_path, recorded)

    def folder(self, ref: MemoryRef) -> Path:
        """The folder named memory ``ref`` has or would have
        (``GlobalScopeUnavailable`` for a global one without a global root)."""
        folder = self._folder(ref, required=True)
        assert folder is not None
        return folder

    # -- internals ------------------------------------------------------------
    def _folder(self, ref: MemoryRef, *, required: bool) -> Path | None:
        if ref.scope == "project":
            return self.paths.kb_dir / ref.name
        if self.global_root is None:
            if required:
                raise GlobalScopeUnavailable()
            return None
        return self.global_root / ref.name


class GlobalScopeUnavailable(ZpmError):
    def __init__(self) -> None:
        super().__init__(
            "global memories need a home: set XDG_DATA_HOME or HOME (global memories live "
            "in $XDG_DATA_HOME/zpm/kb, else ~/.local/share/zpm/kb)"
        )


def fork_record(info: ForkInfo) -> bytes:
    """The bytes of a fork's ``fork.json`` (``changed`` is not recorded)."""
    record = {
        "fork_of": info.base.name,
        "scope": info.base.scope,
        "base_id": info.base_id,
        "created": info.created,
    }
    return (json.dumps(record) + "\n").encode()


def _read_fork_info(path: Path) -> ForkInfo | None:
    """The fork record at ``path``; ``None`` when there is none.  A record that
    does not read raises ``MemoryMissing`` (the memory cannot be opened as
    what it is)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise MemoryMissing(f"{path}: not a fork record ({error})") from None
    if not isinstance(record, dict):
        raise MemoryMissing(f"{path}: not a fork record")
    base, scope = record.get("fork_of"), record.get("scope")
    base_id, created = record.get("base_id"), record.get("created")
    if (
        not isinstance(base, str)
        or scope not in ("project", "global")
        or not (base_id is None or isinstance(base_id, int))
        or not isinstance(created, (int, float))
    ):
        raise MemoryMissing(f"{path}: not a fork record")
    return ForkInfo(MemoryRef(base, scope), base_id, float(created))


def _memory_dirs(root: Path) -> list[str]:
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    names = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if is_dir and NAME_PATTERN.match(entry.name) and entry.name not in RESERVED_NAMES:
            names.append(entry.name)
    return names
