"""FileRegistry and FileStorage on disk: where each memory's files are, and
what a failed create or snapshot write leaves behind."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.adapters.disk_faults import fail_with_enospc, full_disk
from zpm_adapters.files.file_snapshots import FileSnapshotStore
from zpm_adapters.files.file_storage import FileRegistry, GlobalScopeUnavailable
from zpm_adapters.files.project import ProjectPaths, init_project
from zpm_domain.errors import ZpmError
from zpm_domain.memory.names import DEFAULT_MEMORY
from zpm_domain.ports.journal import JournalOp
from zpm_domain.ports.storage import (
    KnowledgeFile,
    MemoryMissing,
    MemoryRef,
    MemoryStorage,
    MountEntry,
)

DEFAULT = MemoryRef(DEFAULT_MEMORY, "project")
FACTS = MemoryRef("facts", "project")
SHARED = MemoryRef("shared", "global")

FACTS_HEADER = """\
% Knowledge file of zpm memory 'facts'.
% Clauses written here are loaded when the memory is mounted. Tools can query
% them but never change them; declare a predicate with :- dynamic(Name/Arity).
% to let tools add clauses to it.
"""

NO_GLOBAL_ROOT = (
    "global memories need a home: set XDG_DATA_HOME or HOME (global memories live "
    "in $XDG_DATA_HOME/zpm/kb, else ~/.local/share/zpm/kb)"
)

ASSERT = JournalOp("assert", clause="p(a)")


@pytest.fixture
def paths(tmp_path: Path) -> ProjectPaths:
    (tmp_path / "project").mkdir()
    init_project(tmp_path / "project")
    return ProjectPaths.for_root(tmp_path / "project")


@pytest.fixture
def global_root(tmp_path: Path) -> Path:
    return tmp_path / "global"


@pytest.fixture
def registry(paths: ProjectPaths, global_root: Path) -> FileRegistry:
    return FileRegistry(paths, global_root)


@pytest.fixture
def open_storage(registry: FileRegistry) -> Iterator[Callable[[MemoryRef], MemoryStorage]]:
    opened: list[MemoryStorage] = []

    def open_(ref: MemoryRef) -> MemoryStorage:
        opened.append(registry.storage(ref))
        return opened[-1]

    yield open_
    for storage in opened:
        storage.close()


def files_under(folder: Path) -> list[str]:
    """Every path under ``folder``, relative to it, sorted."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def snapshot_store(storage: MemoryStorage) -> FileSnapshotStore:
    store = storage.snapshots
    assert isinstance(store, FileSnapshotStore)
    return store


# -- the default memory -------------------------------------------------------


