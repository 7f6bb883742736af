"""Reusable helpers for end-to-end tests of ``zpm serve`` and the ``zpm`` command.

* ``run_piped(requests, command=..., cwd=...)`` writes the handshake and the
  requests as JSON lines to a fresh server process, closes its stdin and
  returns every stdout line, the exit code and stderr (``PipedRun``).
* ``mcp_session(command, cwd=...)`` is an async context manager yielding an
  initialized official MCP ``ClientSession`` talking to a server process.
* ``zpm(*args)`` is the command line of the installed ``zpm`` (as
  ``python -m zpm_app``); ``MEMO_SERVER`` serves a small test runner instead
  of a real project.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROTOCOL_VERSION = "2025-11-25"
MEMO_SERVER = [sys.executable, str(Path(__file__).with_name("serve_memo.py"))]


def zpm(*args: str) -> list[str]:
    """The command line running ``zpm args...`` with this interpreter."""
    return [sys.executable, "-m", "zpm_app", *args]


def initialize(request_id: int | str = 0) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "zpm-tests", "version": "1"},
        },
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def tool_call(request_id: int | str, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": dict(arguments)},
    }


@dataclass(frozen=True)
class PipedRun:
    """What a server process wrote and how it ended."""

    lines: list[str]
    returncode: int
    stderr: str

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines]

    def answer(self, request_id: int | str) -> dict[str, Any]:
        """The one response to ``request_id`` (fails if there is not exactly one)."""
        found = [m for m in self.messages if m.get("id") == request_id and "method" not in m]
        assert len(found) == 1, f"{len(found)} answers to {request_id!r}: {self.lines}"
        return found[0]

    def text(self, request_id: int | str) -> str:
        """The text of the single content item of a tools/call answer."""
        content = self.answer(request_id)["result"]["content"]
        assert len(content) == 1
        text: str = content[0]["text"]
        return text


def run_piped(
    requests: Sequence[Mapping[str, Any] | str],
    *,
    command: Sequence[str] = MEMO_SERVER,
    cwd: Path | None = None,
    handshake: bool = True,
    timeout: float = 60,
    env: Mapping[str, str] | None = None,
) -> PipedRun:
    """Pipe ``requests`` (dicts, or raw lines) into a new server and wait for it to exit."""
    lines: list[Mapping[str, Any] | str] = [initialize(), INITIALIZED] if handshake else []
    lines += requests
    data = "".join((m if isinstance(m, str) else json.dumps(m)) + "\n" for m in lines)
    done = subprocess.run(
        list(command),
        input=data,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env=None if env is None else dict(env),
    )
    return PipedRun(done.stdout.splitlines(), done.returncode, done.stderr)


@asynccontextmanager
async def mcp_session(command: Sequence[str], cwd: Path | None = None) -> AsyncIterator[Any]:
    """An initialized official MCP client session with a new server process."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    parameters = StdioServerParameters(command=command[0], args=list(command[1:]), cwd=cwd)
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session
