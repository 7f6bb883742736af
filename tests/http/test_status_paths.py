"""``get_persistence_status`` over HTTP shows where the server keeps its data
(the ``dir:`` line's folder) only to a token that reaches everything: a
read-only token, one limited to some memories and a ``--fork`` token are
told the memory's name, and no path of the project reaches them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.http.http_harness import HttpServer, create_token, message_of, run_zpm, tool_call
from zpm_app.bootstrap.config import init_project

LIMITED = {
    "read-only": ("--read-only",),
    "one-memory": ("--memory", "default"),
    "two-memories": ("--memory", "default", "--memory", "notes"),
    "fork": ("--fork",),
}
"""Tokens that do not reach everything, by name, and their ``zpm tokens create`` options."""


@dataclass
class Served:
    project: Path
    server: HttpServer
    tokens: dict[str, str]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    project = tmp_path_factory.mktemp("paths")
    init_project(project)
    made = run_zpm(project, "create-memory", "--name", "notes")
    assert made.returncode == 0, made.stderr
    tokens = {"full": create_token(project, "full")}
    for kind, options in LIMITED.items():
        tokens[kind] = create_token(project, kind, *options)
    with HttpServer(project, "--stateless") as server:
        yield Served(project, server, tokens)


def status(served: Served, kind: str) -> tuple[str, str]:
    """The raw HTTP body of ``get_persistence_status`` called with token
    ``kind``, and the tool's text in it (a success)."""
    answer = tool_call(served.server.mcp, served.tokens[kind], "get_persistence_status", {})
    assert answer.status == 200, answer.body
    body = answer.body.decode()
    result = message_of(body)["result"]
    assert not result.get("isError"), result
    return body, result["content"][0]["text"]


@pytest.mark.parametrize("kind", list(LIMITED))
def test_a_limited_token_sees_no_path(served: Served, kind: str) -> None:
    body, text = status(served, kind)
    assert str(served.project) not in body
    assert "/" not in text, text
    lines = text.splitlines()
    home = "token_fork" if kind == "fork" else "default"
    assert lines[:2] == ["status: active", f"dir: memory {home}"]
    assert [line.partition(":")[0] for line in lines[2:]] == [
        "last_snapshot",
        "journal_size",
        "history",
    ]


def test_a_full_token_sees_the_folder_as_the_command_line_does(served: Served) -> None:
    _, text = status(served, "full")
    data = text.splitlines()[1].removeprefix("dir: ")
    assert Path(data).is_relative_to(served.project), text
    shell = run_zpm(served.project, "get-persistence-status")
    assert shell.returncode == 0, shell.stderr
    assert shell.stdout.rstrip("\n") == text
