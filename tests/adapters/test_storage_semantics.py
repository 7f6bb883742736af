"""Behaviour shared by the file and the volatile storage adapters (both must pass).

Each backend is a "disk": ``backend.registry()`` is one process on it, so a
second call plays the part of a restart or of another process on the same
project.  The file backend is a project made by ``init_project`` with a
global root beside it; the volatile one is a :class:`VolatileDisk`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from zpm_adapters.files.file_storage import FileRegistry
from zpm_adapters.files.project import ProjectPaths, init_project
from zpm_adapters.volatile.volatile_storage import VolatileDisk, VolatileRegistry
from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.ports.journal import JournalOp
from zpm_domain.ports.snapshots import SnapshotStore
from zpm_domain.ports.storage import (
    MemoryExists,
    MemoryMissing,
    MemoryRef,
    MemoryRegistry,
    MemoryStorage,
    MountEntry,
)
from zpm_domain.prolog.reader.api import read_clauses

DEFAULT = MemoryRef(DEFAULT_MEMORY, "project")
FACTS = MemoryRef("facts", "project")
SHARED = MemoryRef("shared", "global")


@dataclass
class Backend:
    """A disk and the storages opened on it (closed when the test ends)."""

    registry: Callable[[], MemoryRegistry]
    opened: list[MemoryStorage] = field(default_factory=list)

    def storage(self, ref: MemoryRef) -> MemoryStorage:
        storage = self.registry().storage(ref)
        self.opened.append(storage)
        return storage


@pytest.fixture(params=["file", "volatile"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "file":
        (tmp_path / "project").mkdir()
        init_project(tmp_path / "project")
        paths = ProjectPaths.for_root(tmp_path / "project")
        made = Backend(lambda: FileRegistry(paths, tmp_path / "global"))
    else:
        disk = VolatileDisk()
        made = Backend(lambda: VolatileRegistry(disk))
    yield made
    for storage in made.opened:
        storage.close()


@pytest.fixture(params=["default", "named"])
def memory(request: pytest.FixtureRequest, backend: Backend) -> MemoryRef:
    """The default memory, or a global memory just created."""
    if request.param == "default":
        return DEFAULT
    backend.registry().create(SHARED)
    return SHARED


# -- memories -----------------------------------------------------------------


def test_a_fresh_project_has_only_the_default_memory(backend: Backend) -> None:
    registry = backend.registry()
    assert registry.discover() == []
    assert registry.exists(DEFAULT)
    assert not registry.exists(FACTS)
    assert not registry.exists(SHARED)


def test_discover_lists_named_memories_by_name_then_scope(backend: Backend) -> None:
    registry = backend.registry()
    for ref in [
        MemoryRef("zeta", "project"),
        MemoryRef("alpha", "project"),
        MemoryRef("beta", "global"),
        MemoryRef("alpha", "global"),
    ]:
        registry.create(ref)
    backend.storage(DEFAULT).snapshots.write("s", "% saved\n")  # default has files too now
    assert backend.registry().discover() == [
        MemoryRef("alpha", "global"),
        MemoryRef("alpha", "project"),
        MemoryRef("beta", "global"),
        MemoryRef("zeta", "project"),
    ]


def test_a_created_memory_exists_for_every_process(backend: Backend) -> None:
    backend.registry().create(FACTS)
    backend.registry().create(SHARED)
    other = backend.registry()
    assert other.exists(FACTS) and other.exists(SHARED)
    assert not other.exists(MemoryRef("facts", "global"))
    assert not other.exists(MemoryRef("shared", "project"))


def test_creating_a_memory_that_is_there_raises_memory_exists(backend: Backend) -> None:
    backend.registry().create(FACTS)
    with pytest.raises(MemoryExists):
        backend.registry().create(FACTS)


def test_creating_the_default_memory_raises_memory_exists(backend: Backend) -> None:
    registry = backend.registry()
    assert registry.exists(DEFAULT)
    with pytest.raises(MemoryExists):
        registry.create(DEFAULT)


def test_a_created_memory_is_empty_and_writable(backend: Backend) -> None:
    backend.registry().create(FACTS)
    storage = backend.storage(FACTS)
    assert storage.journal.read_new() == []
    assert storage.journal.pending() == 0
    assert storage.journal.size_bytes() == 0
    assert storage.snapshots.list() == []
    assert storage.writable()
    for source in storage.knowledge_files():
        assert source.text is not None, source.error
        assert read_clauses(source.text) == []


def test_the_default_memory_of_a_fresh_project_is_empty_and_writable(backend: Backend) -> None:
    storage = backend.storage(DEFAULT)
    assert storage.knowledge_files() == []
    assert storage.journal.read_new() == []
    assert storage.snapshots.list() == []
    assert storage.writable()


@pytest.mark.parametrize("ref", [FACTS, SHARED], ids=["project", "global"])
def test_storage_of_a_missing_memory_raises_memory_missing(
    backend: Backend, ref: MemoryRef
) -> None:
    with pytest.raises(MemoryMissing):
        backend.registry().storage(ref)


def test_each_memory_has_its_own_journal(backend: Backend) -> None:
    backend.registry().create(FACTS)
    backend.storage(FACTS).journal.append([JournalOp("assert", clause="p(a)")])
    assert backend.storage(DEFAULT).journal.read_new() == []
    [record] = backend.storage(FACTS).journal.read_new()
    assert record.ops == (JournalOp("assert", clause="p(a)"),)


# -- snapshots ----------------------------------------------------------------


def snapshots(backend: Backend, ref: MemoryRef) -> SnapshotStore:
    return backend.storage(ref).snapshots


def test_a_snapshot_reads_back_in_another_process(backend: Backend, memory: MemoryRef) -> None:
    text = "%% zpm snapshot 1\nnote('line\none', \"caf\u00e9 \u2028 \ud800\").\n"
    snapshots(backend, memory).write("s1", text)
    assert snapshots(backend, memory).read("s1") == text


def test_reading_a_missing_snapshot_raises_key_error(backend: Backend, memory: MemoryRef) -> None:
    with pytest.raises(KeyError):
        snapshots(backend, memory).read("nothing")


def test_snapshots_are_listed_by_name(backend: Backend, memory: MemoryRef) -> None:
    store = snapshots(backend, memory)
    for name in ["b", "a2", "a10", "A"]:
        store.write(name, f"% {name}\n")
    assert [info.name for info in snapshots(backend, memory).list()] == ["A", "a10", "a2", "b"]


def test_writing_a_snapshot_again_replaces_it(backend: Backend, memory: MemoryRef) -> None:
    store = snapshots(backend, memory)
    store.write("s", "% old, and longer than the new text\n")
    store.write("s", "% new\n")
    assert snapshots(backend, memory).read("s") == "% new\n"
    assert [info.name for info in snapshots(backend, memory).list()] == ["s"]


def test_written_is_the_time_of_the_last_write(backend: Backend, memory: MemoryRef) -> None:
    store = snapshots(backend, memory)
    store.write("s", "% first\n")
    between = time.time()
    [first] = store.list()
    time.sleep(0.05)  # more than a tick of the coarse clock that stamps files
    store.write("s", "% second\n")
    after = time.time()
    [second] = snapshots(backend, memory).list()
    assert first.written <= between < second.written <= after + 0.01


def test_snapshots_belong_to_one_memory(backend: Backend) -> None:
    backend.registry().create(FACTS)
    snapshots(backend, DEFAULT).write("s", "% default\n")
    snapshots(backend, FACTS).write("s", "% facts\n")
    snapshots(backend, FACTS).write("only_facts", "% facts\n")
    assert snapshots(backend, DEFAULT).read("s") == "% default\n"
    assert [info.name for info in snapshots(backend, DEFAULT).list()] == ["s"]
    with pytest.raises(KeyError):
        snapshots(backend, DEFAULT).read("only_facts")


# -- the manifest -------------------------------------------------------------


def test_there_is_no_manifest_before_the_first_write(backend: Backend) -> None:
    assert backend.registry().read_manifest() is None


def test_the_manifest_reads_back_as_written(backend: Backend) -> None:
    backend.registry().create(FACTS)
    backend.registry().create(SHARED)
    entries = [
        MountEntry(DEFAULT_MEMORY, "project", "rw"),
        MountEntry("shared", "global", "ro"),
        MountEntry("facts", "project", "rw"),
    ]
    backend.registry().write_manifest(entries)
    assert backend.registry().read_manifest() == entries
    backend.registry().write_manifest(entries[:1])
    assert backend.registry().read_manifest() == entries[:1]
    backend.registry().write_manifest([])
    assert backend.registry().read_manifest() == []
