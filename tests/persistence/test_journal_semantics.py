"""Behaviour shared by FileJournal and VolatileJournal (both must pass)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from zpm_adapters.files.file_journal import FileJournal
from zpm_adapters.volatile.volatile_journal import VolatileJournal, VolatileJournalStore
from zpm_domain.ports.journal import Author, Journal, JournalOp

Opener = Callable[[], Journal]


def clock() -> float:
    return 1764457000.5


@pytest.fixture(params=["file", "memory"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Opener:
    if request.param == "file":
        return lambda: FileJournal(tmp_path / "journal.wal", clock=clock)
    store = VolatileJournalStore()
    return lambda: VolatileJournal(store, clock=clock)


def op(clause: str, kind: str = "assert") -> JournalOp:
    return JournalOp(kind, clause=clause)


BASE = JournalOp("base", snapshot="s")
BASE_LINE = b'{"ts":1764457000,"ops":[{"op":"base","snapshot":"s"}],"seq":1,"crc":"a0ff0fad"}\n'


def clauses(records: list) -> list[str]:  # type: ignore[type-arg]
    return [o.args["clause"] for r in records for o in r.ops]


def test_round_trip_keeps_ops_ts_and_line_numbers(opener: Opener) -> None:
    writer, reader = opener(), opener()
    writer.append([op("human(socrates)")])
    writer.append([op("human(plato)", "retract"), op("human(_)", "retractall")])
    records = reader.read_new()
    assert [r.line for r in records] == [1, 2]
    assert [r.ts for r in records] == [1764457000, 1764457000]
    assert records[1].ops == (op("human(plato)", "retract"), op("human(_)", "retractall"))
    assert reader.read_new() == []


def test_own_appends_are_not_read_back(opener: Opener) -> None:
    journal = opener()
    journal.append([op("a")])
    assert journal.read_new() == []
    assert journal.pending() == 1


def test_empty_batch_writes_nothing(opener: Opener) -> None:
    journal = opener()
    journal.append([])
    assert journal.pending() == 0
    assert journal.size_bytes() == 0


def test_handles_see_each_others_appends_exactly_once(opener: Opener) -> None:
    a, b = opener(), opener()
    a.append([op("a1")])
    b.append([op("b1")])  # b has not read a1 yet: it must still get it later
    a.append([op("a2")])
    assert clauses(b.read_new()) == ["a1", "a2"]
    assert clauses(a.read_new()) == ["b1"]
    assert clauses(opener().read_new()) == ["a1", "b1", "a2"]


def test_text_with_newlines_and_unicode_round_trips(opener: Opener) -> None:
    text = "note('line\none', \"caf\u00e9 \u2028 \ud800\")"
    journal = opener()
    journal.append([op(text)])
    assert clauses(opener().read_new()) == [text]


def test_pending_and_size_follow_appends_and_rotation(opener: Opener) -> None:
    journal = opener()
    journal.append([op("human(socrates)")])
    line = b'{"ts":1764457000,"ops":[{"op":"assert","clause":"human(socrates)"}],"seq":1,"crc":"'
    assert journal.size_bytes() == len(line) + 11
    journal.append([op("b"), op("c")])
    second = b'{"ts":1764457000,"ops":[{"op":"assert","clause":"b"},{"op":"assert","clause":"c"}]'
    assert journal.size_bytes() == len(line) + 11 + len(second) + len(b',"seq":2,"crc":"') + 11
    assert journal.pending() == 2
    journal.rotate([BASE])
    assert journal.pending() == 1
    assert journal.size_bytes() == len(BASE_LINE)


def test_a_reader_follows_rotation_without_losing_batches(opener: Opener) -> None:
    writer, reader = opener(), opener()
    writer.append([op("before1")])
    assert clauses(reader.read_new()) == ["before1"]
    writer.append([op("before2")])
    writer.rotate([BASE])
    writer.append([op("after")])
    records = reader.read_new()
    assert [r.ops[0].op for r in records] == ["assert", "base", "assert"]
    assert [r.line for r in records] == [2, 1, 2]
    assert writer.pending() == 2
    assert writer.read_new() == []


def test_rotate_keeps_unread_batches_for_the_rotating_handle(opener: Opener) -> None:
    a, b = opener(), opener()
    b.append([op("from_b")])
    a.rotate([BASE])
    assert clauses(a.read_new()) == ["from_b"]


def test_lock_is_reentrant_and_excludes_other_threads(opener: Opener) -> None:
    journal = opener()
    entered = threading.Event()

    def other() -> None:
        with journal.lock():
            entered.set()

    with journal.lock():
        with journal.lock():
            journal.append([op("inside")])
        thread = threading.Thread(target=other)
        thread.start()
        time.sleep(0.1)
        assert not entered.is_set()
    thread.join(5)
    assert entered.is_set()


def test_closed_journal_refuses_work(opener: Opener) -> None:
    journal = opener()
    journal.close()
    journal.close()
    with pytest.raises(ValueError):
        journal.append([op("a")])


def test_any_op_name_is_stored_the_domain_decides_what_it_means(opener: Opener) -> None:
    writer, reader = opener(), opener()
    writer.append([JournalOp("erase", handle=7)])
    assert [r.ops for r in reader.read_new()] == [(JournalOp("erase", handle=7),)]


def test_an_op_the_format_cannot_hold_is_rejected(opener: Opener) -> None:
    with pytest.raises(ValueError):
        opener().append([JournalOp("")])


def test_the_generation_is_every_batch_since_the_last_rotation_read_again(
    opener: Opener,
) -> None:
    writer, reader = opener(), opener()
    assert writer.generation() == []
    writer.append([op("a(1)")])
    writer.append([op("a(2)"), op("a(3)")])
    assert clauses(writer.generation()) == ["a(1)", "a(2)", "a(3)"]
    assert clauses(reader.generation()) == ["a(1)", "a(2)", "a(3)"]
    assert clauses(reader.read_new()) == ["a(1)", "a(2)", "a(3)"]  # reading it moved nothing
    writer.rotate([BASE])
    writer.append([op("b(1)")])
    again = reader.generation()
    assert [o.op for r in again for o in r.ops] == ["base", "assert"]
    assert [r.line for r in again] == [1, 2]
    assert [o.op for r in reader.read_new() for o in r.ops] == ["base", "assert"]


def test_who_made_a_batch_is_kept_with_it(opener: Opener) -> None:
    writer, reader = opener(), opener()
    writer.append([op("p(1)")], Author("remember_fact", "alice"))
    writer.append([op("p(1)", "retract")], Author("forget_fact", None))
    writer.append([op("p(2)")])
    assert [r.by for r in reader.read_new()] == [
        Author("remember_fact", "alice"),
        Author("forget_fact", None),
        None,
    ]
    writer.rotate([BASE], Author("restore_snapshot", "bob"))
    assert [r.by for r in opener().generation()] == [Author("restore_snapshot", "bob")]


def test_every_generation_is_kept_as_history(opener: Opener) -> None:
    writer = opener()
    assert writer.kept() == []
    writer.append([op("a(1)")])
    for n in range(12):  # more rotations than any bound an adapter once had
        writer.rotate([BASE])
        writer.append([op(f"b({n})")])
    kept = opener().kept()
    assert [o.op for o in kept[0].ops] == ["assert"] and kept[0].ops[0].args["clause"] == "a(1)"
    assert len(kept) == 25
    assert [o.args.get("clause") for r in kept[-2:] for o in r.ops] == [None, "b(11)"]


def test_kept_after_a_mark_is_what_was_added_since_across_rotations(opener: Opener) -> None:
    writer, reader = opener(), opener()
    writer.append([op("a(1)")])
    first = reader.kept_after(None)
    assert first.whole and clauses(first.records) == ["a(1)"]
    writer.append([op("a(2)")])
    writer.append([op("a(3)")])
    added = reader.kept_after(first.mark)
    assert not added.whole and clauses(added.records) == ["a(2)", "a(3)"]
    assert [r.line for r in added.records] == [2, 3]
    nothing = reader.kept_after(added.mark)
    assert not nothing.whole and nothing.records == []
    writer.append([op("a(4)")])
    writer.rotate([BASE])  # a(4) is in the archive now: read from where it stopped
    writer.append([op("b(1)")])
    rotated = reader.kept_after(nothing.mark)
    assert not rotated.whole
    assert [o.args.get("clause") for r in rotated.records for o in r.ops] == ["a(4)", None, "b(1)"]
    writer.rotate([BASE])
    writer.append([op("c(1)")])
    writer.rotate([BASE])
    twice = reader.kept_after(rotated.mark)
    assert not twice.whole
    assert [o.args.get("clause") for r in twice.records for o in r.ops] == [None, "c(1)", None]
    assert reader.kept_after(twice.mark).records == []
    assert reader.kept_after(None).records == reader.kept()


def test_the_generations_from_one_on_are_read_without_those_before(opener: Opener) -> None:
    writer = opener()
    assert writer.kept_from_generation(0).records == []
    writer.append([op("a(1)")])
    for n in range(3):
        writer.rotate([BASE])
        writer.append([op(f"b({n})")])
    reader = opener()
    kept = reader.kept()
    for index in range(4):
        tail = reader.kept_from_generation(index)
        start = 0 if index == 0 else 2 * index - 1  # [a(1)], then [base, b(n)]...
        assert tail.records == kept[start:] and tail.whole == (index == 0)
        writer.append([op(f"c({index})")])
        after = reader.kept_after(tail.mark)
        assert not after.whole and clauses(after.records) == [f"c({index})"]
        kept = reader.kept()
    assert reader.kept_from_generation(4).records == []


def test_each_generation_kept_is_read_alone_from_its_first_batch(opener: Opener) -> None:
    writer = opener()
    assert writer.kept_starts() == [] and writer.kept_generation(0) == []
    writer.append([op("a(1)")])
    writer.append([op("a(2)")])
    for n in range(2):
        writer.rotate([BASE])
        writer.append([op(f"b({n})")])
    reader = opener()
    starts = reader.kept_starts()
    assert [[o.args.get("clause") for o in r.ops] for r in starts] == [["a(1)"], [None], [None]]
    generations = [reader.kept_generation(i) for i in range(3)]
    assert [[o.args.get("clause") for r in g for o in r.ops] for g in generations] == [
        ["a(1)", "a(2)"],
        [None, "b(0)"],
        [None, "b(1)"],
    ]
    assert [g[0] for g in generations] == starts
    assert [r for g in generations for r in g] == reader.kept()
    assert reader.kept_generation(3) == [] and reader.kept_generation(-1) == []


def test_kept_after_reads_the_whole_history_again_after_a_prune(tmp_path: Path) -> None:
    now = [100]
    for journal in (
        FileJournal(tmp_path / "journal.wal", clock=lambda: now[0]),
        VolatileJournal(clock=lambda: now[0]),
    ):
        journal.append([op("a(1)")])
        now[0] = 200
        journal.rotate([BASE])
        journal.append([op("b(1)")])
        mark = journal.kept_after(None).mark
        assert journal.prune(150) == 1
        again = journal.kept_after(mark)
        assert again.whole and [o.args.get("clause") for r in again.records for o in r.ops] == [
            None,
            "b(1)",
        ]
        now[0] = 100


def test_prune_drops_whole_generations_older_than_a_time_never_the_current(tmp_path: Path) -> None:
    now = [100]

    def ticking() -> float:
        return now[0]

    for journal in (
        FileJournal(tmp_path / "journal.wal", clock=ticking),
        VolatileJournal(clock=ticking),
    ):
        times = iter([100, 110, 200, 210, 300, 310])
        now[0] = next(times)
        journal.append([op("a(1)")])
        for clause in ("b(1)", "c(1)"):
            now[0] = next(times)
            journal.rotate([BASE])
            now[0] = next(times)
            journal.append([op(clause)])
        since = journal.kept_since()
        assert journal.prune(100) == 0 and journal.kept_since() == since
        assert journal.prune(250) == 3  # the generations of a(1) and b(1): c(1)'s is current
        assert journal.kept_since() != since
        assert [o.args.get("clause") for r in journal.kept() for o in r.ops] == [None, "c(1)"]
        first = journal.first_kept()
        assert first is not None and first.ts == 210  # c(1)'s generation starts at 210
        assert journal.prune(10_000) == 0  # the current generation always stays
        assert journal.kept_bytes() == journal.size_bytes()


def test_a_crash_during_a_prune_leaves_a_suffix_of_the_history(tmp_path: Path) -> None:
    ticks = iter(range(1000, 2000, 10))

    def crash(name: str) -> None:
        if name == "prune:dropped":
            raise RuntimeError(name)

    wal = tmp_path / "journal.wal"
    journal = FileJournal(wal, clock=lambda: next(ticks), step=crash)
    for n in range(3):
        journal.append([op(f"g({n})")])
        journal.rotate([BASE])
    with pytest.raises(RuntimeError):
        journal.prune(5000)
    reopened = FileJournal(wal)
    kept = [o.args.get("clause") for r in reopened.kept() for o in r.ops]
    assert kept == [None, "g(1)", None, "g(2)", None]
