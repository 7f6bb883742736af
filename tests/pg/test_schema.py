"""The zpm tables: created and migrated by version under an advisory lock,
refused when newer than this zpm, and a database that could lose an
acknowledged write is named at start."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import psycopg
import pytest

from zpm_adapters.postgres.database import Database
from zpm_adapters.postgres.schema import VERSION, SchemaTooNew, current_version, migrate
from zpm_contract.pg_cluster import Cluster


@pytest.fixture
def fresh(cluster: Cluster, space: str) -> Iterator[str]:
    """The URL of a new, empty database of the cluster."""
    name = "db_" + space.replace("-", "_")
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield cluster.url.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def test_servers_starting_together_migrate_once(fresh: str) -> None:
    results: list[tuple[int, int]] = []
    errors: list[BaseException] = []

    def start() -> None:
        db = Database(fresh)
        try:
            results.append(migrate(db))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            db.close()

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(results) == [(0, VERSION)] + [(VERSION, VERSION)] * 3


def test_a_newer_schema_is_refused(fresh: str) -> None:
    db = Database(fresh)
    try:
        migrate(db)
        with psycopg.connect(fresh, autocommit=True) as conn:
            conn.execute("UPDATE zpm_schema SET version = %s", (VERSION + 1,))
        with pytest.raises(SchemaTooNew, match="upgrade zpm"):
            migrate(db)
        assert current_version(db) == VERSION + 1
    finally:
        db.close()


def test_a_database_without_synchronous_commit_is_named_at_start(
    fresh: str, caplog: pytest.LogCaptureFixture
) -> None:
    with psycopg.connect(fresh, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{fresh.rsplit("/", 1)[1]}" SET synchronous_commit = off')
    db = Database(fresh)
    try:
        with caplog.at_level(logging.WARNING, logger="zpm"):
            db.check_durability()
    finally:
        db.close()
    assert "synchronous_commit = off" in caplog.text
    assert "can be lost" in caplog.text
