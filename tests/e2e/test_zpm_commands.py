"""The installed ``zpm`` command as a process: help, version, init."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from mcp_harness import zpm

pytestmark = pytest.mark.slow


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(zpm(*args), cwd=cwd, capture_output=True, text=True, timeout=60)


def test_no_command_prints_help_on_stderr_and_exits_2() -> None:
    done = run()
    assert done.returncode == 2 and done.stdout == ""
    assert "COMMANDS" in done.stderr and "serve" in done.stderr


def test_help_exits_0() -> None:
    done = run("--help")
    assert done.returncode == 0
    assert all(word in done.stdout for word in ("zpm", "serve", "COMMANDS", "query-logic"))


def test_version() -> None:
    assert run("version").stdout == "zpm 0.4.0\n"


def test_a_malformed_integer_or_unknown_flag_exits_2() -> None:
    assert run("query-logic", "--goal", "true", "--bogus").returncode == 2
    assert run("no-such-command").returncode == 2


def test_init_creates_the_project_once(tmp_path: Path) -> None:
    first = run("init", cwd=tmp_path)
    assert (first.returncode, first.stdout) == (0, "Initialized .zpm/ project directory\n")
    assert (tmp_path / ".zpm" / "kb").is_dir() and (tmp_path / ".zpm" / "data").is_dir()
    second = run("init", cwd=tmp_path)
    assert (second.returncode, second.stdout) == (
        0,
        ".zpm/ project directory already initialized\n",
    )


def test_the_verb_tools_as_commands(zpm_project: Path) -> None:
    """A person's side of the verbs: kebab-case subcommands and flags, bare
    boolean flags, JSON values with --format json, withdrawals across processes."""
    added = run("assert", "dog(muffet)", cwd=zpm_project)
    assert (added.returncode, added.stdout) == (0, '{"handle":8589934593,"already_there":false}\n')
    run("assume-fact", "--fact", "dog(rex)", "--assumption", "seen", cwd=zpm_project)
    listed = run("matching", "dog(X)", "--asserted-only", "--format", "json", cwd=zpm_project)
    assert listed.returncode == 0
    assert '"rows":[{"sentence":"dog(muffet)"' in listed.stdout and "rex" not in listed.stdout
    gone = run("unassert-handle", "--sentex-handle", "8589934593", cwd=zpm_project)
    assert gone.stdout == '{"excepting_handle":8589934595}\n'
    again = run("unassert-handle", "--sentex-handle", "8589934593", cwd=zpm_project)
    assert again.stdout == '{"excepting_handle":null}\n'
    query = run("query", "dog(X)", "--include-justification", cwd=zpm_project)
    assert query.stdout.startswith('{"answers":[{"bindings":{"X":"rex"},"justification":{')
    refused = run("assert", "p", "--strength", "monotonic", cwd=zpm_project)
    assert refused.returncode == 1
    assert refused.stdout == (
        "ERROR: strength is capped at default: knowledge from clients is defeasible\n"
    )
    assert run("unassert-handle", "--sentex-handle", "many", cwd=zpm_project).returncode == 2
