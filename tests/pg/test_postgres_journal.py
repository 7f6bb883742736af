"""The PostgreSQL journal: the journal port's semantics, and what a shared
journal adds (a writer that is not caught up conflicts and writes nothing)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from zpm_adapters.postgres.database import Database
from zpm_adapters.postgres.journal import PostgresJournal
from zpm_adapters.postgres.registry import PostgresRegistry
from zpm_adapters.postgres.schema import migrate
from zpm_adapters.wal_format import encode_batch
from zpm_contract.pg_cluster import Cluster
from zpm_domain.ports.journal import Author, Journal, JournalConflict, JournalOp
from zpm_domain.ports.storage import MemoryRef


def clock() -> float:
    return 1764457000.5


@pytest.fixture
def db(cluster: Cluster) -> Iterator[Database]:
    database = Database(cluster.url)
    migrate(database)
    yield database
    database.close()


@pytest.fixture
def journals(db: Database, space: str) -> Iterator[list[Journal]]:
    PostgresRegistry(db, space, "g-" + space)
    made = [PostgresJournal(db, space, "default", f"space {space}", clock) for _ in range(3)]
    yield made  # type: ignore[misc]


def op(clause: str, kind: str = "assert") -> JournalOp:
    return JournalOp(kind, clause=clause)


def clauses(records: list) -> list[str]:  # type: ignore[type-arg]
    return [o.args["clause"] for r in records for o in r.ops]


def test_batches_round_trip_with_their_numbers(journals: list[Journal]) -> None:
    writer, reader, _ = journals
    writer.append([op("human(socrates)")])
    writer.append([op("human(plato)", "retract"), op("é'\"\n", "retractall")])
    records = reader.read_new()
    assert [r.line for r in records] == [1, 2]
    assert [r.ts for r in records] == [1764457000, 1764457000]
    assert records[1].ops == (op("human(plato)", "retract"), op("é'\"\n", "retractall"))
    assert reader.read_new() == []
    assert writer.read_new() == []  # its own batches are not read back


def test_a_writer_behind_conflicts_and_writes_nothing(journals: list[Journal]) -> None:
    first, second, reader = journals
    first.append([op("a")])
    with pytest.raises(JournalConflict):
        second.append([op("b")])
    assert clauses(reader.read_new()) == ["a"]
    assert clauses(second.read_new()) == ["a"]  # caught up, it may append now
    second.append([op("b")])
    assert clauses(reader.read_new()) == ["b"]
    assert first.pending() == 2


def test_a_rotation_also_conflicts_when_behind(journals: list[Journal]) -> None:
    first, second, _ = journals
    first.append([op("a")])
    with pytest.raises(JournalConflict):
        second.rotate([JournalOp("base", snapshot="s")])


def test_a_new_reader_starts_at_the_last_generation(journals: list[Journal]) -> None:
    writer, early, _ = journals
    writer.append([op("old")])
    assert clauses(early.read_new()) == ["old"]
    writer.rotate([JournalOp("base", snapshot="s1")])
    writer.append([op("kept")])
    writer.rotate([JournalOp("base", snapshot="s2")])
    writer.append([op("new")])
    assert writer.pending() == 2
    late = journals[2]
    records = late.read_new()
    assert [r.ops[0].op for r in records] == ["base", "assert"]
    assert records[0].ops[0].args["snapshot"] == "s2"
    # a reader behind goes through every generation since, each from its start
    records = early.read_new()
    assert [r.ops[0].args.get("snapshot", r.ops[0].args.get("clause")) for r in records] == [
        "s1",
        "kept",
        "s2",
        "new",
    ]


def test_a_reader_behind_reads_the_rest_of_its_generation_first(
    journals: list[Journal],
) -> None:
    """The rows of its own generation it has not read, then every
    generation started since, each from its start (so that a server behind
    goes through another's saves and checkpoints as the writer did)."""
    writer, reader, _ = journals
    writer.append([op("a")])
    assert clauses(reader.read_new()) == ["a"]
    writer.append([op("b")])
    writer.rotate([JournalOp("base", snapshot="s1")])
    writer.append([op("c")])
    records = reader.read_new()
    assert [(r.ops[0].op, r.line) for r in records] == [("assert", 2), ("base", 3), ("assert", 4)]
    writer.append([op("d")])
    writer.rotate([JournalOp("base", snapshot="s2")])
    writer.append([op("e")])
    writer.rotate([JournalOp("base", snapshot="s3")])
    records = reader.read_new()
    assert [r.ops[0].args.get("clause", r.ops[0].args.get("snapshot")) for r in records] == [
        "d",
        "s2",
        "e",
        "s3",
    ]


def test_size_counts_the_current_generation(journals: list[Journal]) -> None:
    writer = journals[0]
    assert writer.size_bytes() == 0
    writer.append([op("a")])
    assert writer.size_bytes() == len(encode_batch([op("a")], 1764457000, 1))
    writer.append([op("b")])
    assert writer.size_bytes() == len(
        encode_batch([op("a")], 1764457000, 1) + encode_batch([op("b")], 1764457000, 2)
    )
    start = [JournalOp("base", snapshot="s")]
    writer.rotate(start)
    writer.append([op("c")])
    assert writer.size_bytes() == len(
        encode_batch(start, 1764457000, 1) + encode_batch([op("c")], 1764457000, 2)
    )
    assert writer.pending() == 2


def test_the_generation_is_read_again_from_its_start(journals: list[Journal]) -> None:
    writer, reader, _ = journals
    writer.append([op("a(1)")])
    writer.append([op("a(2)")])
    assert clauses(reader.generation()) == ["a(1)", "a(2)"]
    assert clauses(reader.read_new()) == ["a(1)", "a(2)"]  # reading it moved nothing
    writer.rotate([JournalOp("base", snapshot="s")])
    writer.append([op("b(1)")])
    again = reader.generation()
    assert [o.op for r in again for o in r.ops] == ["base", "assert"]
    assert [o.op for r in reader.read_new() for o in r.ops] == ["base", "assert"]


def test_who_made_a_batch_is_kept_with_it(journals: list[Journal]) -> None:
    writer, reader, _ = journals
    writer.append([op("p(1)")], Author("remember_fact", "alice"))
    writer.append([op("p(2)")])
    assert [r.by for r in reader.read_new()] == [Author("remember_fact", "alice"), None]
    writer.rotate([JournalOp("base", snapshot="s")], Author("save_snapshot", "bob"))
    assert [r.by for r in reader.generation()] == [Author("save_snapshot", "bob")]


def test_every_generation_is_kept_as_history(journals: list[Journal]) -> None:
    writer, reader, _ = journals
    writer.append([op("a(1)")])
    writer.rotate([JournalOp("base", snapshot="s")])
    writer.append([op("b(1)")])
    assert [o.op for r in reader.kept() for o in r.ops] == ["assert", "base", "assert"]
    assert clauses(reader.kept()[-1:]) == ["b(1)"]


def test_kept_after_a_mark_is_the_rows_added_since_until_a_prune(journals: list[Journal]) -> None:
    writer, reader, _ = journals
    writer.append([op("a(1)")])
    first = reader.kept_after(None)
    assert first.whole and clauses(first.records) == ["a(1)"]
    writer.append([op("a(2)")])
    writer.rotate([JournalOp("base", snapshot="s")])
    writer.append([op("b(1)")])
    added = reader.kept_after(first.mark)
    assert not added.whole
    assert [o.args.get("clause") for r in added.records for o in r.ops] == ["a(2)", None, "b(1)"]
    assert reader.kept_after(added.mark).records == []
    assert writer.prune(2**40) == 2  # a(1), a(2): the oldest row kept is another
    again = reader.kept_after(added.mark)
    assert again.whole and [o.args.get("clause") for r in again.records for o in r.ops] == [
        None,
        "b(1)",
    ]


def test_each_generation_kept_is_read_alone_from_its_first_row(journals: list[Journal]) -> None:
    writer, reader, _ = journals
    assert reader.kept_starts() == [] and reader.kept_generation(0) == []
    writer.append([op("a(1)")])
    writer.append([op("a(2)")])
    writer.rotate([JournalOp("base", snapshot="s")])
    writer.append([op("b(1)")])
    starts = reader.kept_starts()
    assert [[o.args.get("clause") for o in r.ops] for r in starts] == [["a(1)"], [None]]
    first, second = reader.kept_generation(0), reader.kept_generation(1)
    assert clauses(first) == ["a(1)", "a(2)"] and [first[0], second[0]] == starts
    assert [*first, *second] == reader.kept() and reader.kept_generation(2) == []
    assert reader.kept_from_generation(0).records == reader.kept()
    tail = reader.kept_from_generation(1)
    assert tail.records == second and not tail.whole
    writer.append([op("b(2)")])
    after = reader.kept_after(tail.mark)
    assert not after.whole and clauses(after.records) == ["b(2)"]
    assert reader.kept_from_generation(2).records == []


def test_prune_drops_whole_generations_older_than_a_time(db: Database, space: str) -> None:
    PostgresRegistry(db, space, "g-" + space)
    now = [100.0]
    writer = PostgresJournal(db, space, "default", f"space {space}", lambda: now[0])
    writer.append([op("a(1)")])
    for at, clause in ((200.0, "b(1)"), (300.0, "c(1)")):
        now[0] = at
        writer.rotate([JournalOp("base", snapshot="s")])
        writer.append([op(clause)])
    since = writer.kept_since()
    assert writer.prune(100) == 0 and writer.kept_since() == since
    assert writer.prune(250) == 3
    assert writer.kept_since() != since
    assert [o.args.get("clause") for r in writer.kept() for o in r.ops] == [None, "c(1)"]
    first = writer.first_kept()
    assert first is not None and first.ts == 300
    assert writer.prune(10_000) == 0
    assert writer.kept_bytes() == writer.size_bytes()
    writer.append([op("d(1)")])  # still appends after its generation's rows
    assert clauses(writer.kept()[-1:]) == ["d(1)"]


def test_the_bases_of_the_history_are_kept_apart_from_the_snapshots(
    db: Database, space: str
) -> None:
    registry = PostgresRegistry(db, space, "g-" + space)
    store = registry.storage(MemoryRef("default", "project")).snapshots
    store.write("s", "first")
    store.keep_base("0a1b", "first", "s")
    store.write("s", "second")
    store.keep_base("0a1b", "other")
    assert store.kept_base("0a1b") == "first" and store.read("s") == "second"
    assert [info.name for info in store.list()] == ["s"]
    assert store.kept_bases() == ("0a1b",)
    store.drop_base("0a1b")
    assert store.kept_bases() == ()
