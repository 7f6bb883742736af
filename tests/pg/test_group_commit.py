"""Group commit on PostgreSQL: the batches of several calls go into one
transaction; until it commits no other server sees them and no other writer
gets in; a commit that fails leaves nothing of its calls applied and uses up
no handle."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from pathlib import Path

import anyio
import psycopg
import pytest

from zpm_adapters.postgres import database
from zpm_adapters.postgres import group as group_module
from zpm_adapters.postgres.database import Database
from zpm_adapters.postgres.group import PostgresWriteGroup
from zpm_adapters.postgres.journal import PostgresJournal, advisory_key
from zpm_app.bootstrap.config import resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.catalogue.tool_catalogue import ToolOutcome
from zpm_app.worker.knowledge_worker import KnowledgeWorker
from zpm_app.worker.toolbox import Toolbox
from zpm_contract.pg_cluster import Cluster
from zpm_domain.changes.mutations import AddClause
from zpm_domain.errors import StorageOutcomeUnknown, StorageUnavailable
from zpm_domain.ports.journal import JournalConflict
from zpm_domain.prolog.reader.api import read_term
from zpm_domain.stored.clauses import Clause


def transactions(cluster: Cluster, space: str) -> list[int]:
    """How many journal rows of ``space`` each transaction wrote, in order."""
    with psycopg.connect(cluster.url) as conn:
        rows = conn.execute(
            "SELECT count(*) FROM zpm_journal WHERE space = %s GROUP BY xmin::text::bigint "
            "ORDER BY min(seq)",
            (space,),
        ).fetchall()
    return [n for (n,) in rows]


def handle(box: Toolbox, sentence: str) -> int:
    answer = box.call("assert", {"sentence": sentence})
    assert not answer.is_error, answer.text
    number: int = json.loads(answer.text)["handle"]
    return number


def test_the_calls_of_a_group_commit_in_one_transaction(
    pair: tuple[Toolbox, Toolbox], cluster: Cluster, space: str
) -> None:
    first, second = pair
    group = first.write_group()
    assert group is not None
    for i in range(3):
        assert not first.call("remember_fact", {"fact": f"p({i})"}).is_error
    assert group.pending()
    assert first.call("query_logic", {"goal": "p(X)"}).text == '[{"X":0},{"X":1},{"X":2}]'
    assert second.call("query_logic", {"goal": "p(X)"}).text == "[]"  # not committed yet
    assert transactions(cluster, space) == []
    group.end()
    assert transactions(cluster, space) == [3]
    assert second.call("query_logic", {"goal": "p(X)"}).text == '[{"X":0},{"X":1},{"X":2}]'


def test_another_writer_waits_for_the_group_and_neither_is_lost(
    pair: tuple[Toolbox, Toolbox], cluster: Cluster, space: str
) -> None:
    first, second = pair
    group = first.write_group()
    assert group is not None
    mine = handle(first, "q(mine)")
    theirs: list[int] = []
    other = threading.Thread(target=lambda: theirs.append(handle(second, "q(theirs)")))
    other.start()
    other.join(0.5)
    assert other.is_alive()  # the group holds the memory's writers' lock
    group.end()
    other.join(10)
    assert theirs and theirs[0] != mine
    for box in pair:
        assert box.call("query_logic", {"goal": "q(X)"}).text == '[{"X":"mine"},{"X":"theirs"}]'
    assert transactions(cluster, space) == [1, 1]


def test_a_group_that_cannot_commit_leaves_nothing_applied(
    pair: tuple[Toolbox, Toolbox], cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    first, second = pair
    assert not first.call("remember_fact", {"fact": "kept(1)"}).is_error
    group = first.write_group()
    assert group is not None
    lost = handle(first, "r(lost)")
    assert not first.call("remember_fact", {"fact": "r(also_lost)"}).is_error
    with psycopg.connect(cluster.url, autocommit=True) as admin:  # every connection dropped
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    with pytest.raises(StorageUnavailable):
        group.end()
    assert group.failed()
    with caplog.at_level(logging.WARNING, logger="zpm"):
        assert first.call("query_logic", {"goal": "r(X)"}).text == "[]"
    assert "changes were not stored; reading its journal again" in caplog.text
    assert first.call("query_logic", {"goal": "kept(X)"}).text == '[{"X":1}]'
    assert handle(first, "r(again)") == lost  # no handle was used up
    for box in pair:
        assert box.call("query_logic", {"goal": "r(X)"}).text == '[{"X":"again"}]'


def test_a_group_commits_before_anything_else_is_written(
    pair: tuple[Toolbox, Toolbox], cluster: Cluster, space: str
) -> None:
    first, second = pair
    group = first.write_group()
    assert group is not None
    assert not first.call("remember_fact", {"fact": "s(1)"}).is_error
    assert not first.call("save_snapshot", {"name": "mid"}).is_error  # commits s(1) first
    assert not group.pending()
    assert not first.call("remember_fact", {"fact": "s(2)"}).is_error
    group.end()
    assert transactions(cluster, space) == [1, 1, 1]  # s(1); the snapshot's start; s(2)
    assert not second.call("restore_snapshot", {"name": "mid"}).is_error
    for box in pair:
        assert box.call("query_logic", {"goal": "s(X)"}).text == '[{"X":1}]'


def test_a_lock_that_waits_too_long_is_a_conflict_and_the_group_holds_none_it_sent(
    cluster: Cluster, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "LOCK_WAIT_S", 1)
    db = Database(cluster.url)
    free, taken = advisory_key(space, "a"), advisory_key(space, "b")

    def others_may_take(key: int) -> bool:
        with psycopg.connect(cluster.url, autocommit=True) as probe:
            row = probe.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
        return row == (True,)  # the probe's lock goes with its connection

    try:
        with psycopg.connect(cluster.url, autocommit=True) as other:
            other.execute("SELECT pg_advisory_lock(%s)", (taken,))
            group = PostgresWriteGroup(db)
            db.open_group(group)
            group.blocks += 1  # within a call (``Journal.exclusive``): a second lock
            group.lock(free, "a")
            group.lock(taken, "b")
            with pytest.raises(JournalConflict):
                group.read("SELECT 1", ())  # both locks go in its pipeline
            group.blocks -= 1
            assert not group.holds(free) and not group.holds(taken)
            assert others_may_take(free)
            other.execute("SELECT pg_advisory_unlock(%s)", (taken,))
        group.lock(taken, "b")
        assert group.read("SELECT 1", ()) == [(1,)]
        assert not others_may_take(taken)
        group.end()
        assert others_may_take(taken)
    finally:
        db.close()


def test_a_group_whose_commit_conflicts_gives_its_locks_back(
    pair: tuple[Toolbox, Toolbox], cluster: Cluster, space: str
) -> None:
    first, _ = pair
    assert not first.call("remember_fact", {"fact": "kept(1)"}).is_error
    group = first.write_group()
    assert group is not None
    assert not first.call("remember_fact", {"fact": "r(1)"}).is_error  # queued, locked
    elsewhere = Database(cluster.url)  # a writer that ignores the lock takes the same seq
    try:
        sneaky = PostgresJournal(elsewhere, space, "default", "intruder", time.time)
        sneaky.read_new()
        sneaky.append([AddClause(Clause(read_term("r(2)"))).journal_op()])
    finally:
        elsewhere.close()
    with pytest.raises(JournalConflict):
        group.end()
    with psycopg.connect(cluster.url, autocommit=True) as probe:
        key = advisory_key(space, "default")
        assert probe.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone() == (True,)
    assert first.call("query_logic", {"goal": "r(X)"}).text == '[{"X":2}]'


CUT_AFTER_COMMIT = "SELECT pg_advisory_unlock_all(), pg_terminate_backend(pg_backend_pid())"
"""The end of a group's commit pipeline whose session is cut off once it committed."""


