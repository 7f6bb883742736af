"""The time commands from the shell: ``zpm history`` (the tool's command),
``--as-of`` on a read, ``zpm revert-memory``, and ``zpm history prune``,
which drops whole journal generations older than a time, so reads before
the new horizon answer an error naming it and the state never changes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from mcp_harness import run_piped, tool_call, zpm

from zpm_app.server.mcp_server import CURSORS


def run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        zpm(*args), cwd=project, capture_output=True, text=True, timeout=60, check=False
    )


def ok(project: Path, *args: str) -> str:
    done = run(project, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_history_as_of_revert_and_prune_from_the_shell(zpm_project: Path) -> None:
    ok(zpm_project, "remember-fact", "owner(auth, alice)")
    ok(zpm_project, "save-snapshot", "first")
    ok(zpm_project, "update-fact", "owner(auth, alice)", "--new-fact", "owner(auth, bob)")
    ok(zpm_project, "save-snapshot", "second")
    ok(zpm_project, "remember-fact", "owner(db, carol)")
    feed = json.loads(ok(zpm_project, "history", "--since", "2"))
    assert [e["event"] for e in feed["events"]] == ["removed", "stored", "saved", "stored"]
    assert feed["next_cursor"] == "5"
    assert ok(zpm_project, "query-logic", "owner(S, P)", "--as-of", "1") == (
        '[{"S":"auth","P":"alice"}]'
    )
    preview = json.loads(ok(zpm_project, "revert-memory", "--to", "3"))
    assert preview["dry_run"] and [o["op"] for o in preview["operations"]] == ["remove"]

    bases = zpm_project / ".zpm" / "kb" / "default" / "snapshots" / ".bases"
    assert len(list(bases.iterdir())) == 2  # the snapshots the two saves started from
    pruned = ok(zpm_project, "history", "prune", "--before", "2100-01-01")
    assert len(list(bases.iterdir())) == 1  # the current generation's alone
    assert pruned.startswith("default: 3 changes dropped; history kept since ")
    assert ok(zpm_project, "query-logic", "owner(S, P)") == (
        '[{"S":"auth","P":"bob"},{"S":"db","P":"carol"}]'
    )
    assert [e["cursor"] for e in json.loads(ok(zpm_project, "history"))["events"]] == ["5.1", "4.1"]
    before = run(zpm_project, "query-logic", "owner(S, P)", "--as-of", "1")
    assert before.returncode == 1
    assert "is before the history memory default keeps" in before.stderr
    assert "cursor 4" in before.stderr
    status = ok(zpm_project, "get-persistence-status").splitlines()
    assert status[-1].startswith("history: since ") and "(cursor 4)" in status[-1]
    assert ok(zpm_project, "query-logic", "owner(S, P)", "--as-of", "4") == (
        '[{"S":"auth","P":"bob"}]'
    )


def test_prune_refuses_a_bad_time_and_an_unknown_memory(zpm_project: Path) -> None:
    bad = run(zpm_project, "history", "prune", "--before", "soon")
    assert bad.returncode == 2 and "not a time: 'soon'" in bad.stderr
    unknown = run(zpm_project, "history", "prune", "--before", "2100-01-01", "--memory", "nope")
    assert unknown.returncode == 1 and "memory nope is not in" in unknown.stderr


def test_a_write_tells_the_cursor_of_each_memory_it_changed(zpm_project: Path) -> None:
    calls = [
        ("remember_fact", {"fact": "p(1)"}),
        ("query_logic", {"goal": "p(X)"}),
        ("remember_fact", {"fact": "p("}),
        ("fork_memory", {"name": "trial"}),
        ("remember_fact", {"fact": "p(2)", "memory": "trial"}),
        ("merge_memory", {"name": "trial"}),
        ("save_snapshot", {"name": "s"}),
    ]
    requests = [tool_call(i, tool, arguments) for i, (tool, arguments) in enumerate(calls, 1)]
    env = {**os.environ, "ZPM_ENGINE": "python"}
    run = run_piped(requests, command=zpm("serve"), cwd=zpm_project, env=env)
    assert run.returncode == 0, run.stderr
    metas = [run.answer(i)["result"].get("_meta", {}).get(CURSORS) for i in range(1, 8)]
    assert metas == [
        {"default": "1"},
        None,  # a read
        None,  # an error
        None,  # a fork changes no memory that was there
        {"trial": "3"},  # the fork's first batch is the one after its base's last
        {"default": "2", "trial": "4"},  # the merge's batch, and the fork's point moved
        {"default": "3"},
    ]
    feed = json.loads(ok(zpm_project, "history", "--since", "1"))
    assert [(e["cursor"], e["event"]) for e in feed["events"]] == [
        ("2.1", "merged"),
        ("2.2", "stored"),
        ("3.1", "saved"),
    ]
