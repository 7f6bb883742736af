"""kill -9 loses no acknowledged write; a torn tail does not stop the next start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from mcp_harness import INITIALIZED, initialize, run_piped, tool_call, zpm

pytestmark = pytest.mark.slow


def test_kill_9_after_acknowledged_writes(zpm_project: Path) -> None:
    server = subprocess.Popen(
        zpm("serve"),
        cwd=zpm_project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, object]) -> None:
        assert server.stdin is not None
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()

    try:
        send(initialize())
        server.stdout.readline()
        send(INITIALIZED)
        acknowledged = 40
        for i in range(1, acknowledged + 1):
            send(tool_call(i, "remember_fact", {"fact": f"item({i})"}))
            answer = json.loads(server.stdout.readline())
            assert answer["id"] == i and answer["result"]["isError"] is False
        # One more write in flight, then the process dies without any cleanup.
        send(tool_call(999, "remember_fact", {"fact": "item(in_flight)"}))
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()

    run = run_piped(
        [tool_call(1, "query_logic", {"goal": "findall(N, (item(N), integer(N)), L)"})],
        command=zpm("serve"),
        cwd=zpm_project,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.text(1)) == [{"N": "_G1", "L": list(range(1, acknowledged + 1))}]


def test_torn_tail_does_not_stop_the_next_start(zpm_project: Path) -> None:
    first = run_piped(
        [tool_call(1, "remember_fact", {"fact": "kept(1)"})], command=zpm("serve"), cwd=zpm_project
    )
    assert first.returncode == 0
    wal = zpm_project / ".zpm" / "data" / "journal.wal"
    with wal.open("ab") as f:
        f.write(b'{"ts":1,"ops":[{"op":"assert","clause":"torn(')
    run = run_piped(
        [tool_call(1, "query_logic", {"goal": "kept(X)"})], command=zpm("serve"), cwd=zpm_project
    )
    assert run.returncode == 0
    assert run.text(1) == '[{"X":1}]'
    assert "journal.wal" in run.stderr
