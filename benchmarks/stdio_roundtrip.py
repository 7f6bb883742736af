"""Round-trip latency of tool calls through ``zpm serve`` over stdio.

Starts one server in a temporary project and sends calls one at a time,
waiting for each answer.  The baseline, measured in the same run, is
``echo`` (protocol + dispatch only); the other tools are reported as a ratio
to it, so the numbers compare across machines.

    python benchmarks/stdio_roundtrip.py [calls-per-tool]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PROTOCOL_VERSION = "2025-11-25"


class Server:
    def __init__(self, project: Path, engine: str | None = None) -> None:
        command = [sys.executable, "-m", "zpm_app", "serve"]
        if engine:
            command += ["--engine", engine]
        self.proc = subprocess.Popen(
            command,
            cwd=project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.next_id = 0
        self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        assert answer.get("id") == self.next_id, answer
        return answer

    def call(self, name: str, arguments: dict[str, Any]) -> float:
        started = time.perf_counter()
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        elapsed = time.perf_counter() - started
        assert answer["result"]["isError"] is False, answer
        return elapsed

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def measure(calls: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        subprocess.run(
            [sys.executable, "-m", "zpm_app", "init"], cwd=project, check=True, capture_output=True
        )
        server = Server(project)
        try:
            for _ in range(20):  # warm up
                server.call("echo", {"message": "warm"})
            echo = [server.call("echo", {"message": f"m{i}"}) for i in range(calls)]
            remember = [
                server.call("remember_fact", {"fact": f"item({i}, value_{i})"})
                for i in range(calls)
            ]
            query = [server.call("query_logic", {"goal": f"item({i}, V)"}) for i in range(calls)]
        finally:
            server.close()
    return {
        "echo": statistics.median(echo),
        "remember_fact": statistics.median(remember),
        "query_logic": statistics.median(query),
    }


def main(calls: int = 200) -> None:
    medians = measure(calls)
    base = medians["echo"]
    print(f"stdio round trip, median of {calls} sequential calls per tool")
    for name, seconds in medians.items():
        print(f"  {name:14s} {seconds * 1000:8.3f} ms   x{seconds / base:5.2f} of echo")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
