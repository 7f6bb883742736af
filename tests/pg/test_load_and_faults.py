"""Many writers on one memory, with faults: three ``zpm serve --http`` servers
of one space, eight clients each, asserting and forgetting facts for a fixed
time while one server is killed (SIGKILL) and started again, the database
restarts as after a crash, and every database connection is dropped.

Afterwards every acknowledged write is visible on every server, no clause
whose removal was acknowledged comes back, nothing appears that no client
asked for, and the three servers answer alike.  A call that failed (the
storage was unavailable, the server was gone) may or may not have been
applied: it was not acknowledged.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import psycopg
import pytest

from tests.http.http_harness import HttpServer, zpm_command
from tests.http.load_clients import check_ledgers, facts_on, loading
from zpm_app.bootstrap.config import init_project
from zpm_contract.pg_cluster import Cluster

pytestmark = pytest.mark.slow

SERVERS = 3
CLIENTS_PER_SERVER = 8
LOAD_S = 12.0


def drop_connections(cluster: Cluster) -> None:
    """Terminate every other session of the database, as a network cut would."""
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


def test_three_servers_eight_clients_each_through_faults(
    cluster: Cluster, space: str, tmp_path: Path
) -> None:
    where = ["--storage", cluster.url, "--space", space]
    env = {**os.environ, "ZPM_GLOBAL_SPACE": "g-" + space}
    import subprocess

    made = subprocess.run(
        zpm_command("tokens", "create", "load", *where), capture_output=True, text=True, env=env
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    projects = []
    for index in range(SERVERS):
        project = tmp_path / f"machine{index}"
        project.mkdir()
        init_project(project)
        projects.append(project)
    servers = [HttpServer(p, "--stateless", *where) for p in projects]
    for server in servers:
        server.__enter__()
    with loading([server.port for server in servers], token, CLIENTS_PER_SERVER) as ledgers:
        time.sleep(LOAD_S / 4)
        victim = servers[1]
        assert victim._process is not None
        victim._process.send_signal(signal.SIGKILL)
        victim._process.wait()
        victim._finish()
        servers[1] = HttpServer(projects[1], "--stateless", *where, port=victim.port)
        servers[1].__enter__()
        time.sleep(LOAD_S / 4)
        cluster.restart(immediate=True)
        time.sleep(LOAD_S / 4)
        drop_connections(cluster)
        time.sleep(LOAD_S / 4)
    try:
        seen = [sorted(facts_on(server.port, token)) for server in servers]
    finally:
        for server in servers:
            server.__exit__(None, None, None)
    written = check_ledgers(seen, ledgers)
    removed = set().union(*(ledger.removed for ledger in ledgers))
    failed = sum(ledger.failures for ledger in ledgers)
    rows, commits = journal_commits(cluster, space)
    print(
        f"load: {len(written)} writes and {len(removed)} removals acknowledged, {failed} failed; "
        f"{rows} journal rows in {commits} transactions"
    )
    assert len(written) > 100, f"too little got through: {len(written)} writes"
    assert commits < rows, "no two calls of a busy server shared a commit"


def journal_commits(cluster: Cluster, space: str) -> tuple[int, int]:
    """How many journal rows ``space`` has, and how many transactions wrote them."""
    with psycopg.connect(cluster.url) as conn:
        row = conn.execute(
            "SELECT count(*), count(DISTINCT xmin::text) FROM zpm_journal WHERE space = %s",
            (space,),
        ).fetchone()
    assert row is not None
    return row[0], row[1]
