"""Reading a damaged journal to its end (wal_inspect) and cutting it (wal_salvage)."""

from __future__ import annotations

from pathlib import Path

import pytest

from zpm_adapters.files.file_journal import FileJournal
from zpm_adapters.files.wal_inspect import inspect, read_journal
from zpm_adapters.files.wal_salvage import JournalInUse, JournalRepair
from zpm_adapters.files.wal_scan import scan
from zpm_adapters.wal_format import encode_batch
from zpm_domain.ports.journal import JournalCorrupt, JournalOp


def batch(n: int, ts: int = 1764457000) -> bytes:
    return encode_batch([JournalOp("assert", clause=f"p({n})")], ts, n)


def kinds(data: bytes) -> list[tuple[int, str | None]]:
    return [(line.number, line.damage and line.damage.kind) for line in inspect(data)]


def test_every_line_is_read_with_what_is_wrong_with_it() -> None:
    changed = batch(3).replace(b"p(3)", b"p(8)")
    data = batch(1) + b"garbage\n" + changed + batch(2) + batch(4) + b'{"ts":5,"op'
    lines = inspect(data)
    assert kinds(data) == [
        (1, None),
        (2, "unreadable"),
        (3, "checksum"),
        (4, "out_of_order"),
        (5, None),
        (6, "torn_tail"),
    ]
    assert [line.offset for line in lines] == [
        0,
        len(batch(1)),
        len(batch(1)) + 8,
        len(batch(1)) + 8 + len(changed),
        len(batch(1)) + 8 + len(changed) + len(batch(2)),
        len(data) - len(b'{"ts":5,"op'),
    ]
    assert sum(line.size for line in lines) == len(data)
    assert lines[2].record is not None and lines[2].record.ops[0].args["clause"] == "p(8)"
    assert lines[3].damage is not None and "batch number 2 after 3" in lines[3].damage.reason
    assert lines[5].ts == 5 and lines[5].damage is not None
    assert "no final newline" in lines[5].damage.reason
    assert "next start drops it" in lines[5].damage.reason


def test_the_torn_tail_is_what_a_start_drops_and_nothing_else() -> None:
    """inspect and scan agree: a last line is torn exactly when a start drops it."""
    for tail, torn in [
        (b"{\n", True),
        (batch(2)[:-5], True),
        (batch(2).replace(b"p(2)", b"p(7)"), False),
        (batch(1), False),
    ]:
        data = batch(1) + tail
        assert (kinds(data)[-1][1] == "torn_tail") is torn
        try:
            dropped = scan(data, path="j", offset=0, lines=0).torn is not None
        except JournalCorrupt:
            dropped = False
        assert dropped is torn


def test_an_order_break_is_reported_once_where_it_breaks() -> None:
    journal = b"".join(batch(n) for n in range(1, 6))
    assert [k for _, k in kinds(journal + journal + batch(6))] == [None] * 5 + ["out_of_order"] + [
        None
    ] * 5


def test_older_lines_are_read_unchecked_and_marked_single() -> None:
    lines = inspect(b'{"ts":5,"op":"assert","clause":"a"}\n{"ts":6,"ops":[]}\n')
    assert [(line.damage, line.single, line.ts) for line in lines] == [
        (None, True, 5),
        (None, False, 6),
    ]


@pytest.fixture
def wal(tmp_path: Path) -> Path:
    return tmp_path / "journal.wal"


def test_cut_sets_the_rest_aside_then_keeps_the_beginning(wal: Path) -> None:
    wal.write_bytes(batch(1) + batch(2) + b"garbage\n" + batch(4))
    steps: list[tuple[str, bytes, list[str]]] = []

    def step(name: str) -> None:
        names = sorted(p.name for p in wal.parent.iterdir() if p.name.startswith("journal."))
        steps.append((name, wal.read_bytes(), names))

    cut = len(batch(1) + batch(2))
    with JournalRepair(wal, clock=lambda: 1764457100, step=step) as held:
        assert held.data == wal.read_bytes()
        quarantine = held.cut(cut, [JournalOp("number", memory=2, first=9)])
    assert quarantine == wal.parent / "journal.quarantine-1764457100.wal"
    assert quarantine.read_bytes() == b"garbage\n" + batch(4)
    appended = encode_batch([JournalOp("number", memory=2, first=9)], 1764457100, 3)
    assert wal.read_bytes() == batch(1) + batch(2) + appended
    assert steps[0][0] == "salvage:set-aside"
    assert steps[0][1].endswith(batch(4))  # the journal is whole until the set-aside is durable
    assert "journal.quarantine-1764457100.wal" in steps[0][2]
    assert steps[1][0] == "salvage:replaced" and steps[1][1] == wal.read_bytes()
    assert not (wal.parent / "journal.wal.salvage").exists()
    assert [r.line for r in FileJournal(wal).read_new()] == [1, 2, 3]


class Crash(Exception):
    pass


def test_a_salvage_that_stops_before_the_journal_is_replaced_is_done_again_whole(
    wal: Path,
) -> None:
    original = batch(1) + b"garbage\n" + batch(3)
    wal.write_bytes(original)

    def crash(name: str) -> None:
        if name == "salvage:set-aside":
            raise Crash(name)

    with pytest.raises(Crash), JournalRepair(wal, clock=lambda: 1, step=crash) as held:
        held.cut(len(batch(1)))
    assert wal.read_bytes() == original
    with JournalRepair(wal, clock=lambda: 2) as held:
        quarantine = held.cut(len(batch(1)))
    assert quarantine.name == "journal.quarantine-1.wal"  # the identical one is reused
    assert sorted(p.name for p in wal.parent.glob("journal.quarantine-*")) == [quarantine.name]
    assert wal.read_bytes() == batch(1)


def test_a_second_quarantine_gets_its_own_name(wal: Path) -> None:
    for content in (b"x\n", b"y\n"):
        wal.write_bytes(batch(1) + content)
        with JournalRepair(wal, clock=lambda: 7) as held:
            held.cut(len(batch(1)))
    names = sorted(p.name for p in wal.parent.glob("journal.quarantine-*"))
    assert names == ["journal.quarantine-7-1.wal", "journal.quarantine-7.wal"]


def test_a_journal_open_in_a_file_journal_is_refused(wal: Path) -> None:
    journal = FileJournal(wal)
    journal.append([JournalOp("assert", clause="a")])
    with pytest.raises(JournalInUse, match="open in a running zpm"), JournalRepair(wal):
        pass
    journal.close()
    with JournalRepair(wal) as held:
        assert held.data == wal.read_bytes()


def test_a_missing_journal_holds_no_data(wal: Path) -> None:
    assert read_journal(wal) is None
    with JournalRepair(wal) as held:
        assert held.data is None
        with pytest.raises(ValueError):
            held.cut(0)
