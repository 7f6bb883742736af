"""The throw-away cluster the PostgreSQL tests run on: committed is durable,
across an immediate (crash) restart, and visible to every other connection."""

from __future__ import annotations

import psycopg

from zpm_contract.pg_cluster import Cluster


def test_committed_rows_survive_an_immediate_restart(cluster: Cluster) -> None:
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        assert conn.execute("SHOW synchronous_commit").fetchone() == ("on",)
        assert conn.execute("SHOW fsync").fetchone() == ("on",)
        conn.execute("CREATE TABLE kept (n int)")
        conn.execute("INSERT INTO kept VALUES (1)")
    uncommitted = psycopg.connect(cluster.url)
    uncommitted.execute("INSERT INTO kept VALUES (2)")
    cluster.restart(immediate=True)  # the server dies with the transaction open
    uncommitted.close()
    with psycopg.connect(cluster.url) as conn:
        assert conn.execute("SELECT n FROM kept ORDER BY n").fetchall() == [(1,)]
        conn.execute("DROP TABLE kept")
        conn.commit()


def test_a_commit_is_seen_by_every_other_connection(cluster: Cluster) -> None:
    with (
        psycopg.connect(cluster.url, autocommit=True) as reader,
        psycopg.connect(cluster.url) as writer,
    ):
        reader.execute("CREATE TABLE seen (n int)")
        writer.execute("INSERT INTO seen VALUES (7)")
        assert reader.execute("SELECT count(*) FROM seen").fetchone() == (0,)
        writer.commit()
        assert reader.execute("SELECT n FROM seen").fetchall() == [(7,)]
        reader.execute("DROP TABLE seen")
