"""``zpm serve --tools``, the instructions, notes and stdin, as processes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from mcp_harness import run_piped, tool_call, zpm

pytestmark = pytest.mark.slow

ENV = {"ZPM_ENGINE": "python"}


def serve(*args: str) -> list[str]:
    return zpm("serve", *args)


def test_serve_offers_the_selected_tools_and_a_guide_for_them(zpm_project: Path) -> None:
    done = run_piped(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            tool_call(2, "argue", {"closed_goal": "p"}),
            tool_call(3, "remember_fact", {"fact": "owner(payments, Alice)"}),
        ],
        command=serve("--tools", "core", "--engine", "python"),
        cwd=zpm_project,
    )
    assert done.returncode == 0, done.stderr
    instructions = done.answer(0)["result"]["instructions"]
    assert "remember_fact" in instructions and "argue" not in instructions
    listed = [tool["name"] for tool in done.answer(1)["result"]["tools"]]
    assert "remember_fact" in listed and "argue" not in listed and "assert" not in listed
    assert done.answer(2)["error"]["message"] == "Tool not found: argue"
    content = done.answer(3)["result"]["content"]
    assert [item["text"] for item in content] == [
        "Asserted: owner(payments, Alice)",
        "Alice is a variable (a name that starts with a capital letter is one), so the stored "
        "fact holds for any value in its place. For a constant, write 'Alice' (quoted) or alice.",
    ]


def test_the_config_selects_the_tools_of_a_server(zpm_project: Path) -> None:
    (zpm_project / ".zpm" / "config.toml").write_text('[tools]\nenable = ["verbs", "echo"]\n')
    done = run_piped(
        [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}],
        command=serve("--engine", "python"),
        cwd=zpm_project,
    )
    listed = [tool["name"] for tool in done.answer(1)["result"]["tools"]]
    assert listed[0] == "echo" and "argue" in listed and "remember_fact" not in listed
    command = subprocess.run(
        zpm("remember-fact", "p(a)", "--engine", "python"),
        cwd=zpm_project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert command.stdout == "Asserted: p(a)\n", "the command line offers every tool"


def test_an_unknown_tool_set_stops_the_start_with_the_valid_names(zpm_project: Path) -> None:
    done = run_piped([], command=serve("--tools", "core,verbz"), cwd=zpm_project)
    assert (done.returncode, done.lines) == (1, [])
    assert "zpm serve: --tools: unknown tool or tool set 'verbz'" in done.stderr
    assert "core, verbs, all" in done.stderr and "remember_fact" in done.stderr


def test_a_forked_session_is_told_where_its_writes_go(zpm_project: Path) -> None:
    done = run_piped([], command=serve("--fork", "--engine", "python"), cwd=zpm_project)
    instructions = done.answer(0)["result"]["instructions"]
    assert "This session works on its own fork 'session_" in instructions


def test_the_command_line_reads_a_dash_from_stdin_and_prints_notes_on_stderr(
    zpm_project: Path,
) -> None:
    def command(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            zpm(*args, "--engine", "python"),
            cwd=zpm_project,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )

    stored = command("remember-fact", "-", stdin="owner(payments, Alice)\n")
    assert stored.stdout == "Asserted: owner(payments, Alice)\n"
    assert stored.stderr.startswith("zpm: Alice is a variable")
    big = command("remember-fact", "-", stdin="big(" + "a" * 5_000_000 + ")")
    assert (big.returncode, big.stdout) == (1, "ERROR: InvalidArguments\n")
    assert "is too large: 5000005 bytes" in big.stderr
    missing = command("restore-snapshot", "nope")
    assert (missing.returncode, missing.stdout) == (1, "ERROR: ExecutionFailed\n")
    assert (
        missing.stderr == "zpm: memory default has no snapshot named 'nope'; it has no snapshots\n"
    )
