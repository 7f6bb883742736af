"""``zpm tokens`` on a space: the tokens are rows every server of the space
finds, digests only, with the same semantics as the file store."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from zpm_adapters.postgres.database import Database
from zpm_adapters.postgres.registry import PostgresRegistry
from zpm_adapters.postgres.schema import migrate
from zpm_adapters.postgres.tokens import PostgresTokens
from zpm_app.cli import main
from zpm_contract.pg_cluster import Cluster
from zpm_domain.ports.tokens import TokenExists, TokenRecord


@pytest.fixture
def store(cluster: Cluster, space: str) -> Iterator[PostgresTokens]:
    db = Database(cluster.url)
    migrate(db)
    PostgresRegistry(db, space, "g-" + space)
    yield PostgresTokens(db, space, owns=True)
    db.close()


def test_the_store_keeps_records_as_given(store: PostgresTokens) -> None:
    record = TokenRecord("alice", "ab" * 32, True, ("notes", "default"), False, 10.5)
    store.add(record)
    with pytest.raises(TokenExists):
        store.add(record)
    assert store.list() == [record]
    assert store.find("ab" * 32) == record
    assert store.find("cd" * 32) is None
    store.touch("alice", 20.0)
    assert store.list()[0].last_used == 20.0
    assert store.revoke("alice") and not store.revoke("alice")
    assert store.list() == []


def test_the_cli_makes_tokens_in_the_space(
    cluster: Cluster,
    space: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ZPM_GLOBAL_SPACE", "g-" + space)
    for variable in ("ZPM_STORAGE_URL", "ZPM_SPACE"):  # the options set them: undo after
        monkeypatch.setenv(variable, "unset")
    where = ["--storage", cluster.url, "--space", space]
    monkeypatch.chdir(tmp_path)  # no .zpm/ here: the space is the project
    assert main(["tokens", "create", "bot", "--read-only", *where]) == 0
    token = capsys.readouterr().out.strip()
    with psycopg.connect(cluster.url) as conn:
        rows = conn.execute(
            "SELECT name, digest, read_only FROM zpm_tokens WHERE space = %s", (space,)
        ).fetchall()
    assert rows == [("bot", hashlib.sha256(token.encode()).hexdigest(), True)]
    assert main(["tokens", "list", *where]) == 0
    assert capsys.readouterr().out.startswith("bot  read-only; every memory  created ")
    assert main(["tokens", "revoke", "bot", *where]) == 0
    assert main(["tokens", "revoke", "bot", *where]) == 1
