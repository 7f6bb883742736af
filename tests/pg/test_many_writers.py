"""Two zpm processes' worth of memories on one space: writers take turns; a
change made while another writer got in anyway is caught up, checked again
and retried; neither writer's change is lost."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from zpm_adapters.postgres.database import Database
from zpm_adapters.postgres.journal import PostgresJournal
from zpm_adapters.postgres.storage import PostgresStorage
from zpm_app.bootstrap.config import resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox
from zpm_contract.pg_cluster import Cluster
from zpm_domain.changes.mutations import AddClause
from zpm_domain.errors import StorageBusy
from zpm_domain.memory import conflicts
from zpm_domain.memory.call_context import CallContext
from zpm_domain.memory.conflicts import retried
from zpm_domain.ports.journal import JournalConflict
from zpm_domain.prolog.reader.api import read_term
from zpm_domain.stored.clauses import Clause


def intruder(box: Toolbox) -> PostgresJournal:
    """A handle on ``box``'s default journal that appends without taking turns
    (as a writer that does not know the memory's lock would), caught up."""
    storage = box.memories.default.storage
    assert isinstance(storage, PostgresStorage)
    journal = storage.journal
    assert isinstance(journal, PostgresJournal)
    other = PostgresJournal(journal._db, journal._space, "default", "intruder", time.time)
    other.read_new()
    return other


def test_a_change_that_lost_the_race_is_made_again_caught_up(
    pair: tuple[Toolbox, Toolbox],
) -> None:
    first, second = pair
    late = second.memories.default
    attempts = []
    sneaky = intruder(first)

    def change() -> None:
        with late.writing():
            attempts.append(1)
            if len(attempts) == 1:  # another writer commits meanwhile
                clause = AddClause(Clause(read_term("p(a)")))
                sneaky.append([clause.journal_op()])
            late.commit([AddClause(Clause(read_term("p(b)")))])

    retried(change)
    assert len(attempts) == 2
    for box in pair:
        answer = box.call("query_logic", {"goal": "p(X)"})
        assert answer.text == '[{"X":"a"},{"X":"b"}]'


def test_the_same_fact_from_two_servers_is_stored_once(pair: tuple[Toolbox, Toolbox]) -> None:
    first, second = pair
    assert not first.call("assert", {"sentence": "q(1)"}).is_error
    answer = second.call("assert", {"sentence": "q(1)"})
    assert answer.structured is not None and answer.structured["already_there"]
    for box in pair:
        assert box.call("query_logic", {"goal": "q(X)"}).text == '[{"X":1}]'


def test_writers_of_two_servers_take_turns(pair: tuple[Toolbox, Toolbox]) -> None:
    """Both write as fast as they can: none gives up, nothing is lost, no
    handle is given twice."""
    failures: list[str] = []

    def write(box: Toolbox, who: str) -> None:
        for n in range(60):
            answer = box.call("remember_fact", {"fact": f"t({who}, {n})"})
            if answer.is_error:
                failures.append(answer.text)

    threads = [threading.Thread(target=write, args=(box, f"w{i}")) for i, box in enumerate(pair)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    pages = [box.call("matching", {"pattern": "t(W, N)", "limit": 1000}).structured for box in pair]
    assert pages[0] == pages[1] and pages[0] is not None
    handles = [row["handle"] for row in pages[0]["rows"]]
    assert len(handles) == len(set(handles)) == 120


def test_a_writer_that_always_loses_gives_up_clearly() -> None:
    def change() -> None:
        raise JournalConflict("memory m")

    with pytest.raises(StorageBusy) as raised:
        retried(change, pause=lambda _s: None)
    assert raised.value.message == (
        f"Cannot change memory m: other writers changed it {conflicts.ATTEMPTS} times while "
        "this change was being made; nothing was applied"
    )


def test_servers_of_a_space_mount_the_same_memories(pair: tuple[Toolbox, Toolbox]) -> None:
    first, second = pair
    assert not first.call("create_memory", {"name": "notes"}).is_error
    assert not first.call("mount_memory", {"name": "notes"}).is_error
    assert not second.call("remember_fact", {"fact": "n(1)", "memory": "notes"}).is_error
    assert first.call("query_logic", {"goal": "n(X)", "memory": "notes"}).text == '[{"X":1}]'
    assert not second.call("unmount_memory", {"name": "notes"}).is_error
    answer = first.call("query_logic", {"goal": "n(X)", "memory": "notes"})
    assert (answer.text, answer.is_error) == ("Memory not mounted: notes", True)


def test_two_servers_mounting_at_once_keep_both_mounts(pair: tuple[Toolbox, Toolbox]) -> None:
    first, second = pair
    for name in ("a1", "b1"):
        assert not first.call("create_memory", {"name": name}).is_error
    second.memories.follow_manifest()
    assert not first.call("mount_memory", {"name": "a1"}).is_error
    with pytest.raises(JournalConflict):  # second has not seen first's mount yet
        second.memories.mount("b1", "rw")
    assert not second.call("mount_memory", {"name": "b1"}).is_error  # follows, then mounts
    for box in pair:
        listed = box.call("list_memories", {}).structured
        assert listed is not None
        mounted = {m["name"] for m in listed["memories"] if m["mounted"]}
        assert mounted == {"default", "a1", "b1"}


def mounted(box: Toolbox, received: float | None = None) -> set[str]:
    """The memories ``box`` has mounted, for a call that arrived at ``received``."""
    listed = box.call("list_memories", {}, CallContext(received=received)).structured
    assert listed is not None
    return {m["name"] for m in listed["memories"] if m["mounted"]}


def test_calls_received_before_a_look_share_it_and_later_calls_look_again(
    pair: tuple[Toolbox, Toolbox],
) -> None:
    first, second = pair
    assert not first.call("create_memory", {"name": "notes"}).is_error
    waiting = time.monotonic()
    assert mounted(second, waiting) == {"default"}  # looks: the look began after `waiting`
    assert not first.call("mount_memory", {"name": "notes"}).is_error
    # in flight during the mount: may be ordered before it
    assert mounted(second, waiting) == {"default"}
    # received after the mount: must see it
    assert mounted(second, time.monotonic()) == {"default", "notes"}


def test_a_change_that_lost_the_race_after_a_shared_look_looks_again(
    pair: tuple[Toolbox, Toolbox],
) -> None:
    first, second = pair
    for name in ("a1", "b1"):
        assert not first.call("create_memory", {"name": name}).is_error
    waiting = time.monotonic()
    assert mounted(second, waiting) == {"default"}
    assert not first.call("mount_memory", {"name": "a1"}).is_error
    # the shared look missed a1's mount: the manifest conflicts
    answer = second.call("mount_memory", {"name": "b1"}, CallContext(received=waiting))
    assert not answer.is_error, answer.text
    assert mounted(first) == mounted(second) == {"default", "a1", "b1"}


def test_a_change_that_conflicts_uses_up_no_handle(pair: tuple[Toolbox, Toolbox]) -> None:
    first, second = pair
    late = second.memories.default
    sneaky = intruder(first)
    with late.writing():
        before = late.numbering.next
        sneaky.append([AddClause(Clause(read_term("r(1)"))).journal_op()])
        with pytest.raises(JournalConflict):
            late.commit([AddClause(Clause(read_term("r(2)")))])
        assert late.numbering.next == before


def test_a_save_writes_its_snapshot_and_the_journal_start_together(
    cluster: Cluster, space: str, space_env: dict[str, str], tmp_path: Path
) -> None:
    meanwhile: list[PostgresJournal] = []

    def step(name: str) -> None:  # between the snapshot's write and the journal's start
        if name == "save:written" and meanwhile:
            meanwhile.pop().append([AddClause(Clause(read_term("p(2)"))).journal_op()])

    box = open_toolbox(resolve_settings(cwd=tmp_path, env=space_env), step=step)
    elsewhere = Database(cluster.url)  # another server's connections
    try:
        assert not box.call("remember_fact", {"fact": "p(1)"}).is_error
        other = PostgresJournal(elsewhere, space, "default", "elsewhere", time.time)
        other.read_new()
        meanwhile.append(other)
        with pytest.raises(JournalConflict):
            box.memories.default.save_snapshot("s1")
        assert box.memories.default.snapshot_infos() == []  # rolled back with the start
        assert not box.call("save_snapshot", {"name": "s1"}).is_error
        assert box.call("query_logic", {"goal": "p(X)"}).text == '[{"X":1},{"X":2}]'
    finally:
        box.close()
        elsewhere.close()
    again = open_toolbox(resolve_settings(cwd=tmp_path, env=space_env))
    try:
        assert [info.name for info in again.memories.default.snapshot_infos()] == ["s1"]
        assert again.call("query_logic", {"goal": "p(X)"}).text == '[{"X":1},{"X":2}]'
        status = again.call("get_persistence_status", {}).text
        assert "\nlast_snapshot: s1\n" in status
    finally:
        again.close()
