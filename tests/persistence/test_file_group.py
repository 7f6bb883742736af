"""Group commit on files (``file_group``): one ``fsync`` per journal for the
batches of several calls, the journal's lock held until then, every other
durable write and every other journal's lock committing the group first,
and a failed ``fsync`` keeping none of the group's batches.

A second ``FileJournal`` on the same file stands for another process: its
lock excludes the first one's as another process's would.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from zpm_adapters.files.file_group import FileWriteGroup, current
from zpm_adapters.files.file_journal import FileJournal
from zpm_adapters.files.file_snapshots import FileSnapshotStore
from zpm_domain.ports.journal import JournalOp


def op(n: int) -> list[JournalOp]:
    return [JournalOp("assert", clause=f"p({n})")]


def clauses(journal: FileJournal) -> list[str]:
    return [o.args["clause"] for record in journal.read_new() for o in record.ops]


@pytest.fixture(autouse=True)
def no_group_left() -> Iterator[None]:
    """A test that fails leaves no group open for the next one."""
    yield
    left = current()
    if left is not None:
        with contextlib.suppress(OSError):
            left.end()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    return tmp_path


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The descriptors ``os.fsync`` is called on (the call itself is made)."""
    seen: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        seen.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    yield seen


def read_elsewhere(path: Path) -> tuple[threading.Thread, list[list[str]]]:
    """Start reading ``path`` as another process would; the result list
    fills once the read got the journal's lock."""
    got: list[list[str]] = []

    def read() -> None:
        other = FileJournal(path)
        got.append(clauses(other))
        other.close()

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, got


def test_the_batches_of_a_group_share_one_fsync_and_are_durable_when_it_ends(
    folder: Path, fsyncs: list[int]
) -> None:
    journal = FileJournal(folder / "a" / "journal.wal")
    journal.append(op(0))  # creates the file (and syncs its folder) outside the group
    fsyncs.clear()
    group = FileWriteGroup()
    for n in range(1, 6):
        with journal.exclusive():
            journal.append(op(n))
    assert fsyncs == [] and group.pending()
    group.end()
    assert len(fsyncs) == 1 and not group.pending() and current() is None
    assert clauses(FileJournal(folder / "a" / "journal.wal")) == [f"p({n})" for n in range(6)]


def test_another_process_reads_a_grouped_batch_only_once_it_is_durable(folder: Path) -> None:
    path = folder / "a" / "journal.wal"
    journal = FileJournal(path)
    journal.append(op(0))
    group = FileWriteGroup()
    journal.append(op(1))
    thread, got = read_elsewhere(path)
    thread.join(timeout=0.5)
    assert thread.is_alive() and got == [], "read a batch that was not durable yet"
    group.end()
    thread.join(timeout=10)
    assert got == [["p(0)", "p(1)"]]


def test_any_other_durable_write_commits_the_group_first(folder: Path, fsyncs: list[int]) -> None:
    path = folder / "a" / "journal.wal"
    journal = FileJournal(path)
    journal.append(op(0))
    group = FileWriteGroup()
    journal.append(op(1))
    FileSnapshotStore(folder / "a" / "snapshots").write("s", "p(1).\n")
    assert not group.pending()  # the snapshot waited for the batch
    thread, got = read_elsewhere(path)
    thread.join(timeout=10)
    assert got == [["p(0)", "p(1)"]]  # and the lock went back with it
    group.end()


def test_locking_another_journal_commits_the_group_and_gives_back_its_locks(
    folder: Path,
) -> None:
    a, b = FileJournal(folder / "a" / "journal.wal"), FileJournal(folder / "b" / "journal.wal")
    a.append(op(0))
    b.append(op(0))
    group = FileWriteGroup()
    a.append(op(1))
    with b.exclusive():  # a's lock goes back before b's is taken: no two servers wait on each other
        assert not group.pending()
        thread, got = read_elsewhere(folder / "a" / "journal.wal")
        thread.join(timeout=10)
        assert got == [["p(0)", "p(1)"]]
        b.append(op(1))
    assert group.pending()
    group.end()


def test_a_failed_fsync_keeps_none_of_the_group_and_the_journal_reads_itself_again(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = FileJournal(folder / "a" / "journal.wal"), FileJournal(folder / "b" / "journal.wal")
    a.append(op(0))
    b.append(op(0))
    group = FileWriteGroup()
    a.append(op(1))
    with b.exclusive():
        b.append(op(1))
        a_size = (folder / "a" / "journal.wal").stat().st_size
    a.append(op(2))  # a's lock again: b's batch is committed first
    real = os.fsync

    def failing(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(OSError):
        group.end()
    monkeypatch.setattr(os, "fsync", real)
    assert current() is None
    assert (folder / "a" / "journal.wal").stat().st_size == a_size
    assert a.rewound() and not b.rewound()
    assert clauses(a) == ["p(0)", "p(1)"]  # the whole file again, from its start
    assert not a.rewound()
    assert clauses(FileJournal(folder / "b" / "journal.wal")) == ["p(0)", "p(1)"]


def test_a_group_that_failed_takes_no_more_batches(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = FileJournal(folder / "a" / "journal.wal")
    journal.append(op(0))
    group = FileWriteGroup()
    journal.append(op(1))
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "EIO")))
    with pytest.raises(OSError):
        group.flush()
    monkeypatch.setattr(os, "fsync", real)
    assert group.failed()
    with pytest.raises(OSError, match="an earlier commit of its group failed"):
        journal.append(op(2))
    with pytest.raises(OSError):
        group.end()
    assert clauses(FileJournal(folder / "a" / "journal.wal")) == ["p(0)"]


def test_closing_a_journal_commits_the_group(folder: Path) -> None:
    path = folder / "a" / "journal.wal"
    journal = FileJournal(path)
    journal.append(op(0))
    group = FileWriteGroup()
    journal.append(op(1))
    journal.close()
    assert not group.pending()
    assert clauses(FileJournal(path)) == ["p(0)", "p(1)"]
    group.end()


def test_one_group_per_thread() -> None:
    group = FileWriteGroup()
    with pytest.raises(RuntimeError):
        FileWriteGroup()
    group.end()
    FileWriteGroup().end()
