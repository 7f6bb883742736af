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

import http.client
import json
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.http.http_harness import HttpServer, zpm_command
from zpm_app.config import init_project
from zpm_contract.pg_cluster import Cluster

pytestmark = pytest.mark.slow

SERVERS = 3
CLIENTS_PER_SERVER = 8
LOAD_S = 12.0


@dataclass
class Ledger:
    """What one client asked for and what was acknowledged."""

    attempted: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    forgetting: set[str] = field(default_factory=set)
    """Removals asked for, answered or not (one that got no answer may have been made)."""
    removed: set[str] = field(default_factory=set)
    failures: int = 0


class Client:
    """One agent: JSON-RPC tool calls to one stateless server over one connection."""

    def __init__(self, port: int, token: str) -> None:
        self._port = port
        self._headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {token}",
            "MCP-Protocol-Version": "2025-11-25",
        }
        self._conn: http.client.HTTPConnection | None = None
        self._id = 0

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool] | None:
        """The answer's text and error flag; ``None`` when no answer came."""
        self._id += 1
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": self._id,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
        )
        try:
            if self._conn is None:
                self._conn = http.client.HTTPConnection("127.0.0.1", self._port, timeout=30)
            self._conn.request("POST", "/mcp", body, self._headers)
            answer = self._conn.getresponse()
            raw = answer.read().decode()
        except (OSError, http.client.HTTPException):
            if self._conn is not None:
                self._conn.close()
            self._conn = None
            return None
        if answer.status != 200:
            return None
        message = json.loads(_data(raw))
        result = message["result"]
        return result["content"][0]["text"], bool(result.get("isError"))


def _data(raw: str) -> str:
    """The JSON of an answer sent as JSON or as one server-sent event."""
    if raw.lstrip().startswith("{"):
        return raw
    return next(line[5:].strip() for line in raw.splitlines() if line.startswith("data:"))


def work(client: Client, name: str, ledger: Ledger, stop: threading.Event) -> None:
    """Assert ``w(name, n)`` for n = 1, 2, ...; forget every third one again."""
    n = 0
    while not stop.is_set():
        n += 1
        fact = f"w({name}, {n})"
        ledger.attempted.add(fact)
        answer = client.call("remember_fact", {"fact": fact})
        if answer is not None and not answer[1]:
            ledger.written.add(fact)
        else:
            ledger.failures += 1
            time.sleep(0.05)  # the server or the database is away: do not spin
            continue
        if n % 3 == 0:
            ledger.forgetting.add(fact)
            gone = client.call("forget_fact", {"fact": fact})
            if gone is not None and not gone[1]:
                ledger.removed.add(fact)


def drop_connections(cluster: Cluster) -> None:
    """Terminate every other session of the database, as a network cut would."""
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


def facts_on(port: int, token: str) -> list[str]:
    """Every ``w/2`` fact server ``port`` holds, in clause order (``matching``, page by page)."""
    client, found, after = Client(port, token), [], None
    deadline = time.monotonic() + 60
    while True:
        arguments: dict[str, Any] = {"pattern": "w(C, N)", "limit": 1000}
        if after is not None:
            arguments["after_handle"] = after
        answer = client.call("matching", arguments)
        if answer is None or answer[1]:
            assert time.monotonic() < deadline, f"server on {port} does not answer: {answer}"
            time.sleep(0.5)
            continue
        page = json.loads(answer[0])
        found += [row["sentence"] for row in page["rows"]]
        if not page["truncated"]:
            return found
        after = page["rows"][-1]["handle"]


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
    stop = threading.Event()
    ledgers: list[Ledger] = []
    threads = []
    try:
        for s, server in enumerate(servers):
            for c in range(CLIENTS_PER_SERVER):
                ledger = Ledger()
                ledgers.append(ledger)
                thread = threading.Thread(
                    target=work,
                    args=(Client(server.port, token), f"c{s}_{c}", ledger, stop),
                    daemon=True,
                )
                threads.append(thread)
                thread.start()
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
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    try:
        seen = [sorted(facts_on(server.port, token)) for server in servers]
    finally:
        for server in servers:
            server.__exit__(None, None, None)
    for index, other in enumerate(seen[1:], 2):
        assert other == seen[0], (
            f"servers 1 and {index} differ: only on 1: {sorted(set(seen[0]) - set(other))[:5]}, "
            f"only on {index}: {sorted(set(other) - set(seen[0]))[:5]}"
        )
    visible = set(seen[0])
    assert len(seen[0]) == len(visible), "a fact is stored twice"
    written = set().union(*(ledger.written for ledger in ledgers))
    removed = set().union(*(ledger.removed for ledger in ledgers))
    forgetting = set().union(*(ledger.forgetting for ledger in ledgers))
    attempted = set().union(*(ledger.attempted for ledger in ledgers))
    assert written - forgetting <= visible, (
        f"acknowledged writes lost: {sorted(written - forgetting - visible)[:5]}"
    )
    assert not removed & visible, f"removed facts came back: {sorted(removed & visible)[:5]}"
    assert visible <= attempted, f"facts no client asked for: {sorted(visible - attempted)[:5]}"
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
