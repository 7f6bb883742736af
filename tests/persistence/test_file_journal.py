"""FileJournal on disk: format, torn tails, corruption, rotation files."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from zpm_adapters.files.file_journal import FileJournal
from zpm_adapters.wal_format import encode_batch
from zpm_domain.ports.journal import JournalCorrupt, JournalOp

LINE1 = (
    b'{"ts":1764457000,"ops":[{"op":"assert","clause":"human(socrates)"}],'
    b'"seq":1,"crc":"0139b577"}\n'
)
LINE2 = (
    b'{"ts":1764457001,"ops":[{"op":"retract","clause":"human(plato)"}],"seq":2,"crc":"e0bbabc4"}\n'
)
SECOND_LINE1 = encode_batch([JournalOp("assert", clause="human(socrates)")], 1764457000, 2)


@pytest.fixture
def wal(tmp_path: Path) -> Path:
    return tmp_path / "data" / "journal.wal"


@pytest.fixture(autouse=True)
def data_dir(wal: Path) -> None:
    wal.parent.mkdir()


def test_one_compact_json_line_per_batch(wal: Path) -> None:
    journal = FileJournal(wal, clock=lambda: 1764457000.9)
    journal.append([JournalOp("assert", clause="human(socrates)")])
    assert wal.read_bytes() == LINE1
    assert (wal.parent / "journal.lock").exists()


def test_nothing_is_created_before_first_use(wal: Path) -> None:
    journal = FileJournal(wal)
    assert journal.read_new() == []
    assert journal.pending() == 0
    assert journal.size_bytes() == 0
    assert list(wal.parent.iterdir()) == []


def test_torn_tail_without_newline_is_dropped_and_truncated(
    wal: Path, caplog: pytest.LogCaptureFixture
) -> None:
    wal.write_bytes(LINE1 + b'{"ts":1764457001,"ops":[{"op":"ass')
    journal = FileJournal(wal, clock=lambda: 1764457001)
    with caplog.at_level(logging.WARNING):
        records = journal.read_new()
    assert [r.ops[0].args["clause"] for r in records] == ["human(socrates)"]
    assert f"{wal}:2" in caplog.text and "torn" in caplog.text
    assert wal.read_bytes() == LINE1
    journal.append([JournalOp("retract", clause="human(plato)")])
    assert wal.read_bytes() == LINE1 + LINE2
    assert len(FileJournal(wal).read_new()) == 2


def test_invalid_json_on_the_last_line_is_a_torn_tail(wal: Path) -> None:
    wal.write_bytes(LINE1 + b'{"ts":17644\n')
    assert len(FileJournal(wal).read_new()) == 1
    assert wal.read_bytes() == LINE1


def test_append_first_truncates_a_torn_tail_it_has_not_read(wal: Path) -> None:
    journal = FileJournal(wal, clock=lambda: 1764457001)
    wal.write_bytes(LINE1 + b"{garbage")
    journal.append([JournalOp("retract", clause="human(plato)")])
    assert wal.read_bytes() == LINE1 + LINE2
    assert [r.line for r in journal.read_new()] == [1]


def test_corruption_before_the_end_names_file_and_line(wal: Path) -> None:
    wal.write_bytes(LINE1 + b'{"ts":1,"ops":[{"clause":"x"}]}\n' + LINE2)
    journal = FileJournal(wal)
    with pytest.raises(JournalCorrupt) as info:
        journal.read_new()
    assert (info.value.path, info.value.line) == (str(wal), 2)
    assert "'op' must be a non-empty string" in str(info.value)
    with pytest.raises(JournalCorrupt):
        journal.read_new()
    with pytest.raises(JournalCorrupt):
        journal.append([JournalOp("assert", clause="y")])
    assert wal.read_bytes().endswith(LINE2)


def test_records_of_the_older_one_op_format_are_read(wal: Path) -> None:
    wal.write_bytes(b'{"ts":5,"op":"retractall","clause":"tmp(_)"}\n')
    (record,) = FileJournal(wal).read_new()
    assert record.ops == (JournalOp("retractall", clause="tmp(_)"),)


BASE = JournalOp("base", snapshot="s", generation="g")
BASE_LINE = (
    b'{"ts":1764457000,"ops":[{"op":"base","snapshot":"s","generation":"g"}],'
    b'"seq":1,"crc":"6b84217a"}\n'
)


def test_rotate_archives_with_unique_names_and_starts_with_the_first_batch(wal: Path) -> None:
    journal = FileJournal(wal, clock=lambda: 1764457000)
    journal.append([JournalOp("assert", clause="human(socrates)")])
    journal.rotate([BASE])
    journal.append([JournalOp("assert", clause="human(socrates)")])
    journal.rotate([BASE])
    names = sorted(p.name for p in wal.parent.glob("journal-*.wal"))
    assert names == ["journal-1764457000-1.wal", "journal-1764457000.wal"]
    assert (wal.parent / "journal-1764457000.wal").read_bytes() == LINE1
    assert (wal.parent / "journal-1764457000-1.wal").read_bytes() == BASE_LINE + SECOND_LINE1
    assert wal.read_bytes() == BASE_LINE
    assert journal.pending() == 1
    assert journal.read_new() == []
    assert not (wal.parent / "journal.wal.next").exists()


def test_rotating_an_empty_or_missing_journal_archives_nothing(wal: Path) -> None:
    journal = FileJournal(wal, clock=lambda: 1764457000)
    journal.rotate([BASE])
    assert wal.read_bytes() == BASE_LINE
    assert list(wal.parent.glob("journal-*.wal")) == []


def test_only_the_newest_archives_are_kept_when_bounded(wal: Path) -> None:
    ticks = iter(range(1000, 2000))
    journal = FileJournal(wal, clock=lambda: next(ticks), keep_archives=3)
    for n in range(6):
        journal.append([JournalOp("assert", clause=f"n({n})")])
        journal.rotate([BASE])
    archives = sorted(p.name for p in wal.parent.glob("journal-*.wal"))
    assert len(archives) == 3
    assert b"n(5)" in (wal.parent / archives[-1]).read_bytes()
    assert all(b"n(0)" not in (wal.parent / a).read_bytes() for a in archives)


class Crash(Exception):
    pass


@pytest.mark.parametrize("step", ["rotate:staged", "rotate:archived"])
def test_a_crash_during_rotation_leaves_the_old_journal_whole(wal: Path, step: str) -> None:
    def crash(name: str) -> None:
        if name == step:
            raise Crash(name)

    journal = FileJournal(wal, clock=lambda: 1764457000, step=crash)
    journal.append([JournalOp("assert", clause="human(socrates)")])
    with pytest.raises(Crash):
        journal.rotate([BASE])
    assert wal.read_bytes() == LINE1
    reopened = FileJournal(wal, clock=lambda: 1764457000)
    assert [r.ops for r in reopened.read_new()] == [
        (JournalOp("assert", clause="human(socrates)"),)
    ]
    reopened.rotate([BASE])
    assert wal.read_bytes() == BASE_LINE


def test_a_handle_whose_file_was_rotated_by_another_appends_to_the_new_file(
    wal: Path,
) -> None:
    a = FileJournal(wal, clock=lambda: 1764457000)
    b = FileJournal(wal, clock=lambda: 1764457000)
    a.append([JournalOp("assert", clause="human(socrates)")])
    b.rotate([BASE])
    a.append([JournalOp("assert", clause="human(socrates)")])
    assert wal.read_bytes() == BASE_LINE + SECOND_LINE1
    assert (wal.parent / "journal-1764457000.wal").read_bytes() == LINE1
    assert [r.ops for r in a.read_new()] == [(BASE,)]


def test_a_shrunken_file_is_reported_as_corrupt(wal: Path) -> None:
    journal = FileJournal(wal)
    journal.append([JournalOp("assert", clause="a")])
    os.truncate(wal, 0)
    with pytest.raises(JournalCorrupt, match="shrank"):
        journal.read_new()


def test_append_into_a_missing_directory_raises_oserror(tmp_path: Path) -> None:
    journal = FileJournal(tmp_path / "nowhere" / "journal.wal")
    with pytest.raises(OSError):
        journal.append([JournalOp("assert", clause="a")])


def test_large_journal_reads_in_order(wal: Path) -> None:
    line = b'{"ts":1,"ops":[{"op":"assert","clause":"n(%d)"}]}\n'
    wal.write_bytes(b"".join(line % i for i in range(50_000)))
    journal = FileJournal(wal)
    assert journal.pending() == 50_000
    records = journal.read_new()
    assert records[-1].ops[0].args["clause"] == "n(49999)" and records[-1].line == 50_000


def test_a_failed_fsync_raises_and_leaves_no_partial_batch(
    wal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = FileJournal(wal, clock=lambda: 1764457000)
    journal.append([JournalOp("assert", clause="human(socrates)")])

    def failing_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError):
        journal.append([JournalOp("assert", clause="lost")])
    monkeypatch.undo()
    assert wal.read_bytes() == LINE1
    journal.append([JournalOp("assert", clause="human(socrates)")])
    assert journal.pending() == 2 and FileJournal(wal).read_new()[1].line == 2
