"""``zpm serve --fork`` with the official MCP client: an agent's session writes
only to its own fork; a person merges it from the command line, and the base
then holds exactly what the dry run said."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mcp_harness import mcp_session, zpm

pytestmark = pytest.mark.slow


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(zpm(*args), cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.anyio
async def test_a_session_fork_is_merged_by_a_person(zpm_project: Path) -> None:
    assert run("remember-fact", "--fact", "task(plan)", cwd=zpm_project).returncode == 0
    assert run("remember-fact", "--fact", "task(old)", cwd=zpm_project).returncode == 0
    async with mcp_session(zpm("serve", "--fork"), cwd=zpm_project) as session:
        listed = await session.list_tools()
        described = {tool.name: tool for tool in listed.tools}["remember_fact"]
        assert "this session's fork 'session_" in json.dumps(described.input_schema)
        memories = await session.call_tool("list_memories", {})
        entries = json.loads(memories.content[0].text)["memories"]
        [fork] = [entry for entry in entries if "fork_of" in entry]
        name = fork["name"]
        assert fork == {
            "name": name,
            "scope": "project",
            "mounted": True,
            "mode": "rw",
            "fork_of": "default",
            "session": True,
        }
        assert {"name": "default", "scope": "project", "mounted": True, "mode": "ro"} in entries
        for arguments in ({"fact": "task(build)"}, {"fact": "task(test)"}):
            stored = await session.call_tool("remember_fact", arguments)
            assert stored.is_error is False
        withdrawn = await session.call_tool("unassert", {"sentence": "task(old)"})
        assert withdrawn.is_error is False
        refused = await session.call_tool("remember_fact", {"fact": "x(1)", "memory": "default"})
        assert refused.is_error and refused.content[0].text == "Memory is read-only: default"
        seen = await session.call_tool("query_logic", {"goal": "task(X)"})
        assert seen.content[0].text == '[{"X":"plan"},{"X":"build"},{"X":"test"}]'
        overview = await session.call_tool("get_kb_overview", {"sample_size": 5})
        [tasks] = json.loads(overview.content[0].text)["predicates"]
        assert tasks["samples"] == ["task(plan)", "task(build)", "task(test)"], "the fork's"
        status = await session.call_tool("get_persistence_status", {})
        assert f"/.zpm/kb/{name}\n" in status.content[0].text

    base = run("query-logic", "--goal", "task(X)", cwd=zpm_project)
    assert base.stdout.strip() == '[{"X":"plan"},{"X":"old"}]', "the base is untouched"
    inspected = run("query-logic", "--goal", "task(X)", "--memory", name, cwd=zpm_project)
    assert inspected.returncode == 0, inspected.stderr
    preview = run("merge-memory", "--name", name, "--dry-run", "--format", "json", cwd=zpm_project)
    assert preview.returncode == 0, preview.stderr
    said = json.loads(preview.stdout)
    assert said["applied"] == {"stored": 2, "withdrawn": 1, "removed": 0, "supports": 0}
    merged = run("merge-memory", "--name", name, "--format", "json", cwd=zpm_project)
    assert json.loads(merged.stdout) == {**said, "dry_run": False}
    after = run("query-logic", "--goal", "task(X)", cwd=zpm_project)
    assert after.stdout.strip() == '[{"X":"plan"},{"X":"build"},{"X":"test"}]'
    listed = run("forks", "list", cwd=zpm_project)
    assert listed.stdout.startswith(f"{name} (fork of default, last changed ")
    assert listed.stdout.endswith("): merged\n")
