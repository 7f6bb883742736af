"""A project's memories in files read and written whole (``FileTransfer``),
and journal files copied line for line (``journal_lines``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from zpm_adapters.files.file_journal import FileJournal
from zpm_adapters.files.file_storage import FileRegistry
from zpm_adapters.files.file_transfer import FileTransfer, NotKeptInFiles
from zpm_adapters.files.journal_lines import read_lines, write_lines
from zpm_adapters.files.project import ProjectPaths, init_project
from zpm_domain.ports.journal import JournalCorrupt, JournalOp
from zpm_domain.ports.storage import ForkInfo, MemoryRef
from zpm_domain.ports.transfer import StoredMemory, StoredSnapshot


def _transfer(root: Path, global_root: Path | None = None) -> FileTransfer:
    root.mkdir(parents=True, exist_ok=True)
    init_project(root)
    return FileTransfer(FileRegistry(ProjectPaths.for_root(root), global_root))


def _journal(path: Path, *facts: str) -> None:
    journal = FileJournal(path, clock=lambda: 1700000000.0)
    for fact in facts:
        journal.append([JournalOp("assert", clause=fact)])
    journal.close()


def test_lines_are_read_and_written_byte_for_byte(tmp_path: Path) -> None:
    source, copy = tmp_path / "a.wal", tmp_path / "b.wal"
    _journal(source, "p(1)", "p(2)")
    write_lines(copy, read_lines(source))
    assert copy.read_bytes() == source.read_bytes()


def test_a_torn_final_line_is_left_out_and_a_damaged_one_stops(tmp_path: Path) -> None:
    path = tmp_path / "journal.wal"
    _journal(path, "p(1)", "p(2)")
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"ts":1,"op')
    assert len(read_lines(path)) == 2
    path.write_bytes(whole.replace(b"p(1)", b"p(9)"))
    with pytest.raises(JournalCorrupt, match=r"journal\.wal:1: corrupt journal record"):
        read_lines(path)


def test_a_named_memory_round_trips_and_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    source = _transfer(tmp_path / "source")
    folder = source.registry.folder(MemoryRef("review", "project"))
    folder.mkdir(parents=True)
    _journal(folder / "journal.wal", "q(1)")
    memory = StoredMemory(
        ref=MemoryRef("review", "project"),
        memory_id=4,
        fork=ForkInfo(MemoryRef("default", "project"), 2, 1700000000.5),
        fork_point="%% the fork point\n",
        snapshots=(StoredSnapshot("seed", "%% a snapshot\n", 1700000001.0),),
        knowledge=(),
        batches=tuple(read_lines(folder / "journal.wal")),
    )
    target = _transfer(tmp_path / "target")
    target.write_memory(memory)
    assert target.read_memory(memory.ref) == memory
    assert target.holdings("project") == ["memory review"]

    damaged = replace(memory, ref=MemoryRef("other", "project"), batches=('{"ts":1,"ops":[]',))
    with pytest.raises(JournalCorrupt):
        target.write_memory(damaged)
    kb = tmp_path / "target/.zpm/kb"
    assert sorted(p.name for p in kb.iterdir()) == ["review"]


def test_the_default_memory_takes_the_empty_ones_place(tmp_path: Path) -> None:
    source = _transfer(tmp_path / "source")
    (tmp_path / "source/.zpm/kb/facts.pl").write_text("fact(1).\n")
    _journal(tmp_path / "source/.zpm/data/journal.wal", "p(1)")
    memory = source.read_memory(MemoryRef("default", "project"))
    assert memory.knowledge == (("kb/facts.pl", "fact(1).\n"),)
    target = _transfer(tmp_path / "target")
    assert target.holdings("project") == []
    target.write_memory(memory)
    assert target.read_memory(memory.ref) == memory
    assert target.holdings("project")[0].startswith("default: 1 journal batches in ")
    bad = replace(memory, knowledge=(("rules/x.pl", ""),))
    with pytest.raises(NotKeptInFiles):
        _transfer(tmp_path / "third").write_memory(bad)


def test_the_id_counter_is_set(tmp_path: Path) -> None:
    transfer = _transfer(tmp_path / "p", tmp_path / "global")
    assert transfer.ids_given("project") == 0
    transfer.set_ids_given("project", 3)
    transfer.set_ids_given("global", 5)
    assert (transfer.ids_given("project"), transfer.ids_given("global")) == (3, 5)
    assert transfer.registry.id_counter("project").allocate() == 8
