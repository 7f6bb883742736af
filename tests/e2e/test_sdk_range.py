"""zpm works with every MCP SDK release its requirement admits: the newest is the
one this project's own environment runs (the whole suite), the oldest is
installed here, with the wheel, into a fresh venv that serves a real stdio
session in both protocol eras."""

from __future__ import annotations

import json
import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from mcp_harness import MODERN_VERSION, modern, modern_call, run_piped, tool_call
from packaged import ROOT, run, venv_with, wheel_of

pytestmark = pytest.mark.slow

DEPENDENCIES = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
    "dependencies"
]


def sdk_range(name: str) -> tuple[str, str]:
    """The lower and upper bound of requirement ``name`` (``name>=LOW,<HIGH``)."""
    (found,) = [d for d in DEPENDENCIES if re.match(rf"{name}\s*[><=]", d)]
    match = re.fullmatch(rf"{name}\s*>=\s*([\d.]+)\s*,\s*<\s*([\d.]+)", found)
    assert match, f"{found!r} is not a range >=LOW,<HIGH"
    return match[1], match[2]


LOW, HIGH = sdk_range("mcp")


def test_mcp_and_mcp_types_share_one_range_that_this_environment_is_in() -> None:
    assert sdk_range("mcp-types") == (LOW, HIGH)
    installed = tuple(int(part) for part in version("mcp").split("."))
    assert tuple(int(part) for part in LOW.split(".")) <= installed < (int(HIGH),)
    assert version("mcp-types") == version("mcp")


@pytest.fixture(scope="module")
def oldest_bin(zpm_dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with the wheel and the oldest SDK release the requirement admits."""
    venv = tmp_path_factory.mktemp("oldest-sdk") / "venv"
    return venv_with(venv, wheel_of(zpm_dist), f"mcp=={LOW}")


def test_the_oldest_sdk_is_the_one_installed(oldest_bin: Path) -> None:
    script = "from importlib.metadata import version; print(version('mcp'), version('mcp-types'))"
    assert run(oldest_bin / "python", "-c", script).stdout.split() == [LOW, LOW]


def test_the_oldest_sdk_serves_a_handshake_session(oldest_bin: Path, tmp_path: Path) -> None:
    served = run_piped(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            tool_call(2, "remember_fact", {"fact": "human(socrates)"}),
            tool_call(3, "define_rule", {"head": "mortal(X)", "body": "human(X)"}),
            tool_call(4, "query_logic", {"goal": "mortal(Who)"}),
            tool_call(5, "echo", {"message": 42}),
            tool_call(6, "no_such_tool", {}),
        ],
        command=[str(oldest_bin / "zpm"), "serve", "--init", "--project", str(tmp_path / "p")],
    )
    assert served.returncode == 0, served.stderr
    init = served.answer(0)["result"]
    assert (init["protocolVersion"], init["serverInfo"]["name"]) == ("2025-11-25", "zpm")
    assert "query_logic" in {tool["name"] for tool in served.answer(1)["result"]["tools"]}
    assert served.text(2) == "Asserted: human(socrates)"
    answer = served.answer(4)["result"]
    assert answer["content"] == [{"type": "text", "text": '[{"Who":"socrates"}]'}]
    assert answer["structuredContent"] == {"answers": [{"Who": "socrates"}], "truncated": False}
    (wrong,) = [line for line in served.lines if line.startswith('{"jsonrpc":"2.0","id":5,')]
    assert '{"type":"text","text":"InvalidArguments","isError":true}' in wrong
    assert served.answer(6)["error"]["code"] == -32602


def test_the_oldest_sdk_serves_the_2026_era(oldest_bin: Path, tmp_path: Path) -> None:
    served = run_piped(
        [
            modern(1, "server/discover"),
            modern_call(2, "remember_fact", {"fact": "p(1)"}),
            modern_call(3, "query_logic", {"goal": "p(X)"}),
            modern(4, "tools/list", version="2099-01-01"),
        ],
        command=[str(oldest_bin / "zpm"), "serve", "--init", "--project", str(tmp_path / "p")],
        handshake=False,
    )
    assert served.returncode == 0, served.stderr
    assert served.answer(1)["result"]["supportedVersions"] == [MODERN_VERSION]
    assert served.text(2) == "Asserted: p(1)"
    structured = served.answer(3)["result"]["structuredContent"]
    assert json.dumps(structured) == '{"answers": [{"X": 1}], "truncated": false}'
    error = served.answer(4)["error"]
    assert error["code"] == -32022 and MODERN_VERSION in error["data"]["supported"]