def send_at_once(worker: KnowledgeWorker, facts: list[str]) -> list[ToolOutcome]:
    """``remember_fact`` of each fact, queued at once on ``worker`` (so they
    share a group commit); their answers."""

    async def send() -> list[ToolOutcome]:
        tickets = [worker.ticket() for _ in facts]
        answers = await asyncio.gather(
            *(
                worker.call(ticket, "remember_fact", {"fact": fact})
                for ticket, fact in zip(tickets, facts, strict=True)
            )
        )
        return [outcome for outcome, _ in answers]

    return anyio.run(send)


def test_a_commit_whose_connection_is_lost_once_made_answers_its_calls_and_stores_each_once(
    pair: tuple[Toolbox, Toolbox], cluster: Cluster, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = pair
    assert not first.call("remember_fact", {"fact": "kept(1)"}).is_error
    worker = KnowledgeWorker(lambda: first)
    try:
        monkeypatch.setattr(group_module, "RELEASE", CUT_AFTER_COMMIT)
        answers = send_at_once(worker, [f"p({i})" for i in range(4)])
        assert [a.text for a in answers] == [f"Asserted: p({i})" for i in range(4)]
        assert transactions(cluster, space) == [1, 4]  # kept(1); the run's commit, made once
        monkeypatch.undo()
        assert [a.text for a in send_at_once(worker, ["p(4)"])] == ["Asserted: p(4)"]
    finally:
        worker.close()
    assert transactions(cluster, space) == [1, 4, 1]
    every = '[{"X":0},{"X":1},{"X":2},{"X":3},{"X":4}]'
    assert second.call("query_logic", {"goal": "p(X)"}).text == every


def test_a_commit_whose_outcome_cannot_be_told_fails_as_perhaps_stored(
    cluster: Cluster,
    space: str,
    space_env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(database, "LOCK_WAIT_S", 1)  # for the connections opened from here on
    monkeypatch.setattr(group_module, "RELEASE", CUT_AFTER_COMMIT)
    box = open_toolbox(resolve_settings(cwd=tmp_path, env=space_env))
    key = advisory_key(space, "default")

    def next_in_line() -> None:
        """Queues for the memory's lock behind the group, then keeps it
        longer than the group waits for it to tell whether it committed."""
        with psycopg.connect(cluster.url, autocommit=True) as other:
            other.execute("SET lock_timeout = '30s'")
            other.execute("SELECT pg_advisory_lock(%s)", (key,))
            time.sleep(3)

    try:
        group = box.write_group()
        assert group is not None
        assert not box.call("remember_fact", {"fact": "p(1)"}).is_error  # the group holds the lock
        other = threading.Thread(target=next_in_line)
        other.start()
        with psycopg.connect(cluster.url, autocommit=True) as probe:
            deadline = time.monotonic() + 10
            while not probe.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            ).fetchone() == (1,):
                assert time.monotonic() < deadline, "the other session never waited for the lock"
                time.sleep(0.01)
        with pytest.raises(StorageOutcomeUnknown) as raised:
            group.end()
        assert "whether this call was stored is not known" in raised.value.message
        other.join(10)
        assert transactions(cluster, space) == [1]  # it was made
        assert box.call("query_logic", {"goal": "p(X)"}).text == '[{"X":1}]'  # read again, once
    finally:
        box.close()
