"""Clients that load a ``zpm serve --http --stateless`` with writes and
removals, and what they were told (for the load tests on files and on a
database): each agent asserts ``w(NAME, n)`` for n = 1, 2, ... and forgets
every third one again, over one connection."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


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


def check_ledgers(seen: list[list[str]], ledgers: list[Ledger]) -> set[str]:
    """Every server answered alike; every acknowledged write is there, no
    acknowledged removal came back, nothing appeared that no client asked
    for.  Returns the acknowledged writes."""
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
    return written


@contextmanager
def loading(ports: list[int], token: str, per_server: int) -> Iterator[list[Ledger]]:
    """``per_server`` clients per port (``c<server>_<client>``) working until
    the block ends; their ledgers, complete once it has."""
    stop = threading.Event()
    ledgers: list[Ledger] = []
    threads = []
    try:
        for s, port in enumerate(ports):
            for c in range(per_server):
                ledger = Ledger()
                ledgers.append(ledger)
                thread = threading.Thread(
                    target=work, args=(Client(port, token), f"c{s}_{c}", ledger, stop), daemon=True
                )
                threads.append(thread)
                thread.start()
        yield ledgers
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
