"""A team's server while its database is away, under load: no request is
answered 500; a tool call answers ``Storage unavailable: …`` as a tool error,
a token that cannot be checked and ``GET /health`` answer 503 with the
reason; the log says so once, without a traceback; once the database is
back, every call answers again without a restart of the server."""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.http.http_harness import HttpServer, message_of, request, tool_call, zpm_command
from tests.web.plain_client import Client
from zpm_app.bootstrap.config import init_project
from zpm_contract.pg_cluster import Cluster

pytestmark = pytest.mark.slow

CLIENTS = 4
DOWN_S = 3.0
AGAIN_S = 15.0
"""How long after ``/health`` says the database is back every client must
have had three calls answered (a call in flight when it went away may take
the pool's wait, 5 s, to give up)."""


@dataclass(frozen=True)
class Answer:
    """One request's fate: when it was sent, its status, and its text (a
    tool's answer, or the error description of a refusal)."""

    client: int
    sent: float
    status: int
    is_error: bool
    text: str


def call(url: str, token: str, client: int, number: int) -> Answer:
    sent = time.monotonic()
    fact = f"w(c{client}, {number})"
    answer = tool_call(url, token, "remember_fact", {"fact": fact}, number)
    if answer.status != 200:
        try:
            text = str(answer.json().get("error_description"))
        except ValueError:
            text = answer.body.decode(errors="replace")
        return Answer(client, sent, answer.status, True, text)
    result = message_of(answer.body.decode())["result"]
    return Answer(client, sent, 200, bool(result.get("isError")), result["content"][0]["text"])


def answered_since(answers: list[Answer], client: int, since: float) -> list[Answer]:
    """The answers to ``client``'s calls sent after ``since``."""
    return [a for a in list(answers) if a.client == client and a.sent > since]


def test_a_database_away_under_load_is_answered_as_such_and_left_behind(
    cluster: Cluster, space: str, tmp_path: Path
) -> None:
    where = ["--storage", cluster.url, "--space", space]
    made = subprocess.run(
        zpm_command("tokens", "create", "load", *where), capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    init_project(tmp_path)
    answers: list[Answer] = []
    stop = threading.Event()

    def load(client: int, url: str) -> None:
        number = 0
        while not stop.is_set():
            number += 1
            answers.append(call(url, token, client, number))
            time.sleep(0.02)

    with HttpServer(tmp_path, "--stateless", *where) as server:
        clients = [
            threading.Thread(target=load, args=(i, f"{server.url}/mcp")) for i in range(CLIENTS)
        ]
        for client in clients:
            client.start()
        person = Client(server.url)
        signed_in = person.post("/login", data={"token": token})
        assert signed_in.status_code == 303, signed_in.text
        time.sleep(1.0)
        cluster.crash()
        down_at = time.monotonic()
        time.sleep(DOWN_S)
        health = request(f"{server.url}/health")
        alive = request(f"{server.url}/health?ready=0")
        page = person.get("/m/default")
        sign_in = Client(server.url).post("/login", data={"token": token})
        cluster.resume()
        deadline = time.monotonic() + 30
        while request(f"{server.url}/health").status != 200:
            assert time.monotonic() < deadline, "the server never saw the database again"
            time.sleep(0.1)
        back_at = time.monotonic()
        while not all(
            len(answered_since(answers, client, back_at + 0.5)) >= 3 for client in range(CLIENTS)
        ):
            assert time.monotonic() < back_at + AGAIN_S, answers[-8:]
            time.sleep(0.1)
        stop.set()
        for client in clients:
            client.join(60)
    assert (alive.status, alive.json()) == (200, {"status": "ok"})
    for refused in (page, sign_in):
        assert refused.status_code == 503 and "Storage unavailable: " in refused.text, refused
    assert health.status == 503, health
    assert health.json()["status"] == "unavailable" and health.json()["storage"], health.json()
    assert {k.lower(): v for k, v in health.headers.items()}["retry-after"] == "5"
    unexpected = [
        a
        for a in answers
        if not (a.status == 200 and not a.is_error)
        and not (a.status in (200, 503) and a.text.startswith("Storage unavailable: "))
    ]
    assert not unexpected, unexpected[:5]
    refused = [a for a in answers if down_at < a.sent < back_at and a.is_error]
    assert refused, "no request saw the outage"
    after = [a for a in answers if a.sent > back_at + 0.5]
    assert all(a.status == 200 and not a.is_error for a in after), after[:5]
    assert "Traceback" not in server.log, server.log[-3000:]
    assert server.log.count("the storage does not answer") == 1, server.log[-3000:]
    assert server.log.count("the storage answers again") == 1, server.log[-3000:]
