"""The database going away: calls meanwhile answer ``Storage unavailable``
and apply nothing; when it is back, the server goes on by itself and
nothing acknowledged is lost."""

from __future__ import annotations

import time

import psycopg
import pytest

from zpm_adapters.postgres.database import Database
from zpm_app.worker.toolbox import Toolbox
from zpm_contract.pg_cluster import Cluster
from zpm_domain.errors import StorageUnavailable


def test_an_outage_answers_storage_unavailable_and_then_passes(
    box: Toolbox, cluster: Cluster
) -> None:
    assert not box.call("remember_fact", {"fact": "kept(1)"}).is_error
    cluster.crash()
    try:
        for tool, arguments in [
            ("remember_fact", {"fact": "lost(1)"}),
            ("query_logic", {"goal": "kept(X)"}),
        ]:
            answer = box.call(tool, arguments)
            assert answer.is_error
            assert answer.text.startswith(f"Storage unavailable: {cluster.url}: ")
            assert "password" not in answer.text
            assert answer.hint is not None and "PostgreSQL server is running" in answer.hint
    finally:
        cluster.resume()
    assert box.call("query_logic", {"goal": "kept(X)"}).text == '[{"X":1}]'
    assert box.call("query_logic", {"goal": "lost(X)"}).text == "[]"
    assert not box.call("remember_fact", {"fact": "after(1)"}).is_error
    assert box.call("query_logic", {"goal": "after(X)"}).text == '[{"X":1}]'


def test_the_first_use_after_a_long_outage_does_not_wait_for_the_pool(
    cluster: Cluster,
) -> None:
    """While the server is down the pool tries to connect again after 1, 2,
    4, 8... seconds; the first use after the outage must not wait for that
    (here it waits at most 1 s for a connection)."""
    db = Database(cluster.url, wait_s=1)
    try:
        assert db.fetch_one("SELECT 1", ()) == (1,)
        cluster.crash()
        try:
            outage_ends = time.monotonic() + 7.5
            while time.monotonic() < outage_ends:
                with pytest.raises(StorageUnavailable):
                    db.fetch_one("SELECT 1", ())
                time.sleep(0.3)
        finally:
            cluster.resume()
        assert db.fetch_one("SELECT 1", ()) == (1,)
    finally:
        db.close()


def test_a_restart_between_calls_is_not_noticed(box: Toolbox, cluster: Cluster) -> None:
    assert not box.call("remember_fact", {"fact": "a(1)"}).is_error
    cluster.restart(immediate=True)
    assert not box.call("remember_fact", {"fact": "a(2)"}).is_error
    assert box.call("query_logic", {"goal": "a(X)"}).text == '[{"X":1},{"X":2}]'


def test_connections_closed_by_the_server_are_replaced_at_the_first_read(
    cluster: Cluster,
) -> None:
    db = Database(cluster.url, max_size=2)
    try:
        with db.statement() as first, db.statement() as second:  # two pooled connections
            pids = [conn.info.backend_pid for conn in (first, second)]
        with psycopg.connect(cluster.url, autocommit=True) as admin:
            for pid in pids:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        # used a moment ago, so not checked before use: the read finds them closed
        assert db.fetch_one("SELECT 1", ()) == (1,)
        with db.statement() as conn:  # the other one was replaced meanwhile
            assert conn.execute("SELECT 2").fetchone() == (2,)
            assert conn.info.backend_pid not in pids
    finally:
        db.close()
