"""A team's setup, end to end: one database, one space, tokens, two
``zpm serve --http`` processes, and two agents whose writes each other sees."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.http.http_harness import HttpServer, sdk_session, zpm_command
from zpm_app.bootstrap.config import init_project
from zpm_contract.pg_cluster import Cluster

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def zpm(*args: str) -> str:
    done = subprocess.run(zpm_command(*args), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


async def test_two_servers_of_one_space_serve_one_memory(
    cluster: Cluster, space: str, tmp_path: Path
) -> None:
    where = ["--storage", cluster.url, "--space", space]
    projects = [tmp_path / "alice", tmp_path / "bob"]  # two machines' checkouts
    for project in projects:
        project.mkdir()
        init_project(project)
    alice = zpm("tokens", "create", "alice", *where)
    bob = zpm("tokens", "create", "bob", *where)
    with (
        HttpServer(projects[0], *where) as first,
        HttpServer(projects[1], *where) as second,
    ):
        async with sdk_session(first.mcp, alice) as a, sdk_session(second.mcp, bob) as b:
            assert not (await a.call_tool("remember_fact", {"fact": "likes(alice, tea)"})).is_error
            assert not (await b.call_tool("remember_fact", {"fact": "likes(bob, coffee)"})).is_error
            for session in (a, b):
                answer = await session.call_tool("query_logic", {"goal": "likes(X, Y)"})
                assert answer.content[0].text == (
                    '[{"X":"alice","Y":"tea"},{"X":"bob","Y":"coffee"}]'
                )
            rows = await b.call_tool("matching", {"pattern": "likes(X, Y)"})
            clients = [
                row["provenance"]["client"] for row in json.loads(rows.content[0].text)["rows"]
            ]
            assert clients == ["alice", "bob"]


@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")  # the era zpm serves
async def test_an_idle_server_tells_its_watchers_of_another_servers_change(
    cluster: Cluster, space: str, tmp_path: Path
) -> None:
    import anyio

    where = ["--storage", cluster.url, "--space", space]
    projects = [tmp_path / "alice", tmp_path / "bob"]
    for project in projects:
        project.mkdir()
        init_project(project)
    alice = zpm("tokens", "create", "alice", *where)
    bob = zpm("tokens", "create", "bob", *where)
    predicates = "zpm://memories/default/predicates"
    heard: list[Any] = []

    def updates() -> list[str]:
        return [
            str(message.params.uri)
            for message in heard
            if getattr(message, "method", None) == "notifications/resources/updated"
        ]

    with (
        HttpServer(projects[0], *where) as first,
        HttpServer(projects[1], *where) as second,
    ):
        async with sdk_session(first.mcp, alice, heard) as watcher:
            await watcher.subscribe_resource(predicates)
            async with sdk_session(second.mcp, bob) as writer:
                assert not (await writer.call_tool("remember_fact", {"fact": "p(b)"})).is_error
            with anyio.move_on_after(10):
                while predicates not in updates():  # the watcher makes no call meanwhile
                    await anyio.sleep(0.05)
            assert updates() == [predicates], heard


def test_a_write_from_the_shell_is_recorded_as_its_account_or_the_name_given(
    cluster: Cluster, space: str, tmp_path: Path
) -> None:
    import getpass
    import socket

    where = ["--storage", cluster.url, "--space", space, "--project", str(tmp_path)]
    init_project(tmp_path)
    zpm("remember-fact", "--fact", "likes(ann, tea)", *where)
    zpm("remember-fact", "--fact", "likes(bob, tea)", "--as", "release-bot", *where)
    rows = json.loads(zpm("matching", "--pattern", "likes(X, Y)", "--format", "json", *where))
    clients = [row["provenance"]["client"] for row in rows["rows"]]
    assert clients == [f"cli:{getpass.getuser()}@{socket.gethostname()}", "release-bot"]


def test_serve_init_of_a_space_leaves_no_folder_behind(
    cluster: Cluster, space: str, tmp_path: Path
) -> None:
    import os

    env = {**os.environ, "ZPM_STORAGE_URL": cluster.url, "ZPM_SPACE": space}
    env["ZPM_ENGINE"] = "python"
    env.pop("ZPM_PROJECT_DIR", None)
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "remember_fact", "arguments": {"fact": "here(yes)"}},
        },
    ]
    done = subprocess.run(
        zpm_command("serve", "--init"),
        input="".join(json.dumps(m) + "\n" for m in messages),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[-1]["result"]["content"][0]["text"] == "Asserted: here(yes)"
    assert list(tmp_path.iterdir()) == []
