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
