"""``zpm kb push``: a project's knowledge files into its space, and running
servers following a push at their next call, as a server started afterwards
reads them."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.http.http_harness import zpm_command
from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    root.mkdir()
    init_project(root)
    return root


def kb_push(project: Path, env: dict[str, str], *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        zpm_command("kb", "push", "--project", str(project), *more),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )


@pytest.fixture
def servers(project: Path, space_env: dict[str, str]) -> Iterator[list[Toolbox]]:
    """Two servers of the space, running before anything was pushed."""
    opened: list[Toolbox] = []
    try:
        for _ in range(2):
            opened.append(open_toolbox(resolve_settings(project=str(project), env=space_env)))
        yield opened
    finally:
        for box in opened:
            box.close()


def ask(box: Toolbox, goal: str) -> str:
    answer = box.call("query_logic", {"goal": goal})
    assert not answer.is_error, answer.text
    return answer.text


def test_a_push_prints_each_memory_and_whether_it_changed(
    project: Path, space_env: dict[str, str]
) -> None:
    kb = project / ".zpm" / "kb"
    (kb / "rules.pl").write_text("mortal(X) :- human(X).\n")
    (kb / "notes").mkdir()
    (kb / "notes" / "knowledge.pl").write_text("topic(prolog).\n")
    first = kb_push(project, space_env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines() == [
        "default: kb/rules.pl (changed)",
        "notes: kb/notes/knowledge.pl (changed)",
    ]
    again = kb_push(project, space_env, "--format", "json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == {
        "space": space_env["ZPM_SPACE"],
        "memories": [
            {"memory": "default", "files": ["kb/rules.pl"], "changed": False},
            {"memory": "notes", "files": ["kb/notes/knowledge.pl"], "changed": False},
        ],
    }


def test_a_push_refuses_a_file_project_and_an_unreadable_file(
    project: Path, space_env: dict[str, str]
) -> None:
    files_only = {k: v for k, v in space_env.items() if k not in ("ZPM_STORAGE_URL", "ZPM_SPACE")}
    refused = kb_push(project, files_only | {"ZPM_STORAGE_URL": "", "ZPM_SPACE": ""})
    assert refused.returncode == 1
    assert refused.stderr.startswith("zpm kb push: ")
    (project / ".zpm" / "kb" / "bad.pl").write_bytes(b"p(\xff).\n")
    unreadable = kb_push(project, space_env)
    assert unreadable.returncode == 1
    assert "bad.pl: cannot read" in unreadable.stderr


def test_running_servers_follow_a_push_at_their_next_call(
    project: Path, space_env: dict[str, str], servers: list[Toolbox]
) -> None:
    first, second = servers
    assert not first.call("remember_fact", {"fact": "capital(france, lyon)"}).is_error
    assert not second.call("remember_fact", {"fact": "fixed(2)"}).is_error
    for box in servers:
        assert ask(box, "capital(france, X)") == '[{"X":"lyon"}]'
    (project / ".zpm" / "kb" / "geo.pl").write_text(
        ":- functional(capital/2).\ncapital(france, paris).\nfixed(1).\n"
    )
    pushed = kb_push(project, space_env)
    assert pushed.returncode == 0, pushed.stderr
    later = open_toolbox(resolve_settings(project=str(project), env=space_env))
    try:
        for box in [*servers, later]:
            assert ask(box, "capital(france, X)") == '[{"X":"paris"}]'  # lyon is defeated
            assert ask(box, "fixed(X)") == '[{"X":1}]'  # the file's predicate is static now
            refused = box.call("remember_fact", {"fact": "fixed(3)"})
            assert refused.is_error and "static" in refused.text
        for box in [*servers, later]:  # recorded once, by the first server that opened them
            feed = json.loads(box.call("history", {"order": "oldest"}).text)["events"]
            assert [(e["event"], e["text"]) for e in feed] == [
                ("stored", "capital(france, lyon)"),
                ("stored", "fixed(2)"),
                ("knowledge files changed", "kb/geo.pl"),
            ]
        before = ask_as_of(first, "capital(france, X)", "2")
        assert before == '[{"X":"lyon"}]'  # as the servers answered before the push
    finally:
        later.close()


def ask_as_of(box: Toolbox, goal: str, moment: str) -> str:
    answer = box.call("query_logic", {"goal": goal, "as_of": moment})
    assert not answer.is_error, answer.text
    return answer.text
