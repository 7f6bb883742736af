"""Per-call overhead of ``zpm serve`` over stdio, against a bare JSON-RPC loop.

In one run, one call at a time (waiting for each answer): a bare Python
stdio JSON-RPC loop that answers every request at once (the floor); the MCP
SDK's own minimal stdio server (the SDK's low-level ``Server`` and stdio
transport, with one tool that answers at once: what the SDK alone costs);
then zpm's ``echo``, ``ping``, ``remember_fact`` and ``query_logic`` in a
fresh project, and the cost of one small append with fsync in the same
folder.  Prints p50 and p99 of each, what the protocol layer adds (``echo``
minus the bare loop), how much of that is the SDK's, and what
``remember_fact`` costs over ``echo``, in fsyncs.

    python benchmarks/stdio_roundtrip.py [--calls N] [--engine NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PROTOCOL_VERSION = "2025-11-25"


class Server:
    """A JSON-RPC server process over stdio: ``zpm serve`` unless ``command``
    says otherwise; ``handshake``: it speaks MCP and is initialized first."""

    def __init__(
        self,
        project: Path | None = None,
        engine: str | None = None,
        *,
        command: list[str] | None = None,
        handshake: bool = True,
    ) -> None:
        if command is None:
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
        if handshake:
            self.handshake()

    def handshake(self) -> None:
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


BARE_LOOP = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" in message:
        answer = {"jsonrpc": "2.0", "id": message["id"],
                  "result": {"content": [{"type": "text", "text": "x"}], "isError": False}}
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\\n")
        sys.stdout.flush()
"""


SDK_SERVER = """
import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text="x")])

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[])

server = Server("sdk", on_call_tool=call_tool, on_list_tools=list_tools)

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""


def sdk_server() -> Server:
    """The MCP SDK's minimal stdio server with a tool that answers at once."""
    return Server(command=[sys.executable, "-c", SDK_SERVER])


def bare_loop() -> Server:
    """A Python stdio JSON-RPC loop that answers every request at once: the floor."""
    return Server(command=[sys.executable, "-c", BARE_LOOP], handshake=False)


def timed(run: Any, calls: int) -> list[float]:
    times = []
    for i in range(calls):
        started = time.perf_counter()
        run(i)
        times.append(time.perf_counter() - started)
    return times


def fsync_times(directory: Path, calls: int) -> list[float]:
    """One small append and fsync per call, in the project's folder."""
    path = directory / "fsync-probe"
    times = []
    with open(path, "ab") as probe:
        for i in range(calls):
            started = time.perf_counter()
            probe.write(b"x" * 64 + str(i).encode() + b"\\n")
            probe.flush()
            os.fsync(probe.fileno())
            times.append(time.perf_counter() - started)
    return times


def measure(calls: int, engine: str | None) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        subprocess.run(
            [sys.executable, "-m", "zpm_app", "init"], cwd=project, check=True, capture_output=True
        )
        bare = bare_loop()
        sdk = sdk_server()
        server = Server(project, engine)
        try:
            echo = {"message": "m"}
            for _ in range(50):  # warm up
                server.call("echo", echo)
                sdk.call("echo", echo)
                bare.request("tools/call", {"name": "echo", "arguments": echo})
            results = {
                "bare loop": timed(lambda i: bare.request("tools/call", echo), calls),
                "sdk echo": timed(lambda i: sdk.call("echo", echo), calls),
                "echo": timed(lambda i: server.call("echo", echo), calls),
                "ping": timed(lambda i: server.request("ping", {}), calls),
                "remember_fact": timed(
                    lambda i: server.call("remember_fact", {"fact": f"item({i}, value_{i})"}),
                    calls,
                ),
                "query_logic": timed(
                    lambda i: server.call("query_logic", {"goal": f"item({i}, V)"}), calls
                ),
                "fsync": fsync_times(project, calls),
            }
        finally:
            server.close()
            sdk.close()
            bare.close()
    return results


def percentile(times: list[float], fraction: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--engine", default=None)
    options = parser.parse_args()
    results = measure(options.calls, options.engine)
    p50 = {name: statistics.median(times) for name, times in results.items()}
    print(f"{options.calls} sequential calls each; ms")
    print(f"{'':16} {'p50':>8} {'p99':>8}")
    for name, times in results.items():
        print(f"{name:16} {p50[name] * 1000:8.3f} {percentile(times, 0.99) * 1000:8.3f}")
    layer = p50["echo"] - p50["bare loop"]
    sdk = p50["sdk echo"] - p50["bare loop"]
    print(f"echo - bare loop (protocol layer): {layer * 1000:.3f} ms")
    print(f"  of which the SDK (sdk echo - bare loop): {sdk * 1000:.3f} ms")
    print(f"  of which zpm (echo - sdk echo): {(layer - sdk) * 1000:.3f} ms")
    extra = (p50["remember_fact"] - p50["echo"]) / p50["fsync"]
    print(f"remember_fact - echo: {extra:.2f} fsyncs (one fsync: {p50['fsync'] * 1000:.3f} ms)")


if __name__ == "__main__":
    main()
