"""Drive one ``zpm serve`` process over stdio, one tool call at a time.

``ServerProcess(target, project)`` starts the server named by an
``EngineTarget`` in ``project`` (a directory that already holds ``.zpm/``),
performs the MCP handshake and answers ``call(tool, arguments)`` with a
``ToolOutcome`` (the text of the first content item, the further ones as
notes, and ``isError``).
Requests may also overlap: ``send`` a request, ``notify``, then wait for
the ``answer`` of a given request (answers are kept by id as they arrive,
with their time of arrival).

Edge cases: a server that dies or stays silent for ``timeout`` seconds makes
``call`` raise ``ServerFailed`` whose text carries the server's stderr, so a
failing contract names what went wrong.  ``close()`` is idempotent; it closes
stdin (the server then exits 0 after answering what it read) and kills the
process only if it does not exit in time.  ``kill()`` stops the process with
SIGKILL at once, as a crash would.  ``restart(kill=...)`` stops the server one
of these two ways and serves the same project again with the same engine and
environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from zpm_contract import storage
from zpm_contract.targets import EngineTarget

PROTOCOL_VERSION = "2025-11-25"


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call answered: its text, whether it is an error, and the
    further text items (``notes``: an error's hint, what was wrong and how
    to fix it; a success's notes)."""

    text: str
    is_error: bool
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.notes, str):  # one note given bare: still one text item
            object.__setattr__(self, "notes", (self.notes,))

    @property
    def hint(self) -> str | None:
        """The second text item, ``None`` when there is none."""
        return self.notes[0] if self.notes else None


class ServerFailed(AssertionError):
    """The server died, answered garbage, or did not answer in time."""


def init_project(directory: Path) -> Path:
    """Make ``directory`` (created if missing) a project as ``zpm init``
    does, in this process (a Python start less per project); returns it."""
    from zpm_app.bootstrap.config import init_project as make_project

    directory.mkdir(parents=True, exist_ok=True)
    make_project(directory)
    return directory


def _described(method: str, params: Mapping[str, Any]) -> str:
    """A request as a failure message names it: ``query_logic {"goal": "p(X)"}``
    for a tool call, else the method and its parameters."""
    if method == "tools/call":
        return f"{params.get('name')} {json.dumps(params.get('arguments'), ensure_ascii=False)}"
    return f"{method} {json.dumps(params, ensure_ascii=False)}"


