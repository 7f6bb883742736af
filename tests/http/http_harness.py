"""Helpers for tests of ``zpm serve --http``: a real server process on a free
loopback port, raw HTTP requests, and the official Python SDK client.

* ``HttpServer(project, *args)``: starts ``zpm serve --http 127.0.0.1:PORT``
  (python engine, or ``engine=``) and waits for ``/health``; leaving the block sends SIGTERM
  and records the exit code (``returncode``) and stderr (``log``).
* ``request(url, body=..., headers=...)``: one HTTP request, its status,
  headers and body, whatever the status (stdlib only).
* ``sdk_session(url, token)``: an initialized SDK ``ClientSession`` over
  Streamable HTTP with ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

PROTOCOL_VERSION = "2025-11-25"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def zpm_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "zpm_app", *args]


def run_zpm(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        zpm_command(*args, "--project", str(project)),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ZPM_ENGINE": "python"},
    )


def create_token(project: Path, name: str, *options: str) -> str:
    """A new token of ``project``, as ``zpm tokens create NAME OPTIONS`` makes
    it (``--read-only``, ``--memory M`` ..., ``--fork``), made in this
    process: the command itself is tested in ``test_tokens.py``."""
    from zpm_app.bootstrap import config
    from zpm_app.bootstrap.storages import open_tokens
    from zpm_app.services import bearer_tokens

    memories = [options[i + 1] for i, option in enumerate(options) if option == "--memory"]
    unknown = set(options) - {"--read-only", "--fork", "--memory", *memories}
    assert not unknown, f"create_token: unknown options {sorted(unknown)}"
    token = bearer_tokens.new_token()
    record = bearer_tokens.make(
        name,
        token,
        read_only="--read-only" in options,
        memories=memories,
        fork="--fork" in options,
        now=time.time(),
    )
    store = open_tokens(config.resolve_settings(project=str(project)))
    try:
        store.add(record)
    finally:
        store.close()
    return token


@dataclass
class Response:
    status: int
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def request(
    url: str,
    body: Any = None,
    headers: Mapping[str, str] | None = None,
    method: str | None = None,
    raw: bytes | None = None,
) -> Response:
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    req = urllib.request.Request(url, data=data, headers={**sent, **(headers or {})})
    if method is not None:
        req.method = method
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            return Response(answer.status, dict(answer.headers), answer.read())
    except urllib.error.HTTPError as error:
        return Response(error.code, dict(error.headers), error.read())


def tool_call(
    url: str, token: str, tool: str, arguments: Mapping[str, Any], number: int = 1
) -> Response:
    """One ``tools/call`` to a stateless server at ``url``, bearing ``token``."""
    body = {
        "jsonrpc": "2.0",
        "id": number,
        "method": "tools/call",
        "params": {"name": tool, "arguments": dict(arguments)},
    }
    headers = {"Authorization": f"Bearer {token}", "MCP-Protocol-Version": PROTOCOL_VERSION}
    return request(url, body, headers)


def message_of(raw: str) -> Any:
    """The JSON-RPC message of an answer sent as JSON or as one server-sent event."""
    if not raw.lstrip().startswith("{"):
        raw = next(line[5:] for line in raw.splitlines() if line.startswith("data:"))
    return json.loads(raw)


def oversized(url: str, size: int, headers: Mapping[str, str]) -> int:
    """The status of a POST that declares a ``size``-byte body and sends its first KiB
    (a server that refuses it need not read the rest)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.putrequest("POST", parts.path)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            connection.putheader(name, value)
        connection.putheader("Accept", "application/json, text/event-stream")
        connection.putheader("Content-Length", str(size))
        connection.endheaders()
        connection.send(b'{"jsonrpc":"2.0","id":3,"method":"ping","pad":"' + b"x" * 1000)
        return connection.getresponse().status
    finally:
        connection.close()


def initialize_body(request_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "self-declared", "version": "1"},
        },
    }


class HttpServer:
    """A running ``zpm serve --http`` (see the module docstring)."""

    def __init__(
        self, project: Path, *args: str, port: int | None = None, engine: str = "python"
    ) -> None:
        self.project = project
        self.engine = engine
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.mcp = f"{self.url}/mcp"
        self.args = args
        self.returncode: int | None = None
        self.log = ""
        self._errors = tempfile.TemporaryFile("w+")
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> HttpServer:
        command = zpm_command(
            "serve", "--http", f"127.0.0.1:{self.port}", "--project", str(self.project), *self.args
        )
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._errors,
            text=True,
            env={**os.environ, "ZPM_ENGINE": self.engine},
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                self._finish()
                raise AssertionError(f"the server ended ({self.returncode}): {self.log}")
            try:
                if request(f"{self.url}/health").status == 200:
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise AssertionError(f"the server did not answer /health: {self.log}")

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    def stop(self) -> int:
        """SIGTERM, then wait for the exit; the exit code."""
        assert self._process is not None
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._finish()
        assert self.returncode is not None
        return self.returncode

    def _finish(self) -> None:
        assert self._process is not None
        self.returncode = self._process.wait()
        self.stdout = self._process.stdout.read() if self._process.stdout else ""
        self._errors.seek(0)
        self.log = self._errors.read()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
        self._errors.close()


@asynccontextmanager
async def sdk_session(
    url: str, token: str | None, heard: list[Any] | None = None
) -> AsyncIterator[Any]:
    """An initialized official SDK client session over Streamable HTTP; the
    server's notifications it surfaces are added to ``heard``."""
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def hear(message: Any) -> None:
        if heard is not None:
            heard.append(message)

    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write, message_handler=hear) as session:
                await session.initialize()
                yield session


@asynccontextmanager
async def modern_client(url: str, token: str | None) -> AsyncIterator[Any]:
    """The official SDK's ``Client`` over Streamable HTTP, pinned to the
    2026-07-28 revision (no handshake: a ``_meta`` envelope on every request)."""
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode="2026-07-28") as client:
            yield client