def test_default_memory_journal_in_data_and_snapshots_in_kb_default(
    paths: ProjectPaths, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    storage = open_storage(DEFAULT)
    storage.journal.append([ASSERT])
    storage.snapshots.write("s", "% saved\n")
    zpm = paths.zpm_dir
    assert storage.location == str(zpm / "data")
    assert storage.journal.label == str(zpm / "data/journal.wal")
    assert storage.snapshots.label("s") == str(zpm / "kb/default/snapshots/s.pl")
    assert files_under(zpm) == [
        ".gitignore",
        "data",
        "data/journal.lock",
        "data/journal.wal",
        "kb",
        "kb/default",
        "kb/default/snapshots",
        "kb/default/snapshots/s.pl",
    ]
    assert (zpm / "kb/default/snapshots/s.pl").read_text() == "% saved\n"


def test_default_knowledge_files_are_the_pl_files_of_kb_sorted_without_snapshots(
    paths: ProjectPaths, registry: FileRegistry, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    kb = paths.kb_dir
    (kb / "b.pl").write_text("b.\n")
    (kb / "a.pl").write_text("a.\n")
    (kb / "old_save.pl").write_text("%% zpm snapshot 1\nold.\n")
    (kb / "notes.txt").write_text("not prolog\n")
    (kb / "folder.pl").mkdir()
    registry.create(FACTS)  # kb/facts/knowledge.pl belongs to facts, not to default
    assert open_storage(DEFAULT).knowledge_files() == [
        KnowledgeFile(str(kb / "a.pl"), "a.\n", name="kb/a.pl"),
        KnowledgeFile(str(kb / "b.pl"), "b.\n", name="kb/b.pl"),
    ]


def test_an_unreadable_knowledge_file_is_listed_with_its_error(
    paths: ProjectPaths, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    (paths.kb_dir / "latin1.pl").write_bytes(b"caf\xe9.\n")
    [source] = open_storage(DEFAULT).knowledge_files()
    assert source.label == str(paths.kb_dir / "latin1.pl")
    assert source.text is None
    assert source.error is not None and "utf-8" in source.error


def test_a_default_snapshot_is_never_a_knowledge_file(
    paths: ProjectPaths, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    (paths.kb_dir / "facts.pl").write_text("fact.\n")
    storage = open_storage(DEFAULT)
    storage.snapshots.write("facts", "%% zpm snapshot 1\nsaved.\n")
    assert (paths.kb_dir / "facts.pl").read_text() == "fact.\n"
    assert storage.knowledge_files() == [
        KnowledgeFile(str(paths.kb_dir / "facts.pl"), "fact.\n", name="kb/facts.pl")
    ]


# -- named memories -----------------------------------------------------------


def test_create_writes_only_the_knowledge_file_with_its_header(
    paths: ProjectPaths, registry: FileRegistry
) -> None:
    registry.create(FACTS)
    assert files_under(paths.kb_dir) == ["facts", "facts/knowledge.pl"]
    assert (paths.kb_dir / "facts/knowledge.pl").read_text() == FACTS_HEADER


def test_a_named_memory_keeps_everything_in_its_folder(
    paths: ProjectPaths, registry: FileRegistry, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    registry.create(FACTS)
    storage = open_storage(FACTS)
    storage.journal.append([ASSERT])
    storage.snapshots.write("s", "% saved\n")
    folder = paths.kb_dir / "facts"
    assert storage.location == str(folder)
    assert storage.journal.label == str(folder / "journal.wal")
    assert storage.snapshots.label("s") == str(folder / "snapshots/s.pl")
    assert storage.knowledge_files() == [
        KnowledgeFile(str(folder / "knowledge.pl"), FACTS_HEADER, name="kb/facts/knowledge.pl")
    ]
    assert files_under(folder) == [
        "journal.lock",
        "journal.wal",
        "knowledge.pl",
        "snapshots",
        "snapshots/s.pl",
    ]
    assert files_under(paths.data_dir) == []  # the default journal is untouched


def test_a_snapshot_named_knowledge_leaves_the_knowledge_file_alone(
    paths: ProjectPaths, registry: FileRegistry, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    registry.create(FACTS)
    storage = open_storage(FACTS)
    storage.snapshots.write("knowledge", "%% zpm snapshot 1\nsaved.\n")
    assert (paths.kb_dir / "facts/knowledge.pl").read_text() == FACTS_HEADER
    assert [source.text for source in storage.knowledge_files()] == [FACTS_HEADER]


def test_a_named_memory_without_its_knowledge_file_has_none(
    paths: ProjectPaths, registry: FileRegistry, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    registry.create(FACTS)
    (paths.kb_dir / "facts/knowledge.pl").unlink()
    assert open_storage(FACTS).knowledge_files() == []


def test_a_missing_memory_says_where_it_was_looked_for(
    paths: ProjectPaths, registry: FileRegistry, global_root: Path
) -> None:
    with pytest.raises(MemoryMissing) as project:
        registry.storage(FACTS)
    assert str(project.value) == f"memory facts (project scope) is not at {paths.kb_dir / 'facts'}"
    with pytest.raises(MemoryMissing) as shared:
        registry.storage(SHARED)
    assert str(shared.value) == f"memory shared (global scope) is not at {global_root / 'shared'}"


def test_discover_ignores_folders_that_are_not_memories(
    paths: ProjectPaths, registry: FileRegistry, global_root: Path
) -> None:
    for name in ["ok_name", "Upper", "9lives", "has-dash", "_private", "x" * 129]:
        (paths.kb_dir / name).mkdir()
    for name in ["default", "system", "user", "prolog", "__all__"]:
        (paths.kb_dir / name).mkdir()
    (paths.kb_dir / "plain").write_text("a file, not a memory\n")
    global_root.mkdir()
    (global_root / ("x" * 128)).mkdir()
    (global_root / "default").mkdir()
    assert registry.discover() == [
        MemoryRef("ok_name", "project"),
        MemoryRef("x" * 128, "global"),
    ]


# -- the global scope ---------------------------------------------------------


def test_global_memories_live_under_the_global_root(
    paths: ProjectPaths, registry: FileRegistry, global_root: Path
) -> None:
    assert not global_root.exists()
    registry.create(SHARED)
    assert files_under(global_root) == ["shared", "shared/knowledge.pl"]
    assert registry.layout(SHARED).location == global_root / "shared"
    assert files_under(paths.kb_dir) == []
    assert registry.discover() == [SHARED]


def test_without_a_global_root_only_project_memories_exist(
    paths: ProjectPaths, global_root: Path
) -> None:
    FileRegistry(paths, global_root).create(SHARED)
    registry = FileRegistry(paths, None)
    registry.create(FACTS)
    assert registry.discover() == [FACTS]
    assert not registry.exists(SHARED)
    with pytest.raises(GlobalScopeUnavailable) as creating:
        registry.create(MemoryRef("other", "global"))
    assert str(creating.value) == NO_GLOBAL_ROOT
    assert isinstance(creating.value, ZpmError)
    with pytest.raises(GlobalScopeUnavailable, match="global memories need a home"):
        registry.storage(SHARED)


def test_without_a_global_root_the_manifest_keeps_its_global_mounts(
    paths: ProjectPaths, global_root: Path
) -> None:
    """A process without a home cannot mount global memories, but rewriting
    the manifest must not forget them for the processes that can."""
    entries = [MountEntry(DEFAULT_MEMORY, "project", "rw"), MountEntry("shared", "global", "ro")]
    FileRegistry(paths, None).write_manifest(entries)
    assert FileRegistry(paths, global_root).read_manifest() == entries


# -- failures -----------------------------------------------------------------


def test_a_create_that_fails_leaves_nothing_behind(
    paths: ProjectPaths, registry: FileRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", fail_with_enospc)  # the knowledge file cannot be made durable
        with pytest.raises(OSError, match="No space left"):
            registry.create(FACTS)
    assert files_under(paths.kb_dir) == []
    assert not registry.exists(FACTS)
    registry.create(FACTS)  # the name is free again
    assert registry.exists(FACTS)


def test_a_global_memory_under_a_regular_file_cannot_be_created(
    paths: ProjectPaths, tmp_path: Path
) -> None:
    (tmp_path / "file").write_text("")
    registry = FileRegistry(paths, tmp_path / "file" / "kb")
    with pytest.raises(OSError):
        registry.create(SHARED)
    assert sorted(os.listdir(tmp_path)) == ["file", "project"]
    assert (tmp_path / "file").read_text() == ""


def test_a_snapshot_write_leaves_only_the_snapshot(
    paths: ProjectPaths, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    storage = open_storage(DEFAULT)
    storage.snapshots.write("s", "% one\n")
    storage.snapshots.write("s", "% two\n")
    assert os.listdir(paths.kb_dir / "default/snapshots") == ["s.pl"]


def test_a_snapshot_is_written_at_the_time_the_clock_tells(paths: ProjectPaths) -> None:
    """Its file's modification time, which ``list`` gives, is the clock's:
    two saves within one tick of a test's fixed clock are listed as written
    together, as the journal and the other storages record them."""
    registry = FileRegistry(paths, None, clock=lambda: 1764585731.5)
    storage = registry.storage(DEFAULT)
    try:
        storage.snapshots.write("b", "% b\n")
        storage.snapshots.write("a", "% a\n")
        assert [(i.name, i.written) for i in storage.snapshots.list()] == [
            ("a", 1764585731.5),
            ("b", 1764585731.5),
        ]
    finally:
        storage.close()


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_a_failed_snapshot_write_keeps_the_old_snapshot_whole(
    paths: ProjectPaths,
    open_storage: Callable[[MemoryRef], MemoryStorage],
    monkeypatch: pytest.MonkeyPatch,
    failing: str,
) -> None:
    store = open_storage(DEFAULT).snapshots
    store.write("s", "% the old snapshot\n")
    broken = full_disk(failing)
    with monkeypatch.context() as patch:
        patch.setattr(os, failing, broken)
        with pytest.raises(OSError, match="No space left"):
            store.write("s", "% the new snapshot, which never lands\n" * 100)
    assert store.read("s") == "% the old snapshot\n"
    assert os.listdir(paths.kb_dir / "default/snapshots") == ["s.pl"]


def test_list_skips_what_is_not_a_snapshot(
    paths: ProjectPaths, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    store = open_storage(DEFAULT).snapshots
    store.write("s", "% saved\n")
    folder = paths.kb_dir / "default/snapshots"
    (folder / ".s.pl.tmp-4242").write_text("% a write that died\n")
    (folder / "notes.txt").write_text("not a snapshot\n")
    (folder / "folder.pl").mkdir()
    assert [info.name for info in store.list()] == ["s"]
    with pytest.raises(KeyError):
        store.read("folder")


def test_snapshot_written_is_the_file_time(
    paths: ProjectPaths, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    store = open_storage(DEFAULT).snapshots
    store.write("s", "% saved\n")
    os.utime(paths.kb_dir / "default/snapshots/s.pl", (1764457000.5, 1764457000.5))
    assert [(info.name, info.written) for info in store.list()] == [("s", 1764457000.5)]


@pytest.mark.parametrize("name", ["s", "A_1", "x" * 128, "knowledge", "journal"])
def test_a_valid_snapshot_name_stays_in_the_snapshot_folder(
    paths: ProjectPaths,
    registry: FileRegistry,
    open_storage: Callable[[MemoryRef], MemoryStorage],
    name: str,
) -> None:
    registry.create(FACTS)
    for ref, folder in [
        (DEFAULT, paths.kb_dir / "default/snapshots"),
        (FACTS, paths.kb_dir / "facts/snapshots"),
    ]:
        store = snapshot_store(open_storage(ref))
        assert store.path(name) == folder / f"{name}.pl"
        assert store.label(name) == str(folder / f"{name}.pl")
        assert store.path(name).resolve().parent == folder


# -- writable -----------------------------------------------------------------


def test_a_missing_journal_folder_is_created_by_writable(
    paths: ProjectPaths, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    paths.data_dir.rmdir()
    assert open_storage(DEFAULT).writable()
    assert paths.data_dir.is_dir()


def test_not_writable_when_the_journal_folder_is_a_file(
    paths: ProjectPaths, open_storage: Callable[[MemoryRef], MemoryStorage]
) -> None:
    paths.data_dir.rmdir()
    paths.data_dir.write_text("in the way\n")
    assert not open_storage(DEFAULT).writable()


def test_not_writable_when_the_journal_folder_cannot_be_created(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project/.zpm").write_text("a file: nothing can be made under it\n")
    storage = FileRegistry(ProjectPaths.for_root(tmp_path / "project"), None).storage(DEFAULT)
    assert not storage.writable()
    storage.close()


def test_each_memory_records_its_id_once_project_even_global_odd(
    registry: FileRegistry, paths: ProjectPaths, global_root: Path
) -> None:
    registry.create(FACTS)
    registry.create(SHARED)
    assert registry.storage(DEFAULT).memory_id(give=False) is None
    ids = [registry.storage(ref).memory_id(give=True) for ref in (DEFAULT, FACTS, SHARED)]
    assert ids == [2, 4, 1]
    again = [registry.storage(ref).memory_id(give=True) for ref in (DEFAULT, FACTS, SHARED)]
    assert again == ids
    assert (paths.data_dir / "memory-id").read_text() == "2\n"
    assert (paths.zpm_dir / "memory-ids").read_text() == "2\n"
    assert (global_root / ".memory-ids").read_text() == "1\n"
    assert (global_root / "shared" / "memory-id").read_text() == "1\n"
    assert "shared" in [ref.name for ref in registry.discover()]
    assert ".memory-ids" not in [ref.name for ref in registry.discover()]


def test_threads_that_each_open_a_memory_get_distinct_ids(
    registry: FileRegistry, paths: ProjectPaths
) -> None:
    names = [f"m{n}" for n in range(8)]
    for name in names:
        registry.create(MemoryRef(name, "project"))
    with ThreadPoolExecutor(8) as pool:
        ids = list(
            pool.map(
                lambda name: registry.storage(MemoryRef(name, "project")).memory_id(give=True),
                names,
            )
        )
    assert sorted(i or 0 for i in ids) == list(range(2, 17, 2))


def test_a_damaged_id_file_or_counter_is_an_error_that_names_it(
    registry: FileRegistry, paths: ProjectPaths
) -> None:
    (paths.data_dir / "memory-id").write_text("two\n")
    with pytest.raises(OSError, match="memory-id: not a memory id"):
        registry.storage(DEFAULT).memory_id(give=True)
    (paths.data_dir / "memory-id").unlink()
    (paths.zpm_dir / "memory-ids").write_text("-3\n")
    with pytest.raises(OSError, match="memory-ids: not a count of memory ids"):
        registry.storage(DEFAULT).memory_id(give=True)
    assert not (paths.data_dir / "memory-id").exists()