class ServerProcess:
    """One running server; see the module docstring."""

    def __init__(
        self,
        target: EngineTarget,
        project: Path,
        *,
        env: Mapping[str, str] | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.target = target
        self.project = project
        self.env: dict[str, str] = dict(env or {})
        self.timeout = timeout
        self._next_id = 0
        self._stderr: IO[str] = tempfile.TemporaryFile("w+")
        full_env = self.environment()
        if target.storage != storage.FILE:
            storage.push_knowledge(project, full_env)
        self._process = subprocess.Popen(
            target.serve_command(project),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            encoding="utf-8",
            bufsize=1,
            env=full_env,
            cwd=project,
        )
        self._answers: dict[int, tuple[float, dict[str, Any]]] = {}
        self._requests: dict[int, str] = {}
        """What each request that was sent asked (for failure messages)."""
        self._notifications: list[dict[str, Any]] = []
        self._arrived = threading.Condition()
        self._ended = False
        threading.Thread(target=self._pump, daemon=True).start()
        self._request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "zpm-contract-tests", "version": "1"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _pump(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            message = json.loads(line)
            if "method" in message and "id" not in message:
                with self._arrived:
                    self._notifications.append(message)
                    self._arrived.notify_all()
                continue
            if "method" in message or not isinstance(message.get("id"), int):
                continue  # requests from the server, errors without an id
            with self._arrived:
                self._answers[message["id"]] = (time.monotonic(), message)
                self._arrived.notify_all()
        with self._arrived:
            self._ended = True
            self._arrived.notify_all()

    def _send(self, message: Mapping[str, Any]) -> None:
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(message) + "\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise self._failure(f"cannot write to the server: {error}") from error

    def environment(self) -> dict[str, str]:
        """The environment the server runs in (for other processes on its
        project), with where it keeps its memories (``zpm_contract.storage``)."""
        env = {**os.environ, **self.target.env, **self.env}
        return {**env, **storage.environment(self.target.storage, self.project, env)}

    def send(self, method: str, params: Mapping[str, Any]) -> int:
        """Send a request without waiting for its answer; its id."""
        self._next_id += 1
        self._requests[self._next_id] = _described(method, params)
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return self._next_id

    def notify(self, method: str, params: Mapping[str, Any]) -> None:
        """Send a notification."""
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def answer(self, request_id: int, timeout: float | None = None) -> tuple[float, dict[str, Any]]:
        """The answer to ``request_id`` and when it arrived (``time.monotonic()``),
        waiting up to ``timeout`` seconds (default: the server's)."""
        limit = self.timeout if timeout is None else timeout
        with self._arrived:
            if not self._arrived.wait_for(
                lambda: request_id in self._answers or self._ended, limit
            ):
                raise self._failure(f"no answer to {self._asked(request_id)} within {limit} s")
            if request_id not in self._answers:
                raise self._failure(f"the server exited before answering {self._asked(request_id)}")
            return self._answers.pop(request_id)

    def notified(
        self, method: str, params: Mapping[str, Any] | None = None, timeout: float = 10.0
    ) -> bool:
        """Whether notification ``method`` (with exactly ``params``, when given)
        arrived, waiting up to ``timeout`` seconds; a match is taken."""

        found: list[dict[str, Any]] = []

        def ready() -> bool:
            for index, message in enumerate(self._notifications):
                if message["method"] == method and (
                    params is None or message.get("params", {}) == params
                ):
                    found.append(self._notifications.pop(index))
                    return True
            return self._ended

        with self._arrived:
            self._arrived.wait_for(ready, timeout)
        return bool(found)

    def take_notifications(self, method: str) -> list[dict[str, Any]]:
        """The params of the notifications ``method`` received so far, taken, in order."""
        with self._arrived:
            taken = [m for m in self._notifications if m["method"] == method]
            self._notifications = [m for m in self._notifications if m["method"] != method]
        return [m.get("params", {}) for m in taken]

    def drop_notifications(self) -> None:
        """Forget the notifications received so far."""
        with self._arrived:
            self._notifications.clear()

    def answered(self, request_id: int) -> bool:
        """Whether the answer to ``request_id`` has arrived (and was not taken)."""
        with self._arrived:
            return request_id in self._answers

    def _asked(self, request_id: int) -> str:
        return f"request {request_id} ({self._requests.get(request_id, '?')})"

    def _request(
        self, method: str, params: Mapping[str, Any], timeout: float | None = None
    ) -> dict[str, Any]:
        _, message = self.answer(self.send(method, params), timeout)
        if "result" not in message:
            raise self._failure(f"protocol error answering {method}: {json.dumps(message)}")
        result: dict[str, Any] = message["result"]
        return result

    def call(
        self, tool: str, arguments: Mapping[str, Any], timeout: float | None = None
    ) -> ToolOutcome:
        """Call ``tool``, waiting up to ``timeout`` seconds (default: the
        server's); the answer must hold text items only, at least one: the
        text, then the notes (an error's hint; a success's notes, such as
        ``remember_fact``'s of a defeated fact)."""
        arguments = dict(arguments)
        result = self._request("tools/call", {"name": tool, "arguments": arguments}, timeout)
        content = result.get("content", [])
        failed = bool(result.get("isError"))
        if not content or any(item.get("type") != "text" for item in content):
            raise self._failure(f"{tool} answered {result!r}")
        notes = tuple(item["text"] for item in content[1:])
        return ToolOutcome(content[0]["text"], failed, notes)

    def list_tools(self) -> list[dict[str, Any]]:
        """The tools the server offers (``tools/list``, every page)."""
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page = self._request("tools/list", {} if cursor is None else {"cursor": cursor})
            tools += page.get("tools", [])
            cursor = page.get("nextCursor")
            if not cursor:
                return tools

    def stderr(self) -> str:
        """What the server wrote to stderr so far ("" once it is closed)."""
        if self._stderr.closed:
            return ""
        self._stderr.seek(0)
        return self._stderr.read()

    def _failure(self, what: str) -> ServerFailed:
        return ServerFailed(f"engine {self.target.label}: {what}\nstderr:\n{self.stderr()}")

    def close(self) -> int | None:
        """Stop the server; returns its exit code (``None`` if it had to be killed)."""
        code = self._stop()
        self._release()
        return code

    def kill(self) -> None:
        """Stop the server with SIGKILL at once, as a crash would; idempotent."""
        self._process.kill()
        self._process.wait()
        self._close_stdin()
        self._release()

    def restart(self, *, kill: bool) -> ServerProcess:
        """Stop this server and serve the same project again with the same
        engine and environment.

        ``kill``: SIGKILL; otherwise a clean stop (stdin closed), which must
        end with exit code 0, else ``ServerFailed`` carries the server's stderr.
        """
        if kill:
            self.kill()
        else:
            code = self._stop()
            if code != 0:
                failure = self._failure(f"a clean stop ended with exit code {code}")
                self._release()
                raise failure
            self._release()
        return ServerProcess(self.target, self.project, env=self.env, timeout=self.timeout)

    def _stop(self) -> int | None:
        self._close_stdin()
        try:
            return self._process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
            return None

    def _close_stdin(self) -> None:
        if self._process.stdin is not None and not self._process.stdin.closed:
            try:
                self._process.stdin.close()
            except OSError:
                pass

    def _release(self) -> None:
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._stderr.close()

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
