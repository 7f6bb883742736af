"""Many writers on one memory kept in files, with a crash: three ``zpm serve
--http --stateless`` processes of one project (they share its files, each
journal behind its lock), eight clients each, asserting and forgetting facts
for a fixed time while one server is killed (SIGKILL) and started again.

Calls queued on a server share their journal's ``fsync`` (``file_group``),
so a kill can come while a group holds batches that are written but not yet
durable, and answered none of them.  Afterwards every acknowledged write is
visible on every server, no clause whose removal was acknowledged comes
back, nothing appears that no client asked for, and the servers answer
alike.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.http.http_harness import HttpServer, zpm_command
from tests.http.load_clients import check_ledgers, facts_on, loading
from zpm_app.bootstrap.config import init_project

pytestmark = pytest.mark.slow

SERVERS = 3
CLIENTS_PER_SERVER = 8
LOAD_S = 8.0


def test_three_servers_of_one_project_eight_clients_each_through_a_kill(tmp_path: Path) -> None:
    init_project(tmp_path)
    made = subprocess.run(
        zpm_command("tokens", "create", "load", "--project", str(tmp_path)),
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    servers = [HttpServer(tmp_path, "--stateless") for _ in range(SERVERS)]
    for server in servers:
        server.__enter__()
    with loading([server.port for server in servers], token, CLIENTS_PER_SERVER) as ledgers:
        time.sleep(LOAD_S / 2)
        victim = servers[1]
        assert victim._process is not None
        victim._process.send_signal(signal.SIGKILL)
        victim._process.wait()
        victim._finish()
        servers[1] = HttpServer(tmp_path, "--stateless", port=victim.port)
        servers[1].__enter__()
        time.sleep(LOAD_S / 2)
    try:
        seen = [sorted(facts_on(server.port, token)) for server in servers]
    finally:
        for server in servers:
            server.__exit__(None, None, None)
    written = check_ledgers(seen, ledgers)
    failed = sum(ledger.failures for ledger in ledgers)
    print(f"load on files: {len(written)} writes acknowledged, {failed} calls failed")
    assert len(written) > 100, f"too little got through: {len(written)} writes"
