"""Reusable helpers for end-to-end tests of ``zpm serve`` and the ``zpm`` command.

* ``run_piped(requests, command=..., cwd=...)`` writes the handshake and the
  requests as JSON lines to a fresh server process, closes its stdin and
  returns every stdout line, the exit code and stderr (``PipedRun``).
  ``modern(...)`` and ``modern_call(...)`` make requests of the 2026-07-28
  protocol (no handshake: pipe them with ``handshake=False``).
* ``mcp_session(command, cwd=...)`` is an async context manager yielding an
  initialized official MCP ``ClientSession`` talking to a server process.
* ``zpm(*args)`` is the command line of the installed ``zpm`` (as
  ``python -m zpm_app``); ``MEMO_SERVER`` serves a small test runner instead
  of a real project.
* ``ServeProcess(command, cwd=...)`` is a running server driven one call at a
  time: ``call`` waits for the answer, ``send`` does not, ``kill`` ends the
  process with SIGKILL and returns the answers it wrote before it died.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

PROTOCOL_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
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


def envelope(version: str = MODERN_VERSION, **meta: Any) -> dict[str, Any]:
    """The ``_meta`` envelope every request of the 2026-07-28 protocol carries."""
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "zpm-tests", "version": "1"},
        **meta,
    }


def modern(
    request_id: int | str,
    method: str,
    params: Mapping[str, Any] | None = None,
    version: str = MODERN_VERSION,
) -> dict[str, Any]:
    """A request of the 2026-07-28 protocol: ``params`` with the envelope in ``_meta``."""
    body = {**(params or {}), "_meta": envelope(version)}
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body}


def modern_call(request_id: int | str, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    return modern(request_id, "tools/call", {"name": name, "arguments": dict(arguments)})


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


@dataclass(frozen=True)
class Answer:
    """A tools/call result: the text of its first content item, and ``isError``."""

    text: str
    is_error: bool

    @classmethod
    def of(cls, message: Mapping[str, Any]) -> Answer:
        result = message["result"]
        return cls(result["content"][0]["text"], result["isError"])


class ServeProcess:
    """A server process (``zpm serve``) after the handshake, driven one line at a time.

    Request ids count up from 1; the server's log is discarded.  Use it as a
    context manager: a process still running at the end is killed.
    """

    def __init__(
        self, command: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None
    ) -> None:
        self._process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=None if env is None else dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self._next_id = 1
        self._answers: dict[int, dict[str, Any]] = {}
        self._write(initialize(0))
        self._read_until(0)
        self._write(INITIALIZED)

    def send(self, name: str, arguments: Mapping[str, Any]) -> int:
        """Send a tools/call without waiting; returns its request id."""
        request_id = self._next_id
        self._next_id += 1
        self._write(tool_call(request_id, name, arguments))
        return request_id

    def call(self, name: str, arguments: Mapping[str, Any]) -> Answer:
        """Send a tools/call and wait for its answer."""
        request_id = self.send(name, arguments)
        self._read_until(request_id)
        return Answer.of(self._answers[request_id])

    def kill(self) -> dict[int, Answer]:
        """SIGKILL the process; every answer it wrote before dying, by request id
        (a line it had not finished writing does not count)."""
        os.kill(self._process.pid, signal.SIGKILL)
        self._process.wait(timeout=30)
        assert self._process.stdout is not None
        for line in self._process.stdout.read().splitlines(keepends=True):
            if line.endswith("\n"):
                self._take(line)
        return {i: Answer.of(m) for i, m in self._answers.items() if i != 0}

    def close(self) -> int:
        """End the input, wait for the server to exit; its exit code."""
        assert self._process.stdin is not None
        self._process.stdin.close()
        return self._process.wait(timeout=60)

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait(timeout=30)
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                stream.close()

    def _write(self, message: Mapping[str, Any]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(message) + "\n")
        self._process.stdin.flush()

    def _read_until(self, request_id: int) -> None:
        assert self._process.stdout is not None
        while request_id not in self._answers:
            line = self._process.stdout.readline()
            if not line:
                raise EOFError(f"the server exited before answering request {request_id}")
            self._take(line)

    def _take(self, line: str) -> None:
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            return
        if "id" in message and "method" not in message:
            assert "result" in message, f"JSON-RPC error: {line}"
            self._answers[message["id"]] = message
