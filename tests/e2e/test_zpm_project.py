"""``zpm serve`` and tool commands on a real project (the knowledge base behind them)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mcp_harness import mcp_session, run_piped, tool_call, zpm

pytestmark = pytest.mark.slow


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(zpm(*args), cwd=cwd, capture_output=True, text=True, timeout=60)


def test_serve_without_a_project_exits_1_with_advice_naming_the_folder(tmp_path: Path) -> None:
    done = subprocess.run(
        zpm("serve"), cwd=tmp_path, input="", capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.strip().endswith(
        f"No .zpm/ directory found in {tmp_path} or any folder above it. "
        f"Run `zpm init` to initialize a project (`zpm init {tmp_path}`)."
    )


def test_a_tool_command_without_a_project_exits_1_naming_the_folder(tmp_path: Path) -> None:
    done = run("query-logic", "--goal", "true", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"zpm query-logic: NotFound. No .zpm/ directory found in {tmp_path} or any folder "
        f"above it. Run `zpm init` to initialize a project (`zpm init {tmp_path}`).\n"
    )


def test_served_tools_work_on_the_project(zpm_project: Path) -> None:
    first = run_piped(
        [
            tool_call(1, "remember_fact", {"fact": "human(socrates)"}),
            tool_call(2, "query_logic", {"goal": "human(X)"}),
            tool_call(3, "remember_fact", {"fact": ""}),
        ],
        command=zpm("serve"),
        cwd=zpm_project,
    )
    assert first.returncode == 0, first.stderr
    assert first.text(1) == "Asserted: human(socrates)"
    assert first.text(2) == '[{"X":"socrates"}]'
    assert first.answer(3)["result"]["isError"] is True
    again = run_piped(
        [tool_call(1, "query_logic", {"goal": "human(X)"})], command=zpm("serve"), cwd=zpm_project
    )
    assert again.text(1) == '[{"X":"socrates"}]'


@pytest.mark.anyio
async def test_the_official_client_talks_to_zpm_serve(zpm_project: Path) -> None:
    async with mcp_session(zpm("serve"), cwd=zpm_project) as session:
        result = await session.call_tool("echo", {"message": "Hello, world!"})
        assert [item.text for item in result.content] == ["Hello, world!"]
        assert result.is_error is False


def test_cli_tool_commands_share_the_project(zpm_project: Path) -> None:
    assert run("remember-fact", "--fact", "human(socrates)", cwd=zpm_project).stdout == (
        "Asserted: human(socrates)\n"
    )
    query = run("query-logic", "--goal", "human(X)", "--format", "json", cwd=zpm_project)
    assert (query.returncode, json.loads(query.stdout)) == (0, [{"X": "socrates"}])
    missing = run("forget-fact", "--fact", "human(plato)", cwd=zpm_project)
    assert (missing.returncode, missing.stdout) == (
        1,
        "ERROR: No matching clause found for: human(plato)\n",
    )


def test_a_real_tool_command_does_not_import_the_mcp_sdk(zpm_project: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        from zpm_app.cli import main
        code = main(["query-logic", "--goal", "true"])
        print(code, sorted({"mcp", "mcp_types", "pydantic", "anyio"} & set(sys.modules)))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=zpm_project, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.splitlines() == ["[{}]", "0 []"], done.stderr


def test_a_one_shot_query(zpm_project: Path) -> None:
    """Its cold start is measured by benchmarks/cli_cold_start.py."""
    done = run("query-logic", "--goal", "true", cwd=zpm_project)
    assert done.stdout == "[{}]\n"


SERVE_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "serve"


@pytest.mark.parametrize(
    "command", [zpm("serve", "--init"), [str(SERVE_SCRIPT)]], ids=["serve-init", "scripts-serve"]
)
def test_serve_creates_a_relative_project_and_leaves_nothing_when_it_fails(
    tmp_path: Path, command: list[str]
) -> None:
    served = run_piped(
        [tool_call(1, "remember_fact", {"fact": "p(1)"})],
        command=[*command, "--project", "rel/proj"],
        cwd=tmp_path,
    )
    assert served.returncode == 0, served.stderr
    assert served.text(1) == "Asserted: p(1)"
    assert (tmp_path / "rel" / "proj" / ".zpm" / "data").is_dir()
    assert not (tmp_path / "rel" / "proj" / "rel").exists()
    failed = run_piped(
        [], command=[*command, "--project", "other/proj", "--engine", "bogus"], cwd=tmp_path
    )
    assert failed.returncode == 1 and "Unknown engine: bogus" in failed.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rel"]
    (tmp_path / "plain").mkdir()
    failed = run_piped(
        [], command=[*command, "--project", "plain", "--engine", "bogus"], cwd=tmp_path
    )
    assert failed.returncode == 1 and list((tmp_path / "plain").iterdir()) == []
